//! Streamable HTTP and legacy HTTP+SSE, server and client, over real sockets on 127.0.0.1.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp::client::{Client, Era, ServerNotification};
use oxmcp::protocol::*;
use oxmcp::server::{Arguments, RequestContext, Server};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::ErrorKind;
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

#[derive(Default)]
struct Seen {
    started: AtomicUsize,
    cancelled: AtomicUsize,
    signal: Notify,
}

fn server(seen: Arc<Seen>) -> Server {
    Server::builder("http-test", "1")
        .tool(
            Tool::new("echo", "echo", json!({"type": "object", "properties": {"text": {"type": "string"}}})),
            |a: Arguments, _| async move { Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default())) },
        )
        .tool(Tool::new("wait", "waits until cancelled", json!({"type": "object"})), move |_, ctx: RequestContext| {
            let seen = seen.clone();
            async move {
                seen.started.fetch_add(1, Ordering::SeqCst);
                ctx.cancelled().await;
                seen.cancelled.fetch_add(1, Ordering::SeqCst);
                seen.signal.notify_one();
                Ok(CallToolResult::text("cancelled"))
            }
        })
        .tool(Tool::new("busy", "takes 300 ms", json!({"type": "object"})), |_, _| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CallToolResult::text("finished"))
        })
        .tool(
            Tool::new("steps", "progress, a log line, then an answer", json!({"type": "object"})),
            |_, ctx: RequestContext| async move {
                for i in 1..=3 {
                    ctx.report_progress(i as f64, Some(3.0), None)?;
                }
                ctx.log(LoggingLevel::Info, json!("stepping"))?;
                Ok(CallToolResult::text("stepped"))
            },
        )
        .tool(Tool::new("poll", "ends its stream mid-call", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.report_progress(1.0, Some(2.0), None)?;
            tokio::time::sleep(Duration::from_millis(30)).await;
            ctx.end_response_stream();
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.report_progress(2.0, Some(2.0), None)?;
            Ok(CallToolResult::text("polled"))
        })
        .tool(Tool::new("ask", "asks the client's model", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            let r = ctx.create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("2+2?")], 5)).await?;
            Ok(CallToolResult::text(format!("model said {}", r.content.blocks()[0].as_text().unwrap_or("?"))))
        })
        .build()
        .unwrap()
}

async fn start(config: HttpServerConfig) -> (HttpServer, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let http = HttpServer::bind(server(seen.clone()), config).await.unwrap();
    (http, seen)
}

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

fn init_body() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

fn post(url: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new().post(url).header("content-type", "application/json").header("accept", ACCEPT_BOTH)
}

async fn expect_error(resp: reqwest::Response, status: u16) -> Value {
    assert_eq!(resp.status().as_u16(), status);
    let body: Value = serde_json::from_str(&resp.text().await.unwrap()).expect("a JSON-RPC error body");
    assert_eq!(body["jsonrpc"], "2.0");
    assert!(body["error"]["code"].is_i64() && body["error"]["message"].is_string(), "{body}");
    body
}

/// Initializes raw and returns the session id.
async fn raw_session(url: &str) -> String {
    let r = post(url).body(init_body()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let _ = r.text().await;
    let r = post(url)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    sid
}

/// Calls `poll`, which ends its stream mid-call, and reads that first connection to its
/// end: what came, and the last event id to resume after.
async fn poll_until_the_stream_ends(url: &str, sid: &str) -> (String, String) {
    let r = post(url)
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll","_meta":{"progressToken":"p"}}}"#)
        .send()
        .await
        .unwrap();
    let first = r.text().await.unwrap();
    let last_id = first.lines().filter_map(|l| l.strip_prefix("id: ")).next_back().unwrap().to_string();
    (first, last_id)
}

/// `GET` with `Last-Event-ID` on session `sid`.
async fn resume(url: &str, sid: &str, last_id: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("last-event-id", last_id)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn bad_http_input_gets_the_right_status_and_a_jsonrpc_error() {
    let (http, _) = start(HttpServerConfig { max_body_bytes: 4096, ..Default::default() }).await;
    let url = http.url();
    let client = reqwest::Client::new();

    let r = client
        .post(&url)
        .header("content-type", "text/plain")
        .header("accept", ACCEPT_BOTH)
        .body(init_body())
        .send()
        .await
        .unwrap();
    expect_error(r, 415).await;
    let r = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init_body())
        .send()
        .await
        .unwrap();
    expect_error(r, 406).await;
    let r = post(&url).body("x".repeat(10_000)).send().await.unwrap();
    expect_error(r, 413).await;
    let r = post(&url).body("{not json").send().await.unwrap();
    assert_eq!(expect_error(r, 400).await["error"]["code"], -32700);
    let r = post(&url).body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).send().await.unwrap();
    expect_error(r, 400).await; // no session id
    let r = post(&url)
        .header("mcp-session-id", "no-such-session")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    expect_error(r, 404).await;
    let r = post(&url).header("mcp-protocol-version", "1999-01-01").body(init_body()).send().await.unwrap();
    expect_error(r, 400).await;
    let r = post(&url).header("origin", "http://evil.example").body(init_body()).send().await.unwrap();
    expect_error(r, 403).await;
    let r = post(&url).header("host", "evil.example").body(init_body()).send().await.unwrap();
    expect_error(r, 403).await;
    // A local origin is fine; nothing above created a session.
    assert_eq!(http.session_count(), 0);
    let r = post(&url).header("origin", "http://localhost:3000").body(init_body()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(http.session_count(), 1);
    http.shutdown().await;
}

#[tokio::test]
async fn sessions_are_created_used_deleted_capped_and_expired() {
    // Long enough that no session expires before the cap is checked, even on a loaded machine.
    let config = HttpServerConfig { max_sessions: 2, session_idle_timeout: Duration::from_millis(1500), ..Default::default() };
    let (http, _) = start(config).await;
    let url = http.url();
    let sid = raw_session(&url).await;
    assert_eq!(sid.len(), 32);
    assert!(sid.chars().all(|c| c.is_ascii_hexdigit()));

    let r = post(&url)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over sse"}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let body = r.text().await.unwrap();
    assert!(body.contains(r#""text":"over sse""#), "{body}");
    assert!(body.contains("id: "), "events carry ids: {body}");

    let second = raw_session(&url).await;
    let r = reqwest::Client::new().delete(&url).header("mcp-session-id", &second).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r =
        post(&url).header("mcp-session-id", &second).body(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).send().await.unwrap();
    expect_error(r, 404).await;

    tokio::time::sleep(Duration::from_millis(3000)).await;
    let r = post(&url).header("mcp-session-id", &sid).body(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).send().await.unwrap();
    expect_error(r, 404).await; // expired while idle
    assert_eq!(http.session_count(), 0);
    http.shutdown().await;
}

#[tokio::test]
async fn the_session_cap_evicts_the_least_recently_used_idle_session() {
    let (http, _) = start(HttpServerConfig { max_sessions: 3, ..Default::default() }).await;
    let url = http.url();
    let ping = |sid: String, id: u32| {
        post(&url).header("mcp-session-id", sid).body(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).send()
    };
    let (a, b, c) = (raw_session(&url).await, raw_session(&url).await, raw_session(&url).await);
    assert_eq!(ping(a.clone(), 1).await.unwrap().status(), 200); // b is now the least recently used
    let d = raw_session(&url).await; // at the cap: b goes, not a refusal for everyone
    expect_error(ping(b.clone(), 2).await.unwrap(), 404).await;
    for sid in [&a, &c, &d] {
        assert_eq!(ping(sid.clone(), 3).await.unwrap().status(), 200, "{sid} stays");
    }
    assert_eq!(http.session_count(), 3);
    // Every session busy (a call in flight on each): then a new one is refused.
    let mut calls = Vec::new();
    for sid in [&a, &c, &d] {
        let r = post(&url)
            .header("mcp-session-id", sid)
            .body(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait"}}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        calls.push(r);
    }
    let r = post(&url).body(init_body()).send().await.unwrap();
    expect_error(r, 503).await;
    drop(calls); // the dropped streams cancel the calls (resumable streams keep them: close)
    for sid in [&a, &c, &d] {
        let _ = reqwest::Client::new().delete(&url).header("mcp-session-id", sid.clone()).send().await.unwrap();
    }
    http.shutdown().await;
}

#[tokio::test]
async fn the_client_does_everything_over_streamable_http_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        does_everything_over_streamable_http(era).await;
    }
}

async fn does_everything_over_streamable_http(era: Era) {
    let (http, seen) = start(HttpServerConfig::default()).await;
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let client = Client::builder("c", "1")
        .on_sampling(|_, _| async { Ok(CreateMessageResult::new(Role::Assistant, SamplingContentBlock::text("4"), "m")) })
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .era(era)
        .connect(HttpClientTransport::new(http.url()))
        .await
        .unwrap();
    assert_eq!(client.era(), era);
    // A client that listens gets the server's logs in both eras without setting a level
    // (the stateless era's requests ask for them).
    assert_eq!(client.call_tool("echo", json!({"text": "hi"})).await.unwrap().content[0].as_text(), Some("hi"));

    let progress = Arc::new(Mutex::new(Vec::new()));
    let p = progress.clone();
    let r = client
        .call_tool_with("steps", json!({}), RequestOptions::default().on_progress(move |x| p.lock().unwrap().push(x.progress)))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("stepped"));
    assert_eq!(*progress.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    assert!(notes
        .lock()
        .unwrap()
        .iter()
        .any(|n| matches!(n, ServerNotification::LoggingMessage(m) if m.data == json!("stepping"))));

    // A server-to-client request travels on the tool call's SSE stream.
    assert_eq!(client.call_tool("ask", json!({})).await.unwrap().content[0].as_text(), Some("model said 4"));

    // Cancellation reaches the handler over HTTP.
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        t.cancel();
    });
    let e = client.call_tool_with("wait", json!({}), RequestOptions::default().cancel_token(token)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
    tokio::time::timeout(Duration::from_secs(3), seen.signal.notified()).await.expect("the handler saw the cancel");

    if era == Era::Stateless {
        // Left open: the listen stream that brings list changes to the callback, which the
        // client's own stats leave out (an idle client reports zero in both eras).
        assert_eq!(client.peer().stats().pending_requests, 1);
        assert_eq!(client.stats().pending_requests, 0);
        assert_eq!(http.session_count(), 0, "the stateless era keeps no session");
        client.close().await;
        http.shutdown().await;
        return;
    }
    // 2025-11-25 polling: the server ends the stream mid-call, the client resumes it.
    let progress = Arc::new(Mutex::new(Vec::new()));
    let p = progress.clone();
    let r = client
        .call_tool_with("poll", json!({}), RequestOptions::default().on_progress(move |x| p.lock().unwrap().push(x.progress)))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("polled"));
    assert_eq!(*progress.lock().unwrap(), vec![1.0, 2.0], "no event lost or repeated across the resume");

    assert_eq!(client.peer().stats().pending_requests, 0);
    client.close().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(http.session_count(), 0, "close sent DELETE");
    http.shutdown().await;
}

#[tokio::test]
async fn a_dropped_stream_cancels_when_it_cannot_be_resumed() {
    let (http, seen) = start(HttpServerConfig { event_store: None, ..Default::default() }).await;
    let url = http.url();
    let sid = raw_session(&url).await;
    let r = post(&url)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(r);
    tokio::time::timeout(Duration::from_secs(3), seen.signal.notified())
        .await
        .expect("dropping the stream cancelled the handler");
    http.shutdown().await;
}

#[tokio::test]
async fn a_resumable_stream_replays_after_last_event_id() {
    let (http, seen) = start(HttpServerConfig::default()).await;
    let url = http.url();
    let sid = raw_session(&url).await;
    // `poll` ends its stream mid-call: read the first connection to its end.
    let (first, last_id) = poll_until_the_stream_ends(&url, &sid).await;
    assert!(first.starts_with("id: ") && first.contains("retry: "), "priming event first: {first}");
    assert!(!first.contains("polled"), "the answer is not on the first connection");
    let r = resume(&url, &sid, &last_id).await;
    assert_eq!(r.status(), 200);
    let rest = r.text().await.unwrap();
    assert!(rest.contains("polled"), "{rest}");
    assert!(!rest.contains(&format!("id: {last_id}\n")), "nothing before Last-Event-ID is replayed");
    assert_eq!(seen.cancelled.load(Ordering::SeqCst), 0, "a dropped resumable stream is not a cancel");
    http.shutdown().await;
}

#[tokio::test]
async fn a_session_cannot_resume_another_sessions_stream() {
    let (http, _) = start(HttpServerConfig::default()).await;
    let url = http.url();
    let (victim, attacker) = (raw_session(&url).await, raw_session(&url).await);
    let (_, last_id) = poll_until_the_stream_ends(&url, &victim).await;
    let r = resume(&url, &attacker, &last_id).await;
    assert_eq!(r.status(), 404, "another session's stream is not found");
    let body = r.text().await.unwrap();
    assert!(!body.contains("polled"), "{body}");
    // The owner still resumes it, and gets the answer.
    let r = resume(&url, &victim, &last_id).await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("polled"));
    http.shutdown().await;
}

#[tokio::test]
async fn the_stream_of_a_cancelled_request_ends() {
    // Resumable streams (the default) outlive a dropped connection; a cancelled request
    // gets no answer, so its stream must end by itself or hold its connection forever.
    let (http, seen) = start(HttpServerConfig::default()).await;
    let url = http.url();
    let sid = raw_session(&url).await;
    let r = post(&url)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"wait"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41}}"#;
    assert_eq!(post(&url).header("mcp-session-id", &sid).body(cancel).send().await.unwrap().status(), 202);
    let body = tokio::time::timeout(Duration::from_secs(5), r.text()).await.expect("the stream ended").unwrap();
    assert!(!body.contains("\"result\""), "no answer to a cancelled request: {body}");
    assert_eq!(seen.cancelled.load(Ordering::SeqCst), 1);
    http.shutdown().await;
}

/// A TCP relay to `target` that cuts a connection carrying a call of `busy` as soon as
/// the server's bytes on it include `cut_at`: the network failing mid-stream.
async fn cutting_relay(target: std::net::SocketAddr, cut_at: &'static str) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = tokio::net::TcpStream::connect(target).await.unwrap();
            let (mut cr, mut cw) = client.into_split();
            let (mut sr, mut sw) = server.into_split();
            let marked = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let mark = marked.clone();
            let up = tokio::spawn(async move {
                let mut buf = vec![0u8; 16384];
                while let Ok(n) = cr.read(&mut buf).await {
                    if n == 0 || sw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    if String::from_utf8_lossy(&buf[..n]).contains(r#""name":"busy""#) {
                        mark.store(true, Ordering::SeqCst);
                    }
                }
            });
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = vec![0u8; 16384];
                while let Ok(n) = sr.read(&mut buf).await {
                    if n == 0 || cw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if marked.load(Ordering::SeqCst) && String::from_utf8_lossy(&seen).contains(cut_at) {
                        break; // dropping both halves closes the client's connection
                    }
                }
                up.abort();
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_connection_cut_mid_stream_is_resumed_or_fails_clearly() {
    // Resumable (the default): the client resumes after the priming event's id.
    let (http, _) = start(HttpServerConfig { sse_retry_ms: Some(50), ..Default::default() }).await;
    let relay = cutting_relay(http.local_addr(), "id: ").await;
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .connect(HttpClientTransport::new(format!("http://{relay}/mcp")))
        .await
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(10), client.call_tool("busy", json!({}))).await.expect("no hang");
    assert_eq!(r.unwrap().content[0].as_text(), Some("finished"));
    client.close().await;
    http.shutdown().await;

    // Not resumable: a clear error, soon.
    let (http, _) = start(HttpServerConfig { event_store: None, ..Default::default() }).await;
    let relay = cutting_relay(http.local_addr(), "\r\n\r\n").await;
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .connect(HttpClientTransport::new(format!("http://{relay}/mcp")))
        .await
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(10), client.call_tool("busy", json!({}))).await.expect("no hang");
    let err = r.unwrap_err();
    assert!(err.message().contains("ended before the response"), "{err}");
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn a_cancel_sent_right_after_its_request_never_overtakes_it() {
    // Each message is its own POST: without care a cancel can reach the server before the
    // request it cancels, which then runs on (the server ignores cancels of unknown ids).
    let (http, seen) = start(HttpServerConfig::default()).await;
    let client =
        Arc::new(Client::builder("c", "1").era(Era::Session).connect(HttpClientTransport::new(http.url())).await.unwrap());
    let mut workers = Vec::new();
    for w in 0..16u64 {
        let c = client.clone();
        workers.push(tokio::spawn(async move {
            for i in 0..60u64 {
                let wait = Duration::from_micros((w * 7919 + i * 104_729) % 3000);
                let _ = tokio::time::timeout(wait, c.call_tool("wait", json!({}))).await;
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // every request and cancel has arrived
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.cancelled.load(Ordering::SeqCst) < seen.started.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (started, cancelled) = (seen.started.load(Ordering::SeqCst), seen.cancelled.load(Ordering::SeqCst));
    assert!(started > 0);
    assert_eq!(cancelled, started, "every call that reached the server was cancelled there");
    Arc::try_unwrap(client).ok().unwrap().close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn event_ids_do_not_count_up() {
    let (http, _) = start(HttpServerConfig::default()).await;
    let url = http.url();
    let mut streams = Vec::new();
    for _ in 0..2 {
        let sid = raw_session(&url).await;
        for id in 1..=4 {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}}}}"#
            );
            let text = post(&url)
                .header("mcp-session-id", &sid)
                .header("mcp-protocol-version", "2025-11-25")
                .body(body)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let event = text.lines().find_map(|l| l.strip_prefix("id: ")).expect("an event id").to_string();
            streams.push(event.rsplit_once('-').unwrap().0.parse::<u64>().unwrap());
        }
    }
    // One stream after another: a counter would make each the last plus a small step.
    let close = streams.windows(2).filter(|w| w[1].abs_diff(w[0]) < 1 << 20).count();
    assert_eq!(close, 0, "stream ids {streams:?} follow each other");
    http.shutdown().await;
}

#[tokio::test]
async fn stateless_and_json_response_modes() {
    let (http, _) = start(HttpServerConfig { stateless: true, ..Default::default() }).await;
    let client = Client::builder("c", "1").connect(HttpClientTransport::new(http.url())).await.unwrap();
    assert_eq!(client.call_tool("echo", json!({"text": "stateless"})).await.unwrap().content[0].as_text(), Some("stateless"));
    let r = post(&http.url()).body(init_body()).send().await.unwrap();
    assert!(r.headers().get("mcp-session-id").is_none(), "no sessions in stateless mode");
    let r = reqwest::Client::new().get(http.url()).header("accept", "text/event-stream").send().await.unwrap();
    expect_error(r, 405).await;
    client.close().await;
    http.shutdown().await;

    let (http, _) = start(HttpServerConfig { json_response: true, ..Default::default() }).await;
    let url = http.url();
    let sid = raw_session(&url).await;
    let r = post(&url)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"json"}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!((v["id"].clone(), v["result"]["content"][0]["text"].clone()), (json!(5), json!("json")));
    let client = Client::builder("c", "1").connect(HttpClientTransport::new(url)).await.unwrap();
    assert_eq!(client.call_tool("echo", json!({"text": "j2"})).await.unwrap().content[0].as_text(), Some("j2"));
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn legacy_sse_and_automatic_fallback() {
    let (http, _) = start(HttpServerConfig::default()).await;
    let legacy_url = format!("http://{}/sse", http.local_addr());
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2024_11_05)
        .connect(HttpClientTransport::new(legacy_url))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    assert_eq!(client.call_tool("echo", json!({"text": "legacy"})).await.unwrap().content[0].as_text(), Some("legacy"));
    let progress = Arc::new(AtomicUsize::new(0));
    let p = progress.clone();
    client
        .call_tool_with(
            "steps",
            json!({}),
            RequestOptions::default().on_progress(move |_| {
                p.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .await
        .unwrap();
    assert_eq!(progress.load(Ordering::SeqCst), 3);
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn the_client_reinitializes_once_when_its_session_expires() {
    let (http, _) = start(HttpServerConfig { session_idle_timeout: Duration::from_millis(200), ..Default::default() }).await;
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .connect(HttpClientTransport::new(http.url()).open_get_stream(false))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(http.session_count(), 0, "the session expired");
    assert_eq!(client.call_tool("echo", json!({"text": "again"})).await.unwrap().content[0].as_text(), Some("again"));
    assert_eq!(http.session_count(), 1);
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish_and_stops_accepting() {
    let (http, _) = start(HttpServerConfig::default()).await;
    let url = http.url();
    let client = Client::builder("c", "1").era(Era::Session).connect(HttpClientTransport::new(url.clone())).await.unwrap();
    let peer = client.peer().clone();
    let call =
        tokio::spawn(async move { peer.request("tools/call", Some(json!({"name": "busy"})), RequestOptions::default()).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    http.shutdown().await;
    let result = call.await.unwrap().expect("the in-flight call finished");
    assert_eq!(result["content"][0]["text"], "finished");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(post(&url).body(init_body()).send().await.is_err(), "no longer accepting");
}

#[tokio::test]
async fn an_unreachable_server_fails_fast_with_a_clear_error() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap(); // then closed
    let started = Instant::now();
    let err = Client::builder("c", "1").connect(HttpClientTransport::new(format!("http://{addr}/mcp"))).await.err().unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(err.message().contains("cannot reach"), "{}", err.message());
}

#[tokio::test]
async fn a_malformed_url_fails_at_once_without_sending_anything() {
    let err = Client::builder("c", "1").connect(HttpClientTransport::new("not a url")).await.err().unwrap();
    assert_eq!(err.kind(), ErrorKind::Closed);
    assert!(err.message().contains("invalid URL"), "{}", err.message());
}

#[tokio::test]
async fn an_unreachable_server_is_a_transport_error_in_every_era_and_a_taken_address_is_named() {
    // A port that was free a moment ago: nothing listens there.
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    for era in [Era::Auto, Era::Session, Era::Stateless] {
        let err = Client::builder("c", "1").era(era).connect(HttpClientTransport::new(&url)).await.err().unwrap();
        assert_eq!(err.kind(), ErrorKind::Transport, "{era:?}: {err}");
        assert!(err.to_string().contains(&url), "{era:?}: the URL is named: {err}");
    }

    let (http, _) = start(HttpServerConfig::default()).await;
    let taken = HttpServerConfig { bind: http.local_addr(), ..Default::default() };
    let err = HttpServer::bind(Server::builder("s", "1").build().unwrap(), taken).await.err().unwrap();
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    assert!(err.to_string().contains(&http.local_addr().to_string()), "{err}");
    http.shutdown().await;
}

#[tokio::test]
async fn handlers_see_their_requests_http_headers_but_no_token() {
    let server = Server::builder("h", "1")
        .tool(
            Tool::new("headers", "Answers the request's headers.", json!({"type": "object"})),
            |_a: Arguments, ctx: RequestContext| async move {
                Ok(CallToolResult::text(serde_json::to_string(&ctx.headers()).unwrap()))
            },
        )
        .build()
        .unwrap();
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    for era in [Era::Session, Era::Stateless] {
        let transport = HttpClientTransport::new(http.url()).header("X-Tenant", "blue").header("Authorization", "Bearer secret");
        let client = Client::builder("c", "1").era(era).connect(transport).await.unwrap();
        let text = client.call_tool("headers", json!({})).await.unwrap().content[0].as_text().unwrap().to_string();
        let seen: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(seen["x-tenant"], "blue", "{era:?}: {seen}");
        assert!(seen.get("authorization").is_none(), "{era:?}: the token stays out: {seen}");
        client.close().await;
    }
    http.shutdown().await;
    // Over a transport without HTTP there are none.
    let (a, b) = oxmcp::transport::MemoryTransport::pair();
    let server = Server::builder("h", "1")
        .tool(Tool::new("headers", "", json!({"type": "object"})), |_a: Arguments, ctx: RequestContext| async move {
            Ok(CallToolResult::text(format!("{}", ctx.headers().is_none())))
        })
        .build()
        .unwrap();
    let _s = server.serve(a);
    let client = Client::builder("c", "1").connect(b).await.unwrap();
    assert_eq!(client.call_tool("headers", json!({})).await.unwrap().content[0].as_text(), Some("true"));
}

#[tokio::test]
async fn requests_answered_without_a_handler_leave_no_headers_waiting() {
    // The engine answers ping itself: its headers must not wait for a handler that never
    // takes them, or 1024 pings would leave every later handler without its headers.
    let server = Server::builder("h", "1")
        .tool(Tool::new("tenant", "", json!({"type": "object"})), |_a: Arguments, ctx: RequestContext| async move {
            let tenant = ctx.headers().and_then(|h| h.get("x-tenant").cloned()).unwrap_or_default();
            Ok(CallToolResult::text(tenant))
        })
        .build()
        .unwrap();
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    let transport = HttpClientTransport::new(http.url()).header("X-Tenant", "blue");
    let client = Client::builder("c", "1").era(Era::Session).connect(transport).await.unwrap();
    for _ in 0..1100 {
        client.ping().await.unwrap();
    }
    let text = client.call_tool("tenant", json!({})).await.unwrap().content[0].as_text().unwrap().to_string();
    assert_eq!(text, "blue");
    client.close().await;
    http.shutdown().await;
}
