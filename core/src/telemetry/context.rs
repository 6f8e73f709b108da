//! W3C trace context in `params._meta`: `traceparent`, `tracestate` and `baggage`, written
//! unprefixed as the MCP conventions (SEP-414) say. A peer's text is hostile: what does not
//! parse is ignored, never an error.

use std::sync::OnceLock;

use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::{Map, Value};

/// The keys this module reads and writes.
const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

fn propagator() -> &'static TextMapCompositePropagator {
    static PROPAGATOR: OnceLock<TextMapCompositePropagator> = OnceLock::new();
    PROPAGATOR.get_or_init(|| {
        TextMapCompositePropagator::new(vec![Box::new(TraceContextPropagator::new()), Box::new(BaggagePropagator::new())])
    })
}

struct MetaReader<'a>(&'a Map<String, Value>);

impl Extractor for MetaReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

struct MetaWriter<'a>(&'a mut Map<String, Value>);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

/// The context a request's `_meta` names as its parent, if it names a valid one.
pub(crate) fn extract(params: Option<&Value>) -> Option<Context> {
    let meta = params?.get("_meta")?.as_object()?;
    meta.get(TRACEPARENT)?.as_str()?;
    let cx = propagator().extract(&MetaReader(meta));
    cx.span().span_context().is_valid().then_some(cx)
}

/// The span the first request of an HTTP POST names in its `_meta` (telemetry on): what the
/// transport's own work for that POST (reading a shared session from the store) is a child
/// of, before the request's server span exists.
#[cfg(feature = "http")]
pub(crate) fn posted_by<'a>(mut requests: impl Iterator<Item = &'a crate::protocol::Message>) -> Option<Context> {
    if !super::is_enabled() {
        return None;
    }
    match requests.find(|m| matches!(m, crate::protocol::Message::Request { .. }))? {
        crate::protocol::Message::Request { params, .. } => extract(params.as_ref()),
        _ => None,
    }
}

/// Writes `cx` into `params._meta` (made if missing), replacing what trace context was there.
pub(crate) fn inject(params: &mut Option<Value>, cx: &Context) {
    let params = params.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(obj) = params else { return };
    let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else { return };
    meta.remove(TRACESTATE);
    propagator().inject_context(cx, &mut MetaWriter(meta));
}

/// Writes `cx` into `params._meta` unless the caller put a `traceparent` there already.
pub(crate) fn inject_unless_present(params: &mut Option<Value>, cx: &Context) {
    let present = params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(TRACEPARENT)).is_some();
    if !present {
        inject(params, cx);
    }
}

/// The context of a span a host named as text, if the text is a valid `traceparent`.
pub fn remote(trace: &TraceContext) -> Option<Context> {
    let mut fields = Map::new();
    fields.insert(TRACEPARENT.to_owned(), Value::String(trace.traceparent.clone()));
    if let Some(state) = &trace.tracestate {
        fields.insert(TRACESTATE.to_owned(), Value::String(state.clone()));
    }
    let cx = TraceContextPropagator::new().extract(&MetaReader(&fields));
    cx.span().span_context().is_valid().then_some(cx)
}

/// A span's W3C trace context as text: what a host's own OpenTelemetry API takes to make
/// its spans children of the engine's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    /// `00-{trace id}-{span id}-{flags}`.
    pub traceparent: String,
    /// Vendor entries, if any.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The 32 hex digits of the trace id.
    pub fn trace_id(&self) -> &str {
        self.traceparent.get(3..35).unwrap_or_default()
    }
}

/// The trace context of `cx`'s span, if it has a valid one.
///
/// ```
/// let cx = opentelemetry::Context::new();
/// assert_eq!(oxmcp::telemetry::trace_context_of(&cx), None);
/// ```
pub fn trace_context_of(cx: &Context) -> Option<TraceContext> {
    if !cx.span().span_context().is_valid() {
        return None;
    }
    let mut fields = Map::new();
    TraceContextPropagator::new().inject_context(cx, &mut MetaWriter(&mut fields));
    let text = |key: &str| fields.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    Some(TraceContext { traceparent: text(TRACEPARENT)?, tracestate: text(TRACESTATE) })
}

/// The trace context `_meta` carries, as it is (for a host when the engine records nothing).
pub(crate) fn passed_in(meta: &Map<String, Value>) -> Option<TraceContext> {
    let traceparent = meta.get(TRACEPARENT)?.as_str()?.to_owned();
    let tracestate = meta.get(TRACESTATE).and_then(Value::as_str).map(str::to_owned);
    Some(TraceContext { traceparent, tracestate })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_parent_in_meta_is_read_and_written_back() {
        let params = json!({"name": "add", "_meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "k=v"}});
        let cx = extract(Some(&params)).expect("a valid parent");
        let tc = trace_context_of(&cx).unwrap();
        assert_eq!(tc.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assert_eq!(tc.tracestate.as_deref(), Some("k=v"));
        assert_eq!(tc.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        let mut out = Some(json!({"name": "add", "_meta": {"progressToken": 3}}));
        inject(&mut out, &cx);
        let meta = &out.unwrap()["_meta"];
        assert_eq!(meta["traceparent"], "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assert_eq!(meta["progressToken"], 3);
    }

    #[test]
    fn hostile_trace_context_is_ignored() {
        for meta in [
            json!({"traceparent": 7}),
            json!({"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}),
            json!({"traceparent": "not a traceparent"}),
            json!({"traceparent": "x".repeat(100_000)}),
            json!({"tracestate": "k=v"}),
        ] {
            assert!(extract(Some(&json!({"_meta": meta}))).is_none(), "{meta}");
        }
        assert!(extract(Some(&json!({"_meta": "text"}))).is_none());
        assert!(extract(None).is_none());
    }
}
