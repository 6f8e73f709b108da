//! Telemetry end to end over the in-memory transport, read back from the OpenTelemetry
//! SDK's in-memory exporters: the client and server spans of one request and their parent
//! links, the conventions' names and attributes, errors and cancellations, the trace
//! context a handler is given, and nothing recorded (trace context passed through) when off.
//! One test: telemetry is process-wide.

use std::time::Duration;

use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use oxmcp::client::{Client, Era};
use oxmcp::protocol::*;
use oxmcp::server::{RequestContext, Server};
use oxmcp::session::RequestOptions;
use oxmcp::transport::MemoryTransport;
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};

const CALLER: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.to_string())
}

fn named<'a>(spans: &'a [SpanData], name: &str, kind: SpanKind) -> &'a SpanData {
    spans
        .iter()
        .find(|s| s.name == name && s.span_kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} span {name:?} in {:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()))
}

async fn pair() -> Client {
    let server = Server::builder("telemetry-server", "0.0.1")
        .tool(Tool::new("where", "the handler's trace context", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.trace_context().map(|t| t.traceparent).unwrap_or_default()))
        })
        .tool(Tool::new("fail", "fails", json!({"type": "object"})), |_, _| async {
            Err::<CallToolResult, _>(Error::new(ErrorKind::InvalidInput, "disk is full"))
        })
        .tool(Tool::new("wait", "waits until cancelled", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        })
        .build()
        .unwrap();
    let (a, b) = MemoryTransport::pair();
    std::mem::forget(server.serve(a));
    Client::builder("telemetry-client", "0.0.1").era(Era::Session).connect(b).await.unwrap()
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_follow_the_mcp_conventions() {
    let spans = InMemorySpanExporter::default();
    let tracer = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    let metrics = InMemoryMetricExporter::default();
    let meter = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
    opentelemetry::global::set_tracer_provider(tracer.clone());
    opentelemetry::global::set_meter_provider(meter.clone());

    // Off: nothing recorded, and the caller's trace context reaches the handler untouched.
    let client = pair().await;
    let given = json!({"name": "where", "arguments": {}, "_meta": {"traceparent": CALLER}});
    let result = client.request("tools/call", Some(given.clone()), RequestOptions::default()).await.unwrap();
    assert_eq!(text(&result), CALLER);
    assert!(spans.get_finished_spans().unwrap().is_empty());

    oxmcp::telemetry::use_global_providers();
    assert!(oxmcp::telemetry::is_enabled());
    let client = pair().await;
    let result = client.request("tools/call", Some(given), RequestOptions::default()).await.unwrap();
    let all = spans.get_finished_spans().unwrap();
    let sent = named(&all, "tools/call where", SpanKind::Client);
    let handled = named(&all, "tools/call where", SpanKind::Server);
    // The caller's span is the client span's parent; the client span the server span's.
    assert_eq!(sent.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(sent.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert_eq!(handled.span_context.trace_id(), sent.span_context.trace_id());
    assert_eq!(handled.parent_span_id, sent.span_context.span_id());
    // The handler's own spans would nest under the server span.
    assert_eq!(text(&result), format!("00-{}-{}-01", handled.span_context.trace_id(), handled.span_context.span_id()));
    for span in [sent, handled] {
        assert_eq!(attr(span, "mcp.method.name").as_deref(), Some("tools/call"));
        assert_eq!(attr(span, "gen_ai.tool.name").as_deref(), Some("where"));
        assert_eq!(attr(span, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
        assert_eq!(attr(span, "mcp.protocol.version").as_deref(), Some(ProtocolVersion::LATEST.to_string().as_str()));
        assert!(attr(span, "jsonrpc.request.id").is_some());
        assert_eq!(attr(span, "error.type"), None);
    }
    // The initialize exchange was traced too, as its own root.
    let init = named(&all, "initialize", SpanKind::Client);
    assert_eq!(named(&all, "initialize", SpanKind::Server).parent_span_id, init.span_context.span_id());

    // A tool's failure is `tool_error`; a JSON-RPC error its code, with an error status.
    spans.reset();
    client.call_tool("fail", json!({})).await.unwrap();
    let err = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602));
    let all = spans.get_finished_spans().unwrap();
    for kind in [SpanKind::Client, SpanKind::Server] {
        assert_eq!(attr(named(&all, "tools/call fail", kind.clone()), "error.type").as_deref(), Some("tool_error"));
        let unknown = named(&all, "tools/call nope", kind);
        assert_eq!(attr(unknown, "error.type").as_deref(), Some("-32602"));
        assert_eq!(attr(unknown, "rpc.response.status_code").as_deref(), Some("-32602"));
        assert!(matches!(unknown.status, Status::Error { .. }), "{:?}", unknown.status);
    }

    // A cancelled call ends both spans as cancelled.
    spans.reset();
    let cancel = tokio_util::sync::CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stop.cancel();
    });
    let err = client.call_tool_with("wait", json!({}), RequestOptions::default().cancel_token(cancel)).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while spans.get_finished_spans().unwrap().len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let all = spans.get_finished_spans().unwrap();
    for kind in [SpanKind::Client, SpanKind::Server] {
        assert_eq!(attr(named(&all, "tools/call wait", kind), "error.type").as_deref(), Some("cancelled"));
    }

    // The duration histograms and the engine's own instruments were recorded.
    meter.force_flush().unwrap();
    let exported = metrics.get_finished_metrics().unwrap();
    let names: Vec<String> =
        exported.iter().flat_map(|rm| rm.scope_metrics()).flat_map(|sm| sm.metrics()).map(|m| m.name().to_owned()).collect();
    for name in [
        "mcp.client.operation.duration",
        "mcp.server.operation.duration",
        "oxmcp.requests.in_flight",
        "oxmcp.requests.cancelled",
        "oxmcp.sessions.open",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing from {names:?}");
    }
    oxmcp::telemetry::disable();
}
