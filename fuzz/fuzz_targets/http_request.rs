//! The HTTP request path: raw bytes sent to a running `HttpServer` (hyper's parser, the
//! Host/Origin, Accept and version checks, sessions, body parsing, the stateless era's
//! header checks). Nothing crashes the server, and a well-formed request still works after
//! every input.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::Server;
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Running {
    rt: tokio::runtime::Runtime,
    _http: HttpServer, // serves for the whole run
    addr: std::net::SocketAddr,
    session: String,
}

fn running() -> &'static Running {
    static RUNNING: OnceLock<Running> = OnceLock::new();
    RUNNING.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let (http, addr, session) = rt.block_on(async {
            let server = Server::builder("fuzz", "1")
                .tool(Tool::new("echo", "echo", serde_json::json!({"type": "object"})), |a, _| async move {
                    Ok(CallToolResult::text(serde_json::Value::Object(a).to_string()))
                })
                .build()
                .unwrap();
            let config = HttpServerConfig { header_read_timeout: Duration::from_millis(200), body_read_timeout: Duration::from_millis(200), ..Default::default() };
            let http = HttpServer::bind(server, config).await.unwrap();
            let addr = http.local_addr();
            let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}"#;
            let answer = exchange(addr, &post(addr, None, init), false).await;
            let session = answer.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).expect("a session").trim().to_string();
            (http, addr, session)
        });
        Running { rt, _http: http, addr, session }
    })
}

fn post(addr: std::net::SocketAddr, session: Option<&str>, body: &str) -> Vec<u8> {
    let session = session.map(|s| format!("mcp-session-id: {s}\r\nmcp-protocol-version: 2025-11-25\r\n")).unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Sends `request` and reads until the server closes. `half_close` ends the sending side
/// first (for raw inputs, which may be an unfinished request: the server then stops
/// waiting for the rest at once).
async fn exchange(addr: std::net::SocketAddr, request: &[u8], half_close: bool) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let _ = s.write_all(request).await;
    if half_close {
        let _ = s.shutdown().await;
    }
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

fuzz_target!(|data: &[u8]| {
    let r = running();
    // The input as a whole request, and as the body of a POST on the live session.
    let body = String::from_utf8_lossy(data);
    r.rt.block_on(async {
        exchange(r.addr, data, true).await;
        exchange(r.addr, &post(r.addr, Some(&r.session), &body), false).await;
        let ping = exchange(r.addr, &post(r.addr, Some(&r.session), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), false).await;
        assert!(ping.starts_with("HTTP/1.1 200"), "the server stopped answering: {ping}");
    });
});
