//! JNI library of the oxmcp engine for Java (`liboxmcp_java.so`), loaded by the
//! `dev.oxmcp` classes. A translation layer only, over the core's host layer
//! ([`oxmcp::host`]): JSON text, longs and doubles cross the boundary; the engine parses,
//! validates, correlates, cancels and times out.
//!
//! - [`runtime`]: the tokio runtime and its shutdown (daemon-attached threads).
//! - [`jvm`]: every call from Rust into Java (static methods of `dev.oxmcp.Native`).
//! - [`handles`]: `long` handles for Rust objects and the asynchronous-call registry.
//! - [`server`]: `McpServer` over the core's staged server.
//! - [`client`]: `McpClient` and its calls.
//! - [`http_app`]: `McpServlet`'s endpoint: requests a Java web framework hands in.
//! - [`context`]: requests Java handlers work on, and their context (the core's door).

mod client;
mod context;
mod handles;
mod http_app;
mod jvm;
mod runtime;
mod server;

use std::time::Duration;

use jni::objects::{JClass, JObject};
use jni::sys::jlong;
use jni::EnvUnowned;

/// Caches the callback class; the Java side calls it once, right after loading.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_init<'l>(env: EnvUnowned<'l>, _class: JClass<'l>) -> JObject<'l> {
    jvm::entry(env, |env| {
        jvm::init(env)?;
        jvm::jstring(env, Some(env!("CARGO_PKG_VERSION")))
    })
}

/// Stops the runtime and waits (up to `graceMs`) for its threads.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_shutdown<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, grace_ms: jlong) {
    let grace = Duration::from_millis(grace_ms.max(0) as u64);
    if let Some(rt) = runtime::existing() {
        // Close clients (stopping their child processes) and HTTP listeners first, so
        // nothing is left behind when the runtime's tasks are dropped. (Refused, and
        // skipped, on a runtime thread.)
        let _ = rt.block_on(async {
            let _ = tokio::time::timeout(grace, async {
                client::close_all().await;
                server::close_all().await;
                http_app::close_all().await;
            })
            .await;
        });
    }
    runtime::shutdown(grace);
}

/// Whether the runtime was shut down.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_isShutdown<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>) -> jni::sys::jboolean {
    runtime::is_stopped()
}

/// Cancels an asynchronous call (a client request, a connect, serving).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_cancelCall<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, call_id: jlong) {
    handles::cancel_call(call_id);
}

/// The engine's error kinds, one `code name` line each: the test of `McpException.Kind`
/// compares its mapping with it.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_errorKinds<'l>(env: EnvUnowned<'l>, _class: JClass<'l>) -> JObject<'l> {
    jvm::entry(env, |env| jvm::jstring(env, Some(&oxmcp::ErrorKind::table())))
}

/// `[running asynchronous calls, incoming requests in Java handlers]`, for leak checks.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_stats<'l>(env: EnvUnowned<'l>, _class: JClass<'l>) -> JObject<'l> {
    jvm::entry(env, |env| {
        let text = format!("[{},{}]", handles::running_calls(), context::in_flight());
        jvm::jstring(env, Some(&text))
    })
}
