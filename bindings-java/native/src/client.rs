//! `McpClient`: connecting and every client call, through the core's host client
//! ([`oxmcp::host::client`]), each as an asynchronous call completing a Java future;
//! cancelling that future drops the engine's request, which sends
//! `notifications/cancelled`. The server's sampling, elicitation and roots requests go to
//! the client's Java handler ([`crate::context`]).

use std::sync::Arc;
use std::time::Duration;

use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use oxmcp::client::{Client, Era};
use oxmcp::host::{client, ClientHooks, ConnectOptions};
use oxmcp::session::RequestOptions;
use oxmcp::telemetry::TraceContext;
use oxmcp::{Error, ErrorKind};

use crate::context;
use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, entry, req_str, rstring};

static CLIENTS: Registry<Client> = Registry::new();

/// The engine client behind a Java handle (for a server mounting it).
pub fn client_of(handle: i64) -> Option<Arc<Client>> {
    CLIENTS.get(handle)
}

fn closed() -> Error {
    Error::new(ErrorKind::Closed, "the client is closed")
}

/// Connects as the options JSON says ([`ConnectOptions`]); the Java handler `handlerId`
/// answers the server's requests it names in `answers` (0: none), the Java listener
/// `listenerId` gets its notifications (0: none). Completes with the `initialize` result
/// and the client handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientConnect<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    options: JString<'l>,
    handler_id: jlong,
    listener_id: jlong,
    call_id: jlong,
) {
    entry(env, |env| {
        let options = req_str(env, &options)?;
        spawn_call(call_id, async move {
            let options = ConnectOptions::from_json(&options)?;
            // This client's own table: its call ids are unrelated to any server's.
            let mut hooks = ClientHooks::default();
            let calls = hooks.calls().clone();
            if handler_id != 0 {
                let table = calls.clone();
                hooks.on_request =
                    Some(Arc::new(move |id, method, params| context::deliver(&table, id, handler_id, &params, Some(method))));
            }
            if listener_id != 0 {
                hooks.on_notification = Some(Arc::new(move |method, params| jvm::on_notification(listener_id, &method, &params)));
            }
            let c = client::connect(options, hooks).await?;
            let init = serde_json::to_string(c.initialize_result())?;
            Ok(Done { json: Some(init), handle: CLIENTS.insert(c) })
        });
        Ok(())
    })
}

/// One client call: `op` is an MCP method name or `request` (see [`client::call`] for `a`
/// and `b`). `timeoutMs` <= 0: the session default; `progress`: report
/// `notifications/progress` of this request to the Java future's listener; `traceparent`
/// (null: none) and `tracestate` (null: none): the W3C trace context of the caller's
/// current span, the parent of every request the call sends ([`RequestOptions::trace`]).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_oxmcp_Native_clientCall<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
    op: JString<'l>,
    a: JString<'l>,
    b: JString<'l>,
    timeout_ms: jlong,
    progress: jboolean,
    traceparent: JString<'l>,
    tracestate: JString<'l>,
    call_id: jlong,
) {
    entry(env, |env| {
        let op = req_str(env, &op)?;
        let a = rstring(env, &a)?;
        let b = rstring(env, &b)?;
        let traceparent = rstring(env, &traceparent)?;
        let tracestate = rstring(env, &tracestate)?;
        let c = CLIENTS.get(client);
        let mut options = RequestOptions::default();
        if let Some(traceparent) = traceparent {
            options = options.trace(TraceContext { traceparent, tracestate });
        }
        if timeout_ms > 0 {
            options = options.timeout(Duration::from_millis(timeout_ms as u64));
        }
        if progress {
            options = options.on_progress(move |p| jvm::on_progress(call_id, p.progress, p.total, p.message.as_deref()));
        }
        spawn_call(call_id, async move {
            let c = c.ok_or_else(closed)?;
            let json = client::call(&c, &op, a.as_deref(), b.as_deref(), options).await?;
            Ok(Done { json, handle: 0 })
        });
        Ok(())
    })
}

/// Tells the server the roots changed (error message, or null).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientNotifyRootsChanged<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
) -> JObject<'l> {
    jvm::sync_result(env, |_env| Ok(CLIENTS.get(client).ok_or_else(closed).and_then(|c| c.notify_roots_changed())))
}

/// Pending outgoing requests of the session (for leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientPending<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, client: jlong) -> jlong {
    CLIENTS.get(client).map_or(0, |c| c.stats().pending_requests as jlong)
}

/// The era the connection speaks: 1 for the stateless era (2026-07-28), 0 for the session
/// era (or a closed client).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientStateless<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
) -> jboolean {
    CLIENTS.get(client).is_some_and(|c| c.era() == Era::Stateless)
}

/// Closes the connection (a child process is stopped), then forgets the handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientClose<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
    call_id: jlong,
) {
    let c = CLIENTS.remove(client);
    spawn_call(call_id, async move {
        if let Some(c) = c {
            c.shutdown().await;
        }
        Ok(Done::empty())
    });
}

/// Closes every open client (at shutdown): child processes are stopped, not orphaned.
pub async fn close_all() {
    let clients = CLIENTS.drain();
    futures::future::join_all(clients.iter().map(|c| c.shutdown())).await;
}
