//! The client role: connect, initialize, then call the server's tools, resources, prompts
//! and completions; answer its sampling, elicitation and roots requests.
//!
//! ```no_run
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
//! use oxmcp::client::Client;
//! use oxmcp::transport::ChildProcess;
//! use serde_json::json;
//!
//! let client = Client::builder("my-client", "1.0.0")
//!     .connect(ChildProcess::new("oxmcp").args(["everything-server", "--stdio"]).spawn()?)
//!     .await?;
//! for tool in client.list_all_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let result = client.call_tool("echo", json!({"text": "hi"})).await?;
//! assert_eq!(result.content[0].as_text(), Some("hi"));
//! client.close().await;
//! # Ok(()) }
//! ```

mod handlers;
mod inbox;
mod listen;
mod notification;
mod skills;
mod stateless;
mod tasks;

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

pub use handlers::ClientContext;
pub use notification::ServerNotification;
pub use skills::LoadedSkill;
pub use stateless::Era;
pub use tasks::TaskStart;

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    methods, CallToolRequestParams, CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCapability,
    GetPromptRequestParams, GetPromptResult, Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListRootsResult, ListToolsResult, LoggingLevel, Prompt, ProtocolVersion,
    ReadResourceResult, Resource, ResourceTemplate, Root, RootsCapability, SamplingCapability, ServerCapabilities, TaskSupport,
    Tool,
};
use crate::session::{Peer, RequestOptions, Session, SessionConfig, SessionStats};
use crate::transport::Transport;
use handlers::{boxed, ClientService, Handlers};

/// Builds a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    handlers: Handlers,
    config: SessionConfig,
    version: ProtocolVersion,
    era: Era,
    discover_timeout: std::time::Duration,
}

impl ClientBuilder {
    /// Which protocol era to speak: [`Era::Auto`] (the default) probes the server with
    /// `server/discover` and falls back to `initialize` when it is older; the choice holds
    /// for the whole connection ([`Client::era`] tells which it was). The process
    /// remembers an older server by its endpoint (URL or command line) for an hour, so
    /// reconnecting to it initializes at once.
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// How long [`Era::Auto`] waits for the `server/discover` answer before it checks with
    /// a `ping` whether the server is still starting or is an older one that ignores
    /// unknown methods (default 10 s). A server that answers the ping but not the probe
    /// is taken for an older one; one that answers neither is waited for, up to the
    /// session's request timeout.
    pub fn discover_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.discover_timeout = timeout;
        self
    }

    /// Session settings (timeouts of requests to the server, limits).
    pub fn session_config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// Declares the extension `id` (with its `settings`, `{}` for none) in the client's
    /// capabilities: in `initialize` (session era) and in every request's `_meta`
    /// (stateless era). For example [`TASKS_EXTENSION`](crate::protocol::TASKS_EXTENSION),
    /// after which a server may answer a tool call with a task handle.
    pub fn extension(mut self, id: &str, settings: Value) -> Self {
        self.capabilities.extensions.get_or_insert_with(Map::new).insert(id.to_string(), settings);
        self
    }

    /// The protocol version to ask for (default: the latest). A version names its era:
    /// a session-era version means [`Era::Session`], 2026-07-28 means [`Era::Stateless`].
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self.era = if version.is_stateless() { Era::Stateless } else { Era::Session };
        self
    }

    /// Answers `sampling/createMessage` (declares the sampling capability).
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams, ClientContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult>> + Send + 'static,
    {
        self.capabilities.sampling.get_or_insert_with(SamplingCapability::default);
        self.handlers.sampling = Some(boxed(f));
        self
    }

    /// Answers `elicitation/create` (declares form and URL elicitation).
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams, ClientContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult>> + Send + 'static,
    {
        self.capabilities.elicitation =
            Some(ElicitationCapability { form: Some(Map::new()), url: Some(Map::new()), ..Default::default() });
        self.handlers.elicitation = Some(boxed(f));
        self
    }

    /// Answers `roots/list` with a fixed list (declares the roots capability).
    pub fn roots(self, roots: Vec<Root>) -> Self {
        let roots = Arc::new(roots);
        self.on_list_roots(move |_, _| {
            let roots = roots.clone();
            async move { Ok(ListRootsResult::new((*roots).clone())) }
        })
    }

    /// Answers `roots/list` with a function (declares the roots capability).
    pub fn on_list_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn((), ClientContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult>> + Send + 'static,
    {
        self.capabilities.roots = Some(RootsCapability { list_changed: Some(true), ..Default::default() });
        self.handlers.roots = Some(boxed(f));
        self
    }

    /// Receives every notification from the server (log messages, list changes, resource
    /// updates, progress). Called in order, one at a time: keep it quick. Logs of every
    /// level arrive in both eras (in the stateless era each request asks for `debug` and
    /// up) until [`Client::set_log_level`] says otherwise.
    pub fn on_notification(mut self, f: impl Fn(ServerNotification) + Send + Sync + 'static) -> Self {
        self.handlers.notification = Some(Arc::new(f));
        self
    }

    /// Connects over `transport`: discovers the server (stateless era) or performs the
    /// `initialize` handshake (session era), as [`ClientBuilder::era`] says.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
    /// use oxmcp::client::{Client, Era};
    /// use oxmcp::server::Server;
    /// use oxmcp::transport::MemoryTransport;
    ///
    /// let server = Server::builder("both-eras", "1.0.0").build()?;
    /// let (server_end, client_end) = MemoryTransport::pair();
    /// let _session = server.serve(server_end);
    /// // An oxmcp server speaks both eras, so Auto settles on the newer one.
    /// let client = Client::builder("me", "1.0.0").connect(client_end).await?;
    /// assert_eq!(client.era(), Era::Stateless);
    /// assert_eq!(client.server_info().name, "both-eras");
    /// # Ok(()) }
    /// ```
    pub async fn connect<T: Transport>(self, transport: T) -> Result<Client> {
        // An Auto client that recently found this server to be session-only skips the probe.
        let endpoint = transport.endpoint();
        let known_older = self.era == Era::Auto && stateless::known_session_only(endpoint.as_deref());
        let inbox = Arc::new(inbox::Inbox::default());
        let service = ClientService { handlers: self.handlers.clone(), inbox: inbox.clone() };
        let session = Session::start(transport, Arc::new(service), self.config.clone());
        let peer = session.peer().clone();
        if self.era != Era::Session && !known_older {
            let base = stateless::base_meta(&self.info, &self.capabilities);
            match stateless::discover(&peer, &base, self.discover_timeout).await {
                Ok(Some(found)) => {
                    stateless::remember_era(endpoint.as_deref(), false);
                    peer.set_protocol_version(ProtocolVersion::STATELESS);
                    let has_callback = self.handlers.notification.is_some();
                    let state = Arc::new(stateless::Stateless::new(base, self.handlers.clone()));
                    // The session era delivers a server's logs unasked; here each request
                    // must ask. A client that listens gets them all, as it would there,
                    // until it sets a level.
                    if has_callback {
                        state.set_log_level(LoggingLevel::Debug);
                    }
                    let init = stateless::as_initialize_result(&found);
                    let listen = listen::Listen::new(inbox);
                    // The session era delivers list changes to the callback unasked; here
                    // they need a listen stream. A server without one still serves.
                    if has_callback {
                        if let Err(e) = listen.list_changes(&peer, &state, &init.capabilities).await {
                            tracing::warn!("no list-change notifications: subscriptions/listen failed ({e})");
                        }
                    }
                    let stateless = Some((state, listen));
                    let (handlers, capabilities) = (self.handlers, self.capabilities);
                    let version = ProtocolVersion::STATELESS;
                    return Ok(Client {
                        session,
                        peer,
                        init,
                        version,
                        stateless,
                        handlers,
                        capabilities,
                        tool_tasks: Default::default(),
                    });
                }
                Ok(None) if self.era == Era::Auto => stateless::remember_era(endpoint.as_deref(), true),
                Ok(None) => {
                    session.close().await;
                    return Err(Error::new(ErrorKind::Protocol, "the server does not speak the stateless era (2026-07-28)"));
                }
                Err(e) => {
                    session.close().await;
                    return Err(e);
                }
            }
        }
        let connected = self.initialize(session, peer).await;
        if known_older && connected.is_err() {
            // Perhaps no longer an older server: probe again next time.
            stateless::remember_era(endpoint.as_deref(), false);
        }
        connected
    }

    async fn initialize(self, session: Session, peer: Peer) -> Result<Client> {
        let mut capabilities = self.capabilities.clone();
        let version = if self.version.is_stateless() { ProtocolVersion::LATEST } else { self.version };
        if !version.supports_elicitation() {
            capabilities.elicitation = None; // elicitation/create does not exist yet
        } else if version < ProtocolVersion::V2025_11_25 {
            // Form and URL modes are 2025-11-25; before, the capability is an empty object.
            capabilities.elicitation = capabilities.elicitation.map(|_| ElicitationCapability::default());
        }
        let params = InitializeRequestParams::new(version.as_str(), capabilities, self.info);
        let init: InitializeResult = typed(&peer, methods::INITIALIZE, &params, RequestOptions::default()).await?;
        let Some(version) = ProtocolVersion::parse(&init.protocol_version).filter(|v| !v.is_stateless()) else {
            session.close().await;
            return Err(Error::new(
                ErrorKind::Protocol,
                format!("the server chose protocol version {:?}, which this client does not support", init.protocol_version),
            ));
        };
        peer.set_protocol_version(version);
        peer.notify(methods::INITIALIZED, None)?;
        let (handlers, capabilities) = (self.handlers, self.capabilities);
        Ok(Client { session, peer, init, version, stateless: None, handlers, capabilities, tool_tasks: Default::default() })
    }
}

/// A connected, initialized MCP client.
pub struct Client {
    session: Session,
    peer: Peer,
    init: InitializeResult,
    version: ProtocolVersion,
    /// Set when the connection speaks the stateless era: its state and listen stream.
    stateless: Option<(Arc<stateless::Stateless>, listen::Listen)>,
    /// What answers the server's questions (also those a task asks through `tasks/get`).
    handlers: Handlers,
    /// What the client declared.
    capabilities: ClientCapabilities,
    /// Each listed tool's `execution.taskSupport`, as the last `tools/list` said: a
    /// 2025-11-25 server's tool that runs only as a task is called as one.
    tool_tasks: std::sync::Mutex<std::collections::HashMap<String, TaskSupport>>,
}

async fn typed<P: Serialize, R: DeserializeOwned>(peer: &Peer, method: &str, params: &P, options: RequestOptions) -> Result<R> {
    let value = peer.request(method, Some(serde_json::to_value(params)?), options).await?;
    parse_result(method, value)
}

/// A result of `method` as its type; a result that is not is the server's fault.
fn parse_result<R: DeserializeOwned>(method: &str, value: Value) -> Result<R> {
    serde_json::from_value(value)
        .map_err(|e| Error::new(ErrorKind::Protocol, format!("malformed {method} result from the server: {e}")))
}

fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({ "cursor": c }),
        None => json!({}),
    }
}

impl Client {
    /// Starts building a client named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            info: Implementation::new(name, version),
            capabilities: ClientCapabilities::default(),
            handlers: Handlers::default(),
            config: SessionConfig::default(),
            version: ProtocolVersion::LATEST,
            era: Era::Auto,
            discover_timeout: std::time::Duration::from_secs(10),
        }
    }

    /// The session handle (raw requests and notifications, stats).
    pub fn peer(&self) -> &Peer {
        &self.peer
    }
    /// The server's `initialize` result.
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.init
    }
    /// The server's name and version.
    pub fn server_info(&self) -> &Implementation {
        &self.init.server_info
    }
    /// The server's capabilities.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.init.capabilities
    }
    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.init.instructions.as_deref()
    }
    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// Requests in flight each way, for leak checks: the session's maps, less the
    /// client's own `subscriptions/listen` stream (stateless era), so an idle client
    /// reports zero in both eras. [`Client::peer`]`().stats()` counts everything.
    pub fn stats(&self) -> SessionStats {
        let mut stats = self.peer.stats();
        if let Some((_, listen)) = &self.stateless {
            stats.pending_requests = stats.pending_requests.saturating_sub(listen.open_streams());
        }
        stats
    }

    /// Which era this connection speaks.
    pub fn era(&self) -> Era {
        if self.stateless.is_some() {
            Era::Stateless
        } else {
            Era::Session
        }
    }

    /// Sends any request and returns its raw result: in the stateless era with the
    /// request's `_meta` added and the server's input requests answered (see
    /// [`Era::Stateless`]), in the session era as it is.
    ///
    /// The session-era methods the stateless era removed keep their meaning there:
    /// `ping` becomes a `server/discover` round trip, `logging/setLevel` sets the level
    /// every later request asks for, and `resources/subscribe` / `unsubscribe` reopen the
    /// client's `subscriptions/listen` stream with or without the resource. So every
    /// binding gets the same behaviour from this one entry point.
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value> {
        let Some((s, listen)) = &self.stateless else {
            return self.peer.request(method, params, options).await;
        };
        match method {
            methods::PING => s.request(&self.peer, methods::SERVER_DISCOVER, None, options).await.map(|_| json!({})),
            methods::LOGGING_SET_LEVEL => {
                let level = params.as_ref().and_then(|p| p.get("level")).cloned().unwrap_or_default();
                let level: LoggingLevel = serde_json::from_value(level.clone())
                    .map_err(|_| Error::new(ErrorKind::InvalidInput, format!("unknown log level {level}")))?;
                s.set_log_level(level);
                Ok(json!({}))
            }
            methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
                let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                let uri = uri.ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("{method} needs a uri")))?;
                if method == methods::RESOURCES_SUBSCRIBE {
                    listen.subscribe(&self.peer, s, uri).await?;
                } else {
                    listen.unsubscribe(&self.peer, s, uri).await?;
                }
                Ok(json!({}))
            }
            _ => s.request(&self.peer, method, params, options).await,
        }
    }

    async fn typed<P: Serialize, R: DeserializeOwned>(&self, method: &str, params: &P, options: RequestOptions) -> Result<R> {
        let value = self.request(method, Some(serde_json::to_value(params)?), options).await?;
        parse_result(method, value)
    }

    /// Checks the server is there: `ping` in the session era; the stateless era has no
    /// ping, so a `server/discover` round trip stands in for it.
    pub async fn ping(&self) -> Result<()> {
        self.ping_with(RequestOptions::default()).await
    }
    /// [`ping`](Self::ping) with per-call options (timeout, cancel).
    pub async fn ping_with(&self, options: RequestOptions) -> Result<()> {
        self.request(methods::PING, None, options).await.map(drop)
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult> {
        let listed: ListToolsResult = self.typed(methods::TOOLS_LIST, &cursor_params(cursor), RequestOptions::default()).await?;
        self.note_task_support(&listed.tools);
        Ok(listed)
    }
    /// Every tool, following `nextCursor`.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.all_pages(|c| async move { self.list_tools(c.as_deref()).await.map(|r| (r.tools, r.next_cursor)) }).await
    }
    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult> {
        self.typed(methods::RESOURCES_LIST, &cursor_params(cursor), RequestOptions::default()).await
    }
    /// Every resource, following `nextCursor`.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.all_pages(|c| async move { self.list_resources(c.as_deref()).await.map(|r| (r.resources, r.next_cursor)) }).await
    }
    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(&self, cursor: Option<&str>) -> Result<ListResourceTemplatesResult> {
        self.typed(methods::RESOURCES_TEMPLATES_LIST, &cursor_params(cursor), RequestOptions::default()).await
    }
    /// Every resource template, following `nextCursor`.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.all_pages(|c| async move {
            self.list_resource_templates(c.as_deref()).await.map(|r| (r.resource_templates, r.next_cursor))
        })
        .await
    }
    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult> {
        self.typed(methods::PROMPTS_LIST, &cursor_params(cursor), RequestOptions::default()).await
    }
    /// Every prompt, following `nextCursor`.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.all_pages(|c| async move { self.list_prompts(c.as_deref()).await.map(|r| (r.prompts, r.next_cursor)) }).await
    }

    async fn all_pages<T, F, Fut>(&self, mut fetch: F) -> Result<Vec<T>>
    where
        F: FnMut(Option<String>) -> Fut,
        Fut: Future<Output = Result<(Vec<T>, Option<String>)>>,
    {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let (items, next) = fetch(cursor.take()).await?;
            all.extend(items);
            match next {
                // A server that repeats a cursor would loop forever: stop with an error.
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(Error::new(ErrorKind::Protocol, format!("the server repeated the cursor {c:?}")))
                }
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// Calls a tool with JSON object arguments.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.call_tool_with(name, arguments, RequestOptions::default()).await
    }

    /// Calls a tool with a timeout, progress callback or cancellation token.
    ///
    /// ```no_run
    /// # async fn f(client: oxmcp::client::Client) -> oxmcp::Result<()> {
    /// use oxmcp::session::RequestOptions;
    /// let cancel = tokio_util::sync::CancellationToken::new();
    /// let options = RequestOptions::default()
    ///     .on_progress(|p| eprintln!("progress {}", p.progress))
    ///     .cancel_token(cancel.clone());
    /// let result = client.call_tool_with("slow", serde_json::json!({"tag": 1, "ms": 500}), options).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// A tool of a 2025-11-25 server that runs only as a task (`execution.taskSupport`
    /// `required`) is called as one, as [`call_tool_as_task`](Client::call_tool_as_task)
    /// does; the token still cancels it.
    pub async fn call_tool_with(&self, name: &str, arguments: Value, options: RequestOptions) -> Result<CallToolResult> {
        if self.runs_only_as_task(name).await {
            return self.call_tool_as_required_task(name, arguments, options).await;
        }
        let mut params = CallToolRequestParams::new(name);
        params.arguments = tool_arguments(arguments)?;
        self.typed(methods::TOOLS_CALL, &params, options).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.typed(methods::RESOURCES_READ, &json!({ "uri": uri }), RequestOptions::default()).await
    }
    /// Subscribes to updates of a resource; they reach the notification callback as
    /// [`ServerNotification::ResourceUpdated`]. In the stateless era this (re)opens the
    /// client's `subscriptions/listen` stream and returns once the server acknowledged it.
    ///
    /// An oxmcp server follows at most [`crate::server::MAX_RESOURCE_SUBSCRIPTIONS`] URIs
    /// per session or stream; past them it answers -32602.
    pub async fn subscribe(&self, uri: &str) -> Result<()> {
        self.request(methods::RESOURCES_SUBSCRIBE, Some(json!({ "uri": uri })), RequestOptions::default()).await.map(drop)
    }
    /// Ends a subscription.
    pub async fn unsubscribe(&self, uri: &str) -> Result<()> {
        self.request(methods::RESOURCES_UNSUBSCRIBE, Some(json!({ "uri": uri })), RequestOptions::default()).await.map(drop)
    }
    /// Gets a prompt with string arguments.
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult> {
        let mut params = GetPromptRequestParams::new(name);
        let args: std::collections::BTreeMap<String, String> = arguments.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        if !args.is_empty() {
            params.arguments = Some(args);
        }
        self.typed(methods::PROMPTS_GET, &params, RequestOptions::default()).await
    }
    /// Asks for completions of a prompt argument or template variable.
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult> {
        self.typed(methods::COMPLETION_COMPLETE, &params, RequestOptions::default()).await
    }
    /// Sets the minimum level of log messages the server sends: `logging/setLevel` in the
    /// session era; in the stateless era every later request asks for that level in its
    /// `_meta` (without it, the server sends no logs).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<()> {
        self.set_log_level_with(level, RequestOptions::default()).await
    }
    /// [`set_log_level`](Self::set_log_level) with per-call options (timeout, cancel).
    pub async fn set_log_level_with(&self, level: LoggingLevel, options: RequestOptions) -> Result<()> {
        self.request(methods::LOGGING_SET_LEVEL, Some(json!({ "level": level })), options).await.map(drop)
    }
    /// Tells the server the roots changed (session era; a stateless-era server asks for
    /// roots within each request that needs them, so there is no one to tell).
    pub fn notify_roots_changed(&self) -> Result<()> {
        if self.stateless.is_some() {
            return Ok(());
        }
        self.peer.notify(methods::ROOTS_LIST_CHANGED, None)
    }

    /// Closes the connection and waits for the transport to shut (a child process exits).
    pub async fn close(self) {
        if let Some((_, listen)) = &self.stateless {
            listen.close();
        }
        self.session.close().await
    }

    /// [`Client::close`] through a shared reference; later calls return at once.
    pub async fn shutdown(&self) {
        if let Some((_, listen)) = &self.stateless {
            listen.close();
        }
        self.session.shutdown().await
    }
}

/// A tool call's arguments: an object, or `null` for none (sent without `arguments`).
pub(crate) fn tool_arguments(arguments: Value) -> Result<Option<serde_json::Map<String, Value>>> {
    match arguments {
        Value::Object(map) => Ok(Some(map)),
        Value::Null => Ok(None),
        other => Err(Error::new(ErrorKind::InvalidInput, format!("tool arguments must be a JSON object, not {other}"))),
    }
}
