//! Telemetry: an OpenTelemetry span and a duration for every request the engine sends or
//! handles, named and attributed as the semantic conventions for MCP say, W3C trace context
//! carried in `params._meta` both ways, and the engine's own gauges and counters.
//!
//! Off until something turns it on: [`Telemetry::from_env`] (the standard `OTEL_*`
//! variables), [`Telemetry::otlp`] (by code), or [`use_global_providers`] (an application
//! that installed its own OpenTelemetry providers). Off, a request costs one atomic load and
//! a thread-local look; trace context a caller put in `_meta` still passes through untouched,
//! and a host's span (current, or given as text in the request's options) still becomes the
//! server's parent.
//!
//! Modules: `context` (reading and writing `traceparent`, `tracestate` and `baggage` in
//! `_meta`), `operation` (one request's span and duration), `instruments` (the metrics),
//! `step` (spans for what a request waits on inside the engine: a store call, a token
//! refresh), `export` (the OTLP exporter, with the `otlp` feature).
//!
//! ```no_run
//! // OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 turns it on; nothing set, it stays off.
//! let telemetry = oxmcp::telemetry::Telemetry::from_env("my-server")?;
//! // ... serve; dropping `telemetry` flushes what is batched.
//! # Ok::<(), oxmcp::Error>(())
//! ```

mod context;
#[cfg(feature = "otlp")]
mod export;
mod instruments;
mod operation;
mod step;

use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use context::inject_unless_present;
pub(crate) use context::passed_in;
#[cfg(feature = "http")]
pub(crate) use context::posted_by;
pub use context::{remote, trace_context_of, TraceContext};
#[cfg(feature = "otlp")]
pub use export::{flush_process, start_from_env_once, Telemetry};
#[cfg(feature = "http")]
pub(crate) use instruments::count_refused_http;
pub(crate) use instruments::{count_queued, count_refused, sessions_opened, SessionCount};
pub(crate) use operation::{Operation, Outcome};
#[cfg(feature = "http")]
pub(crate) use step::count_store_error;
pub(crate) use step::Step;

/// The name the engine's tracer and meter carry (the instrumentation scope).
pub const SCOPE: &str = "oxmcp";

static ON: AtomicBool = AtomicBool::new(false);

/// Whether spans and metrics are being recorded.
pub fn is_enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Records through the global OpenTelemetry providers the application installed itself
/// (`opentelemetry::global::set_tracer_provider`, `set_meter_provider`). Call it after
/// installing them: the engine's instruments are made from the meter provider of the day.
pub fn use_global_providers() {
    instruments::make();
    ON.store(true, Ordering::Relaxed);
}

/// The current context, when telemetry is on (what a request's work should run in).
pub(crate) fn current() -> Option<opentelemetry::Context> {
    is_enabled().then(opentelemetry::Context::current)
}

/// Stops recording (spans already open still end and are exported).
pub fn disable() {
    ON.store(false, Ordering::Relaxed);
}
