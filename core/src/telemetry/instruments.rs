//! The metrics: the conventions' operation and session durations, and what an operator of
//! this engine watches (requests in flight, cancellations, refusals by reason, sessions open,
//! bytes queued against the budgets, shared-store errors).

use std::sync::{Arc, RwLock};
use std::time::Instant;

use opentelemetry::metrics::{Counter, Histogram, UpDownCounter};
use opentelemetry::{global, KeyValue};

/// Bucket bounds in seconds, as the MCP conventions advise for operation durations.
const DURATION_BOUNDS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

pub(crate) struct Instruments {
    /// `mcp.server.operation.duration`: a request handled, received to answered.
    pub(crate) server_duration: Histogram<f64>,
    /// `mcp.client.operation.duration`: a request sent, sent to answered.
    pub(crate) client_duration: Histogram<f64>,
    /// `oxmcp.requests.in_flight`: requests handled or awaited now, by `oxmcp.side`.
    pub(crate) in_flight: UpDownCounter<i64>,
    /// `oxmcp.requests.cancelled`: requests that ended cancelled (or timed out), by side.
    pub(crate) cancelled: Counter<u64>,
    /// `oxmcp.requests.refused`: requests refused before any handler ran, by `oxmcp.reason`.
    refused: Counter<u64>,
    /// `oxmcp.sessions.open`: sessions (connections, or one stateless request) open now.
    sessions: UpDownCounter<i64>,
    /// `mcp.server.session.duration` and `mcp.client.session.duration` in one: by side.
    session_duration: Histogram<f64>,
    /// `oxmcp.queued.bytes`: bytes waiting against a budget now, by `oxmcp.queue`.
    queued: UpDownCounter<i64>,
    /// `oxmcp.store.errors`: shared-store calls that failed, by `db.operation.name`.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) store_errors: Counter<u64>,
}

static INSTRUMENTS: RwLock<Option<Arc<Instruments>>> = RwLock::new(None);

/// Makes the instruments from the global meter provider of the moment.
pub(super) fn make() {
    let meter = global::meter(super::SCOPE);
    let duration = |name: &'static str, what: &'static str| {
        meter.f64_histogram(name).with_unit("s").with_description(what).with_boundaries(DURATION_BOUNDS.to_vec()).build()
    };
    let made = Instruments {
        server_duration: duration("mcp.server.operation.duration", "MCP request duration on the receiver"),
        client_duration: duration("mcp.client.operation.duration", "MCP request duration on the sender"),
        in_flight: meter.i64_up_down_counter("oxmcp.requests.in_flight").with_unit("{request}").build(),
        cancelled: meter.u64_counter("oxmcp.requests.cancelled").with_unit("{request}").build(),
        refused: meter.u64_counter("oxmcp.requests.refused").with_unit("{request}").build(),
        sessions: meter.i64_up_down_counter("oxmcp.sessions.open").with_unit("{session}").build(),
        session_duration: duration("oxmcp.session.duration", "How long an engine session lasted"),
        queued: meter.i64_up_down_counter("oxmcp.queued.bytes").with_unit("By").build(),
        store_errors: meter.u64_counter("oxmcp.store.errors").with_unit("{call}").build(),
    };
    *INSTRUMENTS.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(made));
}

/// The instruments, when telemetry is on.
pub(crate) fn get() -> Option<Arc<Instruments>> {
    if !super::is_enabled() {
        return None;
    }
    INSTRUMENTS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Counts a request refused before any handler ran (`busy`, `duplicate_id`...).
pub(crate) fn count_refused(reason: &'static str) {
    if let Some(i) = get() {
        i.refused.add(1, &[KeyValue::new("oxmcp.reason", reason)]);
    }
}

/// Counts a request the HTTP server refused with an error status before any handler ran (a
/// Host or Origin not allowed, a body over the limit, a missing token, an unknown session,
/// every session busy...): `oxmcp.reason` = `http`, by `http.response.status_code`.
#[cfg(feature = "http")]
pub(crate) fn count_refused_http(status: u16) {
    if let Some(i) = get() {
        i.refused.add(1, &[KeyValue::new("oxmcp.reason", "http"), KeyValue::new("http.response.status_code", i64::from(status))]);
    }
}

/// Counts `delta` bytes into (or, negative, out of) what waits against the budget `queue`:
/// `notifications` (a session's incoming notifications not yet handled) or
/// `response_streams` (a session's SSE responses not yet read by the client).
pub(crate) fn count_queued(queue: &'static str, delta: i64) {
    if let Some(i) = get() {
        i.queued.add(delta, &[KeyValue::new("oxmcp.queue", queue)]);
    }
}

/// One open session, counted until dropped.
pub(crate) struct SessionCount {
    instruments: Arc<Instruments>,
    opened: Instant,
}

/// Counts a session as open until the returned value is dropped.
pub(crate) fn sessions_opened() -> Option<SessionCount> {
    let instruments = get()?;
    instruments.sessions.add(1, &[]);
    Some(SessionCount { instruments, opened: Instant::now() })
}

impl Drop for SessionCount {
    fn drop(&mut self) {
        self.instruments.sessions.add(-1, &[]);
        self.instruments.session_duration.record(self.opened.elapsed().as_secs_f64(), &[]);
    }
}
