//! The server role: register tools, resources, templates, prompts and completions, then
//! serve any number of sessions over any transport.
//!
//! ```
//! use oxmcp::server::Server;
//! use oxmcp::protocol::{CallToolResult, Tool};
//! use serde_json::json;
//!
//! let server = Server::builder("demo", "1.0.0")
//!     .instructions("A server with one tool.")
//!     .tool(
//!         Tool::new("add", "Add two integers", json!({
//!             "type": "object",
//!             "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!             "required": ["a", "b"]
//!         })),
//!         |args, _ctx| async move {
//!             let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
//!             Ok(CallToolResult::text(sum.to_string()))
//!         },
//!     )
//!     .build()
//!     .unwrap();
//! // server.serve_stdio().await runs it on stdin/stdout.
//! # drop(server);
//! ```

mod cluster;
mod context;
mod dispatch;
mod handler;
#[cfg(feature = "http")]
mod http;
mod input_required;
mod listen;
mod middleware;
mod mount;
mod next;
mod registry;
mod skills;
mod state_key;
pub mod tasks;
mod uri_template;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde_json::json;

pub use context::{ClientState, RequestContext};
pub use handler::{Arguments, CompletionHandler, PromptArguments, PromptHandler, ResourceHandler, ResourceRequest, ToolHandler};
pub use listen::MAX_RESOURCE_SUBSCRIPTIONS;
pub use middleware::Middleware;
pub use next::{Next, Reply};
pub use skills::SkillBundle;
pub use state_key::{StateKey, STATE_TTL};
pub use uri_template::UriTemplate;

use crate::error::Result;
use crate::protocol::{
    methods, CallToolResult, CompleteRequestParams, Completion, GetPromptResult, Implementation, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use crate::session::{Peer, Session, SessionConfig};
use crate::transport::{StdioTransport, Transport};
use registry::{PromptEntry, Registry, ResourceEntry};

/// Server-wide settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Settings of each session (limits, timeouts of requests to the client).
    pub session: SessionConfig,
    /// Items per page in `*/list` results.
    pub page_size: usize,
    /// Stateless era (2026-07-28): how long clients may reuse `server/discover`, list and
    /// read results (`ttlMs`). 0, the default, asks them to ask again each time, which
    /// stays right when tools, resources or prompts change at run time.
    pub cache_ttl_ms: u64,
    /// Stateless era: who may cache those results (`cacheScope`); private by default,
    /// since a handler may answer differently per user.
    pub cache_scope: crate::protocol::CacheScope,
    /// Stateless era: the key that seals `requestState` (multi round-trip requests). A
    /// random one per server by default; give servers that share clients (behind a load
    /// balancer) the same key.
    pub state_key: Option<StateKey>,
    /// Tasks (the `io.modelcontextprotocol/tasks` extension): where they are kept and how
    /// long. A tool declaring `execution.taskSupport` runs as a task for clients that
    /// declared the extension.
    pub tasks: tasks::TaskOptions,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            session: SessionConfig::default(),
            page_size: 100,
            cache_ttl_ms: 0,
            cache_scope: crate::protocol::CacheScope::Private,
            state_key: None,
            tasks: tasks::TaskOptions::default(),
        }
    }
}

impl ServerConfig {
    /// These settings for a server that shares its clients with other nodes through
    /// `store` (behind a load balancer, with the same store given to the HTTP server as
    /// `HttpServerConfig::store`): the `requestState` key every node shares (made by the
    /// first node, read by the others) and tasks kept in the store.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), oxmcp::store::StoreError> {
    /// use std::sync::Arc;
    /// let store: Arc<dyn oxmcp::store::SharedStore> = Arc::new(oxmcp::store::MemoryStore::default());
    /// let config = oxmcp::server::ServerConfig::default().shared_through(&store).await?;
    /// assert!(config.state_key.is_some());
    /// # Ok(()) }
    /// ```
    pub async fn shared_through(
        mut self,
        store: &Arc<dyn crate::store::SharedStore>,
    ) -> std::result::Result<Self, crate::store::StoreError> {
        self.state_key = Some(StateKey::shared(store).await?);
        self.tasks.store = Arc::new(tasks::SharedTaskStore::new(store.clone()));
        Ok(self)
    }
}

/// An MCP server. Cheap to clone; clones share registries and sessions.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// Written as the `Server` it is the shared part of: a request's context holds this one
/// (see `context::OwnResources`) and prints it as it printed the server.
impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.info.name).finish_non_exhaustive()
    }
}

struct Inner {
    info: Implementation,
    instructions: Option<String>,
    config: ServerConfig,
    registry: RwLock<Registry>,
    sessions: Mutex<HashMap<u64, (Peer, Arc<ClientState>)>>,
    next_session: AtomicU64,
    /// Seals the stateless era's `requestState`.
    state_key: StateKey,
    /// Open `subscriptions/listen` streams (stateless era).
    listeners: listen::Listeners,
    /// Around every routed request, outermost first.
    middleware: Vec<Arc<dyn Middleware>>,
    /// The tasks this server runs and keeps.
    tasks: Arc<tasks::Tasks>,
    /// Set when an HTTP server shares this server's sessions with other nodes: changes
    /// every client must hear go through the store's bus (see [`cluster`]).
    shared: OnceLock<cluster::Shared>,
}

/// Builds a [`Server`]; registration errors (an invalid schema) surface at [`ServerBuilder::build`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    config: ServerConfig,
    registry: Registry,
    error: Option<crate::Error>,
    middleware: Vec<Arc<dyn Middleware>>,
}

impl ServerBuilder {
    /// Instructions for the client's model, sent in the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }
    /// Replaces the server info (to set a title, description, icons...).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }
    /// Server-wide settings.
    pub fn config(mut self, config: ServerConfig) -> Self {
        self.config = config;
        self
    }
    /// Registers a tool whose handler is an async closure `(arguments, ctx) -> Result<CallToolResult>`.
    pub fn tool<F, Fut>(self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Arguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
    {
        self.tool_handler(tool, handler)
    }
    /// Registers a tool with any [`ToolHandler`] (what host-language bindings use).
    pub fn tool_handler(self, tool: Tool, handler: impl ToolHandler) -> Self {
        self.add_tool_entry(tool, Arc::new(handler), false)
    }
    /// Registers a task-supporting tool (its `execution.taskSupport` `optional` or
    /// `required`) whose calls start inline, asking the client what they need (MRTR rounds
    /// in the stateless era), and become tasks when the handler calls
    /// [`RequestContext::escalate_to_task`]; a client that did not declare the tasks
    /// extension gets the whole call inline (or -32021 if the tool requires tasks).
    pub fn escalating_tool<F, Fut>(self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Arguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
    {
        self.add_tool_entry(tool, Arc::new(handler), true)
    }
    /// [`ServerBuilder::escalating_tool`] with any [`ToolHandler`].
    pub fn escalating_tool_handler(self, tool: Tool, handler: impl ToolHandler) -> Self {
        self.add_tool_entry(tool, Arc::new(handler), true)
    }
    fn add_tool_entry(mut self, tool: Tool, handler: Arc<dyn ToolHandler>, escalating: bool) -> Self {
        match Registry::tool_entry(tool, handler) {
            Ok(mut e) => {
                e.escalating = escalating;
                self.registry.tools.insert(e.tool.name.clone(), Arc::new(e));
            }
            Err(e) => self.error = self.error.or(Some(e)),
        }
        self
    }
    /// Serves a skill (the skills extension): its files become `skill://` resources and
    /// the server answers `skills/list`, `skills/get` and `resources/directory/read`.
    /// A bundle that breaks the extension's rules fails [`ServerBuilder::build`].
    pub fn skill(mut self, bundle: SkillBundle) -> Self {
        if let Err(e) = self.registry.skills.add(bundle) {
            self.error = self.error.or(Some(e));
        }
        self
    }
    /// Serves every skill under `root` (each directory holding a `SKILL.md`, at its path
    /// relative to `root`); see [`SkillBundle::all_in_dir`].
    pub fn skills_dir(self, root: impl AsRef<std::path::Path>) -> Self {
        match SkillBundle::all_in_dir(root.as_ref()) {
            Ok(bundles) => bundles.into_iter().fold(self, ServerBuilder::skill),
            Err(e) => Self { error: self.error.or(Some(e)), ..self },
        }
    }
    /// Registers a resource with a fixed URI; the handler is an async closure `(request, ctx)`.
    pub fn resource<F, Fut>(self, resource: Resource, handler: F) -> Self
    where
        F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        self.resource_handler(resource, handler)
    }
    /// Registers a resource with any [`ResourceHandler`].
    pub fn resource_handler(mut self, resource: Resource, handler: impl ResourceHandler) -> Self {
        let entry = ResourceEntry { resource, handler: Arc::new(handler) };
        self.registry.resources.insert(entry.resource.uri.clone(), Arc::new(entry));
        self
    }
    /// Registers a resource template (RFC 6570); its handler receives the variables.
    pub fn resource_template<F, Fut>(self, template: ResourceTemplate, handler: F) -> Self
    where
        F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        self.resource_template_handler(template, handler)
    }
    /// Registers a resource template with any [`ResourceHandler`].
    pub fn resource_template_handler(mut self, template: ResourceTemplate, handler: impl ResourceHandler) -> Self {
        match Registry::template_entry(template, Arc::new(handler)) {
            Ok(e) => {
                self.registry.templates.insert(e.template.uri_template.clone(), Arc::new(e));
            }
            Err(e) => self.error = self.error.or(Some(e)),
        }
        self
    }
    /// Registers a prompt; the handler is an async closure `(arguments, ctx)`.
    pub fn prompt<F, Fut>(self, prompt: Prompt, handler: F) -> Self
    where
        F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
    {
        self.prompt_handler(prompt, handler)
    }
    /// Registers a prompt with any [`PromptHandler`].
    pub fn prompt_handler(mut self, prompt: Prompt, handler: impl PromptHandler) -> Self {
        let entry = PromptEntry { prompt, handler: Arc::new(handler) };
        self.registry.prompts.insert(entry.prompt.name.clone(), Arc::new(entry));
        self
    }
    /// Sets the completion provider (prompt arguments and template variables).
    pub fn completion<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(CompleteRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Completion>> + Send + 'static,
    {
        self.completion_handler(handler)
    }
    /// Adds a middleware around every routed request (see [`Middleware`]); the first one
    /// added is the outermost.
    pub fn middleware(mut self, m: impl Middleware) -> Self {
        self.middleware.push(Arc::new(m));
        self
    }
    /// Sets the completion provider with any [`CompletionHandler`].
    pub fn completion_handler(mut self, handler: impl CompletionHandler) -> Self {
        self.registry.completion = Some(Arc::new(handler));
        self
    }
    /// Finishes; fails if a tool schema or a template did not compile.
    pub fn build(self) -> Result<Server> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(Server {
            inner: Arc::new(Inner {
                info: self.info,
                instructions: self.instructions,
                state_key: self.config.state_key.clone().unwrap_or_else(StateKey::random),
                tasks: tasks::Tasks::new(self.config.tasks.clone(), self.config.session.cancelled_handler_grace),
                config: self.config,
                registry: RwLock::new(self.registry),
                sessions: Mutex::new(HashMap::new()),
                next_session: AtomicU64::new(1),
                listeners: listen::Listeners::default(),
                middleware: self.middleware,
                shared: OnceLock::new(),
            }),
        })
    }
}

/// What a session served over HTTP knows of its requests beyond their messages.
#[derive(Default)]
pub(crate) struct FromHttp {
    /// Who the session's tokens speak for (a protected server).
    pub(crate) auth: Option<crate::auth::SessionAuth>,
    /// Each request's HTTP headers.
    pub(crate) headers: Option<crate::transport::http::headers::RequestHeaders>,
    /// Where the client's state is kept for other nodes (a shared HTTP server).
    pub(crate) saver: Option<crate::store::StateSaver>,
    /// A shared session's readers of its standalone stream on this node.
    pub(crate) readers: Option<Arc<std::sync::atomic::AtomicUsize>>,
}

/// One connected client; dropping it closes the session.
pub struct ServerSession {
    session: Session,
    client: Arc<ClientState>,
}

impl ServerSession {
    /// The session handle (for notifications and requests to this client).
    pub fn peer(&self) -> &Peer {
        self.session.peer()
    }
    /// The client's info, once it has initialized.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client.info.get().map(|(i, _)| i)
    }
    /// Waits until the client disconnects.
    pub async fn wait(&self) {
        self.session.wait().await
    }
    /// Closes the session and waits for the transport to shut.
    pub async fn close(self) {
        self.session.close().await
    }
}

impl Server {
    /// How many handles on this server exist (this one included): what still uses it.
    pub(crate) fn holders(&self) -> usize {
        Arc::strong_count(&self.inner)
    }

    /// Starts building a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            config: ServerConfig::default(),
            registry: Registry::default(),
            error: None,
            middleware: Vec::new(),
        }
    }

    /// Serves one client over `transport` (returns at once; the session runs in tasks).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
    /// use oxmcp::client::Client;
    /// use oxmcp::protocol::{CallToolResult, Tool};
    /// use oxmcp::server::Server;
    /// use oxmcp::transport::MemoryTransport;
    /// use serde_json::json;
    ///
    /// let server = Server::builder("greeter", "1.0.0")
    ///     .tool(Tool::new("hello", "Says hello", json!({"type": "object"})), |_args, _ctx| async {
    ///         Ok(CallToolResult::text("hello"))
    ///     })
    ///     .build()?;
    /// let (server_end, client_end) = MemoryTransport::pair();
    /// let _session = server.serve(server_end);
    /// let client = Client::builder("me", "1.0.0").connect(client_end).await?;
    /// let result = client.call_tool("hello", json!({})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("hello"));
    /// # Ok(()) }
    /// ```
    pub fn serve<T: Transport>(&self, transport: T) -> ServerSession {
        self.serve_with(transport, FromHttp::default())
    }

    /// Serves a session whose requests came over HTTP (`from`: their verified tokens and
    /// headers, which handlers read from [`RequestContext::auth`] and
    /// [`RequestContext::headers`]).
    pub(crate) fn serve_with<T: Transport>(&self, transport: T, from: FromHttp) -> ServerSession {
        let id = self.inner.next_session.fetch_add(1, Ordering::Relaxed);
        let FromHttp { auth, headers, saver, readers } = from;
        let client = Arc::new(ClientState { saver, readers, ..ClientState::new() });
        let service = dispatch::ServerService { server: self.clone(), client: client.clone(), session_id: id, auth, headers };
        let session = Session::start(transport, Arc::new(service), self.inner.config.session.clone());
        self.inner.sessions.lock().unwrap().insert(id, (session.peer().clone(), client.clone()));
        ServerSession { session, client }
    }

    /// Serves one request of a stateless transport: no `initialize` came before it, so the
    /// session starts as initialized at `version`, knowing nothing of the client (whose
    /// capabilities are then empty: no server-to-client requests).
    pub fn serve_stateless<T: Transport>(&self, transport: T, version: crate::protocol::ProtocolVersion) -> ServerSession {
        self.serve_stateless_with(transport, version, FromHttp::default())
    }

    pub(crate) fn serve_stateless_with<T: Transport>(
        &self,
        transport: T,
        version: crate::protocol::ProtocolVersion,
        from: FromHttp,
    ) -> ServerSession {
        let session = self.serve_with(transport, from);
        if !version.is_stateless() {
            // A session-era request without initialize (a stateless HTTP deployment);
            // stateless-era requests say who they are in their own _meta instead.
            let _ = session.client.info.set((Implementation::new("unknown", ""), Default::default()));
        }
        session.peer().set_protocol_version(version);
        session
    }

    /// Serves one client on stdin/stdout until stdin closes.
    pub async fn serve_stdio(&self) -> Result<()> {
        let session = self.serve(StdioTransport::stdio());
        session.wait().await;
        session.close().await;
        Ok(())
    }

    /// Number of live sessions.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.lock().unwrap().len()
    }

    /// Adds (or replaces) a tool at runtime and tells clients the list changed.
    pub fn add_tool<F, Fut>(&self, tool: Tool, handler: F) -> Result<()>
    where
        F: Fn(Arguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
    {
        self.add_tool_handler(tool, handler)
    }

    /// [`Server::add_tool`] with any [`ToolHandler`].
    pub fn add_tool_handler(&self, tool: Tool, handler: impl ToolHandler) -> Result<()> {
        self.add_tool_entry(tool, Arc::new(handler), false)
    }

    /// Adds (or replaces) an escalating tool at runtime (see [`ServerBuilder::escalating_tool`]).
    pub fn add_escalating_tool_handler(&self, tool: Tool, handler: impl ToolHandler) -> Result<()> {
        self.add_tool_entry(tool, Arc::new(handler), true)
    }

    fn add_tool_entry(&self, tool: Tool, handler: Arc<dyn ToolHandler>, escalating: bool) -> Result<()> {
        let mut entry = Registry::tool_entry(tool, handler)?;
        entry.escalating = escalating;
        self.inner.registry.write().unwrap().tools.insert(entry.tool.name.clone(), Arc::new(entry));
        self.broadcast(methods::TOOLS_LIST_CHANGED);
        Ok(())
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.registry.write().unwrap().tools.shift_remove(name).is_some();
        if removed {
            self.broadcast(methods::TOOLS_LIST_CHANGED);
        }
        removed
    }

    /// Adds (or replaces) a resource at runtime.
    pub fn add_resource<F, Fut>(&self, resource: Resource, handler: F)
    where
        F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        self.add_resource_handler(resource, handler)
    }

    /// [`Server::add_resource`] with any [`ResourceHandler`].
    pub fn add_resource_handler(&self, resource: Resource, handler: impl ResourceHandler) {
        let entry = ResourceEntry { resource, handler: Arc::new(handler) };
        self.inner.registry.write().unwrap().resources.insert(entry.resource.uri.clone(), Arc::new(entry));
        self.broadcast(methods::RESOURCES_LIST_CHANGED);
    }

    /// Serves one more skill at runtime (see [`ServerBuilder::skill`]); clients hear that
    /// the resource list changed.
    pub fn add_skill(&self, bundle: SkillBundle) -> Result<()> {
        self.inner.registry.write().unwrap().skills.add(bundle)?;
        self.broadcast(methods::RESOURCES_LIST_CHANGED);
        Ok(())
    }

    /// Removes a resource; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.inner.registry.write().unwrap().resources.shift_remove(uri).is_some();
        if removed {
            self.broadcast(methods::RESOURCES_LIST_CHANGED);
        }
        removed
    }

    /// Adds (or replaces) a prompt at runtime.
    pub fn add_prompt<F, Fut>(&self, prompt: Prompt, handler: F)
    where
        F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
    {
        self.add_prompt_handler(prompt, handler)
    }

    /// [`Server::add_prompt`] with any [`PromptHandler`].
    pub fn add_prompt_handler(&self, prompt: Prompt, handler: impl PromptHandler) {
        let entry = PromptEntry { prompt, handler: Arc::new(handler) };
        self.inner.registry.write().unwrap().prompts.insert(entry.prompt.name.clone(), Arc::new(entry));
        self.broadcast(methods::PROMPTS_LIST_CHANGED);
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.inner.registry.write().unwrap().prompts.shift_remove(name).is_some();
        if removed {
            self.broadcast(methods::PROMPTS_LIST_CHANGED);
        }
        removed
    }

    /// Sends `notifications/resources/updated` to every client subscribed to `uri`: the
    /// sessions that sent `resources/subscribe`, and the `subscriptions/listen` streams
    /// whose filter names it.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.tell_every_node(cluster::Change::Updated(uri.to_string()));
    }

    /// Tells this node's clients of `change`: the sessions that want it (on a shared
    /// server, those whose standalone stream is read here) and the listen streams.
    fn tell_clients(&self, change: &cluster::Change) {
        match change {
            cluster::Change::Updated(uri) => {
                for (peer, client) in self.live_sessions() {
                    if client.subscriptions.lock().unwrap().contains(uri) {
                        let _ = peer.notify(methods::RESOURCES_UPDATED, Some(json!({ "uri": uri })));
                    }
                }
                self.inner.listeners.resource_updated(uri);
            }
            cluster::Change::Listed(method) => {
                for (peer, _) in self.live_sessions() {
                    let _ = peer.notify(method, None);
                }
                self.inner.listeners.list_changed(method);
            }
            cluster::Change::Task(event) => self.inner.tasks.heard((**event).clone()),
        }
    }

    /// Ends every open `subscriptions/listen` stream gracefully: each gets its answer,
    /// which tells the client the server closed it on purpose (before a shutdown).
    pub fn end_subscriptions(&self) {
        self.inner.listeners.end_all();
    }

    /// Number of open `subscriptions/listen` streams.
    pub fn subscription_count(&self) -> usize {
        self.inner.listeners.count()
    }

    /// The `x-mcp-header` annotations of tool `name` (found when it was registered), or
    /// `None` if there is no such tool: what a 2026-07-28 `tools/call` over HTTP must
    /// mirror into `Mcp-Param-*` headers.
    pub fn tool_header_params(&self, name: &str) -> Option<Arc<[crate::protocol::mirrored_headers::HeaderParam]>> {
        self.inner.registry.read().unwrap().tools.get(name).map(|t| t.header_params.clone())
    }

    fn live_sessions(&self) -> Vec<(Peer, Arc<ClientState>)> {
        let reads_here = |c: &ClientState| c.readers.as_ref().is_none_or(|r| r.load(Ordering::Relaxed) > 0);
        let sessions = self.inner.sessions.lock().unwrap();
        sessions.values().filter(|(_, c)| c.info.get().is_some() && reads_here(c)).cloned().collect()
    }

    fn broadcast(&self, method: &str) {
        self.tell_every_node(cluster::Change::Listed(method.to_string()));
    }

    fn forget_session(&self, id: u64) {
        self.inner.sessions.lock().unwrap().remove(&id);
    }
}
