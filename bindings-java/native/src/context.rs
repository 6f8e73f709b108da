//! Requests a Java handler works on: a server's calls to its tool, resource, prompt and
//! completion handlers, and a client's calls to its sampling, elicitation and roots
//! handlers. Java's `RequestContext` holds a `long` request handle; through it the handler
//! answers, and asks its request for everything else by name through the core's context
//! door ([`context::call_now`], [`context::call`]): a new capability is a new name there and
//! Java code here, not a new native method.
//!
//! The calls themselves live in the core's tables ([`HostCalls`]: one per server, one per
//! client), whose ids are only unique per table; a request handle names the table and the
//! id, and is forgotten once Java answers.

use std::sync::{Arc, LazyLock};

use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use oxmcp::host::{context, failure, CallId, HostCalls, Outcome};
use oxmcp::{Error, ErrorKind};

use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, entry, jstring, req_str, rstring};

/// One call of one table.
struct Request {
    calls: Arc<HostCalls>,
    id: CallId,
}

/// Calls handed to Java and not answered yet, by request handle.
static HANDLES: Registry<Request> = Registry::new();

/// Where a handle Java already answered (or never had) is looked up: an empty table, which
/// the context door answers as it does for any call that is over (facts `null`, cancelled,
/// progress and logs dropped, questions closed).
static OVER: LazyLock<Arc<HostCalls>> = LazyLock::new(|| HostCalls::new(Default::default()));

/// Hands call `id` of `calls` to the Java handler `handler`: `input` is the call's JSON,
/// `method` the server request a client's handler answers. The peer's cancel reaches the
/// handler as `onCancel`. `false` when Java could not be called.
pub fn deliver(calls: &Arc<HostCalls>, id: CallId, handler: i64, input: &str, method: Option<&str>) -> bool {
    let request = HANDLES.insert(Request { calls: calls.clone(), id });
    if !jvm::on_request(handler, request, input, method) {
        HANDLES.remove(request);
        return false;
    }
    // Registered once Java has filed the request's context, which the cancel looks up.
    calls.on_cancel(id, move || jvm::on_cancel(request));
    // A handler that never answers (cancelled, its connection gone) leaves nothing behind.
    calls.on_end(id, move || drop(HANDLES.remove(request)));
    true
}

/// Answers the request (only the first answer counts; a late one is dropped).
fn answer(request: i64, outcome: Outcome) {
    if let Some(r) = HANDLES.remove(request) {
        r.calls.complete(r.id, outcome);
    }
}

/// The table and id the request handle names ([`OVER`] once it is gone).
fn call_of(request: i64) -> (Arc<HostCalls>, CallId) {
    HANDLES.get(request).map_or_else(|| (OVER.clone(), 0), |r| (r.calls.clone(), r.id))
}

/// How many requests Java handlers are working on (for leak checks in tests).
pub fn in_flight() -> usize {
    HANDLES.len()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestComplete<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    json: JString<'l>,
) {
    entry(env, |env| {
        let json = rstring(env, &json)?;
        answer(request, json.ok_or_else(|| Error::new(ErrorKind::Handler, "the handler returned null")));
        Ok(())
    })
}

/// A failed handler, by the core's one rule ([`failure::from_parts`]): with a code, that
/// JSON-RPC error (data that is not JSON is kept as a string); without, a handler failure.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestFail<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    has_code: jboolean,
    code: jlong,
    message: JString<'l>,
    data: JString<'l>,
) {
    entry(env, |env| {
        let message = req_str(env, &message)?;
        let data = rstring(env, &data)?;
        answer(request, Err(failure::from_parts(has_code.then_some(code), message, data.as_deref())));
        Ok(())
    })
}

/// Asks the request `op` with `params` (JSON text, null or empty: none), answered at once
/// (see [`context::call_now`]): the answer's JSON text, or null. A failure is thrown as
/// `McpException`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestCallNow<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    op: JString<'l>,
    params: JString<'l>,
) -> JObject<'l> {
    entry(env, |env| {
        let (op, params) = (req_str(env, &op)?, req_str(env, &params)?);
        let (calls, id) = call_of(request);
        match context::call_now(&calls, id, &op, &params) {
            Ok(answer) => jstring(env, answer.as_deref()),
            Err(e) => jvm::throw(env, &e).map(|()| JObject::null()),
        }
    })
}

/// Asks the request `op` with `params` (any op, see [`context::call`]) as the Java call
/// `callId`, which completes with the answer's JSON text (or null).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestCall<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    op: JString<'l>,
    params: JString<'l>,
    call_id: jlong,
) {
    entry(env, |env| {
        let (op, params) = (req_str(env, &op)?, req_str(env, &params)?);
        let (calls, id) = call_of(request);
        let asked = context::call(&calls, id, &op, &params);
        spawn_call(call_id, async move { Ok(asked.await?.map_or_else(Done::empty, Done::json)) });
        Ok(())
    })
}
