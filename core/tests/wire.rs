//! The server as a raw JSON-RPC peer sees it: bad input gets the right error and the
//! session keeps serving; batches only in 2025-03-26; `initialize` can't be cancelled;
//! a cancelled request gets no response; oversized messages are refused without harm.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::{RequestContext, Server};
use oxmcp::transport::{MemoryTransport, MessageReader, MessageWriter, Outbound, StdioTransport, Transport};
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder("wire", "1")
        .tool(
            Tool::new("echo", "echo", json!({"type": "object", "properties": {"text": {"type": "string"}}})),
            |a: oxmcp::server::Arguments, _| async move { Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default())) },
        )
        .tool(Tool::new("wait", "waits for a cancel", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        })
        .build()
        .unwrap()
}

struct Raw<R, W> {
    rx: R,
    tx: W,
}

impl<R: MessageReader, W: MessageWriter> Raw<R, W> {
    async fn send(&mut self, text: &str) {
        self.tx.send(Outbound { bytes: Bytes::from(text.to_string()), route: Default::default() }).await.unwrap();
        self.tx.flush().await.unwrap();
    }
    async fn recv(&mut self) -> Value {
        let bytes = tokio::time::timeout(Duration::from_secs(5), self.rx.recv()).await.expect("a reply").expect("open");
        serde_json::from_slice(&bytes).unwrap()
    }
    async fn nothing_for(&mut self, ms: u64) {
        if let Ok(r) = tokio::time::timeout(Duration::from_millis(ms), self.rx.recv()).await {
            panic!("expected silence, got {:?}", r.map(|b| String::from_utf8_lossy(&b).to_string()));
        }
    }
    async fn initialize(&mut self, version: &str) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
        )
        .await;
        let r = self.recv().await;
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        r
    }
}

fn connect_raw() -> (oxmcp::server::ServerSession, Raw<impl MessageReader, impl MessageWriter>) {
    let (a, b) = MemoryTransport::pair();
    let session = server().serve(a);
    let (rx, tx) = b.split();
    (session, Raw { rx, tx })
}

fn code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn bad_input_gets_the_right_code_and_the_session_survives() {
    let (_s, mut raw) = connect_raw();
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
    let early = raw.recv().await;
    assert_eq!((code(&early), &early["id"]), (-32600, &json!(1)), "requests before initialize are refused");

    let init = raw.initialize("2025-06-18").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");

    raw.send("{this is not json").await;
    let r = raw.recv().await;
    assert_eq!((code(&r), &r["id"]), (-32700, &Value::Null));

    raw.send(r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#).await;
    let r = raw.recv().await;
    assert_eq!((code(&r), &r["id"]), (-32600, &json!(2)));

    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#).await;
    assert_eq!(code(&raw.recv().await), -32601);

    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#).await;
    assert_eq!(code(&raw.recv().await), -32602, "tools/call without a name");

    raw.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"missing"}}"#).await;
    assert_eq!(code(&raw.recv().await), -32602, "unknown tool");

    raw.send(r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#).await;
    assert_eq!(code(&raw.recv().await), -32600, "a second initialize");

    // Unknown fields and a late or unknown response are ignored; the session still answers.
    raw.send(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#).await;
    raw.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"futureField":1}}"#).await;
    let r = raw.recv().await;
    assert_eq!(r["id"], 7);
    assert_eq!(r["result"]["content"][0]["text"], "still here");
}

#[tokio::test]
async fn unknown_versions_get_the_latest_and_batches_only_in_2025_03_26() {
    let (_s, mut raw) = connect_raw();
    let init = raw.initialize("1999-01-01").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    raw.send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    let r = raw.recv().await;
    assert_eq!(code(&r), -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("batch"));

    let (_s, mut raw) = connect_raw();
    raw.initialize("2025-03-26").await;
    raw.send(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},
            {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},
            {"jsonrpc":"2.0","id":3,"method":"nope"},
            {"bad":true}]"#,
    )
    .await;
    let r = raw.recv().await;
    let items = r.as_array().expect("a batch is answered with an array");
    assert_eq!(items.len(), 4, "two results, one method error, one invalid request: {r}");
    let by_id = |id: Value| items.iter().find(|i| i["id"] == id).cloned().unwrap();
    assert_eq!(by_id(json!(1))["result"], json!({}));
    assert_eq!(by_id(json!(2))["result"]["content"][0]["text"], "b");
    assert_eq!(code(&by_id(json!(3))), -32601);
    assert_eq!(code(&by_id(Value::Null)), -32600);
}

#[tokio::test]
async fn cancelled_requests_get_no_response_and_initialize_cannot_be_cancelled() {
    let (_s, mut raw) = connect_raw();
    raw.send(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#).await;
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"init"}}"#).await;
    assert_eq!(raw.recv().await["id"], "init", "initialize is answered despite the cancel");
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;

    raw.send(r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}}"#).await;
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"user"}}"#).await;
    // Cancels of unknown or finished requests are ignored.
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never"}}"#).await;
    raw.nothing_for(200).await;
    raw.send(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#).await;
    assert_eq!(raw.recv().await["id"], "p");

    // Reusing an id that is still in flight is refused.
    raw.send(r#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"wait"}}"#).await;
    raw.send(r#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"wait"}}"#).await;
    let r = raw.recv().await;
    assert_eq!((code(&r), &r["id"]), (-32600, &json!("dup")));
}

#[tokio::test]
async fn oversized_messages_are_refused_and_the_session_goes_on() {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let _session = server().serve(StdioTransport::new(server_read, server_write).max_message_size(4096));
    let (client_read, client_write) = tokio::io::split(client_end);
    let (rx, tx) = StdioTransport::new(client_read, client_write).split();
    let mut raw = Raw { rx, tx };
    raw.initialize("2025-11-25").await;
    let big = "x".repeat(10_000);
    raw.send(
        &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text": big}}}).to_string(),
    )
    .await;
    let r = raw.recv().await;
    assert_eq!(code(&r), -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("4096"));
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"small"}}}"#).await;
    let r = raw.recv().await;
    assert_eq!((r["id"].clone(), r["result"]["content"][0]["text"].clone()), (json!(2), json!("small")));
}

/// Records what the session's writer does: each message sent (its method or its id) and
/// each flush, with the time.
struct Recorded {
    inner: MemoryTransport,
    log: std::sync::Arc<std::sync::Mutex<Vec<(String, std::time::Instant)>>>,
}

struct RecordingWriter<W> {
    inner: W,
    log: std::sync::Arc<std::sync::Mutex<Vec<(String, std::time::Instant)>>>,
}

impl Transport for Recorded {
    type Reader = <MemoryTransport as Transport>::Reader;
    type Writer = RecordingWriter<<MemoryTransport as Transport>::Writer>;
    fn split(self) -> (Self::Reader, Self::Writer) {
        let (r, w) = self.inner.split();
        (r, RecordingWriter { inner: w, log: self.log })
    }
}

impl<W: MessageWriter> MessageWriter for RecordingWriter<W> {
    async fn send(&mut self, message: Outbound) -> std::io::Result<()> {
        let v: Value = serde_json::from_slice(&message.bytes).unwrap_or_default();
        let what = v["method"].as_str().map(str::to_string).unwrap_or_else(|| format!("answer {}", v["id"]));
        self.log.lock().unwrap().push((what, std::time::Instant::now()));
        self.inner.send(message).await
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        self.log.lock().unwrap().push(("flush".into(), std::time::Instant::now()));
        self.inner.flush().await
    }
    async fn close(self) {
        self.inner.close().await
    }
}

#[tokio::test]
async fn a_final_progress_notification_never_shares_a_write_with_its_response() {
    // typescript-sdk #2580: the official TypeScript client runs notification handlers
    // after response handlers for messages that arrive in one read, and so loses the
    // progress that comes right before a response.
    let server = Server::builder("wire", "1")
        .tool(
            Tool::new("done", "reports 100% and returns at once", json!({"type": "object"})),
            |_, ctx: RequestContext| async move {
                ctx.report_progress(1.0, Some(1.0), None)?;
                Ok(CallToolResult::text("done"))
            },
        )
        .build()
        .unwrap();
    let (a, b) = MemoryTransport::pair();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let _session = server.serve(Recorded { inner: a, log: log.clone() });
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    raw.initialize("2025-11-25").await;
    for id in 1..=20 {
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "done", "_meta": {"progressToken": id}}}).to_string()).await;
        assert_eq!(raw.recv().await["method"], "notifications/progress");
        assert_eq!(raw.recv().await["id"], id);
    }
    let log = log.lock().unwrap();
    let mut checked = 0;
    for (i, (what, _)) in log.iter().enumerate() {
        if what != "notifications/progress" {
            continue;
        }
        let (next, flushed_at) = (&log[i + 1].0, log[i + 1].1);
        assert_eq!(next, "flush", "the progress notification is written on its own: {:?}", &log[i..i + 3]);
        let (answer, sent_at) = &log[i + 2];
        assert!(answer.starts_with("answer"), "{:?}", &log[i..i + 3]);
        assert!(sent_at.duration_since(flushed_at) >= Duration::from_millis(1), "the answer waits a moment");
        checked += 1;
    }
    assert_eq!(checked, 20);
}

#[tokio::test]
async fn requests_beyond_the_running_and_waiting_limits_are_refused_at_once() {
    let config = oxmcp::session::SessionConfig { max_concurrent_requests: 2, max_queued_requests: 3, ..Default::default() };
    let (a, b) = MemoryTransport::pair();
    let server = Server::builder("wire", "1")
        .tool(Tool::new("wait", "waits for a cancel", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        })
        .config(oxmcp::server::ServerConfig { session: config, ..Default::default() })
        .build()
        .unwrap();
    let _session = server.serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    raw.initialize("2025-11-25").await;
    for id in 1..=8 {
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "wait"}}).to_string()).await;
    }
    // 2 run and 3 wait; the other 3 are answered now, and say why.
    for _ in 0..3 {
        let r = raw.recv().await;
        assert!(r["id"].as_i64().unwrap() > 5, "{r}");
        assert_eq!(code(&r), -32603);
        assert!(r["error"]["message"].as_str().unwrap().contains("busy"), "{r}");
    }
    raw.nothing_for(100).await;
    // Cancelling frees room: a new request is taken again.
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    raw.send(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).await;
    assert_eq!(raw.recv().await["id"], 9, "ping is answered by the engine");
    raw.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "wait"}}).to_string()).await;
    raw.nothing_for(100).await;
}

#[tokio::test]
async fn a_cancel_that_arrives_before_its_request_stops_it() {
    // Over HTTP a cancel may come on another connection ahead of its request.
    let (_s, mut raw) = connect_raw();
    raw.initialize("2025-11-25").await;
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#).await;
    raw.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran"}}}"#).await;
    raw.nothing_for(200).await;
    // Only that id: the next request runs as usual.
    raw.send(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran"}}}"#).await;
    assert_eq!(raw.recv().await["id"], 8);
}

/// A service whose notification handler is held shut until the test opens it.
struct Stalled {
    open: Arc<tokio::sync::Semaphore>,
    handled: Arc<std::sync::atomic::AtomicUsize>,
}

impl oxmcp::session::Service for Stalled {
    fn handle_request(
        &self,
        _: oxmcp::session::IncomingRequest,
    ) -> futures::future::BoxFuture<'static, Result<Value, oxmcp::protocol::ErrorObject>> {
        Box::pin(async { Ok(json!({})) })
    }

    fn handle_notification(&self, _: oxmcp::session::IncomingNotification) -> futures::future::BoxFuture<'static, ()> {
        let (open, handled) = (self.open.clone(), self.handled.clone());
        Box::pin(async move {
            drop(open.acquire().await);
            handled.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
    }
}

#[tokio::test]
async fn a_flood_of_notifications_waits_for_a_slow_handler_instead_of_filling_memory() {
    // The peer writes 100,000 notifications of about 1 KB (100 MB) into a 64 KB pipe as
    // fast as it takes them. While the handler is held shut the session reads about its
    // 1 MB budget and stops, so the peer stalls far short of the end; once the handler
    // goes on, every notification is handled and the peer finishes.
    const COUNT: usize = 100_000;
    let (peer_end, our_end) = tokio::io::duplex(64 * 1024);
    let (our_read, our_write) = tokio::io::split(our_end);
    let open = Arc::new(tokio::sync::Semaphore::new(0));
    let handled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let service = Arc::new(Stalled { open: open.clone(), handled: handled.clone() });
    let config = oxmcp::session::SessionConfig { max_queued_notification_bytes: 1024 * 1024, ..Default::default() };
    let session = oxmcp::session::Session::start(StdioTransport::new(our_read, our_write), service, config);
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = written.clone();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let (_keep, mut w) = tokio::io::split(peer_end);
        let note =
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x".repeat(1000)}});
        let line = format!("{note}\n");
        for _ in 0..COUNT {
            w.write_all(line.as_bytes()).await.unwrap();
            count.fetch_add(line.len(), std::sync::atomic::Ordering::SeqCst);
        }
    });
    let load = || written.load(std::sync::atomic::Ordering::SeqCst);
    // Until the peer has made no progress for half a second (or is done).
    loop {
        let before = load();
        tokio::time::sleep(Duration::from_millis(500)).await;
        if load() == before || writer.is_finished() {
            break;
        }
    }
    assert!(!writer.is_finished(), "the peer wrote all 100 MB while the handler was held shut");
    assert!(load() < 4 * 1024 * 1024, "{} bytes read for a 1 MB budget", load());
    assert_eq!(handled.load(std::sync::atomic::Ordering::SeqCst), 0);
    open.add_permits(COUNT);
    tokio::time::timeout(Duration::from_secs(60), writer).await.expect("the peer finishes once the handler goes on").unwrap();
    let start = std::time::Instant::now();
    while handled.load(std::sync::atomic::Ordering::SeqCst) < COUNT {
        assert!(start.elapsed() < Duration::from_secs(60), "{} handled", handled.load(std::sync::atomic::Ordering::SeqCst));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    session.close().await;
}

/// A session over a child process that never reads its stdin (it sleeps), with at most
/// `max_queued` bytes waiting for it.
fn session_with_a_peer_that_reads_nothing(max_queued: usize) -> oxmcp::session::Session {
    let transport = oxmcp::transport::ChildProcess::new("sleep").args(["60"]).spawn().unwrap();
    let service = Arc::new(Stalled { open: Arc::new(tokio::sync::Semaphore::new(0)), handled: Default::default() });
    let config = oxmcp::session::SessionConfig { max_queued_outbound_bytes: max_queued, ..Default::default() };
    oxmcp::session::Session::start(transport, service, config)
}

fn log_note(size: usize) -> Option<Value> {
    Some(json!({"level": "info", "data": "x".repeat(size)}))
}

#[tokio::test]
async fn closing_a_session_never_waits_for_ever_on_a_peer_that_reads_nothing() {
    // One message larger than the whole budget (taken: nothing is ahead of it), then
    // 256 KB more.
    let session = session_with_a_peer_that_reads_nothing(1024 * 1024);
    session.peer().notify("notifications/message", log_note(2 * 1024 * 1024)).unwrap();
    for _ in 0..64 {
        session.peer().notify("notifications/message", log_note(4000)).unwrap();
    }
    let closed = tokio::time::timeout(Duration::from_secs(30), session.close()).await;
    assert!(closed.is_ok(), "close waited on the peer for ever");
}

#[tokio::test]
async fn a_peer_that_reads_nothing_is_disconnected_past_the_outbound_budget() {
    // 1.2 MB over a 1 MB budget is taken while the peer may still be reading; once it has
    // read nothing for 5 s, the next message closes the session, saying why.
    let session = session_with_a_peer_that_reads_nothing(1024 * 1024);
    let peer = session.peer().clone();
    for _ in 0..300 {
        peer.notify("notifications/message", log_note(4000)).unwrap();
    }
    tokio::time::sleep(Duration::from_secs(6)).await;
    let e = peer.notify("notifications/message", log_note(4000)).unwrap_err();
    assert_eq!(e.kind(), oxmcp::ErrorKind::Closed, "{e}");
    assert!(e.message().contains("reads nothing"), "{e}");
    assert!(peer.close_reason().unwrap_or_default().contains("reads nothing"));
    let closed = tokio::time::timeout(Duration::from_secs(30), session.close()).await;
    assert!(closed.is_ok(), "close waited on the peer for ever");

    // However recent its last read, a peer four budgets behind is disconnected too.
    let session = session_with_a_peer_that_reads_nothing(1024 * 1024);
    let peer = session.peer().clone();
    let refused = (0..2000).find_map(|_| peer.notify("notifications/message", log_note(4000)).err());
    let e = refused.expect("8 MB were queued for a peer four budgets behind");
    assert!(e.message().contains("too slowly"), "{e}");
    let closed = tokio::time::timeout(Duration::from_secs(30), session.close()).await;
    assert!(closed.is_ok(), "close waited on the peer for ever");
}
