//! `NativeServer`: the JS `Server` registers handlers here (a definition as JSON and the
//! index of its JS function); the engine runs them. A call travels to JS as an event
//! `(kind, callId, slot, a, b)`; the JS layer answers with `complete(callId, json)` or
//! `fail(callId, errorJson)`. The call's `RequestContext` stays here under its id, so
//! `ctx.progress()`, `ctx.log()`, `ctx.elicit()`... are calls by id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use napi::bindgen_prelude::{spawn, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CreateMessageRequestParams, ElicitRequestParams, GetPromptResult,
    LoggingLevel, ProgressToken, Prompt, ReadResourceResult, RequestId, Resource, ResourceTemplate, Tool,
};
use oxmcp::server::{
    Arguments, CompletionHandler, PromptArguments, PromptHandler, RequestContext, ResourceHandler, ResourceRequest, Server,
    ToolHandler,
};
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use oxmcp::transport::StdioTransport;
use oxmcp::{Error, ErrorKind};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::events::{Dispatcher, Events};

/// Event kinds sent to the JS dispatcher of a server.
const TOOL: u32 = 1;
const RESOURCE: u32 = 2;
const PROMPT: u32 = 3;
const COMPLETE: u32 = 4;
const CANCEL: u32 = 5;
const STDIO_CLOSED: u32 = 6;

/// How long a cancelled JS handler may take to settle before the engine moves on.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

struct Call {
    ctx: RequestContext,
    done: oneshot::Sender<Result<String, Error>>,
}

/// What every handler of one server shares: the dispatcher and the calls in flight.
struct Shared {
    events: Events,
    calls: Mutex<HashMap<u32, Call>>,
    next: AtomicU32,
}

impl Shared {
    fn ctx(&self, id: u32) -> napi::Result<RequestContext> {
        self.calls
            .lock()
            .unwrap()
            .get(&id)
            .map(|c| c.ctx.clone())
            .ok_or_else(|| errors::invalid("this request has already completed"))
    }

    fn settle(&self, id: u32, outcome: Result<String, Error>) {
        if let Some(call) = self.calls.lock().unwrap().remove(&id) {
            let _ = call.done.send(outcome);
        }
    }
}

/// Removes a call's entry however its future ends (a dropped future included).
struct Forget<'a>(&'a Shared, u32);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.calls.lock().unwrap().remove(&self.1);
    }
}

/// One registered JS function.
#[derive(Clone)]
struct JsHandler {
    shared: Arc<Shared>,
    kind: u32,
    slot: u32,
}

fn parse<T: DeserializeOwned>(what: &str, text: &str) -> oxmcp::Result<T> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {what} handler returned an invalid result: {e}")))
}

impl JsHandler {
    /// Runs the JS function and waits for its answer (or the client's cancel).
    async fn run(self, a: String, b: Option<String>, ctx: RequestContext) -> oxmcp::Result<String> {
        let shared = &*self.shared;
        let cancel = ctx.cancellation_token().clone();
        let id = shared.next.fetch_add(1, Ordering::Relaxed);
        let (tx, mut rx) = oneshot::channel();
        shared.calls.lock().unwrap().insert(id, Call { ctx, done: tx });
        let _forget = Forget(shared, id);
        if !shared.events.send(self.kind, id, self.slot, Some(a), b) {
            return Err(Error::new(ErrorKind::Closed, "the JavaScript environment is gone"));
        }
        tokio::select! {
            r = &mut rx => return r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the handler vanished"))),
            _ = cancel.cancelled() => {}
        }
        // The client cancelled: the handler's ctx.signal fires; it gets a moment to settle.
        shared.events.send(CANCEL, id, 0, None, None);
        let _ = tokio::time::timeout(CANCEL_GRACE, &mut rx).await;
        Err(Error::new(ErrorKind::Cancelled, "cancelled by the client"))
    }
}

impl ToolHandler for JsHandler {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<CallToolResult>> {
        let h = self.clone();
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("tool", &h.run(args, None, ctx).await?)
        })
    }
}

impl ResourceHandler for JsHandler {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<ReadResourceResult>> {
        let h = self.clone();
        Box::pin(async move {
            let vars = serde_json::to_string(&request.variables)?;
            parse("resource", &h.run(request.uri, Some(vars), ctx).await?)
        })
    }
}

impl PromptHandler for JsHandler {
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<GetPromptResult>> {
        let h = self.clone();
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("prompt", &h.run(args, None, ctx).await?)
        })
    }
}

impl CompletionHandler for JsHandler {
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<Completion>> {
        let h = self.clone();
        Box::pin(async move {
            let params = serde_json::to_string(&params)?;
            parse("completion", &h.run(params, None, ctx).await?)
        })
    }
}

enum Registration {
    Tool(Tool, u32),
    Resource(Resource, u32),
    Template(ResourceTemplate, u32),
    Prompt(Prompt, u32),
    Completion(u32),
}

fn definition<T: DeserializeOwned>(what: &str, text: &str) -> napi::Result<T> {
    serde_json::from_str(text).map_err(|e| errors::invalid(format!("invalid {what}: {e}")))
}

/// What serves: the stdio session (stopped through its token) and the HTTP server.
#[derive(Default)]
struct Listeners {
    stdio: Option<(CancellationToken, oneshot::Receiver<()>)>,
    http: Option<HttpServer>,
}

/// The engine side of the JS `Server`.
#[napi]
pub struct NativeServer {
    name: String,
    version: String,
    instructions: Option<String>,
    shared: Arc<Shared>,
    registrations: Mutex<Vec<Registration>>,
    /// The core server, once serving started (later registrations go live).
    running: Mutex<Option<Server>>,
    listeners: Arc<tokio::sync::Mutex<Listeners>>,
}

impl NativeServer {
    fn handler(&self, kind: u32, slot: u32) -> JsHandler {
        JsHandler { shared: self.shared.clone(), kind, slot }
    }

    fn register(&self, r: Registration) -> napi::Result<()> {
        if let Some(server) = self.running.lock().unwrap().as_ref() {
            match &r {
                Registration::Tool(t, s) => {
                    server.add_tool_handler(t.clone(), self.handler(TOOL, *s)).map_err(errors::to_napi)?
                }
                Registration::Resource(res, s) => server.add_resource_handler(res.clone(), self.handler(RESOURCE, *s)),
                Registration::Prompt(p, s) => server.add_prompt_handler(p.clone(), self.handler(PROMPT, *s)),
                Registration::Template(..) | Registration::Completion(..) => {
                    return Err(errors::invalid("resource templates and completion must be registered before listening"))
                }
            }
        }
        self.registrations.lock().unwrap().push(r);
        Ok(())
    }

    /// The core server, built on first listen.
    fn build(&self) -> napi::Result<Server> {
        let mut running = self.running.lock().unwrap();
        if let Some(server) = running.as_ref() {
            return Ok(server.clone());
        }
        let mut b = Server::builder(&self.name, &self.version);
        if let Some(i) = &self.instructions {
            b = b.instructions(i.clone());
        }
        for r in self.registrations.lock().unwrap().iter() {
            b = match r {
                Registration::Tool(t, s) => b.tool_handler(t.clone(), self.handler(TOOL, *s)),
                Registration::Resource(res, s) => b.resource_handler(res.clone(), self.handler(RESOURCE, *s)),
                Registration::Template(t, s) => b.resource_template_handler(t.clone(), self.handler(RESOURCE, *s)),
                Registration::Prompt(p, s) => b.prompt_handler(p.clone(), self.handler(PROMPT, *s)),
                Registration::Completion(s) => b.completion_handler(self.handler(COMPLETE, *s)),
            };
        }
        let server = b.build().map_err(errors::to_napi)?;
        *running = Some(server.clone());
        Ok(server)
    }
}

fn level(name: &str) -> napi::Result<LoggingLevel> {
    serde_json::from_value(Value::String(name.to_lowercase())).map_err(|_| errors::invalid(format!("unknown log level {name:?}")))
}

fn json_id(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => json!(n),
        RequestId::String(s) => json!(s.as_ref()),
    }
}

#[napi]
impl NativeServer {
    /// A server named `name` at `version`; `dispatch(kind, callId, slot, a, b)` receives
    /// the calls of its handlers.
    #[napi(constructor)]
    pub fn new(name: String, version: String, instructions: Option<String>, dispatch: Dispatcher<'_>) -> napi::Result<Self> {
        Ok(Self {
            name,
            version,
            instructions,
            shared: Arc::new(Shared {
                events: Events::new(&dispatch)?,
                calls: Mutex::new(HashMap::new()),
                next: AtomicU32::new(1),
            }),
            registrations: Mutex::new(Vec::new()),
            running: Mutex::new(None),
            listeners: Arc::new(tokio::sync::Mutex::new(Listeners::default())),
        })
    }

    /// Registers a tool (its definition as JSON); calls go to the JS function at `slot`.
    #[napi]
    pub fn add_tool(&self, tool_json: String, slot: u32) -> napi::Result<()> {
        let tool: Tool = definition("tool", &tool_json)?;
        oxmcp::schema::Schema::compile(&tool.input_schema).map_err(errors::to_napi)?;
        if let Some(out) = &tool.output_schema {
            oxmcp::schema::Schema::compile(&serde_json::to_value(out).unwrap_or_default()).map_err(errors::to_napi)?;
        }
        self.register(Registration::Tool(tool, slot))
    }

    /// Registers a resource with a fixed URI.
    #[napi]
    pub fn add_resource(&self, resource_json: String, slot: u32) -> napi::Result<()> {
        self.register(Registration::Resource(definition("resource", &resource_json)?, slot))
    }

    /// Registers a resource template (RFC 6570).
    #[napi]
    pub fn add_resource_template(&self, template_json: String, slot: u32) -> napi::Result<()> {
        let t: ResourceTemplate = definition("resource template", &template_json)?;
        oxmcp::server::UriTemplate::parse(&t.uri_template)
            .map_err(|e| errors::invalid(format!("invalid resource template: {e}")))?;
        self.register(Registration::Template(t, slot))
    }

    /// Registers a prompt.
    #[napi]
    pub fn add_prompt(&self, prompt_json: String, slot: u32) -> napi::Result<()> {
        self.register(Registration::Prompt(definition("prompt", &prompt_json)?, slot))
    }

    /// Sets the completion handler.
    #[napi]
    pub fn set_completion(&self, slot: u32) -> napi::Result<()> {
        self.register(Registration::Completion(slot))
    }

    /// Removes a tool; returns whether it existed.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        let mut regs = self.registrations.lock().unwrap();
        let before = regs.len();
        regs.retain(|r| !matches!(r, Registration::Tool(t, _) if t.name == name));
        let removed = regs.len() != before;
        drop(regs);
        self.running.lock().unwrap().as_ref().is_some_and(|s| s.remove_tool(&name)) || removed
    }

    /// Tells subscribed clients that a resource changed.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        if let Some(s) = self.running.lock().unwrap().as_ref() {
            s.notify_resource_updated(&uri);
        }
    }

    /// Live sessions.
    #[napi]
    pub fn session_count(&self) -> u32 {
        self.running.lock().unwrap().as_ref().map_or(0, |s| s.session_count() as u32)
    }

    /// Keeps Node alive (while listening) or lets it exit.
    #[napi]
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        self.shared.events.set_ref(env, on)
    }

    /// Serves one client on stdin/stdout; resolves once serving. When stdin closes the
    /// dispatcher receives a stdio-closed event.
    #[napi]
    pub fn listen_stdio<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let server = self.build()?;
        let listeners = self.listeners.clone();
        let events = self.shared.events.clone();
        env.spawn_future(async move {
            let mut l = listeners.lock().await;
            if l.stdio.is_some() {
                return Err(errors::invalid("already serving stdio"));
            }
            let stop = CancellationToken::new();
            let (done_tx, done_rx) = oneshot::channel();
            l.stdio = Some((stop.clone(), done_rx));
            let session = server.serve(StdioTransport::stdio());
            spawn(async move {
                tokio::select! {
                    _ = session.wait() => {}
                    _ = stop.cancelled() => {}
                }
                session.close().await;
                let _ = done_tx.send(());
                events.send(STDIO_CLOSED, 0, 0, None, None);
            });
            Ok(())
        })
    }

    /// Serves Streamable HTTP (and legacy SSE); resolves to the endpoint URL.
    #[napi]
    pub fn listen_http<'env>(&self, env: &'env Env, options_json: String) -> napi::Result<PromiseRaw<'env, String>> {
        let server = self.build()?;
        let o: Value = definition("HTTP options", &options_json)?;
        let host = o["host"].as_str().unwrap_or("127.0.0.1").to_string();
        let port = o["port"].as_u64().unwrap_or(0);
        let port = u16::try_from(port).map_err(|_| errors::invalid(format!("invalid port {port}")))?;
        let mut config = HttpServerConfig {
            endpoint: o["path"].as_str().unwrap_or("/mcp").to_string(),
            stateless: o["stateless"].as_bool().unwrap_or(false),
            json_response: o["jsonResponse"].as_bool().unwrap_or(false),
            ..Default::default()
        };
        let names =
            |key: &str| o[key].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect::<Vec<_>>());
        if let Some(h) = names("allowedHosts") {
            config.allowed_hosts = h;
        }
        if let Some(h) = names("allowedOrigins") {
            config.allowed_origins = h;
        }
        if let Some(n) = o["maxSessions"].as_u64() {
            config.max_sessions = n as usize;
        }
        let listeners = self.listeners.clone();
        env.spawn_future(async move {
            let bind = tokio::net::lookup_host((host.as_str(), port))
                .await
                .map_err(|e| errors::to_napi(Error::new(ErrorKind::Transport, format!("cannot resolve {host:?}: {e}"))))?
                .next()
                .ok_or_else(|| errors::invalid(format!("host {host:?} resolves to no address")))?;
            config.bind = bind;
            let http = HttpServer::bind(server, config)
                .await
                .map_err(|e| errors::to_napi(Error::new(ErrorKind::Transport, format!("cannot listen on {bind}: {e}"))))?;
            let url = http.url();
            let old = listeners.lock().await.http.replace(http);
            if let Some(old) = old {
                old.shutdown().await;
            }
            Ok(url)
        })
    }

    /// Stops serving (stdio and HTTP; in-flight HTTP requests may finish).
    #[napi]
    pub fn close<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let listeners = self.listeners.clone();
        env.spawn_future(async move {
            let (stdio, http) = {
                let mut l = listeners.lock().await;
                (l.stdio.take(), l.http.take())
            };
            if let Some((stop, done)) = stdio {
                stop.cancel();
                let _ = done.await;
            }
            if let Some(http) = http {
                http.shutdown().await;
            }
            Ok(())
        })
    }

    /// A handler's result (JSON) for call `id`.
    #[napi]
    pub fn complete(&self, id: u32, result_json: String) {
        self.shared.settle(id, Ok(result_json));
    }

    /// A handler's failure (`{"code"?, "message", "data"?}`) for call `id`.
    #[napi]
    pub fn fail(&self, id: u32, error_json: String) {
        self.shared.settle(id, Err(errors::from_js(&error_json)));
    }

    /// What a handler may want to know about its request (JSON): request id, progress
    /// token, client info and capabilities, protocol version.
    #[napi]
    pub fn ctx_info(&self, id: u32) -> napi::Result<String> {
        let ctx = self.shared.ctx(id)?;
        let token = ctx.progress_token().map(|t| match t {
            ProgressToken::Number(n) => json!(n),
            ProgressToken::String(s) => json!(s),
        });
        Ok(json!({
            "requestId": json_id(ctx.request_id()),
            "progressToken": token,
            "clientInfo": ctx.client_info(),
            "clientCapabilities": ctx.client_capabilities(),
            "protocolVersion": ctx.protocol_version().map(|v| v.to_string()),
            "cancelled": ctx.is_cancelled(),
        })
        .to_string())
    }

    /// Sends a progress notification for call `id` (nothing if the client asked for none).
    #[napi]
    pub fn ctx_progress(&self, id: u32, progress: f64, total: Option<f64>, message: Option<String>) -> napi::Result<()> {
        self.shared.ctx(id)?.report_progress(progress, total, message.as_deref()).map_err(errors::to_napi)
    }

    /// Sends a log message (JSON data) if the client's level lets it through.
    #[napi]
    pub fn ctx_log(&self, id: u32, level_name: String, data_json: String, logger: Option<String>) -> napi::Result<()> {
        let data: Value = definition("log data", &data_json)?;
        self.shared.ctx(id)?.log_with_logger(level(&level_name)?, logger.as_deref(), data).map_err(errors::to_napi)
    }

    /// Over Streamable HTTP, ends call `id`'s SSE stream; the client resumes it.
    #[napi]
    pub fn ctx_end_response_stream(&self, id: u32) -> napi::Result<()> {
        self.shared.ctx(id)?.end_response_stream();
        Ok(())
    }

    /// `elicitation/create` during call `id` (params and result as JSON).
    #[napi]
    pub fn ctx_elicit<'env>(&self, env: &'env Env, id: u32, params_json: String) -> napi::Result<PromiseRaw<'env, String>> {
        let params: ElicitRequestParams = definition("elicitation request", &params_json)?;
        let ctx = self.shared.ctx(id)?;
        env.spawn_future(async move {
            let r = ctx.elicit(params).await.map_err(errors::to_napi)?;
            serde_json::to_string(&r).map_err(|e| errors::invalid(e.to_string()))
        })
    }

    /// `sampling/createMessage` during call `id` (params and result as JSON).
    #[napi]
    pub fn ctx_sample<'env>(&self, env: &'env Env, id: u32, params_json: String) -> napi::Result<PromiseRaw<'env, String>> {
        let params: CreateMessageRequestParams = definition("sampling request", &params_json)?;
        let ctx = self.shared.ctx(id)?;
        env.spawn_future(async move {
            let r = ctx.create_message(params).await.map_err(errors::to_napi)?;
            serde_json::to_string(&r).map_err(|e| errors::invalid(e.to_string()))
        })
    }

    /// `roots/list` during call `id` (result as JSON).
    #[napi]
    pub fn ctx_list_roots<'env>(&self, env: &'env Env, id: u32) -> napi::Result<PromiseRaw<'env, String>> {
        let ctx = self.shared.ctx(id)?;
        env.spawn_future(async move {
            let r = ctx.list_roots().await.map_err(errors::to_napi)?;
            serde_json::to_string(&r).map_err(|e| errors::invalid(e.to_string()))
        })
    }
}
