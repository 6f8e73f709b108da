//! The native half of the `oxmcp` npm package: a translation layer between JavaScript and
//! the oxmcp engine. JSON text crosses the boundary (the JS layer parses it with
//! `JSON.parse`, which is faster than building objects value by value); results travel
//! back to JavaScript through one thread-safe event function per server or client, so the
//! event loop is never blocked and no Promise is created in Rust on the hot path.
//!
//! No protocol logic lives here: validation, correlation, cancellation, timeouts,
//! transports and the host-call tables are the engine's (`oxmcp::host`); this crate only
//! marshals between napi values and that layer.

// In `cargo test` nothing calls the exported functions (JavaScript does).
#![cfg_attr(test, allow(dead_code))]

mod client;
mod errors;
mod events;
mod http_app;
mod server;
mod uv_loop;

pub use client::NativeClient;
pub use http_app::NativeHttpApp;
pub use server::NativeServer;

use napi::Env;
use napi_derive::napi;

/// Validates `instance_json` against `schema_json` with the engine's validator; returns the
/// problems, or `null` when valid (the same engine checks tool arguments).
#[napi]
pub fn validate_json(env: &Env, schema_json: String, instance_json: String) -> napi::Result<Option<String>> {
    let parse =
        |t: &str| serde_json::from_str::<serde_json::Value>(t).map_err(|e| errors::invalid(env, format!("invalid JSON: {e}")));
    let schema = oxmcp::schema::Schema::compile(&parse(&schema_json)?).map_err(|e| errors::to_js(env, &e))?;
    Ok(schema.validate(&parse(&instance_json)?).err())
}

/// Starts the engine's telemetry from the standard `OTEL_*` variables, once per process
/// (Node runs the engine on napi's runtime, not a host runtime that would), and flushes
/// what is batched when Node tears the environment down.
pub(crate) fn start_telemetry(env: &Env) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        oxmcp::telemetry::start_from_env_once("oxmcp");
        if oxmcp::telemetry::is_enabled() {
            let _ = env.add_env_cleanup_hook((), |()| oxmcp::telemetry::flush_process());
        }
    });
}

/// The engine's version.
#[napi]
pub fn native_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
