//! `OxmcpIncoming`: a request the host answers later, from any thread. Server handlers
//! get one per tool call, resource read, prompt or completion; a client's request handler
//! gets one per sampling, elicitation or roots request from the server. Both are calls in
//! the core's host-call table; this handle adds what C needs on top: a second completion
//! refused, and a cancel callback that never runs after oxmcp_incoming_free() returned.
//! Everything a handler asks of its request goes through one door, oxmcp_incoming_call(),
//! on the engine's `host::context::call`: a new capability is a new op name, not a new
//! export.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;

use oxmcp::host::{context, CallId, HandlerKind, HostCalls};
use oxmcp::server::RequestContext;
use oxmcp::{Error, ErrorKind};
use serde_json::Value;

use crate::callback::{c_string, Gate, OxmcpCancelFn, OxmcpCompletionFn, UserData};
use crate::error::{bytes_arg, guard, invalid, opt_json_text, quietly, str_arg, OxmcpStatus};
use crate::request::{door_value, start_now, OxmcpRequest};
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

/// What result an incoming request owes: checked at completion for a server handler
/// (the engine's `HandlerKind::check_result`) and a token check, so the host hears of a
/// wrong shape at once and the request stays open. A client's answer to the server is
/// checked by the engine (`host::client`), which fails the server's request with a
/// handler error when the shape is wrong.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Owes {
    Handler(HandlerKind),
    Client,
    /// Who an access token speaks for (oxmcp_server_verify_tokens()).
    Identity,
}

impl Owes {
    /// Checks `result` before it is sent.
    fn check(self, result: &str) -> Result<(), Error> {
        match self {
            Owes::Handler(kind) => kind.check_result(result),
            Owes::Identity => serde_json::from_str::<oxmcp::auth::resource::AuthInfo>(result).map(drop).map_err(|e| {
                invalid(format!(
                    "not a valid identity (`{{\"subject\", \"clientId\", \"scopes\", \"expiresAt\", \"claims\"}}`): {e}"
                ))
            }),
            Owes::Client => Ok(()),
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
    /// The request's context (server handlers only): whether it was cancelled after it
    /// left the table.
    ctx: Option<RequestContext>,
    completed: AtomicBool,
    cancel: Mutex<CancelSlot>,
    cancel_done: Condvar,
    rt: Arc<Rt>,
}

impl Incoming {
    fn slot(&self) -> std::sync::MutexGuard<'_, CancelSlot> {
        self.cancel.lock().unwrap_or_else(|e| e.into_inner())
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

/// Hands call `id` to a host callback: `call(handle)` runs it under `gate`, now or (a
/// queued runtime) when the host drains. `false` (and the handle freed) when the gate is
/// closed now; closed by the time the host drains, the call fails as a freed one does.
pub(crate) fn hand_over(
    owes: Owes,
    id: CallId,
    calls: &Arc<HostCalls>,
    rt: &Arc<Rt>,
    gate: &Gate,
    call: impl FnOnce(*mut OxmcpIncoming) + Send + 'static,
) -> bool {
    let ctx = match owes {
        Owes::Handler(_) => match calls.context(id) {
            Ok(ctx) => Some(ctx),
            Err(_) => return false,
        },
        Owes::Client | Owes::Identity => None,
    };
    let inner = Arc::new(Incoming {
        owes,
        id,
        calls: calls.clone(),
        ctx,
        completed: AtomicBool::new(false),
        cancel: Mutex::new(CancelSlot::default()),
        cancel_done: Condvar::new(),
        rt: rt.clone(),
    });
    if rt.deliver.queue().is_none() {
        let handle = Box::into_raw(Box::new(OxmcpIncoming { inner }));
        let ran = gate.run(|| call(handle));
        if !ran {
            // SAFETY: never handed to the host.
            drop(unsafe { Box::from_raw(handle) });
        }
        return ran;
    }
    let gate = gate.clone();
    rt.deliver.call(move || {
        let handle = Box::into_raw(Box::new(OxmcpIncoming { inner }));
        if !gate.run(|| call(handle)) {
            // SAFETY: never handed to the host; freeing fails the call.
            unsafe { oxmcp_incoming_free(handle) };
        }
    });
    true
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
        hand_over(Owes::Handler(kind), id, &calls, &rt, &gate, move |handle| {
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
        hand_over(Owes::Identity, id, &calls, &rt, &gate, move |handle| {
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
        hand_over(Owes::Client, id, &calls, &rt, &gate, move |handle| {
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

/// `code` for oxmcp_incoming_fail_rpc(): no JSON-RPC code, a handler failure.
pub const OXMCP_NO_CODE: i64 = i64::MIN;

/// Fails the request with a JSON-RPC error: `code` (e.g. -32602), `message`, and optional
/// `data` (NULL / 0 or `null` for none), by the engine's one rule for a host's failure
/// (`host::failure`): JSON data is sent as it is, other text as a JSON string. With `code`
/// `OXMCP_NO_CODE` it is a handler failure with `message` (`data` ignored): a tool answers
/// an `isError: true` result with that text, other kinds a JSON-RPC -32603 error (the
/// header's inline oxmcp_incoming_fail()). Same rules as oxmcp_incoming_complete().
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
        let data = opt_json_text(data_json, data_len, "data_json")?;
        let code = (code != OXMCP_NO_CODE).then_some(code);
        r.reply(Err(oxmcp::host::failure::from_parts(code, message, data.as_deref())))
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
            let deliver = rt.deliver.clone();
            let _ = rt.spawn(async move { deliver.call(move || fire.fire_cancel()) });
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

/// The door to everything a handler asks of its request, by name (the engine's
/// `host::context` ops): `op` (NUL-terminated) and its params (`params_json`, JSON; NULL / 0
/// for none). Ops answered at once:
/// - `"info"`: the request's facts, `{"requestId", "progressToken", "clientInfo",
///   "clientCapabilities", "protocolVersion", "cancelled", "auth", "headers"}` (`auth`: who
///   its OAuth access token speaks for, `{"subject", "clientId", "scopes", "expiresAt",
///   "claims"}`, null without a token; `headers`: the HTTP request's, lower-case names, no
///   `Authorization`, null over stdio); `null` once the request is over or for a client's
///   incoming request;
/// - `"cancelled"`: `true` or `false`;
/// - `"progress"` `{"progress": n, "total"?: n, "message"?: text}`: sent if the client asked
///   for progress; result `null`;
/// - `"log"` `{"level": name, "logger"?: text, "data": any}` (levels `"debug"` ...
///   `"emergency"`, any case): sent if the client's level lets it through; result `null`;
/// - `"end response stream"`: over Streamable HTTP, ends the SSE stream this request answers
///   on (the client reconnects and still gets the result); nothing elsewhere.
///
/// Once the request is over, progress, logs and the end of the stream are dropped without
/// an error. Ops answered later:
/// - `"sampling/createMessage"` (without `maxTokens` the protocol default, 1000),
///   `"elicitation/create"`, `"roots/list"`: asks the client; the result is its
///   `CreateMessageResult`, `ElicitResult` or `ListRootsResult`. `OXMCP_STATUS_CAPABILITY_MISSING`
///   when the client did not declare the capability; `OXMCP_STATUS_CANCELLED` when this
///   request is cancelled (the client is told to drop the question) or, in the stateless
///   era, when the client's answer must come first (the round ends with an input request and
///   the handler runs again with the answer: ask before side effects);
/// - `"resources/read"` `{"uri": text}`: reads one of this server's own resources as a
///   client would, with this request's session (`ReadResourceResult`);
/// - `"escalate"`: in an escalating tool's call (a tool registered with `"escalating": true`
///   and `"execution": {"taskSupport": "optional"}` or `"required"`), continues the call as a
///   task, so questions asked from then on are the task's and the handler's result is the
///   task's: `true` once it is one, `false` when it stays inline (the client did not ask for
///   a task);
/// - `"next"`: in a middleware's call (oxmcp_server_register() with `"middleware"`), runs the
///   rest of the chain with the params given (none: the params the middleware got); the
///   result is the rest's, or its error (`OXMCP_STATUS_RPC` with the JSON-RPC code for an
///   error answer). Once per call.
///
/// `callback` gets the result JSON exactly once; it may be NULL for the ops answered at once
/// (the result is then dropped). Bad input (`OXMCP_STATUS_INVALID_INPUT`) and a request that
/// is over (`OXMCP_STATUS_CLOSED` for the asking ops) are the returned status, and the
/// callback never runs; any other outcome known at once (the ops answered at once) goes to
/// the callback before this returns, on this thread (`*out_request` is then NULL). Otherwise the
/// callback runs later on a runtime thread, and `*out_request` (may be NULL; free it with
/// oxmcp_request_free()) cancels that op alone. The callback may run after the request was
/// completed or freed; it must not use a freed request. Unknown ops are
/// `OXMCP_STATUS_INVALID_INPUT`. Any thread. The header's inline helpers
/// (oxmcp_incoming_progress(), oxmcp_incoming_log(), oxmcp_incoming_ask_client(), ...) are
/// written on this door.
///
/// ```c
/// static void on_answer(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
///     OxmcpIncoming *req = ud; // json: the ElicitResult
///     ...
/// }
/// const char *p = "{\"progress\":1,\"total\":2}";
/// oxmcp_incoming_call(req, "progress", (const uint8_t *)p, strlen(p), NULL, NULL, NULL);
/// const char *q = "{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\"}}";
/// oxmcp_incoming_call(req, "elicitation/create", (const uint8_t *)q, strlen(q), on_answer, req, NULL);
/// ```
///
/// # Safety
/// `request` is a live incoming request; `op` is NUL-terminated; `params_json` points to `params_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_incoming_call(
    request: *const OxmcpIncoming,
    op: *const c_char,
    params_json: *const u8,
    params_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let r = incoming_arg(request)?;
        let op = str_arg(op, "op")?;
        let params = opt_json_text(params_json, params_len, "params_json")?.unwrap_or_default();
        if callback.is_none() {
            // Only what is answered at once: the engine refuses the rest by name.
            return context::call_now(&r.calls, r.id, op, &params).map(drop);
        }
        let call = context::call(&r.calls, r.id, op, &params);
        // Bad input and a request that is over are the caller's to hear at once.
        let refuses = |kind| matches!(kind, ErrorKind::InvalidInput | ErrorKind::Closed);
        start_now(&r.rt, callback, user_data, out_request, refuses, move |_| async move { door_value(call.await?) })
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
