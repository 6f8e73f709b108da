//! The staged server: what every host's `Server` object is underneath. A binding files
//! definitions (JSON) with a host function for each, then serves over stdio or HTTP; the
//! engine's server is built on first serve, and later tools, resources and prompts go live.

use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::calls::{CallId, HostCalls};
#[cfg(feature = "http")]
use super::http_listener::HttpOptions;
use super::listen::Listeners;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    CallToolResult, CompleteRequestParams, Completion, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    TaskSupport, Tool,
};
use crate::schema::Schema;
use crate::server::{
    Arguments, CompletionHandler, PromptArguments, PromptHandler, RequestContext, ResourceHandler, ResourceRequest, Server,
    ServerConfig, SkillBundle, ToolHandler, UriTemplate,
};

/// Hands one call to the host: `(call id, input JSON)`. Returns `false` when the host can
/// no longer run anything (its interpreter or environment is gone). The host answers later
/// with [`HostCalls::complete`], from any thread.
pub type HostFn = Arc<dyn Fn(CallId, String) -> bool + Send + Sync>;

/// What a host function serves, which input it gets and which result it owes.
///
/// | kind | input | result |
/// |---|---|---|
/// | `Tool` | the arguments object (validated against the input schema) | `CallToolResult` |
/// | `Resource`, `ResourceTemplate` | `{"uri", "variables"}` (`variables` empty for a plain resource) | `ReadResourceResult` |
/// | `Prompt` | the arguments object (strings) | `GetPromptResult` |
/// | `Completion` | the `completion/complete` params | `Completion` |
/// | `Middleware` | `{"method", "params"}` of any routed request; [`context::next`](super::context::next) goes on | the request's result (any JSON) |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// A tool.
    Tool,
    /// A resource with a fixed URI.
    Resource,
    /// A resource template (RFC 6570).
    ResourceTemplate,
    /// A prompt.
    Prompt,
    /// The completion handler (one per server; its definition is ignored).
    Completion,
    /// Code around every routed request (its definition is ignored; the first registered
    /// is the outermost). See [`crate::server::Middleware`].
    Middleware,
}

impl HandlerKind {
    /// The kind's name, as bindings spell it: `tool`, `resource`, `resource template`,
    /// `prompt`, `completion`.
    pub fn name(self) -> &'static str {
        match self {
            HandlerKind::Tool => "tool",
            HandlerKind::Resource => "resource",
            HandlerKind::ResourceTemplate => "resource template",
            HandlerKind::Prompt => "prompt",
            HandlerKind::Completion => "completion",
            HandlerKind::Middleware => "middleware",
        }
    }

    /// The kind named `name` (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Result<Self> {
        [Self::Tool, Self::Resource, Self::ResourceTemplate, Self::Prompt, Self::Completion, Self::Middleware]
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("unknown handler kind {name:?}")))
    }

    /// Checks that `result` (JSON text) has the shape this kind owes, so a host can be told
    /// at once (the call stays open); [`ErrorKind::InvalidInput`] if not.
    pub fn check_result(self, result: &str) -> Result<()> {
        fn shape<T: DeserializeOwned>(kind: HandlerKind, owed: &str, text: &str) -> Result<()> {
            serde_json::from_str::<T>(text)
                .map(drop)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("not a valid {} result ({owed}): {e}", kind.name())))
        }
        match self {
            // Any JSON value: the engine's rule makes it a result (see `host::result`).
            HandlerKind::Tool => shape::<Value>(self, "JSON", result),
            HandlerKind::Resource | HandlerKind::ResourceTemplate => {
                shape::<ReadResourceResult>(self, "ReadResourceResult", result)
            }
            HandlerKind::Prompt => shape::<GetPromptResult>(self, "GetPromptResult", result),
            HandlerKind::Completion => shape::<Completion>(self, "Completion", result),
            HandlerKind::Middleware => shape::<Value>(self, "JSON", result),
        }
    }
}

/// A host's answer, read as the result `kind` owes; a wrong shape is the handler's fault.
fn parse<T: DeserializeOwned>(kind: HandlerKind, text: &str) -> Result<T> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {} handler returned an invalid result: {e}", kind.name())))
}

/// A host function as the engine's handler traits see it.
#[derive(Clone)]
struct Adapter {
    kind: HandlerKind,
    f: HostFn,
    calls: Arc<HostCalls>,
    /// A tool's: whether it declares an output schema (the result rule wraps a value that
    /// is not an object for it).
    output_schema: bool,
}

impl Adapter {
    async fn answer(&self, input: Value, mut ctx: RequestContext) -> Result<String> {
        let input = input.to_string();
        let token: CancellationToken = ctx.cancellation_token().clone();
        let f = self.f.clone();
        // The host's run (telemetry on), a child of the span it is called in (the server's,
        // or a task's life): the handler's info names it, so the host's own spans and the
        // requests the handler sends nest under it.
        let kind = opentelemetry::KeyValue::new("oxmcp.handler.kind", self.kind.name());
        let run = crate::telemetry::Step::internal("host handler", vec![kind]);
        if let Some(run) = &run {
            ctx.trace = Some(run.context().clone());
        }
        let out = self.calls.run(token, Some(ctx), move |id| f(id, input)).await;
        if let Some(run) = run {
            run.end(out.as_ref().map(|_| ()).map_err(|e| (e.kind().name(), e.message())));
        }
        out
    }

    async fn run<T: DeserializeOwned>(self, input: Value, ctx: RequestContext) -> Result<T> {
        let text = self.answer(input, ctx).await?;
        parse(self.kind, &text)
    }
}

impl ToolHandler for Adapter {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        let h = self.clone();
        Box::pin(async move {
            let text = h.answer(Value::Object(arguments), ctx).await?;
            super::result::tool_result_from_text(&text, h.output_schema)
        })
    }
}

impl ResourceHandler for Adapter {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, Result<ReadResourceResult>> {
        Box::pin(self.clone().run(json!({ "uri": request.uri, "variables": request.variables }), ctx))
    }
}

impl PromptHandler for Adapter {
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, Result<GetPromptResult>> {
        Box::pin(self.clone().run(json!(arguments), ctx))
    }
}

impl CompletionHandler for Adapter {
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, Result<Completion>> {
        let input = serde_json::to_value(params);
        let h = self.clone();
        Box::pin(async move { h.run(input?, ctx).await })
    }
}

impl crate::server::Middleware for Adapter {
    fn handle(
        &self,
        method: String,
        params: Option<Value>,
        ctx: RequestContext,
        next: crate::server::Next,
    ) -> BoxFuture<'static, crate::server::Reply> {
        let input = json!({ "method": method, "params": params });
        // The host goes on with `context::next`, which takes the chain from its context.
        let ctx = ctx.with_next(next, params);
        let h = self.clone();
        Box::pin(async move { h.run::<Value>(input, ctx).await.map_err(|e| e.to_error_object()) })
    }
}

/// A parsed, checked definition and its handler.
enum Registration {
    /// A tool, and whether it escalates to a task midway (`"escalating": true` in its
    /// definition: the engine's flag, not published).
    Tool(Tool, Adapter, bool),
    Resource(Resource, Adapter),
    Template(ResourceTemplate, Adapter),
    Prompt(Prompt, Adapter),
    Completion(Adapter),
    Middleware(Adapter),
    /// Another staged server's registrations, under a prefix.
    Mount(String, Arc<StagedServer>),
    /// A skill's files (the skills extension), already checked.
    Skill(SkillBundle),
}

impl Registration {
    /// Whether `other` registers the same thing (a later one replaces it). Middleware,
    /// mounts and skills are never the same: each adds.
    fn same_key(&self, other: &Registration) -> bool {
        match (self, other) {
            (Registration::Tool(a, ..), Registration::Tool(b, ..)) => a.name == b.name,
            (Registration::Resource(a, _), Registration::Resource(b, _)) => a.uri == b.uri,
            (Registration::Template(a, _), Registration::Template(b, _)) => a.uri_template == b.uri_template,
            (Registration::Prompt(a, _), Registration::Prompt(b, _)) => a.name == b.name,
            (Registration::Completion(_), Registration::Completion(_)) => true,
            _ => false,
        }
    }
}

/// A definition read from JSON; a refusal names the field it is about
/// (`execution.taskSupport: unknown variant ...`).
fn definition<T: DeserializeOwned>(kind: HandlerKind, text: &str) -> Result<T> {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text)).map_err(|e| {
        let message = match e.path().to_string().as_str() {
            "." => format!("invalid {}: {}", kind.name(), e.inner()),
            path => format!("invalid {}: {path}: {}", kind.name(), e.inner()),
        };
        Error::caused(ErrorKind::InvalidInput, message, e.into_inner())
    })
}

struct State {
    name: String,
    version: String,
    instructions: Option<String>,
    config: ServerConfig,
    registrations: Vec<Registration>,
    /// The engine's server, once serving started.
    running: Option<Server>,
    /// The host's own check of access tokens, for a protected HTTP listener.
    #[cfg(feature = "http")]
    token_verifier: Option<HostFn>,
}

/// A server whose handlers are host functions. Every binding's `Server` wraps one.
///
/// ```
/// use std::sync::Arc;
/// use oxmcp::host::{HandlerKind, StagedServer};
///
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// let server = StagedServer::new("demo", "1.0");
/// let calls = server.calls().clone();
/// // A "host" that answers every call at once with a text result.
/// server.register(HandlerKind::Tool, r#"{"name":"hi","inputSchema":{"type":"object"}}"#, Arc::new(move |id, _input| {
///     calls.complete(id, Ok(r#"{"content":[{"type":"text","text":"hello"}]}"#.into()));
///     true
/// }))?;
/// assert!(server.remove_tool("hi"));
/// # Ok(()) }
/// ```
pub struct StagedServer {
    state: Mutex<State>,
    calls: Arc<HostCalls>,
    listeners: Listeners,
}

impl StagedServer {
    /// A server named `name` at `version`, with default settings.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Arc<Self> {
        Self::with_config(name, version, ServerConfig::default())
    }

    /// A server with `config`; cancelled host calls get its session's grace period.
    pub fn with_config(name: impl Into<String>, version: impl Into<String>, config: ServerConfig) -> Arc<Self> {
        let calls = HostCalls::new(config.session.cancelled_handler_grace);
        let state = State {
            name: name.into(),
            version: version.into(),
            instructions: None,
            config,
            registrations: Vec::new(),
            running: None,
            #[cfg(feature = "http")]
            token_verifier: None,
        };
        Arc::new(Self { state: Mutex::new(state), calls, listeners: Listeners::default() })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The table of host calls in flight: hosts answer through it.
    pub fn calls(&self) -> &Arc<HostCalls> {
        &self.calls
    }

    /// Sets the instructions sent in the `initialize` result (before serving).
    pub fn set_instructions(&self, text: impl Into<String>) -> Result<()> {
        let mut state = self.lock();
        if state.running.is_some() {
            return Err(Error::new(ErrorKind::InvalidInput, "instructions must be set before serving"));
        }
        state.instructions = Some(text.into());
        Ok(())
    }

    /// How the server keeps its tasks, as hosts pass it (JSON, camelCase, all optional):
    /// `{"ttlMs": 3600000 (null: no limit), "pollIntervalMs": 500, "maxTasks": 10000,
    /// "maxTasksPerOwner": 1000, "maxBytes": 268435456, "maxBytesPerOwner": 33554432,
    /// "maxRunning": 1000}` (see [`TaskLimits`](crate::server::tasks::TaskLimits)). Before
    /// serving.
    ///
    /// ```
    /// let server = oxmcp::host::StagedServer::new("jobs", "1");
    /// server.set_task_options(r#"{"ttlMs": 60000, "maxRunning": 8}"#).unwrap();
    /// assert!(server.set_task_options(r#"{"ttl": 1}"#).is_err(), "unknown keys are refused");
    /// ```
    pub fn set_task_options(&self, json: &str) -> Result<()> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Options {
            #[serde(default = "default_ttl")]
            ttl_ms: Option<u64>,
            poll_interval_ms: Option<u64>,
            max_tasks: Option<usize>,
            max_tasks_per_owner: Option<usize>,
            max_bytes: Option<u64>,
            max_bytes_per_owner: Option<u64>,
            max_running: Option<usize>,
        }
        fn default_ttl() -> Option<u64> {
            crate::server::tasks::TaskOptions::default().ttl.map(|t| t.as_millis() as u64)
        }
        let o: Options =
            serde_json::from_str(json).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid task options: {e}")))?;
        let mut state = self.lock();
        if state.running.is_some() {
            return Err(Error::new(ErrorKind::InvalidInput, "task options must be set before serving"));
        }
        let tasks = &mut state.config.tasks;
        tasks.ttl = o.ttl_ms.map(std::time::Duration::from_millis);
        if let Some(ms) = o.poll_interval_ms {
            tasks.poll_interval = std::time::Duration::from_millis(ms);
        }
        let limits = &mut tasks.limits;
        limits.max_tasks = o.max_tasks.unwrap_or(limits.max_tasks);
        limits.max_tasks_per_owner = o.max_tasks_per_owner.unwrap_or(limits.max_tasks_per_owner);
        limits.max_bytes = o.max_bytes.unwrap_or(limits.max_bytes);
        limits.max_bytes_per_owner = o.max_bytes_per_owner.unwrap_or(limits.max_bytes_per_owner);
        if let Some(n) = o.max_running {
            tasks.max_running = n;
        }
        Ok(())
    }

    /// Registers `definition` (JSON; ignored for [`HandlerKind::Completion`]) served by `f`.
    /// The definition is checked now (schemas compiled, templates parsed). While serving,
    /// tools, resources and prompts go live at once; templates and completion must come
    /// before.
    pub fn register(&self, kind: HandlerKind, definition_json: &str, f: HostFn) -> Result<()> {
        let mut h = Adapter { kind, f, calls: self.calls.clone(), output_schema: false };
        let r = match kind {
            HandlerKind::Tool => {
                let mut tool: Tool = definition(kind, definition_json)?;
                h.output_schema = tool.output_schema.is_some();
                Schema::compile(&tool.input_schema)?;
                if let Some(out) = &tool.output_schema {
                    Schema::compile(out)?;
                }
                let escalating = match tool.extra.remove("escalating") {
                    None | Some(Value::Bool(false)) => false,
                    Some(Value::Bool(true)) => true,
                    Some(other) => {
                        return Err(Error::new(
                            ErrorKind::InvalidInput,
                            format!("invalid tool: escalating is {other}, not a boolean"),
                        ))
                    }
                };
                // Escalating means "a task once the handler says so": a tool no client may
                // run as a task could never become one.
                let tasks = tool.execution.as_ref().and_then(|e| e.task_support);
                if escalating && !matches!(tasks, Some(TaskSupport::Optional | TaskSupport::Required)) {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        format!(
                            "invalid tool {}: an escalating tool needs execution.taskSupport \"optional\" or \"required\"",
                            tool.name
                        ),
                    ));
                }
                Registration::Tool(tool, h, escalating)
            }
            HandlerKind::Resource => Registration::Resource(definition(kind, definition_json)?, h),
            HandlerKind::ResourceTemplate => {
                let t: ResourceTemplate = definition(kind, definition_json)?;
                UriTemplate::parse(&t.uri_template)
                    .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid resource template: {e}")))?;
                Registration::Template(t, h)
            }
            HandlerKind::Prompt => Registration::Prompt(definition(kind, definition_json)?, h),
            HandlerKind::Completion => Registration::Completion(h),
            HandlerKind::Middleware => Registration::Middleware(h),
        };
        let mut state = self.lock();
        if let Some(server) = &state.running {
            match &r {
                Registration::Tool(t, h, false) => server.add_tool_handler(t.clone(), h.clone())?,
                Registration::Tool(t, h, true) => server.add_escalating_tool_handler(t.clone(), h.clone())?,
                Registration::Resource(res, h) => server.add_resource_handler(res.clone(), h.clone()),
                Registration::Prompt(p, h) => server.add_prompt_handler(p.clone(), h.clone()),
                Registration::Template(..)
                | Registration::Completion(..)
                | Registration::Middleware(..)
                | Registration::Mount(..)
                | Registration::Skill(..) => {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        "resource templates, completion and middleware must be registered before serving",
                    ))
                }
            }
        }
        // A later registration of the same tool, resource, template or prompt (or the
        // completion handler) replaces the earlier one where it stood: the earlier handler is
        // let go now, not kept for good behind the one that wins.
        match state.registrations.iter().position(|old| old.same_key(&r)) {
            Some(i) => state.registrations[i] = r,
            None => state.registrations.push(r),
        }
        Ok(())
    }

    /// Serves a skill (the skills extension): `files_json` maps each file's path in the
    /// skill to its text, `SKILL.md` among them; `skill_path` is where it is served
    /// (`skill://<skill_path>/SKILL.md`; its last segment is the skill's name). Checked
    /// now; live at once while serving.
    ///
    /// ```
    /// let server = oxmcp::host::StagedServer::new("docs", "1");
    /// let md = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n";
    /// server.add_skill("git-workflow", &serde_json::json!({ "SKILL.md": md }).to_string()).unwrap();
    /// let e = server.add_skill("other", &serde_json::json!({ "SKILL.md": md }).to_string()).unwrap_err();
    /// assert!(e.message().contains("must be its name"));
    /// ```
    pub fn add_skill(&self, skill_path: &str, files_json: &str) -> Result<()> {
        let files: std::collections::BTreeMap<String, String> = serde_json::from_str(files_json)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid skill files (an object of texts): {e}")))?;
        let bundle = files.into_iter().fold(SkillBundle::new(skill_path), |b, (path, text)| b.file(path, text));
        self.add_skills(vec![bundle])
    }

    /// Serves every skill under the directory `root` (each directory holding a
    /// `SKILL.md`, at its path relative to `root`). Read and checked now.
    pub fn add_skills_dir(&self, root: &str) -> Result<()> {
        self.add_skills(SkillBundle::all_in_dir(std::path::Path::new(root))?)
    }

    fn add_skills(&self, bundles: Vec<SkillBundle>) -> Result<()> {
        bundles.iter().try_for_each(SkillBundle::check)?;
        let mut state = self.lock();
        for bundle in bundles {
            if let Some(server) = &state.running {
                server.add_skill(bundle.clone())?;
            }
            state.registrations.push(Registration::Skill(bundle));
        }
        Ok(())
    }

    /// Removes a tool, staged or live; returns whether it existed (clients are told the
    /// list changed).
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(|r| matches!(r, Registration::Tool(t, _, _) if t.name == name), |s| s.remove_tool(name))
    }

    /// Serves `other`'s tools, prompts, resources and templates under `prefix` (see
    /// [`crate::server::Server::mount`]): what `other` has when this server starts
    /// serving, or now if it serves already.
    pub fn mount(&self, prefix: &str, other: &Arc<StagedServer>) -> Result<()> {
        // A cycle would build each server from the other, for ever.
        if std::ptr::eq(self, other.as_ref()) || other.mounts(self) {
            return Err(Error::new(ErrorKind::InvalidInput, "a server cannot mount itself, even through others"));
        }
        let running = self.lock().running.clone();
        match running {
            Some(server) => server.mount(prefix, &other.server()?),
            None => {
                self.lock().registrations.push(Registration::Mount(prefix.to_string(), other.clone()));
                Ok(())
            }
        }
    }

    /// Whether this server mounts `target`, directly or through others.
    fn mounts(&self, target: &StagedServer) -> bool {
        let mounted: Vec<Arc<StagedServer>> = self
            .lock()
            .registrations
            .iter()
            .filter_map(|r| match r {
                Registration::Mount(_, s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        mounted.iter().any(|s| std::ptr::eq(s.as_ref(), target) || s.mounts(target))
    }

    /// Serves what the server at the other end of `client` offers, under `prefix`, each
    /// call forwarded (see [`crate::server::Server::mount_client`]). This starts the
    /// engine's server: templates, completion and middleware must be registered before.
    pub async fn mount_client(&self, prefix: &str, client: Arc<crate::client::Client>) -> Result<()> {
        self.server()?.mount_client(prefix, client).await
    }

    /// Removes a prompt, staged or live; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(|r| matches!(r, Registration::Prompt(p, _) if p.name == name), |s| s.remove_prompt(name))
    }

    /// Removes a resource (not a template), staged or live; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(|r| matches!(r, Registration::Resource(res, _) if res.uri == uri), |s| s.remove_resource(uri))
    }

    /// Removes the tool or prompt named `key`, or the resource at `key`, by the kind's name
    /// as bindings spell it (see [`HandlerKind::name`]): one entry point for every host's
    /// removals. Other kinds are [`ErrorKind::InvalidInput`].
    ///
    /// ```
    /// use oxmcp::host::{HandlerKind, StagedServer};
    /// let server = StagedServer::new("demo", "1");
    /// assert_eq!(server.remove_named(HandlerKind::Prompt, "absent").unwrap(), false);
    /// assert!(server.remove_named(HandlerKind::Completion, "x").is_err());
    /// ```
    pub fn remove_named(&self, kind: HandlerKind, key: &str) -> Result<bool> {
        match kind {
            HandlerKind::Tool => Ok(self.remove_tool(key)),
            HandlerKind::Prompt => Ok(self.remove_prompt(key)),
            HandlerKind::Resource => Ok(self.remove_resource(key)),
            other => Err(Error::new(ErrorKind::InvalidInput, format!("a {} cannot be removed by name", other.name()))),
        }
    }

    /// Drops the registrations `staged` matches, and what `live` removes from the running
    /// server: true if either found something.
    fn remove(&self, staged: impl Fn(&Registration) -> bool, live: impl FnOnce(&Server) -> bool) -> bool {
        let mut state = self.lock();
        let before = state.registrations.len();
        state.registrations.retain(|r| !staged(r));
        let was_staged = state.registrations.len() != before;
        let was_live = state.running.as_ref().is_some_and(live);
        was_staged || was_live
    }

    /// Tells subscribed clients that a resource changed (nothing before serving).
    pub fn notify_resource_updated(&self, uri: &str) {
        if let Some(s) = &self.lock().running {
            s.notify_resource_updated(uri);
        }
    }

    /// Whether nothing can call the host's handlers any more, told without waiting: no host
    /// call is under way or queued, and the running server (if it ever ran) is held by
    /// nothing but this staged server (no listener, session, in-memory connection or task).
    /// `false` when it cannot tell at once. For a host's garbage collector: a server whose
    /// handlers hold the host object that holds it can be collected only while this is true.
    ///
    /// ```
    /// let server = oxmcp::host::StagedServer::new("idle", "1");
    /// assert!(server.is_idle());
    /// ```
    pub fn is_idle(&self) -> bool {
        if self.calls.try_is_empty() != Some(true) {
            return false;
        }
        let Ok(state) = self.state.try_lock() else { return false };
        state.running.as_ref().is_none_or(|s| s.holders() == 1)
    }

    /// Live sessions (0 before serving).
    pub fn session_count(&self) -> usize {
        self.lock().running.as_ref().map_or(0, |s| s.session_count())
    }

    /// The engine's server, built on first use from what is registered.
    pub fn server(&self) -> Result<Server> {
        let mut state = self.lock();
        if let Some(s) = &state.running {
            return Ok(s.clone());
        }
        let mut b = Server::builder(&state.name, &state.version).config(state.config.clone());
        if let Some(i) = &state.instructions {
            b = b.instructions(i.clone());
        }
        for r in &state.registrations {
            b = match r {
                Registration::Tool(t, h, false) => b.tool_handler(t.clone(), h.clone()),
                Registration::Tool(t, h, true) => b.escalating_tool_handler(t.clone(), h.clone()),
                Registration::Resource(res, h) => b.resource_handler(res.clone(), h.clone()),
                Registration::Template(t, h) => b.resource_template_handler(t.clone(), h.clone()),
                Registration::Prompt(p, h) => b.prompt_handler(p.clone(), h.clone()),
                Registration::Completion(h) => b.completion_handler(h.clone()),
                Registration::Middleware(h) => b.middleware(h.clone()),
                Registration::Mount(prefix, other) => b.mount(prefix, &other.server()?)?,
                Registration::Skill(bundle) => b.skill(bundle.clone()),
            };
        }
        let server = b.build()?;
        state.running = Some(server.clone());
        Ok(server)
    }

    /// Starts serving one client on this process's stdin/stdout; the returned future runs
    /// until stdin closes or [`close`](Self::close) is called (dropping it stops too).
    /// One stdio serve at a time.
    pub fn serve_stdio(&self) -> Result<BoxFuture<'static, Result<()>>> {
        self.serve_stdio_on(None)
    }

    /// Like [`serve_stdio`](Self::serve_stdio), stdin read on the host's event loop when
    /// `read_on` is given (see [`HostLoop`](crate::transport::HostLoop)).
    pub fn serve_stdio_on(&self, read_on: Option<Arc<dyn crate::transport::HostLoop>>) -> Result<BoxFuture<'static, Result<()>>> {
        let server = self.server()?;
        self.listeners.serve_stdio(server, read_on)
    }

    /// Serves one client of this process on `transport` (see
    /// [`client::connect_in_memory`](super::client::connect_in_memory)).
    pub fn serve_in_memory(&self, transport: crate::transport::MemoryTransport) -> Result<()> {
        let server = self.server()?;
        self.listeners.serve_in_memory(server, transport);
        Ok(())
    }

    /// Stops serving: the stdio session and in-memory sessions end, and the HTTP listener
    /// and the HTTP apps shut down.
    pub async fn close(&self) {
        self.listeners.close().await;
    }
}

/// The HTTP side of a staged server (the `http` feature).
#[cfg(feature = "http")]
impl StagedServer {
    /// Starts Streamable HTTP (and legacy HTTP+SSE) in the background; returns the
    /// endpoint's URL. A second start replaces the first listener.
    pub async fn start_http(&self, options: HttpOptions) -> Result<String> {
        let store = match &options.redis {
            Some(url) => Some(self.share_through(url).await?),
            None => None,
        };
        let server = self.server()?;
        let verify = self.lock().token_verifier.clone().map(|f| self.host_verifier(f));
        self.listeners.http.start_http(server, options, verify, store).await
    }

    /// Connects the shared store at `url` and gives the server, before it is built, the
    /// settings every node shares (the `requestState` key, the tasks).
    async fn share_through(&self, url: &str) -> Result<Arc<dyn crate::store::SharedStore>> {
        let unavailable = |e: crate::store::StoreError| Error::new(ErrorKind::Transport, format!("{url}: {e}"));
        let store = crate::store::connect(url).await.map_err(unavailable)?;
        let config = self.lock().config.clone();
        let shared = config.shared_through(&store).await.map_err(unavailable)?;
        let mut state = self.lock();
        if state.running.is_some() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a server shared through redis must start serving over HTTP before anything else (it is built with the shared settings)",
            ));
        }
        state.config = shared;
        Ok(store)
    }

    /// Serves HTTP requests that a host hands in (it owns the sockets: an ASGI server, a
    /// web framework) instead of listening itself. Call it within the runtime; `close`
    /// shuts the app down with the rest.
    pub fn http_app(&self, options: HttpOptions) -> Result<super::HttpApp> {
        let server = self.server()?;
        let verify = self.lock().token_verifier.clone().map(|f| self.host_verifier(f));
        self.listeners.http.http_app(server, options, verify)
    }

    /// Has a protected HTTP listener check access tokens with `f` instead of JWT or
    /// introspection: it gets `{"token": "..."}` and answers with who the token speaks
    /// for (`{"subject", "clientId", "scopes", "expiresAt", "claims"}`, any left out), or
    /// fails to refuse it.
    pub fn verify_tokens_with(&self, f: HostFn) {
        self.lock().token_verifier = Some(f);
    }

    fn host_verifier(&self, f: HostFn) -> crate::auth::VerifyFn {
        let calls = self.calls.clone();
        Arc::new(move |token: String| {
            let (calls, f) = (calls.clone(), f.clone());
            Box::pin(async move {
                let input = json!({ "token": token }).to_string();
                let refused = |why: String| Error::new(ErrorKind::Unauthorized, why);
                let text = calls
                    .run(CancellationToken::new(), None, move |id| f(id, input))
                    .await
                    .map_err(|e| refused(e.message().to_string()))?;
                serde_json::from_str::<crate::auth::AuthInfo>(&text)
                    .map_err(|_| refused("the token check answered no identity".into()))
            })
        })
    }

    /// The HTTP listener's address, while one runs.
    pub fn http_addr(&self) -> Option<std::net::SocketAddr> {
        self.listeners.http.http_addr()
    }

    /// Stops the HTTP listener gracefully (nothing if none runs).
    pub async fn stop_http(&self) {
        self.listeners.http.stop_http().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{client, ClientHooks, ConnectOptions};
    use std::time::Duration;

    fn answer_nothing() -> HostFn {
        Arc::new(|_, _| false)
    }

    /// Registers tool `name` answering, at once, a text made of its input.
    fn text_tool(server: &StagedServer, name: &str, text: impl Fn(String) -> String + Send + Sync + 'static) {
        let calls = server.calls().clone();
        let tool = json!({"name": name, "inputSchema": {"type": "object"}}).to_string();
        let answer = Arc::new(move |id, input| {
            calls.complete(id, Ok(json!({"content": [{"type": "text", "text": text(input)}]}).to_string()))
        });
        server.register(HandlerKind::Tool, &tool, answer).unwrap();
    }

    #[tokio::test]
    async fn a_host_middleware_goes_on_with_next_and_may_answer_itself() {
        let server = StagedServer::new("s", "1");
        text_tool(&server, "echo", |input| input);
        // The "host" middleware: refuses `tools/list`, passes calls on with changed
        // arguments (after params that are not JSON, which leave `next` unused), and marks
        // what came back.
        let calls = server.calls().clone();
        let middleware: HostFn = Arc::new(move |id, input| {
            let calls = calls.clone();
            tokio::spawn(async move {
                let input: Value = serde_json::from_str(&input).unwrap();
                if input["method"] == "tools/list" {
                    calls.complete(id, Err(Error::from_rpc(crate::protocol::ErrorObject::new(-32001, "no lists today"))));
                    return;
                }
                let ctx = calls.context(id).unwrap();
                let bad = crate::host::context::next(&ctx, Some("{not json")).await.unwrap_err();
                assert_eq!(bad.kind(), ErrorKind::InvalidInput, "{bad}");
                let params = json!({"name": "echo", "arguments": {"changed": true}}).to_string();
                let out = crate::host::context::next(&ctx, Some(&params)).await.unwrap();
                assert!(crate::host::context::next(&ctx, None).await.is_err(), "next runs once");
                let mut result: Value = serde_json::from_str(&out).unwrap();
                result["_meta"] = json!({"seen": true});
                calls.complete(id, Ok(result.to_string()));
            });
            true
        });
        server.register(HandlerKind::Middleware, "{}", middleware).unwrap();
        let c = client::connect_in_memory(&server, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        let r = c.call_tool("echo", json!({"original": true})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some(r#"{"changed":true}"#));
        assert_eq!(r.meta.unwrap()["seen"], true);
        let e = c.list_all_tools().await.unwrap_err();
        assert_eq!(e.rpc().unwrap().code, -32001);
        assert!(server.register(HandlerKind::Middleware, "{}", answer_nothing()).is_err(), "middleware comes before serving");
        c.close().await;
    }

    /// A host middleware that stops waiting for `next` when the peer cancels (as a host's
    /// cancelled coroutine or task does) leaves the handler behind it its own cancel and
    /// grace: the handler's call is still open while it settles.
    #[tokio::test]
    async fn a_middleware_dropping_next_on_cancel_leaves_the_handler_its_grace() {
        let server = StagedServer::new("s", "1");
        let (settled_tx, settled_rx) = tokio::sync::oneshot::channel::<bool>();
        let settled_tx = Arc::new(std::sync::Mutex::new(Some(settled_tx)));
        let calls = server.calls().clone();
        let tool = json!({"name": "slow", "inputSchema": {"type": "object"}}).to_string();
        let slow: HostFn = Arc::new(move |id, _| {
            let (calls, settled) = (calls.clone(), settled_tx.clone());
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            calls.on_cancel(id, move || {
                let _ = tx.send(());
            });
            tokio::spawn(async move {
                let _ = rx.await;
                // On its way out, a while after the cancel: its call must still be open.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let open = calls.context(id).is_ok();
                if let Some(tx) = settled.lock().unwrap().take() {
                    let _ = tx.send(open);
                }
                calls.complete(id, Err(Error::new(ErrorKind::Cancelled, "stopped")));
            });
            true
        });
        server.register(HandlerKind::Tool, &tool, slow).unwrap();
        let calls = server.calls().clone();
        let middleware: HostFn = Arc::new(move |id, _| {
            let calls = calls.clone();
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            calls.on_cancel(id, move || {
                let _ = tx.send(());
            });
            tokio::spawn(async move {
                let ctx = calls.context(id).unwrap();
                tokio::select! {
                    out = crate::host::context::next(&ctx, None) => { calls.complete(id, out); }
                    _ = rx => { calls.complete(id, Err(Error::new(ErrorKind::Cancelled, "gave up"))); }
                }
            });
            true
        });
        server.register(HandlerKind::Middleware, "{}", middleware).unwrap();
        let c = client::connect_in_memory(&server, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        let call = c.call_tool("slow", json!({}));
        assert!(tokio::time::timeout(Duration::from_millis(200), call).await.is_err(), "the call waits");
        let open = tokio::time::timeout(Duration::from_secs(5), settled_rx).await.expect("the handler settled").unwrap();
        assert!(open, "the handler's call was gone while it settled");
        c.close().await;
    }

    #[tokio::test]
    async fn a_registration_again_replaces_the_earlier_one_in_its_place_and_lets_it_go() {
        let server = StagedServer::new("s", "1");
        let first = Arc::new(());
        let held = first.clone();
        let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}}).to_string();
        let calls = server.calls().clone();
        server
            .register(
                HandlerKind::Tool,
                &tool("a"),
                Arc::new(move |id, _| {
                    let _ = &held;
                    calls.complete(id, Ok(json!({"content": [{"type": "text", "text": "old"}]}).to_string()))
                }),
            )
            .unwrap();
        text_tool(&server, "b", |_| "b".into());
        assert_eq!(Arc::strong_count(&first), 2);
        text_tool(&server, "a", |_| "new".into());
        assert_eq!(Arc::strong_count(&first), 1, "the replaced handler is dropped");
        let c = client::connect_in_memory(&server, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        let names: Vec<String> = c.list_tools(None).await.unwrap().tools.into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["a", "b"], "in the place of the one it replaced");
        assert_eq!(c.call_tool("a", json!({})).await.unwrap().content[0].as_text(), Some("new"));
        c.close().await;
    }

    #[tokio::test]
    async fn a_staged_server_is_idle_only_while_nothing_can_call_its_handlers() {
        let server = StagedServer::new("s", "1");
        // A tool whose calls stay filed until the test answers them.
        let filed = Arc::new(Mutex::new(Vec::new()));
        let keep = filed.clone();
        let tool = json!({"name": "wait", "inputSchema": {"type": "object"}}).to_string();
        server
            .register(
                HandlerKind::Tool,
                &tool,
                Arc::new(move |id, _| {
                    keep.lock().unwrap().push(id);
                    true
                }),
            )
            .unwrap();
        assert!(server.is_idle(), "never served");
        let c = Arc::new(client::connect_in_memory(&server, ConnectOptions::default(), ClientHooks::default()).await.unwrap());
        assert!(!server.is_idle(), "a session holds the running server");
        let call = tokio::spawn({
            let c = c.clone();
            async move { c.call_tool("wait", json!({})).await.map(|_| ()) }
        });
        let id = loop {
            if let Some(id) = filed.lock().unwrap().first().copied() {
                break id;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        server.close().await; // ends the in-memory session
        assert!(!server.is_idle(), "a host call is still filed");
        server.calls().complete(id, Ok(json!({"content": []}).to_string()));
        let _ = call.await;
        drop(c);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !server.is_idle() {
            assert!(tokio::time::Instant::now() < deadline, "still busy after the session and the call ended");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn a_staged_server_mounts_another_refuses_cycles_and_serves_again_after_close() {
        let (main, weather) = (StagedServer::new("main", "1"), StagedServer::new("weather", "1"));
        text_tool(&weather, "forecast", |_| "sunny".into());
        main.mount("w", &weather).unwrap();
        assert!(weather.mount("m", &main).is_err(), "a cycle");
        // Closing ends in-memory sessions, and the server serves new ones after it.
        let first = client::connect_in_memory(&main, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        main.close().await;
        first.peer().closed().await;
        assert!(main.mount("me", &main).is_err());
        let c = client::connect_in_memory(&main, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        assert_eq!(c.call_tool("w_forecast", json!({})).await.unwrap().content[0].as_text(), Some("sunny"));
        c.close().await;
    }

    #[tokio::test]
    async fn a_protected_server_on_port_0_is_the_resource_its_metadata_names() {
        let server = StagedServer::new("s", "1");
        let options = HttpOptions::from_json(r#"{"auth": {"issuer": "https://as.example.com"}}"#).unwrap();
        let url = server.start_http(options).await.unwrap();
        let port = server.http_addr().unwrap().port();
        assert_ne!(port, 0);
        assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
        // The socket that picked the port is the one serving: its metadata answers there
        // and names that URL as the resource tokens must be for.
        let body = reqwest::get(format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let metadata: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(metadata["resource"], url.as_str());
        let refused = reqwest::Client::new().post(&url).body("{}").send().await.unwrap();
        assert_eq!(refused.status(), 401);
        server.close().await;
    }

    #[tokio::test]
    async fn prompts_and_resources_are_removed_staged_or_live() {
        let server = StagedServer::new("s", "1");
        let prompt = |name: &str| format!(r#"{{"name": "{name}"}}"#);
        let resource = |uri: &str| format!(r#"{{"uri": "{uri}", "name": "r"}}"#);
        server.register(HandlerKind::Prompt, &prompt("staged"), answer_nothing()).unwrap();
        server.register(HandlerKind::Resource, &resource("memo://staged"), answer_nothing()).unwrap();
        assert!(server.remove_prompt("staged") && server.remove_resource("memo://staged"), "removed before serving");
        assert!(!server.remove_prompt("staged") && !server.remove_resource("memo://staged"), "only once");

        let c = client::connect_in_memory(&server, ConnectOptions::default(), ClientHooks::default()).await.unwrap();
        server.register(HandlerKind::Prompt, &prompt("live"), answer_nothing()).unwrap();
        server.register(HandlerKind::Resource, &resource("memo://live"), answer_nothing()).unwrap();
        assert_eq!(c.list_all_prompts().await.unwrap().len(), 1);
        assert!(server.remove_prompt("live") && server.remove_resource("memo://live"), "removed while serving");
        assert!(c.list_all_prompts().await.unwrap().is_empty());
        assert!(c.list_all_resources().await.unwrap().is_empty());
        c.close().await;
    }

    #[tokio::test]
    async fn an_http_app_answers_handed_in_requests_and_close_ends_its_sessions() {
        let server = StagedServer::new("s", "1");
        text_tool(&server, "echo", |input| input);
        let app = server.http_app(super::super::HttpOptions::default()).unwrap();
        let headers = |session: Option<&str>| {
            let mut h: Vec<(String, String)> = [
                ("host", "127.0.0.1:8000"),
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2025-11-25"),
            ]
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .to_vec();
            h.extend(session.map(|s| ("mcp-session-id".to_string(), s.to_string())));
            h
        };
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
        let reply = app.handle("POST", "/mcp", &headers(None), init.to_string().into_bytes()).await.unwrap();
        assert_eq!(reply.status, 200);
        let session = reply.headers.iter().find(|(n, _)| n == "mcp-session-id").map(|(_, v)| v.clone()).unwrap();
        assert_eq!(app.session_count(), 1);

        // A call's answer streams back as SSE, chunk by chunk.
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}});
        let reply = app.handle("POST", "/mcp", &headers(Some(&session)), call.to_string().into_bytes()).await.unwrap();
        assert!(reply.headers.iter().any(|(n, v)| n == "content-type" && v == "text/event-stream"));
        let mut body = Vec::new();
        while let Some(chunk) = reply.body.next_chunk().await {
            body.extend_from_slice(&chunk);
        }
        assert!(String::from_utf8_lossy(&body).contains(r#"\"x\":1"#), "{}", String::from_utf8_lossy(&body));

        // Bad input is the engine's answer, not a failure of the app.
        let wrong_host = [("host".to_string(), "evil.example".to_string())];
        assert_eq!(app.handle("POST", "/mcp", &wrong_host, b"{}".to_vec()).await.unwrap().status, 403);
        assert_eq!(app.handle("GET", "/elsewhere", &headers(None), Vec::new()).await.unwrap().status, 404);
        assert!(app.handle("BAD METHOD", "/mcp", &headers(None), Vec::new()).await.is_err());
        let huge = vec![b' '; app.max_body_bytes() + 1];
        assert_eq!(app.handle("POST", "/mcp", &headers(Some(&session)), huge).await.unwrap().status, 413);

        server.close().await;
        assert_eq!(app.session_count(), 0, "close ends the app's sessions");
        let reply = app.handle("POST", "/mcp", &headers(Some(&session)), call.to_string().into_bytes()).await.unwrap();
        assert_eq!(reply.status, 404);
    }
}
