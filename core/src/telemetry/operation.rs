//! One request's span and duration, on either side, named and attributed as the semantic
//! conventions for MCP say: span `{mcp.method.name} {target}` (the tool or prompt name),
//! `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `gen_ai.tool.name` and
//! `gen_ai.operation.name` for tool calls, `gen_ai.prompt.name`, `mcp.resource.uri`, and
//! `error.type` (the JSON-RPC code, `tool_error`, `cancelled`, `timeout`...) when it fails.

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{global, Context, KeyValue};
use serde_json::Value;

use super::context;
use super::instruments::{self, Instruments};
use crate::protocol::{methods, ProtocolVersion};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// How a request ended.
pub(crate) enum Outcome<'a> {
    /// A result (a tool's `isError` result counts as `tool_error`).
    Result(&'a Value),
    /// A JSON-RPC error.
    Error(i64, &'a str),
    /// Cancelled before it was answered.
    Cancelled,
    /// Ended on this side without an answer (`timeout`, `closed`...), with why.
    Failed(&'static str, &'a str),
}

/// A request being handled or awaited, with its span open. Ends as [`Outcome::Cancelled`]
/// if dropped unended.
pub(crate) struct Operation {
    cx: Context,
    side: Side,
    started: Instant,
    labels: Vec<KeyValue>,
    instruments: Option<Arc<Instruments>>,
    ended: bool,
}

impl Operation {
    /// The receiver's side of a request: a child of the span `_meta` names, else a root.
    /// `session`: the transport's id of the session (`mcp.session.id`), if it has one.
    pub(crate) fn handling(
        method: &str,
        params: Option<&Value>,
        id: &dyn std::fmt::Display,
        version: Option<ProtocolVersion>,
        session: Option<&crate::transport::SessionId>,
    ) -> Option<Operation> {
        if !super::is_enabled() {
            return None;
        }
        let parent = context::extract(params).unwrap_or_default();
        let op = start(Side::Server, method, params, id.to_string(), version, &parent);
        op.in_session(session);
        Some(op)
    }

    /// Names the session the request belongs to (`mcp.session.id`), when it has an id.
    pub(crate) fn in_session(&self, session: Option<&crate::transport::SessionId>) {
        if let Some(id) = session.and_then(|s| s.get()) {
            self.cx.span().set_attribute(KeyValue::new("mcp.session.id", id));
        }
    }

    /// The sender's side: a child of the caller's span (`caller`, else the current one),
    /// else of the context the caller put in `_meta`; its own context is written into
    /// `_meta` for the peer. Telemetry off, the caller's span still reaches the peer.
    pub(crate) fn sending(
        method: &str,
        params: &mut Option<Value>,
        id: i64,
        version: Option<ProtocolVersion>,
        caller: Option<&context::TraceContext>,
    ) -> Option<Operation> {
        let caller = caller.and_then(context::remote);
        if !super::is_enabled() {
            // Nothing recorded here, but a host's span (given, or current around a host's
            // call) is still the server's parent. Off, this is a thread-local look.
            match caller {
                Some(cx) => context::inject_unless_present(params, &cx),
                None if Context::map_current(|cx| cx.has_active_span()) => {
                    context::inject_unless_present(params, &Context::current())
                }
                None => {}
            }
            return None;
        }
        // Inside a handler (or a relay) the current span is the parent: `_meta` then holds
        // what its own caller sent. Elsewhere `_meta` names a host's span, if any.
        let parent = match caller {
            Some(cx) => cx,
            None => {
                let current = Context::current();
                match current.span().span_context().is_valid() {
                    true => current,
                    false => context::extract(params.as_ref()).unwrap_or(current),
                }
            }
        };
        let op = start(Side::Client, method, params.as_ref(), id.to_string(), version, &parent);
        context::inject(params, &op.cx);
        Some(op)
    }

    /// The context with this operation's span: what work done for the request runs in.
    pub(crate) fn context(&self) -> &Context {
        &self.cx
    }

    /// Ends the span and records the duration.
    pub(crate) fn end(mut self, outcome: Outcome<'_>) {
        self.finish(outcome);
    }

    fn finish(&mut self, outcome: Outcome<'_>) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let span = self.cx.span();
        let error = match outcome {
            Outcome::Result(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
                Some(("tool_error".to_owned(), String::new()))
            }
            Outcome::Result(_) => None,
            Outcome::Error(code, message) => {
                span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
                Some((code.to_string(), message.to_owned()))
            }
            Outcome::Cancelled => Some(("cancelled".to_owned(), String::new())),
            Outcome::Failed(kind, message) => Some((kind.to_owned(), message.to_owned())),
        };
        let mut labels = std::mem::take(&mut self.labels);
        if let Some((kind, message)) = error {
            span.set_attribute(KeyValue::new("error.type", kind.clone()));
            span.set_status(Status::error(message));
            labels.push(KeyValue::new("error.type", kind));
        }
        span.end();
        if let Some(i) = &self.instruments {
            let histogram = match self.side {
                Side::Client => &i.client_duration,
                Side::Server => &i.server_duration,
            };
            histogram.record(self.started.elapsed().as_secs_f64(), &labels);
            let side = [KeyValue::new("oxmcp.side", self.side.name())];
            i.in_flight.add(-1, &side);
            if matches!(outcome, Outcome::Cancelled | Outcome::Failed("timeout", _)) {
                i.cancelled.add(1, &side);
            }
        }
    }
}

impl Drop for Operation {
    fn drop(&mut self) {
        self.finish(Outcome::Cancelled);
    }
}

/// Distinct tool and prompt names a process labels its metrics with; later ones are `other`.
/// A peer names what it likes, and every label value is a time series kept until exit.
const MAX_LABELED_NAMES: usize = 256;

fn bounded_label(name: String) -> String {
    static SEEN: std::sync::Mutex<Option<std::collections::HashSet<String>>> = std::sync::Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(Default::default);
    if seen.contains(&name) || (seen.len() < MAX_LABELED_NAMES && name.len() <= 128 && seen.insert(name.clone())) {
        return name;
    }
    "other".to_owned()
}

fn start(
    side: Side,
    method: &str,
    params: Option<&Value>,
    id: String,
    version: Option<ProtocolVersion>,
    parent: &Context,
) -> Operation {
    let text = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str).map(str::to_owned);
    let mut labels = vec![KeyValue::new("mcp.method.name", method.to_owned())];
    // The stateless era names the version in each request's `_meta` (a known one only: a
    // peer's text is no label).
    let version = version.or_else(|| {
        let meta = params?.get("_meta")?;
        ProtocolVersion::parse(meta.get(crate::protocol::meta::PROTOCOL_VERSION)?.as_str()?)
    });
    if let Some(v) = version {
        labels.push(KeyValue::new("mcp.protocol.version", v.to_string()));
    }
    let mut name = method.to_owned();
    let mut attributes = Vec::new();
    match method {
        methods::TOOLS_CALL => {
            if let Some(tool) = text("name") {
                name = format!("{method} {tool}");
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
                labels.push(KeyValue::new("gen_ai.tool.name", bounded_label(tool)));
            }
            labels.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        methods::PROMPTS_GET => {
            if let Some(prompt) = text("name") {
                name = format!("{method} {prompt}");
                attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.clone()));
                labels.push(KeyValue::new("gen_ai.prompt.name", bounded_label(prompt)));
            }
        }
        methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
            if let Some(uri) = text("uri") {
                attributes.push(KeyValue::new("mcp.resource.uri", uri));
            }
        }
        _ => {}
    }
    // The span keeps the real names; the bounded labels go to the metrics only.
    attributes.extend(labels.iter().filter(|kv| !attributes.iter().any(|a| a.key == kv.key)).cloned().collect::<Vec<_>>());
    attributes.push(KeyValue::new("jsonrpc.request.id", id));
    let tracer = global::tracer(super::SCOPE);
    let kind = match side {
        Side::Client => SpanKind::Client,
        Side::Server => SpanKind::Server,
    };
    let span = tracer.span_builder(name).with_kind(kind).with_attributes(attributes).start_with_context(&tracer, parent);
    let instruments = instruments::get();
    if let Some(i) = &instruments {
        i.in_flight.add(1, &[KeyValue::new("oxmcp.side", side.name())]);
    }
    Operation { cx: parent.with_span(span), side, started: Instant::now(), labels, instruments, ended: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_labels_of_peer_chosen_names_are_bounded() {
        let first = bounded_label("label-test-0".into());
        assert_eq!(first, "label-test-0");
        let overflowed =
            (1..=MAX_LABELED_NAMES).map(|i| bounded_label(format!("label-test-{i}"))).filter(|l| l == "other").count();
        assert!(overflowed >= 1, "past {MAX_LABELED_NAMES} names, new ones are `other`");
        assert_eq!(bounded_label("label-test-0".into()), "label-test-0", "a name seen before keeps its label");
        assert_eq!(bounded_label("x".repeat(129)), "other");
    }
}
