//! `OxmcpServer` and `OxmcpIncoming`: servers whose tools, resources, prompts and
//! completions are host callbacks. A callback receives an incoming-request handle and the
//! arguments as JSON, returns at once, and the host completes the request later from any
//! thread.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;

use futures::future::BoxFuture;
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
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::callback::{Gate, OxmcpCancelFn, OxmcpCompletionFn, UserData};
use crate::error::{bytes_arg, guard, invalid, json_arg, opt_str_arg, out, quietly, str_arg, OxmcpStatus};
use crate::request::{start, OxmcpRequest};
use crate::runtime::{rt_arg, OxmcpRuntime, Rt};

/// Serve without sessions: every HTTP POST stands alone (no server-to-client requests).
pub const OXMCP_HTTP_STATELESS: u32 = 1;
/// Answer each HTTP POST with one JSON body instead of an SSE stream.
pub const OXMCP_HTTP_JSON_RESPONSE: u32 = 2;

/// Called when a client invokes a tool, reads a resource, gets a prompt or asks for
/// completions.
///
/// - `request`: the incoming request, now owned by the host. Complete it (any thread, now or
///   later) with oxmcp_incoming_complete(), oxmcp_incoming_fail() or
///   oxmcp_incoming_fail_rpc(), and release it with oxmcp_incoming_free() (freeing an
///   uncompleted request fails it).
/// - `params_json`: tools and prompts: the arguments object (tool arguments are already
///   validated against the input schema); resources: `{"uri": ..., "variables": {...}}`
///   (template variables, empty for a plain resource); completion: the
///   `completion/complete` params. Valid during the call only.
///
/// Runs on a runtime thread: return quickly and finish long work elsewhere.
pub type OxmcpHandlerFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request: *mut OxmcpIncoming, params_json: *const u8, params_len: usize)>;

/// What kind of result a handler owes.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Tool,
    Resource,
    Prompt,
    Completion,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Tool => "tool (CallToolResult)",
            Kind::Resource => "resource (ReadResourceResult)",
            Kind::Prompt => "prompt (GetPromptResult)",
            Kind::Completion => "completion (Completion)",
        }
    }

    /// Checks that `v` has the shape of this kind's result.
    fn check(self, v: &Value) -> Result<(), Error> {
        fn shape<T: DeserializeOwned>(v: &Value) -> Result<(), serde_json::Error> {
            T::deserialize(v).map(drop)
        }
        match self {
            Kind::Tool => shape::<CallToolResult>(v),
            Kind::Resource => shape::<ReadResourceResult>(v),
            Kind::Prompt => shape::<GetPromptResult>(v),
            Kind::Completion => shape::<Completion>(v),
        }
        .map_err(|e| invalid(format!("not a valid {} result: {e}", self.name())))
    }
}

/// A host callback bound to its server's gate and runtime.
#[derive(Clone)]
struct CHandler {
    kind: Kind,
    callback: unsafe extern "C" fn(*mut c_void, *mut OxmcpIncoming, *const u8, usize),
    user_data: UserData,
    gate: Gate,
    rt: Arc<Rt>,
}

impl CHandler {
    /// Calls the host and waits for its completion of the request.
    async fn invoke<T: DeserializeOwned>(self, params: Value, ctx: RequestContext) -> Result<T, Error> {
        let (tx, rx) = oneshot::channel();
        let inner = Arc::new(Incoming {
            kind: self.kind,
            ctx,
            reply: Mutex::new(Some(tx)),
            finished: CancellationToken::new(),
            cancel: Mutex::new(CancelSlot::default()),
            cancel_done: Condvar::new(),
            rt: self.rt.clone(),
        });
        // Whatever happens to this future (done, cancelled and dropped), the cancel watcher ends.
        let _finish = FinishOnDrop(inner.finished.clone());
        let json = serde_json::to_vec(&params)?;
        let ran = {
            let handle = Box::into_raw(Box::new(OxmcpIncoming { inner }));
            // SAFETY: the host registered the callback with this user data; `json` outlives the call.
            let ran = self.gate.run(|| unsafe { (self.callback)(self.user_data.ptr(), handle, json.as_ptr(), json.len()) });
            if !ran {
                // SAFETY: never handed to the host.
                drop(unsafe { Box::from_raw(handle) });
            }
            ran
        };
        if !ran {
            return Err(Error::new(ErrorKind::Closed, "the server was freed"));
        }
        let value = rx.await.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the handler's request vanished")))?;
        serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorKind::Handler, format!("invalid {} result: {e}", self.kind.name())))
    }
}

struct FinishOnDrop(CancellationToken);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl ToolHandler for CHandler {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<CallToolResult>> {
        Box::pin(self.clone().invoke(Value::Object(arguments), ctx))
    }
}

impl ResourceHandler for CHandler {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<ReadResourceResult>> {
        Box::pin(self.clone().invoke(json!({ "uri": request.uri, "variables": request.variables }), ctx))
    }
}

impl PromptHandler for CHandler {
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<GetPromptResult>> {
        Box::pin(self.clone().invoke(json!(arguments), ctx))
    }
}

impl CompletionHandler for CHandler {
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<Completion>> {
        let h = self.clone();
        Box::pin(async move { h.invoke(serde_json::to_value(params)?, ctx).await })
    }
}

enum Registration {
    Tool(Tool, CHandler),
    Resource(Resource, CHandler),
    Template(ResourceTemplate, CHandler),
    Prompt(Prompt, CHandler),
    Completion(CHandler),
}

struct ServerState {
    name: String,
    version: String,
    instructions: Option<String>,
    registrations: Vec<Registration>,
    /// The engine's server, built when serving starts (later registrations go live).
    running: Option<Server>,
    http: Option<HttpServer>,
}

/// A server: its tools, resources and prompts are host callbacks.
pub struct OxmcpServer {
    rt: Arc<Rt>,
    gate: Gate,
    state: Mutex<ServerState>,
}

impl OxmcpServer {
    fn lock(&self) -> std::sync::MutexGuard<'_, ServerState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn handler(&self, kind: Kind, callback: OxmcpHandlerFn, user_data: *mut c_void) -> Result<CHandler, Error> {
        let callback = callback.ok_or_else(|| invalid("handler is NULL"))?;
        Ok(CHandler { kind, callback, user_data: UserData(user_data), gate: self.gate.clone(), rt: self.rt.clone() })
    }

    fn register(&self, r: Registration) -> Result<(), Error> {
        let mut state = self.lock();
        if let Some(server) = &state.running {
            match &r {
                Registration::Tool(t, h) => server.add_tool_handler(t.clone(), h.clone())?,
                Registration::Resource(res, h) => server.add_resource_handler(res.clone(), h.clone()),
                Registration::Prompt(p, h) => server.add_prompt_handler(p.clone(), h.clone()),
                Registration::Template(..) | Registration::Completion(..) => {
                    return Err(invalid("resource templates and completion must be registered before serving"))
                }
            }
        }
        state.registrations.push(r);
        Ok(())
    }

    /// The engine's server, built on first use.
    fn build(&self) -> Result<Server, Error> {
        let mut state = self.lock();
        if let Some(s) = &state.running {
            return Ok(s.clone());
        }
        let mut b = Server::builder(&state.name, &state.version);
        if let Some(i) = &state.instructions {
            b = b.instructions(i.clone());
        }
        for r in &state.registrations {
            b = match r {
                Registration::Tool(t, h) => b.tool_handler(t.clone(), h.clone()),
                Registration::Resource(res, h) => b.resource_handler(res.clone(), h.clone()),
                Registration::Template(t, h) => b.resource_template_handler(t.clone(), h.clone()),
                Registration::Prompt(p, h) => b.prompt_handler(p.clone(), h.clone()),
                Registration::Completion(h) => b.completion_handler(h.clone()),
            };
        }
        let server = b.build()?;
        state.running = Some(server.clone());
        Ok(server)
    }
}

fn server_arg<'a>(server: *const OxmcpServer) -> Result<&'a OxmcpServer, Error> {
    // SAFETY: exported functions require a NULL or live server handle.
    unsafe { server.as_ref() }.ok_or_else(|| invalid("server is NULL"))
}

fn definition<T: DeserializeOwned>(ptr: *const u8, len: usize, what: &str) -> Result<T, Error> {
    let v = json_arg(ptr, len, what, Value::Null)?;
    serde_json::from_value(v).map_err(|e| invalid(format!("invalid {what}: {e}")))
}

/// Creates a server named `name` / `version` on `runtime`, storing it in `*out_server`.
///
/// Ownership: the caller owns `*out_server` and releases it with oxmcp_server_free().
///
/// # Safety
/// `runtime` is a live runtime; `name` and `version` are NUL-terminated; `out_server` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_new(
    runtime: *const OxmcpRuntime,
    name: *const c_char,
    version: *const c_char,
    out_server: *mut *mut OxmcpServer,
) -> OxmcpStatus {
    guard(|| {
        let rt = rt_arg(runtime)?;
        let state = ServerState {
            name: str_arg(name, "name")?.to_owned(),
            version: str_arg(version, "version")?.to_owned(),
            instructions: None,
            registrations: Vec::new(),
            running: None,
            http: None,
        };
        let server = OxmcpServer { rt, gate: Gate::new(), state: Mutex::new(state) };
        out(out_server, Box::into_raw(Box::new(server)), "out_server")
    })
}

/// Sets the instructions sent in the `initialize` result (before serving starts).
///
/// # Safety
/// `server` is a live server; `instructions` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_set_instructions(server: *const OxmcpServer, instructions: *const c_char) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let text = str_arg(instructions, "instructions")?.to_owned();
        let mut state = s.lock();
        if state.running.is_some() {
            return Err(invalid("instructions must be set before serving"));
        }
        state.instructions = Some(text);
        Ok(())
    })
}

/// Registers a tool: `tool_json` is its definition (`{"name", "description", "inputSchema",
/// ...}`), `handler` is called with the arguments for each call; it completes the request
/// with a `CallToolResult`. oxmcp_incoming_fail() makes an `isError: true` result,
/// oxmcp_incoming_fail_rpc() a JSON-RPC error. May be called while serving (clients see the
/// new tool). `user_data` must stay valid until oxmcp_server_free() returns.
///
/// # Safety
/// `server` is a live server; `tool_json` points to `tool_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_tool(
    server: *const OxmcpServer,
    tool_json: *const u8,
    tool_len: usize,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let tool: Tool = definition(tool_json, tool_len, "tool")?;
        oxmcp::schema::Schema::compile(&tool.input_schema)?;
        let h = s.handler(Kind::Tool, handler, user_data)?;
        s.register(Registration::Tool(tool, h))
    })
}

/// Removes a tool; `*out_removed` (if not NULL) tells whether it existed.
///
/// # Safety
/// `server` is a live server; `name` is NUL-terminated; `out_removed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_remove_tool(
    server: *const OxmcpServer,
    name: *const c_char,
    out_removed: *mut bool,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let name = str_arg(name, "name")?;
        let mut state = s.lock();
        let before = state.registrations.len();
        state.registrations.retain(|r| !matches!(r, Registration::Tool(t, _) if t.name == name));
        let removed = state.running.as_ref().map_or(state.registrations.len() != before, |srv| srv.remove_tool(name));
        if !out_removed.is_null() {
            out(out_removed, removed, "out_removed")?;
        }
        Ok(())
    })
}

/// Registers a resource (`{"uri", "name", "mimeType", ...}`); `handler` completes reads with
/// a `ReadResourceResult`. `user_data` must stay valid until oxmcp_server_free() returns.
///
/// # Safety
/// `server` is a live server; `resource_json` points to `resource_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_resource(
    server: *const OxmcpServer,
    resource_json: *const u8,
    resource_len: usize,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let r: Resource = definition(resource_json, resource_len, "resource")?;
        let h = s.handler(Kind::Resource, handler, user_data)?;
        s.register(Registration::Resource(r, h))
    })
}

/// Registers a resource template (`{"uriTemplate", "name", ...}`, RFC 6570) before serving;
/// `handler` receives the matched variables and completes with a `ReadResourceResult`.
///
/// # Safety
/// `server` is a live server; `template_json` points to `template_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_resource_template(
    server: *const OxmcpServer,
    template_json: *const u8,
    template_len: usize,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let t: ResourceTemplate = definition(template_json, template_len, "resource template")?;
        oxmcp::server::UriTemplate::parse(&t.uri_template).map_err(|e| invalid(format!("invalid resource template: {e}")))?;
        let h = s.handler(Kind::Resource, handler, user_data)?;
        s.register(Registration::Template(t, h))
    })
}

/// Registers a prompt (`{"name", "description", "arguments": [...]}`); `handler` receives
/// the string arguments and completes with a `GetPromptResult`.
///
/// # Safety
/// `server` is a live server; `prompt_json` points to `prompt_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_prompt(
    server: *const OxmcpServer,
    prompt_json: *const u8,
    prompt_len: usize,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let p: Prompt = definition(prompt_json, prompt_len, "prompt")?;
        let h = s.handler(Kind::Prompt, handler, user_data)?;
        s.register(Registration::Prompt(p, h))
    })
}

/// Sets the completion handler (before serving): it receives the `completion/complete`
/// params and completes with a `Completion` object (`{"values": [...], ...}`).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_set_completion(
    server: *const OxmcpServer,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let h = s.handler(Kind::Completion, handler, user_data)?;
        s.register(Registration::Completion(h))
    })
}

/// Serves one client on this process's stdin/stdout. Returns at once; `callback` runs once
/// when stdin closes (`OXMCP_STATUS_OK`, JSON `null`), when the serve is cancelled through
/// `*out_request` (`OXMCP_STATUS_CANCELLED`), or at runtime shutdown. `*out_request` (may
/// be NULL) is owned by the caller (oxmcp_request_free()).
///
/// # Safety
/// `server` is a live server; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_serve_stdio(
    server: *const OxmcpServer,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let engine = s.build()?;
        start(&s.rt, callback, user_data, out_request, |_| async move {
            engine.serve_stdio().await?;
            Ok(Value::Null)
        })
    })
}

/// Starts Streamable HTTP (and legacy HTTP+SSE) on `bind` (`"127.0.0.1:0"` picks a free
/// port; a host name is resolved) at `path` (NULL = `"/mcp"`), with `flags` (a sum of
/// `OXMCP_HTTP_*`). Blocks until the listener is bound; the bound port goes to
/// `*out_port` (may be NULL). A second start replaces the first listener.
///
/// Threading: a host thread, not an oxmcp callback (`OXMCP_STATUS_INVALID_INPUT`).
///
/// # Safety
/// `server` is a live server; `bind`/`path` are NUL-terminated (path may be NULL); `out_port` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_start_http(
    server: *const OxmcpServer,
    bind: *const c_char,
    path: *const c_char,
    flags: u32,
    out_port: *mut u16,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let bind = str_arg(bind, "bind")?.to_owned();
        let endpoint = opt_str_arg(path, "path")?.unwrap_or("/mcp").to_owned();
        let engine = s.build()?;
        let http = s.rt.block_on(async move {
            let addr = tokio::net::lookup_host(bind.as_str())
                .await?
                .next()
                .ok_or_else(|| invalid(format!("{bind:?} resolves to no address")))?;
            let config = HttpServerConfig {
                bind: addr,
                endpoint,
                stateless: flags & OXMCP_HTTP_STATELESS != 0,
                json_response: flags & OXMCP_HTTP_JSON_RESPONSE != 0,
                ..Default::default()
            };
            Ok::<_, Error>(HttpServer::bind(engine, config).await?)
        })??;
        let port = http.local_addr().port();
        let old = s.lock().http.replace(http);
        if let Some(old) = old {
            s.rt.block_on(old.shutdown())?;
        }
        if !out_port.is_null() {
            out(out_port, port, "out_port")?;
        }
        Ok(())
    })
}

/// Stops the HTTP listener gracefully (in-flight requests get a few seconds), blocking until
/// it is closed. Nothing happens if none runs. Threading: a host thread, not a callback.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_stop_http(server: *const OxmcpServer) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let http = s.lock().http.take();
        if let Some(http) = http {
            s.rt.block_on(http.shutdown())?;
        }
        Ok(())
    })
}

/// Releases the server (NULL is ignored). When it returns, no handler callback of this
/// server runs or will start (requests arriving later fail), so handler user data may be
/// released. The HTTP listener closes in the background; a stdio serve goes on until
/// cancelled or stdin closes. Incoming requests the host holds stay valid until freed.
///
/// Threading: any thread, but not from inside one of this server's handler callbacks
/// (deadlock).
///
/// # Safety
/// `server` is NULL or a live server, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_free(server: *mut OxmcpServer) {
    if server.is_null() {
        return;
    }
    quietly(|| {
        // SAFETY: see the function's contract.
        let s = unsafe { Box::from_raw(server) };
        s.gate.close();
        let http = s.lock().http.take();
        if let Some(http) = http {
            let _ = s.rt.spawn(http.shutdown());
        }
    });
}

#[derive(Default)]
struct CancelSlot {
    callback: Option<(unsafe extern "C" fn(*mut c_void), UserData)>,
    /// The thread running the callback right now, if any.
    running: Option<ThreadId>,
    registered: bool,
}

struct Incoming {
    kind: Kind,
    ctx: RequestContext,
    reply: Mutex<Option<oneshot::Sender<Result<Value, Error>>>>,
    /// Fires once the request is completed, freed, or gone from the engine.
    finished: CancellationToken,
    cancel: Mutex<CancelSlot>,
    cancel_done: Condvar,
    rt: Arc<Rt>,
}

impl Incoming {
    fn slot(&self) -> std::sync::MutexGuard<'_, CancelSlot> {
        self.cancel.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the outcome; an error if the request was already completed.
    fn reply(&self, outcome: Result<Value, Error>) -> Result<(), Error> {
        let tx = self.reply.lock().unwrap_or_else(|e| e.into_inner()).take();
        let tx = tx.ok_or_else(|| invalid("the request was already completed"))?;
        // The cancel callback must not start after a completion returned.
        self.slot().callback = None;
        // Fails only if the engine dropped the request (cancelled, connection closed):
        // the result then has nowhere to go, which is not the host's error.
        let _ = tx.send(outcome);
        self.finished.cancel();
        Ok(())
    }

    /// Runs the host's cancel callback, if still registered.
    fn fire_cancel(&self) {
        let taken = {
            let mut slot = self.slot();
            let cb = slot.callback.take();
            if cb.is_some() {
                slot.running = Some(std::thread::current().id());
            }
            cb
        };
        if let Some((cb, ud)) = taken {
            // SAFETY: the host registered the callback with this user data.
            unsafe { cb(ud.ptr()) };
            self.slot().running = None;
            self.cancel_done.notify_all();
        }
    }
}

/// A request a client sent to a host handler. Owned by the host from the handler callback
/// on; usable from any thread; released with oxmcp_incoming_free().
pub struct OxmcpIncoming {
    inner: Arc<Incoming>,
}

fn incoming_arg<'a>(request: *const OxmcpIncoming) -> Result<&'a Incoming, Error> {
    // SAFETY: exported functions require a NULL or live incoming-request handle.
    unsafe { request.as_ref() }.map(|r| &*r.inner).ok_or_else(|| invalid("request is NULL"))
}

/// Completes the request with its result (`result_json`: a `CallToolResult`,
/// `ReadResourceResult`, `GetPromptResult` or `Completion` for the handler's kind). The
/// shape is checked: a wrong one returns `OXMCP_STATUS_INVALID_INPUT` and leaves the request
/// open. A second completion fails; a completion after the client cancelled (or
/// disconnected) succeeds and is dropped. Any thread.
///
/// # Safety
/// `request` is a live incoming request; `result_json` points to `result_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_complete(
    request: *const OxmcpIncoming,
    result_json: *const u8,
    result_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let value = json_arg(result_json, result_len, "result_json", Value::Null)?;
        r.kind.check(&value)?;
        r.reply(Ok(value))
    })
}

/// Fails the request as a handler failure with `message` (UTF-8, NUL-terminated): a tool
/// answers an `isError: true` result with that text, other kinds a JSON-RPC -32603 error.
/// Same rules as oxmcp_incoming_complete().
///
/// # Safety
/// `request` is a live incoming request; `message` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_fail(request: *const OxmcpIncoming, message: *const c_char) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let message = str_arg(message, "message")?;
        r.reply(Err(Error::new(ErrorKind::Handler, message)))
    })
}

/// Fails the request with a JSON-RPC error: `code` (e.g. -32602), `message`, and optional
/// `data` JSON (NULL / 0 for none). Same rules as oxmcp_incoming_complete().
///
/// # Safety
/// `request` is a live incoming request; `message` is NUL-terminated; `data_json` points to `data_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_fail_rpc(
    request: *const OxmcpIncoming,
    code: i64,
    message: *const c_char,
    data_json: *const u8,
    data_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let message = str_arg(message, "message")?;
        let mut obj = ErrorObject::new(code, message);
        if !bytes_arg(data_json, data_len, "data_json")?.is_empty() {
            obj.data = Some(json_arg(data_json, data_len, "data_json", Value::Null)?);
        }
        r.reply(Err(Error::from_rpc(obj)))
    })
}

/// Stores in `*out_cancelled` whether the client cancelled the request (or disconnected).
///
/// # Safety
/// `request` is a live incoming request; `out_cancelled` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_is_cancelled(request: *const OxmcpIncoming, out_cancelled: *mut bool) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        out(out_cancelled, r.ctx.is_cancelled(), "out_cancelled")
    })
}

/// Registers `callback`, called once on a runtime thread when the client cancels the
/// request or disconnects — at once (on a runtime thread) if that already happened. It is
/// not called once the request was completed, and never after oxmcp_incoming_free()
/// returned (free waits for a running callback, unless called from inside it). One
/// callback per request (a second registration fails).
///
/// # Safety
/// `request` is a live incoming request.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_on_cancel(
    request: *const OxmcpIncoming,
    callback: OxmcpCancelFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        // SAFETY: see the function's contract.
        let handle = unsafe { request.as_ref() }.ok_or_else(|| invalid("request is NULL"))?;
        let callback = callback.ok_or_else(|| invalid("callback is NULL"))?;
        let inner = handle.inner.clone();
        {
            let mut slot = inner.slot();
            if slot.registered {
                return Err(invalid("a cancel callback is already registered"));
            }
            if inner.finished.is_cancelled() {
                return Ok(()); // completed: the callback would never fire
            }
            slot.registered = true;
            slot.callback = Some((callback, UserData(user_data)));
        }
        let rt = inner.rt.clone();
        rt.spawn(async move {
            tokio::select! {
                biased;
                _ = inner.finished.cancelled() => {}
                _ = inner.ctx.cancelled() => inner.fire_cancel(),
            }
        })
    })
}

/// Sends a progress notification for this request (nothing if the client asked for none):
/// `progress` (increasing), `total` when `has_total`, and `message` (NULL for none).
///
/// # Safety
/// `request` is a live incoming request; `message` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_progress(
    request: *const OxmcpIncoming,
    progress: f64,
    has_total: bool,
    total: f64,
    message: *const c_char,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let message = opt_str_arg(message, "message")?;
        r.ctx.report_progress(progress, has_total.then_some(total), message)
    })
}

/// Sends a log message (`notifications/message`) tied to this request, if the client's
/// level lets it through: `level` is `"debug"`, `"info"`, `"notice"`, `"warning"`,
/// `"error"`, `"critical"`, `"alert"` or `"emergency"`; `logger` may be NULL; `data_json`
/// is any JSON value.
///
/// # Safety
/// `request` is a live incoming request; strings are NUL-terminated (logger may be NULL); `data_json` points to `data_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_log(
    request: *const OxmcpIncoming,
    level: *const c_char,
    logger: *const c_char,
    data_json: *const u8,
    data_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let level_name = str_arg(level, "level")?;
        let level: LoggingLevel = serde_json::from_value(Value::String(level_name.to_lowercase()))
            .map_err(|_| invalid(format!("unknown log level {level_name:?}")))?;
        let logger = opt_str_arg(logger, "logger")?;
        let data = json_arg(data_json, data_len, "data_json", Value::Null)?;
        r.ctx.log_with_logger(level, logger, data)
    })
}

/// Releases the request (NULL is ignored). An uncompleted request fails (a handler failure:
/// "freed without a result"); a registered cancel callback will not run any more.
/// Call it once, after the last use of the handle, from any thread.
///
/// # Safety
/// `request` is NULL or a live incoming request, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_free(request: *mut OxmcpIncoming) {
    if request.is_null() {
        return;
    }
    quietly(|| {
        // SAFETY: see the function's contract.
        let handle = unsafe { Box::from_raw(request) };
        let inner = &handle.inner;
        let _ = inner.reply(Err(Error::new(ErrorKind::Handler, "the host freed the request without a result")));
        inner.finished.cancel();
        let me = std::thread::current().id();
        let mut slot = inner.slot();
        slot.callback = None;
        while slot.running.is_some_and(|t| t != me) {
            slot = inner.cancel_done.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
    });
}
