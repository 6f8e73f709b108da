//! The HTTP client against servers that misbehave on purpose: an endless stream of
//! notifications, an endless body, an SSE event that never ends. Each server here is a
//! bare axum app counting what it got to write: a client that keeps its bounds stops
//! reading, and the server's writing stalls with it.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use oxmcp::client::{Client, Era};
use oxmcp::transport::http::HttpClientTransport;
use serde_json::{json, Value};

/// What `tools/call` gets from the misbehaving server.
#[derive(Clone, Copy)]
enum Flood {
    /// An SSE stream of 1 KB log notifications that never ends.
    Notifications,
    /// A 200 `application/json` body that never ends.
    Json,
    /// An SSE event whose data never ends.
    EndlessEvent,
}

/// Serves `initialize` and notifications like a server would, and `tools/call` with
/// `flood`; the count of bytes it wrote for the flood.
async fn misbehaving(flood: Flood) -> (String, Arc<AtomicUsize>) {
    let written = Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |_h: HeaderMap, body: Bytes| {
            let written = counter.clone();
            async move {
                let m: Value = serde_json::from_slice(&body).unwrap_or_default();
                let Some(id) = m.get("id").cloned() else { return StatusCode::ACCEPTED.into_response() };
                if m["method"] == "initialize" {
                    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}}, "serverInfo": {"name": "flood", "version": "1"}}});
                    let mut r = answer.to_string().into_response();
                    r.headers_mut().insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
                    r.headers_mut().insert("mcp-session-id", "s1".parse().unwrap());
                    return r;
                }
                endless(flood, written)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, written)
}

fn endless(flood: Flood, written: Arc<AtomicUsize>) -> Response {
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "x".repeat(1000)}});
    let (chunk, content_type, head) = match flood {
        Flood::Notifications => (Bytes::from(format!("data: {note}\n\n")), "text/event-stream", Bytes::new()),
        Flood::Json => (Bytes::from(vec![b' '; 64 * 1024]), "application/json", Bytes::from_static(b"{\"jsonrpc\":")),
        Flood::EndlessEvent => (Bytes::from(vec![b'x'; 64 * 1024]), "text/event-stream", Bytes::from_static(b"data: ")),
    };
    let first = futures::stream::once(async move { Ok::<_, std::convert::Infallible>(head) });
    let rest = futures::stream::repeat_with(move || {
        written.fetch_add(chunk.len(), Ordering::SeqCst);
        Ok(chunk.clone())
    });
    let mut r = Response::new(Body::from_stream(futures::StreamExt::chain(first, rest)));
    r.headers_mut().insert(header::CONTENT_TYPE, content_type.parse().unwrap());
    r
}

const MB: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_notification_stream_is_held_back_by_a_client_that_cannot_keep_up() {
    let (url, written) = misbehaving(Flood::Notifications).await;
    // A notification callback held shut: nothing the session hands it is taken.
    let open = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let callback_open = open.clone();
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .on_notification(move |_| {
            while !callback_open.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
        })
        .connect(HttpClientTransport::new(url))
        .await
        .unwrap();
    let call = tokio::spawn(async move {
        let _ = client.call_tool("flood", json!({})).await;
    });
    // The session's notification budget (4 MiB), the transport's (4 MiB) and the sockets'
    // buffers fill, then the server's writes stall: nothing more is read. Unbounded, the
    // client read on as fast as the server wrote (80 MB in 3 s here, and growing).
    tokio::time::sleep(Duration::from_secs(2)).await;
    let then = written.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let now = written.load(Ordering::SeqCst);
    assert!(now - then < MB, "the server wrote {} MB more while the client took nothing", (now - then) / MB);
    assert!(now < 48 * MB, "the server wrote {} MB", now / MB);
    open.store(true, Ordering::SeqCst);
    call.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_body_or_event_fails_its_request_without_being_gathered() {
    for flood in [Flood::Json, Flood::EndlessEvent] {
        let (url, written) = misbehaving(flood).await;
        let client = Client::builder("c", "1").era(Era::Session).connect(HttpClientTransport::new(url)).await.unwrap();
        let outcome = tokio::time::timeout(Duration::from_secs(30), client.call_tool("flood", json!({}))).await;
        let err = outcome.expect("refused, not read for ever").unwrap_err();
        assert!(err.message().contains("bytes"), "{err}");
        // Read up to the 16 MiB bound (and what was in flight), not beyond.
        assert!(written.load(Ordering::SeqCst) < 40 * MB, "the server wrote {} MB", written.load(Ordering::SeqCst) / MB);
        client.close().await;
    }
}
