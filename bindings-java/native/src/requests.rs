//! Requests a Java handler works on: a server's calls to its tool, resource, prompt and
//! completion handlers, and a client's calls to its sampling, elicitation and roots
//! handlers. Java's `RequestContext` holds a `long` request handle; through it the handler
//! answers, sees cancellation, reports progress, logs and asks the client.
//!
//! The calls themselves live in the core's tables ([`HostCalls`]: one per server, one per
//! client), whose ids are only unique per table; a request handle names the table and the
//! id, and is forgotten once Java answers.

use std::sync::Arc;

use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jdouble, jlong};
use jni::EnvUnowned;
use oxmcp::host::{context, CallId, HostCalls, Outcome};
use oxmcp::protocol::ErrorObject;
use oxmcp::server::RequestContext;
use oxmcp::{Error, ErrorKind};

use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, jstring, req_str, rstring, sync_result};

/// One call of one table.
struct Request {
    calls: Arc<HostCalls>,
    id: CallId,
}

/// Calls handed to Java and not answered yet, by request handle.
static HANDLES: Registry<Request> = Registry::new();

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

/// A server request's context while the engine waits for its answer (a client's handler
/// has none).
fn context_of(request: i64) -> Option<RequestContext> {
    HANDLES.get(request).and_then(|r| r.calls.context(r.id).ok())
}

/// Runs `body` with the request's context as the Java call `call_id`, completing it with the
/// JSON text `body` gives; a request that is over fails as closed.
fn with_context<F, Fut>(request: i64, call_id: i64, body: F)
where
    F: FnOnce(RequestContext) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = oxmcp::Result<String>> + Send + 'static,
{
    let ctx = context_of(request);
    spawn_call(call_id, async move {
        let ctx = ctx.ok_or_else(|| Error::new(ErrorKind::Closed, "the request is over"))?;
        Ok(Done::json(body(ctx).await?))
    });
}

/// How many requests Java handlers are working on (for leak checks in tests).
pub fn in_flight() -> usize {
    HANDLES.len()
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

/// Whether the peer cancelled (false once the engine is done with the request).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestIsCancelled<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
) -> jboolean {
    HANDLES.get(request).is_some_and(|r| r.calls.is_cancelled(r.id))
}

/// Progress or logs for a request that has gone are dropped quietly (as the engine does
/// for a departed client).
fn ignore_gone(e: Error) -> oxmcp::Result<()> {
    if e.kind() == ErrorKind::Closed {
        Ok(())
    } else {
        Err(e)
    }
}

/// Sends progress (`total` NaN: none); nothing once the request is over.
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
        let Some(ctx) = context_of(request) else { return Ok(Ok(())) };
        Ok(ctx.report_progress(progress, total, message.as_deref()).or_else(ignore_gone))
    })
}

/// Logs at `level` (a name) with `data` (JSON); nothing once the request is over.
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
        let Some(ctx) = context_of(request) else { return Ok(Ok(())) };
        Ok(context::log(&ctx, &level, logger.as_deref(), &data).or_else(ignore_gone))
    })
}

/// The request's facts as JSON (see [`context::info`]); null once it is over.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestInfo<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> jni::errors::Result<JObject<'l>> {
        let info = context_of(request).map(|ctx| context::info(&ctx).to_string());
        jstring(env, info.as_deref())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// In an escalating tool: continues the call as a task; completes with `true` once it is
/// one, `false` when it stays inline (the client did not ask for a task).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestEscalateToTask<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    call_id: jlong,
) {
    with_context(request, call_id, |ctx| async move { context::escalate_to_task(&ctx).await });
}

/// Reads one of the server's own resources with the request's session; completes with the
/// `ReadResourceResult` JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestReadResource<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    uri: JString<'l>,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let uri = req_str(env, &uri)?;
        with_context(request, call_id, |ctx| async move { context::read_resource(&ctx, &uri).await });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// In a middleware's call: runs the rest of the chain with `params` (null: the params the
/// middleware got); completes with the rest's result JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestNext<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    params: JString<'l>,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let params = rstring(env, &params)?;
        with_context(request, call_id, |ctx| async move { context::next(&ctx, params.as_deref()).await });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Over Streamable HTTP, ends the SSE stream the request answers on (nothing otherwise).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestEndResponseStream<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
) {
    if let Some(ctx) = context_of(request) {
        ctx.end_response_stream();
    }
}

/// Asks the client during the request: `method` is `sampling/createMessage`,
/// `elicitation/create` or `roots/list`; completes with the result JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_requestAskClient<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    request: jlong,
    method: JString<'l>,
    params: JString<'l>,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let method = req_str(env, &method)?;
        let params = req_str(env, &params)?;
        with_context(request, call_id, |ctx| async move { context::ask_client(&ctx, &method, &params).await });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}
