//! `OxmcpIncoming`: a request the host answers later, from any thread. Server handlers
//! get one per tool call, resource read, prompt or completion; a client's request handler
//! gets one per sampling, elicitation or roots request from the server. Both are calls in
//! the core's host-call table; this handle adds what C needs on top: a completion checked
//! against the result the request owes, a second completion refused, and a cancel callback
//! that never runs after oxmcp_incoming_free() returned.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::ThreadId;

use oxmcp::host::{CallId, HandlerKind, HostCalls};
use oxmcp::protocol::{methods, CreateMessageResult, ElicitResult, ErrorObject, ListRootsResult};
use oxmcp::server::RequestContext;
use oxmcp::{Error, ErrorKind};
use serde_json::Value;

use crate::callback::{c_string, Gate, OxmcpCancelFn, OxmcpCompletionFn, UserData};
use crate::error::{bytes_arg, guard, invalid, json_arg, opt_json_text, opt_str_arg, out, quietly, str_arg, OxmcpStatus};
use crate::request::{start, OxmcpRequest};
use crate::runtime::Rt;

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

/// Called when the server asks a client something: `method` is `"sampling/createMessage"`,
/// `"elicitation/create"` or `"roots/list"` (NUL-terminated), `params_json` its params (valid
/// during the call only). `request` is owned by the host as for a server handler: complete it
/// with the `CreateMessageResult`, `ElicitResult` or `ListRootsResult` (any thread, now or
/// later), or fail it; oxmcp_incoming_on_cancel() tells when the server cancels. Runs on a
/// runtime thread.
///
/// With `"authorize"` among the answers (OAuth, see oxmcp_client_set_oauth()) the engine
/// also asks `"authorize"` with `{"url", "redirectUri"}` while it authorizes: complete it
/// with the URL the user's browser was sent back to, as a JSON string.
pub type OxmcpClientRequestFn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *mut OxmcpIncoming,
        method: *const c_char,
        params_json: *const u8,
        params_len: usize,
    ),
>;

/// What result an incoming request owes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Owes {
    Handler(HandlerKind),
    Client(&'static str),
    /// Who an access token speaks for (oxmcp_server_verify_tokens()).
    Identity,
}

impl Owes {
    /// Checks `result` before it is sent, so the host hears of a wrong shape at once.
    fn check(self, result: &str) -> Result<(), Error> {
        fn shape<T: serde::de::DeserializeOwned>(method: &str, text: &str) -> Result<(), Error> {
            serde_json::from_str::<T>(text).map(drop).map_err(|e| invalid(format!("not a valid {method} result: {e}")))
        }
        match self {
            Owes::Handler(kind) => kind.check_result(result),
            Owes::Identity => serde_json::from_str::<oxmcp::auth::resource::AuthInfo>(result).map(drop).map_err(|e| {
                invalid(format!(
                    "not a valid identity (`{{\"subject\", \"clientId\", \"scopes\", \"expiresAt\", \"claims\"}}`): {e}"
                ))
            }),
            Owes::Client(m @ methods::SAMPLING_CREATE_MESSAGE) => shape::<CreateMessageResult>(m, result),
            Owes::Client(m @ methods::ELICITATION_CREATE) => shape::<ElicitResult>(m, result),
            Owes::Client(m @ oxmcp::host::client::AUTHORIZE) => serde_json::from_str::<String>(result)
                .map(drop)
                .map_err(|_| invalid(format!("the {m} result must be the URL the browser came back to, as a JSON string"))),
            Owes::Client(m) => shape::<ListRootsResult>(m, result),
        }
    }
}

#[derive(Default)]
struct CancelSlot {
    callback: Option<(unsafe extern "C" fn(*mut c_void), UserData)>,
    /// The thread running the callback right now, if any.
    running: Option<ThreadId>,
    registered: bool,
}

struct Incoming {
    owes: Owes,
    id: CallId,
    calls: Arc<HostCalls>,
    /// The request's context (server handlers only).
    ctx: Option<RequestContext>,
    /// The request's facts and who its access token speaks for (JSON), read once, when
    /// oxmcp_incoming_info() or oxmcp_incoming_auth() first asks.
    facts: OnceLock<(Vec<u8>, Vec<u8>)>,
    completed: AtomicBool,
    cancel: Mutex<CancelSlot>,
    cancel_done: Condvar,
    rt: Arc<Rt>,
}

impl Incoming {
    fn slot(&self) -> std::sync::MutexGuard<'_, CancelSlot> {
        self.cancel.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The request's facts and its token's identity (JSON), read at the first ask.
    fn facts(&self, what: &str) -> Result<&(Vec<u8>, Vec<u8>), Error> {
        let ctx = self.ctx.as_ref().ok_or_else(|| invalid(format!("only a server handler's request {what}")))?;
        Ok(self.facts.get_or_init(|| {
            let info = oxmcp::host::context::info(ctx);
            let auth = serde_json::to_vec(info.get("auth").unwrap_or(&Value::Null)).unwrap_or_else(|_| b"null".to_vec());
            (info.to_string().into_bytes(), auth)
        }))
    }

    fn ctx(&self) -> Result<&RequestContext, Error> {
        self.ctx.as_ref().ok_or_else(|| invalid("a client's incoming request has no progress or log"))
    }

    /// Sends the outcome; an error if the request was already completed.
    fn reply(&self, outcome: Result<String, Error>) -> Result<(), Error> {
        if self.completed.swap(true, Ordering::AcqRel) {
            return Err(invalid("the request was already completed"));
        }
        // The cancel callback must not start after a completion returned.
        self.slot().callback = None;
        // Dropped by the table if the engine no longer waits (cancelled, connection
        // closed): the result then has nowhere to go, which is not the host's error.
        self.calls.complete(self.id, outcome);
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

/// Hands call `id` to a host callback: `call(handle)` runs it under `gate`. `false` (and
/// the handle freed) when the gate is closed.
pub(crate) fn hand_over(
    owes: Owes,
    id: CallId,
    calls: &Arc<HostCalls>,
    rt: &Arc<Rt>,
    gate: &Gate,
    call: impl FnOnce(*mut OxmcpIncoming),
) -> bool {
    let ctx = match owes {
        Owes::Handler(_) => match calls.context(id) {
            Ok(ctx) => Some(ctx),
            Err(_) => return false,
        },
        Owes::Client(_) | Owes::Identity => None,
    };
    let inner = Arc::new(Incoming {
        owes,
        id,
        calls: calls.clone(),
        ctx,
        facts: OnceLock::new(),
        completed: AtomicBool::new(false),
        cancel: Mutex::new(CancelSlot::default()),
        cancel_done: Condvar::new(),
        rt: rt.clone(),
    });
    let handle = Box::into_raw(Box::new(OxmcpIncoming { inner }));
    let ran = gate.run(|| call(handle));
    if !ran {
        // SAFETY: never handed to the host.
        drop(unsafe { Box::from_raw(handle) });
    }
    ran
}

/// A server handler as a host function of the core's staged server.
pub(crate) fn handler_fn(
    kind: HandlerKind,
    callback: unsafe extern "C" fn(*mut c_void, *mut OxmcpIncoming, *const u8, usize),
    user_data: UserData,
    calls: Arc<HostCalls>,
    rt: Arc<Rt>,
    gate: Gate,
) -> oxmcp::host::HostFn {
    Arc::new(move |id, input: String| {
        hand_over(Owes::Handler(kind), id, &calls, &rt, &gate, |handle| {
            // SAFETY: the host registered the callback with this user data; `input` outlives the call.
            unsafe { callback(user_data.ptr(), handle, input.as_ptr(), input.len()) }
        })
    })
}

/// Called when a client presents an access token to a protected HTTP listener (see
/// oxmcp_server_verify_tokens()).
///
/// - `request`: the check, now owned by the host. Accept the token (any thread, now or later)
///   with oxmcp_incoming_complete() and who it speaks for, a JSON object `{"subject",
///   "clientId", "scopes": [...], "expiresAt", "claims": {...}}` (every member may be left
///   out), or refuse it with oxmcp_incoming_fail() (the client gets 401); release it with
///   oxmcp_incoming_free() (freeing an unanswered check refuses the token).
/// - `token`: the bearer token (NUL-terminated), valid during the call only.
///
/// Runs on a runtime thread: return quickly and finish long work (introspection) elsewhere.
pub type OxmcpTokenVerifierFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request: *mut OxmcpIncoming, token: *const c_char)>;

/// A token verifier as a host function of the core's staged server.
pub(crate) fn verifier_fn(
    callback: unsafe extern "C" fn(*mut c_void, *mut OxmcpIncoming, *const c_char),
    user_data: UserData,
    calls: Arc<HostCalls>,
    rt: Arc<Rt>,
    gate: Gate,
) -> oxmcp::host::HostFn {
    Arc::new(move |id, input: String| {
        let token = serde_json::from_str::<Value>(&input)
            .ok()
            .and_then(|v| v.get("token").and_then(Value::as_str).map(c_string))
            .unwrap_or_else(|| c_string(""));
        hand_over(Owes::Identity, id, &calls, &rt, &gate, |handle| {
            // SAFETY: the host registered the callback with this user data; `token` outlives the call.
            unsafe { callback(user_data.ptr(), handle, token.as_ptr()) }
        })
    })
}

/// A client's request handler as the core's client hook.
pub(crate) fn client_request_fn(
    callback: unsafe extern "C" fn(*mut c_void, *mut OxmcpIncoming, *const c_char, *const u8, usize),
    user_data: UserData,
    calls: Arc<HostCalls>,
    rt: Arc<Rt>,
    gate: Gate,
) -> oxmcp::host::client::RequestFn {
    Arc::new(move |id, method: &'static str, params: String| {
        let name = c_string(method);
        hand_over(Owes::Client(method), id, &calls, &rt, &gate, |handle| {
            // SAFETY: as above.
            unsafe { callback(user_data.ptr(), handle, name.as_ptr(), params.as_ptr(), params.len()) }
        })
    })
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
        let text = std::str::from_utf8(bytes_arg(result_json, result_len, "result_json")?)
            .map_err(|e| invalid(format!("result_json is not UTF-8: {e}")))?;
        r.owes.check(text)?;
        r.reply(Ok(text.to_owned()))
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
        let cancelled = r.calls.is_cancelled(r.id) || r.ctx.as_ref().is_some_and(|c| c.is_cancelled());
        out(out_cancelled, cancelled, "out_cancelled")
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
            if inner.completed.load(Ordering::Acquire) {
                return Ok(()); // completed: the callback would never fire
            }
            slot.registered = true;
            slot.callback = Some((callback, UserData(user_data)));
        }
        // The table runs this when the peer cancels (at once if it already did); the host
        // callback then runs on a runtime thread. A request already gone from the table
        // was cancelled if its context says so.
        let (fire, rt) = (inner.clone(), inner.rt.clone());
        let spawn = move || {
            let _ = rt.spawn(async move { fire.fire_cancel() });
        };
        let gone_cancelled = !inner.calls.is_open(inner.id) && inner.ctx.as_ref().is_some_and(|c| c.is_cancelled());
        if gone_cancelled {
            spawn();
        } else {
            inner.calls.on_cancel(inner.id, spawn);
        }
        Ok(())
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
        r.ctx()?.report_progress(progress, has_total.then_some(total), message)
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
        let level = oxmcp::host::context::level(str_arg(level, "level")?)?;
        let logger = opt_str_arg(logger, "logger")?;
        let data = json_arg(data_json, data_len, "data_json", Value::Null)?;
        r.ctx()?.log_with_logger(level, logger, data)
    })
}

/// Who the request's OAuth access token speaks for, on a protected HTTP listener (see
/// oxmcp_server_start_http_options()): `*out_json` / `*out_len` get a JSON object
/// `{"subject", "clientId", "scopes": [...], "expiresAt", "claims": {...}}` (members the
/// token lacks are null), or `null` when the request came without a token (stdio, an
/// unprotected listener). The scopes are those the token was granted; `claims` holds every
/// claim of a JWT access token. The bytes (not NUL-terminated) are owned by the request
/// and valid until oxmcp_incoming_free(). Only for a server handler's request (a client's
/// incoming request fails with `OXMCP_STATUS_INVALID_INPUT`).
///
/// ```c
/// static void whoami(void *ud, OxmcpIncoming *req, const uint8_t *args, size_t len) {
///     const uint8_t *auth; size_t auth_len;
///     if (oxmcp_incoming_auth(req, &auth, &auth_len) == OXMCP_STATUS_OK)
///         printf("%.*s\n", (int)auth_len, (const char *)auth); // {"subject":"alice",...}
///     ...
/// }
/// ```
///
/// # Safety
/// `request` is a live incoming request; `out_json` and `out_len` are writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_auth(
    request: *const OxmcpIncoming,
    out_json: *mut *const u8,
    out_len: *mut usize,
) -> OxmcpStatus {
    guard(|| {
        let (_, auth) = incoming_arg(request)?.facts("has an access token")?;
        out_bytes(auth, out_json, out_len)
    })
}

/// The request's facts as JSON: `{"requestId", "progressToken", "clientInfo",
/// "clientCapabilities", "protocolVersion", "cancelled", "auth", "headers"}` (`headers`: the
/// HTTP request's, lower-case names, no `Authorization`; null over stdio). Read once, at the
/// first oxmcp_incoming_info() or oxmcp_incoming_auth() call (oxmcp_incoming_is_cancelled()
/// tells the live state). The bytes (not NUL-terminated) are owned by the request and valid
/// until oxmcp_incoming_free(). Only for a server handler's request.
///
/// # Safety
/// `request` is a live incoming request; `out_json` and `out_len` are writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_info(
    request: *const OxmcpIncoming,
    out_json: *mut *const u8,
    out_len: *mut usize,
) -> OxmcpStatus {
    guard(|| {
        let (info, _) = incoming_arg(request)?.facts("has facts")?;
        out_bytes(info, out_json, out_len)
    })
}

/// Hands out bytes the request owns.
fn out_bytes(json: &[u8], out_json: *mut *const u8, out_len: *mut usize) -> Result<(), Error> {
    if out_len.is_null() {
        return Err(invalid("out_len is NULL"));
    }
    out(out_json, json.as_ptr(), "out_json")?;
    out(out_len, json.len(), "out_len")
}

/// Asks the client during a server handler's request: `method` is
/// `"sampling/createMessage"`, `"elicitation/create"` or `"roots/list"` (NUL-terminated),
/// `params_json` its params (NULL / 0 for `{}`; a sampling request without `maxTokens` gets
/// the protocol default, 1000). `callback` gets the client's `CreateMessageResult`,
/// `ElicitResult` or `ListRootsResult`, or the error: `OXMCP_STATUS_CAPABILITY_MISSING` when
/// the client did not declare the capability, `OXMCP_STATUS_CANCELLED` when this request is
/// cancelled (the client is then told to drop the question) or, in the stateless era, when
/// the client's answer must come first (the round ends with an input request and the
/// handler runs again with the answer: ask before side effects). `*out_request` (may be
/// NULL) cancels the question alone; free it with oxmcp_request_free(). Only for a server
/// handler's request (a client's incoming request fails with `OXMCP_STATUS_INVALID_INPUT`).
/// The callback may run after the request was completed or freed; it must not use a freed
/// request. Same start rules as oxmcp_client_call_tool(); once the request is answered it
/// starts nothing (`OXMCP_STATUS_CLOSED`), nor do oxmcp_incoming_escalate_to_task(),
/// oxmcp_incoming_read_resource() and oxmcp_incoming_next(). Any thread.
///
/// # Safety
/// `request` is a live incoming request; `method` is NUL-terminated; `params_json` points to `params_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_ask_client(
    request: *const OxmcpIncoming,
    method: *const c_char,
    params_json: *const u8,
    params_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        if r.ctx.is_none() {
            return Err(invalid("only a server handler's request can ask the client"));
        }
        let params = std::str::from_utf8(bytes_arg(params_json, params_len, "params_json")?)
            .map_err(|e| invalid(format!("params_json is not UTF-8: {e}")))?;
        // Checked now (a refused question starts nothing), by the core's rules.
        let ask = oxmcp::host::context::Ask::new(str_arg(method, "method")?, params)?;
        with_context(r, "ask the client", callback, user_data, out_request, |ctx| async move { ask.send(&ctx).await })
    })
}

/// In an escalating tool's call (a tool registered with `"escalating": true` in its
/// definition, which the client does not see): continues the call as a task, so that the
/// handler can ask the client (oxmcp_incoming_ask_client()) as the task asks, with its
/// result then the task's. `callback` gets `true` once the call is a task, `false` when it
/// stays inline (the client did not ask for a task: then questions are asked inline as
/// usual). Only for a server handler's request. Same start rules as
/// oxmcp_client_call_tool(). Any thread.
///
/// ```c
/// static void on_escalated(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
///     OxmcpIncoming *req = ud; // json is "true" or "false"; ask the client now, then complete req
/// }
/// static void long_job(void *ud, OxmcpIncoming *req, const uint8_t *args, size_t len) {
///     oxmcp_incoming_escalate_to_task(req, on_escalated, req, NULL);
/// }
/// ```
///
/// # Safety
/// `request` is a live incoming request; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_escalate_to_task(
    request: *const OxmcpIncoming,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        with_context(r, "escalate", callback, user_data, out_request, |ctx| async move {
            oxmcp::host::context::escalate_to_task(&ctx).await
        })
    })
}

/// Reads one of this server's own resources (`uri`, NUL-terminated) as a client would,
/// with this request's session: `callback` gets the `ReadResourceResult`. Only for a server
/// handler's request. Same start rules as oxmcp_client_call_tool(). Any thread.
///
/// # Safety
/// `request` is a live incoming request; `uri` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_read_resource(
    request: *const OxmcpIncoming,
    uri: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let uri = str_arg(uri, "uri")?.to_owned();
        with_context(r, "read a resource", callback, user_data, out_request, move |ctx| async move {
            oxmcp::host::context::read_resource(&ctx, &uri).await
        })
    })
}

/// In a middleware's call (oxmcp_server_add_middleware()): runs the rest of the chain (the
/// next middleware, then the request's handler) with `params_json` (NULL / 0: the params the
/// middleware got). `callback` gets the rest's result, or its error (`OXMCP_STATUS_RPC` with
/// the JSON-RPC code for an error answer). Once per call: a second one's callback gets
/// `OXMCP_STATUS_INVALID_INPUT`. Same start rules as oxmcp_client_call_tool(). Any thread.
///
/// # Safety
/// `request` is a live incoming request; `params_json` points to `params_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_next(
    request: *const OxmcpIncoming,
    params_json: *const u8,
    params_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        if !matches!(r.owes, Owes::Handler(HandlerKind::Middleware)) {
            return Err(invalid("next: only a middleware's request goes on to the rest"));
        }
        let params = opt_json_text(params_json, params_len, "params_json")?;
        with_context(r, "go on", callback, user_data, out_request, move |ctx| async move {
            oxmcp::host::context::next(&ctx, params.as_deref()).await
        })
    })
}

/// Over Streamable HTTP, ends the SSE stream this request answers on; the client
/// reconnects and the result still reaches it. Nothing over stdio or for a request
/// answered with plain JSON. Only for a server handler's request.
///
/// # Safety
/// `request` is a live incoming request.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_end_response_stream(request: *const OxmcpIncoming) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        r.ctx.as_ref().ok_or_else(|| invalid("only a server handler's request has a response stream"))?.end_response_stream();
        Ok(())
    })
}

/// Starts `body` with a server handler's request context (`what` it does, for the error
/// a client's request gets); its JSON text is the result.
fn with_context<F, Fut>(
    r: &Incoming,
    what: &str,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
    body: F,
) -> Result<(), Error>
where
    F: FnOnce(RequestContext) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<String, Error>> + Send + 'static,
{
    if r.ctx.is_none() {
        return Err(invalid(format!("only a server handler's request can {what}")));
    }
    // Through the table: once the request is answered, nothing more starts for it.
    let ctx = r.calls.context(r.id).map_err(|_| Error::new(ErrorKind::Closed, "the request is over"))?;
    start(&r.rt, callback, user_data, out_request, move |_| async move {
        serde_json::from_str::<Value>(&body(ctx).await?).map_err(Error::from)
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
        if !inner.completed.load(Ordering::Acquire) {
            let _ = inner.reply(Err(Error::new(ErrorKind::Handler, "the host freed the request without a result")));
        }
        let me = std::thread::current().id();
        let mut slot = inner.slot();
        slot.callback = None;
        while slot.running.is_some_and(|t| t != me) {
            slot = inner.cancel_done.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
    });
}
