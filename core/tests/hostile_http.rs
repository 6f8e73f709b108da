//! The HTTP server against clients that misbehave on purpose: half-sent requests, idle
//! connections, too many connections, and connections closed before the answer. This
//! test process leaves SIGPIPE at its default action, as a C host does: a write to a
//! closed connection must never raise it.

#![cfg(feature = "http")]

use std::net::SocketAddr;
use std::time::Duration;

use oxmcp::client::Client;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::Server;
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

fn server() -> Server {
    Server::builder("hostile-test", "1")
        .tool(Tool::new("echo", "echo", json!({"type": "object"})), |a, _| async move {
            Ok(CallToolResult::text(serde_json::Value::Object(a).to_string()))
        })
        .tool(Tool::new("hang", "answers once cancelled", json!({"type": "object"})), |_, ctx| async move {
            ctx.cancelled().await;
            Ok(CallToolResult::text("cancelled"))
        })
        .tool(Tool::new("late", "answers after 100 ms, in pieces", json!({"type": "object"})), |_, ctx| async move {
            for i in 0..4 {
                tokio::time::sleep(Duration::from_millis(25)).await;
                let _ = ctx.report_progress(i as f64, None, None);
            }
            Ok(CallToolResult::text("x".repeat(64 * 1024)))
        })
        .build()
        .unwrap()
}

/// Runs a test body on a runtime of its own after restoring SIGPIPE's default action
/// (the Rust test harness ignores it, which would hide the defect).
fn with_default_sigpipe<F: std::future::Future<Output = ()>>(f: impl FnOnce() -> F) {
    // SAFETY: sets a signal disposition; no handler code runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(f());
}

fn init_request(addr: SocketAddr, body: &str, session: Option<&str>) -> String {
    let session = session.map(|s| format!("mcp-session-id: {s}\r\nmcp-protocol-version: 2025-11-25\r\n")).unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}content-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Initializes a session over a raw connection (then closed); its id.
async fn raw_session(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    s.write_all(init_request(addr, &init.to_string(), None).as_bytes()).await.unwrap();
    let mut head = vec![0u8; 4096];
    let n = s.read(&mut head).await.unwrap();
    let head = String::from_utf8_lossy(&head[..n]).to_string();
    head.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).expect("a session id").trim().to_string()
}

/// Reads until the server closes the connection; what it sent, or an error on a reset.
async fn read_to_close(s: &mut TcpStream, within: Duration) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let outcome = timeout(within, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the server kept the connection open: {}", String::from_utf8_lossy(&all));
    all
}

#[test]
fn half_sent_idle_and_surplus_connections_are_closed() {
    with_default_sigpipe(|| async {
        let config = HttpServerConfig {
            max_connections: 4,
            header_read_timeout: Duration::from_millis(400),
            body_read_timeout: Duration::from_millis(400),
            ..Default::default()
        };
        let http = HttpServer::bind(server(), config).await.unwrap();
        let addr = http.local_addr();
        // Four connections that send half a request head take every slot...
        let mut held = Vec::new();
        for _ in 0..4 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n").await.unwrap();
            held.push(s);
            tokio::time::sleep(Duration::from_millis(10)).await; // opened in this order
        }
        // ...yet a newcomer is served: the oldest of them gives way (closed at once).
        let client = Client::builder("c", "1").connect(HttpClientTransport::new(http.url())).await.unwrap();
        assert!(client.call_tool("echo", json!({"a": 1})).await.is_ok());
        assert!(read_to_close(&mut held[0], Duration::from_millis(300)).await.is_empty());
        client.close().await;
        // The half-sent requests left end at the header-read timeout.
        for s in &mut held {
            read_to_close(s, Duration::from_secs(5)).await;
        }
        // Four connections each waiting for a call's answer are busy: none gives way, and
        // a fifth connection is closed at once rather than left waiting.
        let sid = raw_session(addr).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut busy = Vec::new();
        for i in 0..4 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            let call =
                json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "hang", "arguments": {}}});
            s.write_all(init_request(addr, &call.to_string(), Some(&sid)).as_bytes()).await.unwrap();
            busy.push(s);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut surplus = TcpStream::connect(addr).await.unwrap();
        let got = read_to_close(&mut surplus, Duration::from_millis(300)).await;
        assert!(got.is_empty());
        drop(busy);
        tokio::time::sleep(Duration::from_millis(100)).await;

        // A body that stops half-way gets 408, and the connection ends.
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = init_request(addr, &"x".repeat(100), None);
        s.write_all(&req.as_bytes()[..req.len() - 50]).await.unwrap();
        let answer = String::from_utf8_lossy(&read_to_close(&mut s, Duration::from_secs(5)).await).to_string();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

        // A keep-alive connection left idle after its answer is closed too.
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(format!("DELETE /mcp HTTP/1.1\r\nhost: {addr}\r\n\r\n").as_bytes()).await.unwrap();
        let answer = String::from_utf8_lossy(&read_to_close(&mut s, Duration::from_secs(5)).await).to_string();
        assert!(answer.starts_with("HTTP/1.1 400"), "one answer, then the idle connection ends: {answer}");
        http.shutdown().await;
    });
}

#[test]
fn clients_that_close_before_the_answer_do_not_kill_the_server() {
    with_default_sigpipe(|| async {
        let http = HttpServer::bind(server(), HttpServerConfig::default()).await.unwrap();
        let addr = http.local_addr();
        // A session to send calls on.
        let sid = raw_session(addr).await;
        // Calls whose callers close the connection without reading the answer, one after
        // another (a few dozen did it to the everything server), then some with a reset.
        for i in 0..200 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            let tool = if i % 2 == 0 { "echo" } else { "late" };
            let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": tool, "arguments": {"pad": "x".repeat(1000)}}});
            s.write_all(init_request(addr, &call.to_string(), Some(&sid)).as_bytes()).await.unwrap();
            if i >= 150 {
                s.set_zero_linger().unwrap();
            }
            drop(s);
        }
        tokio::time::sleep(Duration::from_millis(300)).await; // every answer was written by now
                                                              // Still here, still serving.
        let client = Client::builder("c", "1").connect(HttpClientTransport::new(http.url())).await.unwrap();
        assert!(client.call_tool("echo", json!({"still": "alive"})).await.is_ok());
        client.close().await;
        http.shutdown().await;
    });
}

#[test]
fn a_client_that_reads_none_of_its_response_stream_is_cut_off_not_queued_for() {
    with_default_sigpipe(|| async {
        // A tool that writes 64 KB log messages until it is cancelled (at most 1,000 of
        // them, 64 MB, far past what socket buffers hold).
        let (cancelled_tx, cancelled_rx) = tokio::sync::oneshot::channel::<usize>();
        let cancelled_tx = std::sync::Mutex::new(Some(cancelled_tx));
        let server = Server::builder("flood", "1")
            .tool(Tool::new("flood", "logs until cancelled", json!({"type": "object"})), move |_, ctx| {
                let tell = cancelled_tx.lock().unwrap().take();
                async move {
                    let chunk = serde_json::Value::String("x".repeat(64 * 1024));
                    for sent in 0..1000 {
                        if ctx.is_cancelled() {
                            let _ = tell.map(|t| t.send(sent));
                            return Ok(CallToolResult::text("cancelled"));
                        }
                        let _ = ctx.log(oxmcp::protocol::LoggingLevel::Info, chunk.clone());
                        tokio::task::yield_now().await;
                    }
                    Ok(CallToolResult::text("wrote everything"))
                }
            })
            .build()
            .unwrap();
        let config = HttpServerConfig { event_store: None, max_queued_stream_bytes: 1 << 20, ..Default::default() };
        let http = HttpServer::bind(server, config).await.unwrap();
        let addr = http.local_addr();
        let sid = raw_session(addr).await;
        // The call, on a connection never read from again.
        let mut silent = TcpStream::connect(addr).await.unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood", "arguments": {}}});
        silent.write_all(init_request(addr, &call.to_string(), Some(&sid)).as_bytes()).await.unwrap();
        // The stream is cut once the session's streams hold 1 MB past what the socket
        // took, and the handler, whose answer nobody can receive, is cancelled.
        let sent = timeout(Duration::from_secs(30), cancelled_rx).await.expect("cancelled in time").unwrap();
        assert!(sent < 1000, "cancelled after {sent} messages");
        // The session still serves its other streams.
        let mut other = TcpStream::connect(addr).await.unwrap();
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
        other.write_all(init_request(addr, &ping.to_string(), Some(&sid)).as_bytes()).await.unwrap();
        let mut answer = vec![0u8; 4096];
        let n = timeout(Duration::from_secs(5), other.read(&mut answer)).await.unwrap().unwrap();
        assert!(String::from_utf8_lossy(&answer[..n]).contains("200 OK"));
        drop(silent);
        http.shutdown().await;
    });
}
