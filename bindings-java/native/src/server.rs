//! `McpServer`: registrations from Java, handlers that call into Java and wait for the
//! host to complete the incoming request (from any thread), and the per-request context
//! (cancellation, progress, logging) reached through the request handle.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::EnvUnowned;
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, ErrorObject, GetPromptResult, LoggingLevel, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use oxmcp::server::{
    Arguments, CompletionHandler, PromptArguments, PromptHandler, RequestContext, ResourceHandler, ResourceRequest, Server,
    ToolHandler,
};
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use oxmcp::{Error, ErrorKind};
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, jstring, rstring};

type Outcome = oxmcp::Result<String>;

/// An incoming request a Java handler is working on: a server request (with its
/// context), or a server-to-client request answered by a client handler (without).
struct Incoming {
    answer: Mutex<Option<oneshot::Sender<Outcome>>>,
    cancel: CancellationToken,
    ctx: Option<RequestContext>,
}

static REQUESTS: Registry<Incoming> = Registry::new();

/// Unregisters the request when the engine is done with it (answered, or dropped after
/// a cancel's grace period): later completions and context calls find nothing.
struct Unregister(i64);

impl Drop for Unregister {
    fn drop(&mut self) {
        REQUESTS.remove(self.0);
    }
}

/// A handler implemented in Java, known there by `id`.
#[derive(Clone, Copy)]
struct JavaHandler {
    id: i64,
}

fn parse<T: DeserializeOwned>(what: &str, text: &str) -> oxmcp::Result<T> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {what} handler returned an invalid result: {e}")))
}

impl JavaHandler {
    async fn run(self, first: String, second: Option<String>, ctx: RequestContext) -> Outcome {
        let token = ctx.cancellation_token().clone();
        call_java(self.id, first, second, token, Some(ctx)).await
    }
}

/// Calls the Java handler `handler_id` with `first` and `second` and waits for the host to
/// complete the request; `cancel` firing is reported to the handler (onCancel), which may
/// still answer until the caller drops this future.
pub(crate) async fn call_java(
    handler_id: i64,
    first: String,
    second: Option<String>,
    token: CancellationToken,
    ctx: Option<RequestContext>,
) -> Outcome {
    {
        let (tx, mut rx) = oneshot::channel();
        let request = REQUESTS.insert(Incoming { answer: Mutex::new(Some(tx)), cancel: token.clone(), ctx });
        let _unregister = Unregister(request);
        if !jvm::on_request(handler_id, request, &first, second.as_deref()) {
            return Err(Error::new(ErrorKind::Handler, "the Java handler could not be called"));
        }
        tokio::select! {
            r = &mut rx => return r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the Java handler vanished"))),
            _ = token.cancelled() => {}
        }
        // The client cancelled: tell the handler (its onCancel callbacks run, its future is
        // cancelled) and let it finish within the engine's grace period; the engine sends
        // no response either way.
        jvm::on_cancel(request);
        rx.await.unwrap_or_else(|_| Err(Error::new(ErrorKind::Cancelled, "cancelled by the client")))
    }
}

impl ToolHandler for JavaHandler {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<CallToolResult>> {
        let h = *self;
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("tool", &h.run(args, None, ctx).await?)
        })
    }
}

impl ResourceHandler for JavaHandler {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<ReadResourceResult>> {
        let h = *self;
        Box::pin(async move {
            let vars = serde_json::to_string(&request.variables)?;
            parse("resource", &h.run(request.uri, Some(vars), ctx).await?)
        })
    }
}

impl PromptHandler for JavaHandler {
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<GetPromptResult>> {
        let h = *self;
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("prompt", &h.run(args, None, ctx).await?)
        })
    }
}

impl CompletionHandler for JavaHandler {
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<Completion>> {
        let h = *self;
        Box::pin(async move {
            let params = serde_json::to_string(&params)?;
            parse("completion", &h.run(params, None, ctx).await?)
        })
    }
}

enum Registration {
    Tool(Tool, JavaHandler),
    Resource(Resource, JavaHandler),
    Template(ResourceTemplate, JavaHandler),
    Prompt(Prompt, JavaHandler),
    Completion(JavaHandler),
}

/// The engine side of `McpServer`.
struct JServer {
    name: String,
    version: String,
    instructions: Option<String>,
    registrations: Mutex<Vec<Registration>>,
    /// The core server, once serving started (later registrations go live at once).
    running: Mutex<Option<Server>>,
    http: Arc<tokio::sync::Mutex<Option<HttpServer>>>,
}

static SERVERS: Registry<JServer> = Registry::new();

fn invalid(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("invalid {what}: {e}"))
}

impl JServer {
    fn register(&self, r: Registration) -> oxmcp::Result<()> {
        if let Some(server) = self.running.lock().unwrap().as_ref() {
            match &r {
                Registration::Tool(t, h) => server.add_tool_handler(t.clone(), *h)?,
                Registration::Resource(res, h) => server.add_resource_handler(res.clone(), *h),
                Registration::Prompt(p, h) => server.add_prompt_handler(p.clone(), *h),
                Registration::Template(..) | Registration::Completion(..) => {
                    return Err(invalid("registration", "resource templates and completion must be registered before serving"))
                }
            }
        }
        self.registrations.lock().unwrap().push(r);
        Ok(())
    }

    /// The core server, built on first serve.
    fn build(&self) -> oxmcp::Result<Server> {
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
                Registration::Tool(t, h) => b.tool_handler(t.clone(), *h),
                Registration::Resource(res, h) => b.resource_handler(res.clone(), *h),
                Registration::Template(t, h) => b.resource_template_handler(t.clone(), *h),
                Registration::Prompt(p, h) => b.prompt_handler(p.clone(), *h),
                Registration::Completion(h) => b.completion_handler(*h),
            };
        }
        let server = b.build()?;
        *running = Some(server.clone());
        Ok(server)
    }
}

/// Runs a native method body that may fail with an engine error; the error message is
/// returned to Java (null on success), where it becomes an `McpException`.
fn sync_result<'l>(
    mut env: EnvUnowned<'l>,
    f: impl FnOnce(&mut jni::Env<'l>) -> jni::errors::Result<oxmcp::Result<()>>,
) -> JObject<'l> {
    env.with_env(|env| -> jni::errors::Result<JObject<'l>> {
        match f(env)? {
            Ok(()) => Ok(JObject::null()),
            Err(e) => jstring(env, Some(&format!("{}\n{}", jvm::kind_code(e.kind()), e.message()))),
        }
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

fn req_str(env: &jni::Env<'_>, s: &JString<'_>) -> jni::errors::Result<String> {
    Ok(rstring(env, s)?.unwrap_or_default())
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverNew<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    name: JString<'l>,
    version: JString<'l>,
    instructions: JString<'l>,
) -> jlong {
    env.with_env(|env| -> jni::errors::Result<jlong> {
        Ok(SERVERS.insert(JServer {
            name: req_str(env, &name)?,
            version: req_str(env, &version)?,
            instructions: rstring(env, &instructions)?,
            registrations: Mutex::new(Vec::new()),
            running: Mutex::new(None),
            http: Arc::new(tokio::sync::Mutex::new(None)),
        }))
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// `kind`: 0 tool, 1 resource, 2 resource template, 3 prompt, 4 completion (no JSON).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverRegister<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    kind: jint,
    definition: JString<'l>,
    handler_id: jlong,
) -> JObject<'l> {
    sync_result(env, |env| {
        let text = req_str(env, &definition)?;
        let h = JavaHandler { id: handler_id };
        let Some(s) = SERVERS.get(server) else { return Ok(Err(Error::new(ErrorKind::Closed, "the server is closed"))) };
        let registration = (|| -> oxmcp::Result<Registration> {
            Ok(match kind {
                0 => {
                    let tool: Tool = serde_json::from_str(&text).map_err(|e| invalid("tool", e))?;
                    oxmcp::schema::Schema::compile(&tool.input_schema)?;
                    if let Some(out) = &tool.output_schema {
                        oxmcp::schema::Schema::compile(out)?;
                    }
                    Registration::Tool(tool, h)
                }
                1 => Registration::Resource(serde_json::from_str(&text).map_err(|e| invalid("resource", e))?, h),
                2 => {
                    let t: ResourceTemplate = serde_json::from_str(&text).map_err(|e| invalid("resource template", e))?;
                    oxmcp::server::UriTemplate::parse(&t.uri_template).map_err(|e| invalid("resource template", e))?;
                    Registration::Template(t, h)
                }
                3 => Registration::Prompt(serde_json::from_str(&text).map_err(|e| invalid("prompt", e))?, h),
                _ => Registration::Completion(h),
            })
        })();
        Ok(registration.and_then(|r| s.register(r)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverRemoveTool<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    name: JString<'l>,
) -> jboolean {
    env.with_env(|env| -> jni::errors::Result<jboolean> {
        let name = req_str(env, &name)?;
        let Some(s) = SERVERS.get(server) else { return Ok(false) };
        let staged = {
            let mut registrations = s.registrations.lock().unwrap();
            let before = registrations.len();
            registrations.retain(|r| !matches!(r, Registration::Tool(t, _) if t.name == name));
            registrations.len() != before
        };
        // Either counts: a tool removed before serving was removed all the same.
        let running = s.running.lock().unwrap().as_ref().is_some_and(|srv| srv.remove_tool(&name));
        Ok(staged || running)
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverNotifyResourceUpdated<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    uri: JString<'l>,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let uri = req_str(env, &uri)?;
        if let Some(s) = SERVERS.get(server) {
            if let Some(srv) = s.running.lock().unwrap().as_ref() {
                srv.notify_resource_updated(&uri);
            }
        }
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverServeStdio<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    call_id: jlong,
) {
    env.with_env(|_env| -> jni::errors::Result<()> {
        let s = SERVERS.get(server);
        spawn_call(call_id, async move {
            let s = s.ok_or_else(|| Error::new(ErrorKind::Closed, "the server is closed"))?;
            let server = s.build()?;
            server.serve_stdio().await?;
            Ok(Done::empty())
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_oxmcp_Native_serverStartHttp<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    host: JString<'l>,
    port: jint,
    path: JString<'l>,
    stateless: jboolean,
    json_response: jboolean,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let host = req_str(env, &host)?;
        let path = req_str(env, &path)?;
        let s = SERVERS.get(server);
        spawn_call(call_id, async move {
            let s = s.ok_or_else(|| Error::new(ErrorKind::Closed, "the server is closed"))?;
            let server = s.build()?;
            let port = u16::try_from(port).map_err(|_| invalid("port", port))?;
            let bind = tokio::net::lookup_host((host.as_str(), port))
                .await?
                .next()
                .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("host {host:?} resolves to no address")))?;
            let config = HttpServerConfig { bind, endpoint: path, stateless, json_response, ..Default::default() };
            let http = HttpServer::bind(server, config).await?;
            let url = http.url();
            if let Some(old) = s.http.lock().await.replace(http) {
                old.shutdown().await;
            }
            Ok(Done::json(url))
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverStopHttp<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    call_id: jlong,
) {
    env.with_env(|_env| -> jni::errors::Result<()> {
        let s = SERVERS.get(server);
        spawn_call(call_id, async move {
            if let Some(s) = s {
                if let Some(http) = s.http.lock().await.take() {
                    http.shutdown().await;
                }
            }
            Ok(Done::empty())
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Forgets the server (its HTTP listener, if any, shuts down in the background).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverFree<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, server: jlong) {
    if let Some(s) = SERVERS.remove(server) {
        let http = s.http.clone();
        crate::runtime::spawn(async move {
            if let Some(h) = http.lock().await.take() {
                h.shutdown().await;
            }
        });
    }
}

// ---- incoming requests -------------------------------------------------------------

fn answer(request: i64, outcome: Outcome) {
    if let Some(r) = REQUESTS.get(request) {
        if let Some(tx) = r.answer.lock().unwrap().take() {
            let _ = tx.send(outcome);
        }
    }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestComplete<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    json: JString<'l>,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let json = rstring(env, &json)?;
        answer(request, json.ok_or_else(|| Error::new(ErrorKind::Handler, "the handler returned null")));
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// A failed handler: with a code, a JSON-RPC error as given (data is JSON or null);
/// without, a handler failure (a tool answers `isError`, other handlers -32603).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestFail<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    has_code: jboolean,
    code: jlong,
    message: JString<'l>,
    data: JString<'l>,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let message = req_str(env, &message)?;
        let data = rstring(env, &data)?;
        let error = if has_code {
            let mut obj = ErrorObject::new(code, message);
            obj.data = data.map(|d| serde_json::from_str(&d).unwrap_or(serde_json::Value::String(d)));
            Error::from_rpc(obj)
        } else {
            Error::new(ErrorKind::Handler, message)
        };
        answer(request, Err(error));
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Runs `f` on the request's context; a request the engine is done with is ignored.
fn with_ctx(request: i64, f: impl FnOnce(&RequestContext) -> oxmcp::Result<()>) -> oxmcp::Result<()> {
    REQUESTS.get(request).and_then(|r| r.ctx.clone()).map_or(Ok(()), |ctx| f(&ctx))
}

/// Whether the client cancelled (false once the engine is done with the request).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestIsCancelled<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
) -> jboolean {
    REQUESTS.get(request).is_some_and(|r| r.cancel.is_cancelled())
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestProgress<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    progress: jdouble,
    total: jdouble,
    message: JString<'l>,
) -> JObject<'l> {
    sync_result(env, |env| {
        let message = rstring(env, &message)?;
        let total = (!total.is_nan()).then_some(total);
        Ok(with_ctx(request, |ctx| ctx.report_progress(progress, total, message.as_deref())).or_else(ignore_gone))
    })
}

/// Progress or logs for a request that has gone are dropped quietly (like the engine
/// does for a departed client).
fn ignore_gone(e: Error) -> oxmcp::Result<()> {
    if e.kind() == ErrorKind::Closed {
        Ok(())
    } else {
        Err(e)
    }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestLog<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    level: JString<'l>,
    logger: JString<'l>,
    data: JString<'l>,
) -> JObject<'l> {
    sync_result(env, |env| {
        let level = req_str(env, &level)?;
        let logger = rstring(env, &logger)?;
        let data = req_str(env, &data)?;
        let outcome = (|| -> oxmcp::Result<()> {
            let level: LoggingLevel =
                serde_json::from_value(json!(level.to_lowercase())).map_err(|_| invalid("log level", &level))?;
            let data: serde_json::Value = serde_json::from_str(&data).map_err(|e| invalid("log data JSON", e))?;
            with_ctx(request, |ctx| ctx.log_with_logger(level, logger.as_deref(), data)).or_else(ignore_gone)
        })();
        Ok(outcome)
    })
}

/// The request's facts as JSON: id, progress token, client info, protocol version.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestInfo<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> jni::errors::Result<JObject<'l>> {
        let info = REQUESTS.get(request).and_then(|r| r.ctx.clone()).map(|ctx| {
            json!({
                "requestId": ctx.request_id(),
                "progressToken": ctx.progress_token(),
                "clientInfo": ctx.client_info(),
                "clientCapabilities": ctx.client_capabilities(),
                "protocolVersion": ctx.protocol_version().map(|v| v.to_string()),
            })
            .to_string()
        });
        jstring(env, info.as_deref())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// How many incoming requests are registered (for leak checks in tests).
pub fn in_flight() -> usize {
    REQUESTS.len()
}

/// Stops every server's HTTP listener (at shutdown).
pub async fn close_all() {
    for s in SERVERS.drain() {
        if let Some(h) = s.http.lock().await.take() {
            h.shutdown().await;
        }
    }
}

/// Server-to-client requests from a handler: `op` 0 `sampling/createMessage`,
/// 1 `elicitation/create`, 2 `roots/list` (params JSON; completes with the result JSON).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestAskClient<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    op: jint,
    params: JString<'l>,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let params = rstring(env, &params)?;
        let ctx = REQUESTS.get(request).and_then(|r| r.ctx.clone());
        spawn_call(call_id, async move {
            let ctx = ctx.ok_or_else(|| Error::new(ErrorKind::Closed, "the request is over"))?;
            let params: serde_json::Value = match params {
                Some(p) => serde_json::from_str(&p).map_err(|e| invalid("params JSON", e))?,
                None => json!({}),
            };
            let out = match op {
                0 => serde_json::to_string(
                    &ctx.create_message(serde_json::from_value(params).map_err(|e| invalid("sampling params", e))?).await?,
                )?,
                1 => serde_json::to_string(
                    &ctx.elicit(serde_json::from_value(params).map_err(|e| invalid("elicitation params", e))?).await?,
                )?,
                _ => serde_json::to_string(&ctx.list_roots().await?)?,
            };
            Ok(Done::json(out))
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}
