//! Telemetry end to end over the in-memory transport, read back from exporters that keep
//! what the OpenTelemetry SDK hands them: the client and server spans of one request and their parent
//! links, the conventions' names and attributes, errors and cancellations, the trace
//! context a handler is given, HTTP refusals counted, and nothing recorded (trace context
//! passed through) when off.
//! One test: telemetry is process-wide.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::trace::{FutureExt, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::KeyValue;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use oxmcp::client::{Client, Era};
use oxmcp::protocol::*;
use oxmcp::server::{RequestContext, Server};
use oxmcp::session::RequestOptions;
use oxmcp::transport::MemoryTransport;
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

// The SDK's own in-memory exporters sit behind its `testing` feature, which the workspace's
// single feature set (workspace-hack/) would carry into every build, the released ones too.

/// The finished spans, in the order the SDK exported them.
#[derive(Clone, Debug, Default)]
struct Spans(Arc<Mutex<Vec<SpanData>>>);

impl Spans {
    fn finished(&self) -> Vec<SpanData> {
        self.0.lock().unwrap().clone()
    }
    fn reset(&self) {
        self.0.lock().unwrap().clear();
    }
}

impl SpanExporter for Spans {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

/// Each exported metric's name, and the points of the sums (value, attributes as text).
#[derive(Clone, Debug, Default)]
struct Metrics(Arc<Mutex<Vec<Exported>>>);

#[derive(Debug)]
struct Exported {
    name: String,
    sums: Vec<(i64, Vec<(String, String)>)>,
}

fn as_text<'a>(attributes: impl Iterator<Item = &'a KeyValue>) -> Vec<(String, String)> {
    attributes.map(|kv| (kv.key.as_str().to_owned(), kv.value.to_string())).collect()
}

impl PushMetricExporter for Metrics {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let mut kept = self.0.lock().unwrap();
        for m in metrics.scope_metrics().flat_map(|sm| sm.metrics()) {
            let sums = match m.data() {
                AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                    sum.data_points().map(|p| (p.value() as i64, as_text(p.attributes()))).collect()
                }
                AggregatedMetrics::I64(MetricData::Sum(sum)) => {
                    sum.data_points().map(|p| (p.value(), as_text(p.attributes()))).collect()
                }
                _ => Vec::new(),
            };
            kept.push(Exported { name: m.name().to_owned(), sums });
        }
        Ok(())
    }
    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }
    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }
    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

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
    pair_in(Era::Session).await
}

async fn pair_in(era: Era) -> Client {
    // A tool a client may run as a task.
    let mut later = Tool::new("later", "answers, as a task if asked", json!({"type": "object"}));
    later.execution = Some(ToolExecution { task_support: Some(TaskSupport::Optional), ..Default::default() });
    let server = Server::builder("telemetry-server", "0.0.1")
        .tool(Tool::new("where", "the handler's trace context", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.trace_context().map(|t| t.traceparent).unwrap_or_default()))
        })
        .tool(Tool::new("fail", "fails", json!({"type": "object"})), |_, _| async {
            Err::<CallToolResult, _>(Error::new(ErrorKind::InvalidInput, "disk is full"))
        })
        .tool(later, |_, _| async { Ok(CallToolResult::text("done later")) })
        .tool(Tool::new("wait", "waits until cancelled", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        })
        .build()
        .unwrap();
    let (a, b) = MemoryTransport::pair();
    std::mem::forget(server.serve(a));
    Client::builder("telemetry-client", "0.0.1").era(era).connect(b).await.unwrap()
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_follow_the_mcp_conventions() {
    let spans = Spans::default();
    let tracer = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    let metrics = Metrics::default();
    let meter = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
    opentelemetry::global::set_tracer_provider(tracer.clone());
    opentelemetry::global::set_meter_provider(meter.clone());

    // Off: nothing recorded, and the caller's trace context reaches the handler untouched.
    let client = pair().await;
    let given = json!({"name": "where", "arguments": {}, "_meta": {"traceparent": CALLER}});
    let result = client.request("tools/call", Some(given.clone()), RequestOptions::default()).await.unwrap();
    assert_eq!(text(&result), CALLER);
    // A host's span given as text in the call's options, or current around a Rust caller's
    // future, also reaches the handler with telemetry off.
    let host_span = oxmcp::telemetry::TraceContext { traceparent: CALLER.into(), tracestate: Some("k=v".into()) };
    let traced = RequestOptions::default().trace(host_span.clone());
    let out = oxmcp::host::client::call(&client, "tools/call", Some("where"), Some("{}"), traced).await.unwrap().unwrap();
    assert_eq!(text(&serde_json::from_str(&out).unwrap()), CALLER);
    let around = oxmcp::telemetry::remote(&host_span).expect("a valid traceparent");
    let result = client.call_tool("where", json!({})).with_context(around).await.unwrap();
    assert_eq!(text(&serde_json::to_value(result).unwrap()), CALLER);
    let untraced = client.call_tool("where", json!({})).await.unwrap();
    assert_eq!(text(&serde_json::to_value(untraced).unwrap()), "");
    assert!(spans.finished().is_empty());

    oxmcp::telemetry::use_global_providers();
    assert!(oxmcp::telemetry::is_enabled());
    let client = pair().await;
    let result = client.request("tools/call", Some(given), RequestOptions::default()).await.unwrap();
    let all = spans.finished();
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

    // A host's span given as text is the client span's parent.
    spans.reset();
    let traced = RequestOptions::default().trace(host_span);
    oxmcp::host::client::call(&client, "tools/call", Some("where"), Some("{}"), traced).await.unwrap();
    let all = spans.finished();
    let sent = named(&all, "tools/call where", SpanKind::Client);
    assert_eq!(sent.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(sent.parent_span_id.to_string(), "00f067aa0ba902b7");

    // In the stateless era the version comes with each request.
    spans.reset();
    let stateless = pair_in(Era::Stateless).await;
    stateless.call_tool("where", json!({})).await.unwrap();
    let all = spans.finished();
    for kind in [SpanKind::Client, SpanKind::Server] {
        assert_eq!(attr(named(&all, "tools/call where", kind), "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    }

    // A tool's failure is `tool_error`; a JSON-RPC error its code, with an error status.
    spans.reset();
    client.call_tool("fail", json!({})).await.unwrap();
    let err = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602));
    let all = spans.finished();
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
    while spans.finished().len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let all = spans.finished();
    for kind in [SpanKind::Client, SpanKind::Server] {
        assert_eq!(attr(named(&all, "tools/call wait", kind), "error.type").as_deref(), Some("cancelled"));
    }

    // A task's life is a span under the request that made it, ended with its last status.
    spans.reset();
    let result = client.call_tool_as_task("later", json!({}), |_| {}).await.unwrap();
    assert_eq!(text(&serde_json::to_value(&result).unwrap()), "done later");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !spans.finished().iter().any(|s| s.name == "task") && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let all = spans.finished();
    let task = named(&all, "task", SpanKind::Internal);
    assert_eq!(task.parent_span_id, named(&all, "tools/call later", SpanKind::Server).span_context.span_id());
    assert_eq!(attr(task, "oxmcp.task.status").as_deref(), Some("completed"));
    assert!(attr(task, "oxmcp.task.id").is_some_and(|id| !id.is_empty()));

    // A host handler's run is a span under the server's, and the handler's info names it:
    // what a host's own spans nest under.
    spans.reset();
    let staged = oxmcp::host::StagedServer::new("staged", "1");
    let calls = staged.calls().clone();
    let tool = json!({"name": "hosted", "inputSchema": {"type": "object"}}).to_string();
    let answer = std::sync::Arc::new(move |id, _| {
        let info = oxmcp::host::context::call_now(&calls, id, oxmcp::host::context::op::INFO, "").unwrap().unwrap();
        let info: Value = serde_json::from_str(&info).unwrap();
        let text = info["traceparent"].as_str().unwrap_or_default().to_owned();
        // The `trace` op gives the same context alone (what the C# host asks on every call).
        let trace = oxmcp::host::context::call_now(&calls, id, oxmcp::host::context::op::TRACE, "").unwrap().unwrap();
        let trace: Value = serde_json::from_str(&trace).unwrap();
        assert_eq!(trace["traceparent"], info["traceparent"]);
        calls.complete(id, Ok(json!({"content": [{"type": "text", "text": text}]}).to_string()))
    });
    staged.register(oxmcp::host::HandlerKind::Tool, &tool, answer).unwrap();
    let hosted = oxmcp::host::client::connect_in_memory(&staged, Default::default(), Default::default()).await.unwrap();
    let out =
        oxmcp::host::client::call(&hosted, "tools/call", Some("hosted"), Some("{}"), Default::default()).await.unwrap().unwrap();
    let info_parent = text(&serde_json::from_str(&out).unwrap());
    let all = spans.finished();
    let run = named(&all, "host handler", SpanKind::Internal);
    assert_eq!(run.parent_span_id, named(&all, "tools/call hosted", SpanKind::Server).span_context.span_id());
    assert_eq!(attr(run, "oxmcp.handler.kind").as_deref(), Some("tool"));
    assert!(info_parent.contains(&run.span_context.span_id().to_string()), "{info_parent} names the run's span");
    hosted.close().await;

    // A store call a request waits on is a client span under the request's span (here a
    // Redis that is not there: the failed connect), and the failure is counted.
    spans.reset();
    let request = opentelemetry::Context::current_with_span(opentelemetry::global::tracer("test").start("request"));
    let parent_id = request.span().span_context().span_id();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = oxmcp::store::RedisStore::connect(&format!("redis://127.0.0.1:{closed}"), "t").with_context(request).await;
    assert!(refused.is_err());
    let all = spans.finished();
    let connect = named(&all, "CONNECT", SpanKind::Client);
    assert_eq!(connect.parent_span_id, parent_id);
    assert_eq!(attr(connect, "db.system.name").as_deref(), Some("redis"));
    assert!(attr(connect, "error.type").is_some());
    // Outside any request's span, no span of its own (but still counted).
    spans.reset();
    assert!(oxmcp::store::RedisStore::connect(&format!("redis://127.0.0.1:{closed}"), "t").await.is_err());
    assert!(spans.finished().iter().all(|s| s.name != "CONNECT"));

    // An HTTP request refused before any handler ran (here a Host not allowed) is counted
    // with its status.
    let http = oxmcp::transport::http::HttpServer::bind(
        Server::builder("telemetry-http", "0.0.1").build().unwrap(),
        oxmcp::transport::http::HttpServerConfig::default(),
    )
    .await
    .unwrap();
    // A request of a Streamable HTTP session carries the session's id; a session over a
    // transport without one (the memory transport above) none.
    assert!(spans.finished().iter().all(|s| attr(s, "mcp.session.id").is_none()));
    spans.reset();
    let post = |body: Value, sid: Option<String>| {
        let mut req = reqwest::Client::new()
            .post(http.url().to_string())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(sid) = sid {
            req = req.header("mcp-session-id", sid).header("mcp-protocol-version", "2025-11-25");
        }
        req.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let answer = post(init, None).await.unwrap();
    let sid = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    answer.text().await.unwrap();
    post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), Some(sid.clone())).await.unwrap();
    post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), Some(sid.clone())).await.unwrap().text().await.unwrap();
    let list = named(&spans.finished(), "tools/list", SpanKind::Server).clone();
    assert_eq!(attr(&list, "mcp.session.id"), Some(sid), "the span names the session the client was given");
    // A client over Streamable HTTP names it on its spans too, once the server gave it one.
    spans.reset();
    let transport = oxmcp::transport::http::HttpClientTransport::new(http.url().to_string());
    let over_http = Client::builder("telemetry-http-client", "0.0.1").era(Era::Session).connect(transport).await.unwrap();
    over_http.list_tools(None).await.unwrap();
    let all = spans.finished();
    let sent = attr(named(&all, "tools/list", SpanKind::Client), "mcp.session.id");
    assert!(sent.is_some(), "the client's span names its session");
    assert_eq!(sent, attr(named(&all, "tools/list", SpanKind::Server), "mcp.session.id"));
    assert_eq!(attr(named(&all, "initialize", SpanKind::Client), "mcp.session.id"), None, "not known before the answer");
    over_http.close().await;
    let mut raw = tokio::net::TcpStream::connect(http.local_addr()).await.unwrap();
    raw.write_all(b"POST /mcp HTTP/1.1\r\nhost: evil.example\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
        .await
        .unwrap();
    let mut answer = String::new();
    raw.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");

    // The duration histograms and the engine's own instruments were recorded.
    meter.force_flush().unwrap();
    let exported = metrics.0.lock().unwrap();
    let names: Vec<&str> = exported.iter().map(|m| m.name.as_str()).collect();
    for name in [
        "mcp.client.operation.duration",
        "mcp.server.operation.duration",
        "oxmcp.requests.in_flight",
        "oxmcp.requests.cancelled",
        "oxmcp.sessions.open",
        "oxmcp.store.errors",
        "oxmcp.queued.bytes",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let has = |attrs: &[(String, String)], key: &str, value: &str| attrs.iter().any(|(k, v)| k == key && v == value);
    let refused_403 =
        exported.iter().filter(|m| m.name == "oxmcp.requests.refused").flat_map(|m| &m.sums).any(|(value, attrs)| {
            *value >= 1 && has(attrs, "http.response.status_code", "403") && has(attrs, "oxmcp.reason", "http")
        });
    assert!(refused_403, "no oxmcp.requests.refused point for the 403");
    // The client's notifications/initialized waited in the server's notification budget.
    let queued_notes = exported
        .iter()
        .filter(|m| m.name == "oxmcp.queued.bytes")
        .flat_map(|m| &m.sums)
        .any(|(_, attrs)| has(attrs, "oxmcp.queue", "notifications"));
    assert!(queued_notes, "no oxmcp.queued.bytes point for the notification budget");
    oxmcp::telemetry::disable();
}
