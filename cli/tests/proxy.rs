//! `oxmcp proxy` end to end, with real processes: a stdio server exposed over Streamable
//! HTTP (one child per session, stopped with the session), and an HTTP server reached
//! from a stdio client.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp::client::{Client, Era, ServerNotification};
use oxmcp::protocol::{CreateMessageResult, Role, SamplingContentBlock};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;
use serde_json::json;
use tokio_util::sync::CancellationToken;

mod common;

use common::{Listening, OXMCP};

async fn eventually(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_stdio_server_over_http_gets_one_child_per_session() {
    let proxy = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"]);
    assert!(proxy.children().is_empty(), "no session, no child");

    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    // Sessions: the stateless era has none to give a child to.
    let a = Client::builder("a", "1")
        .era(Era::Session)
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .connect(HttpClientTransport::new(&proxy.url))
        .await
        .unwrap();
    let b = Client::builder("b", "1").era(Era::Session).connect(HttpClientTransport::new(&proxy.url)).await.unwrap();
    assert_eq!(proxy.children().len(), 2, "one child process per session");

    assert_eq!(
        a.call_tool("echo", json!({"text": "through the proxy"})).await.unwrap().content[0].as_text(),
        Some("through the proxy")
    );
    assert_eq!(a.server_info().name, "oxmcp-everything");
    let progress = Arc::new(Mutex::new(Vec::new()));
    let p = progress.clone();
    a.call_tool_with(
        "test_tool_with_progress",
        json!({}),
        RequestOptions::default().on_progress(move |x| p.lock().unwrap().push(x.progress)),
    )
    .await
    .unwrap();
    assert_eq!(*progress.lock().unwrap(), vec![0.0, 50.0, 100.0]);

    // A cancel travels client -> proxy -> child and reaches the handler.
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        t.cancel();
    });
    let started = Instant::now();
    let e = a
        .call_tool_with("slow", json!({"tag": 77, "ms": 20000}), RequestOptions::default().cancel_token(token))
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(e.kind(), oxmcp::ErrorKind::Cancelled);
    let seen = notes.clone();
    eventually("the handler's cancel log", || {
        seen.lock()
            .unwrap()
            .iter()
            .any(|n| matches!(n, ServerNotification::LoggingMessage(m) if m.data == json!("slow tag=77 cancelled")))
    })
    .await;

    a.close().await;
    eventually("the first session's child exited", || proxy.children().len() == 1).await;
    b.close().await;
    eventually("every child exited", || proxy.children().is_empty()).await;
}

#[tokio::test]
async fn a_stdio_client_reaches_an_http_server() {
    let server = Listening::start(&["everything-server", "--http", "127.0.0.1:0"]);
    let transport = ChildProcess::new(OXMCP).args(["proxy", "--stdio", "--", &server.url]).spawn().unwrap();
    let client = Client::builder("stdio-host", "1")
        .on_sampling(|_, _| async { Ok(CreateMessageResult::new(Role::Assistant, SamplingContentBlock::text("relayed"), "m")) })
        .connect(transport)
        .await
        .unwrap();
    assert_eq!(client.server_info().name, "oxmcp-everything");
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "test_sampling"));
    // A server-to-client request crosses both hops and comes back.
    let r = client.call_tool("test_sampling", json!({"prompt": "hello"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("LLM response: relayed"));
    let r = client.read_resource("test://template/9/data").await.unwrap();
    assert!(serde_json::to_string(&r).unwrap().contains("Data for ID: 9"));
    client.close().await;
}

/// A client that settles on the stateless era opens a `subscriptions/listen` stream: the
/// proxy relays it, and the stream's acknowledgement and notifications come back on it
/// (they quote the relayed request's id, which the proxy turns back into the client's).
#[tokio::test]
async fn a_stateless_client_listens_through_the_proxy() {
    let server = Listening::start(&["everything-server", "--http", "127.0.0.1:0"]);
    let proxy = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", &server.url]);
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let client = Client::builder("listener", "1")
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .connect(HttpClientTransport::new(&proxy.url))
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Stateless);
    client.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
    eventually("the tool list change arrived on the listen stream", || {
        notes.lock().unwrap().iter().any(|n| matches!(n, ServerNotification::ToolListChanged))
    })
    .await;
    client.close().await;

    // A stdio server behind the proxy: connecting waits for the listen stream's
    // acknowledgement, which used to be lost (the connect then took the 30 s ack timeout).
    let proxy = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"]);
    let connecting = Client::builder("listener", "1").on_notification(|_| {}).connect(HttpClientTransport::new(&proxy.url));
    let client =
        tokio::time::timeout(Duration::from_secs(20), connecting).await.expect("connected before the ack timeout").unwrap();
    assert_eq!(client.call_tool("echo", json!({"text": "hi"})).await.unwrap().content[0].as_text(), Some("hi"));
    client.close().await;
}

/// The symptom as a user met it: `oxmcp call` (which listens for the server's logs) through
/// `oxmcp proxy --http -- COMMAND` settles on the stateless era and answers, instead of
/// hanging until the listen stream's acknowledgement timed out.
#[tokio::test]
async fn oxmcp_call_through_the_proxy_answers_in_the_stateless_era() {
    let proxy = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"]);
    let run = |args: &[&str]| {
        let call = tokio::process::Command::new(OXMCP).args(args).arg(&proxy.url).kill_on_drop(true).output();
        async move { tokio::time::timeout(Duration::from_secs(20), call).await.expect("answered before the ack timeout").unwrap() }
    };
    let out = run(&["inspect", "--json"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["protocolVersion"], "2026-07-28", "the CLI settles on the stateless era through the proxy");
    let out = run(&["call", "echo", "text=hi"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
}

/// A stateless-era request's log messages come back with it through the proxy, whether the
/// server behind is a command or a URL: each such request is a relay of its own, and a log
/// message names no request, so it goes with the relay's only request in flight (it was
/// sent as an unrelated message, which a stateless-era response has no stream for).
#[tokio::test]
async fn a_stateless_clients_logs_come_back_through_the_proxy() {
    let server = Listening::start(&["everything-server", "--http", "127.0.0.1:0"]);
    for target in [vec![OXMCP, "everything-server", "--stdio"], vec![server.url.as_str()]] {
        let proxy = Listening::start(&[&["proxy", "--http", "127.0.0.1:0", "--"][..], &target[..]].concat());
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        let client = Client::builder("listener", "1")
            .on_notification(move |n| {
                if let ServerNotification::LoggingMessage(m) = n {
                    sink.lock().unwrap().push(m.data.to_string());
                }
            })
            .connect(HttpClientTransport::new(&proxy.url))
            .await
            .unwrap();
        assert_eq!(client.era(), Era::Stateless);
        client.call_tool("test_tool_with_logging", json!({})).await.unwrap();
        eventually("the call's log messages", || logs.lock().unwrap().len() >= 3).await;
        client.close().await;
    }
}

/// Stateless-era requests have no session to give a child to: they share one child,
/// started with the first request and kept, instead of a child per request (which lost the
/// server's state between calls and cost a process start each).
#[tokio::test]
async fn stateless_requests_through_the_proxy_share_one_child() {
    let proxy = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"]);
    let mut seen = std::collections::BTreeSet::new();
    let a = Client::builder("a", "1").era(Era::Stateless).connect(HttpClientTransport::new(&proxy.url)).await.unwrap();
    let b = Client::builder("b", "1").era(Era::Stateless).connect(HttpClientTransport::new(&proxy.url)).await.unwrap();
    for i in 0..4 {
        let client = if i % 2 == 0 { &a } else { &b };
        let text = format!("call {i}");
        assert_eq!(client.call_tool("echo", json!({"text": text})).await.unwrap().content[0].as_text(), Some(text.as_str()));
        seen.extend(proxy.children());
    }
    // Progress still comes back with its request.
    let progress = Arc::new(Mutex::new(Vec::new()));
    let p = progress.clone();
    a.call_tool_with(
        "test_tool_with_progress",
        json!({}),
        RequestOptions::default().on_progress(move |x| p.lock().unwrap().push(x.progress)),
    )
    .await
    .unwrap();
    assert_eq!(*progress.lock().unwrap(), vec![0.0, 50.0, 100.0]);
    // A cancel still reaches the shared child's handler, and the call ends at once.
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        t.cancel();
    });
    let started = Instant::now();
    let e = b
        .call_tool_with("slow", json!({"tag": 1, "ms": 20000}), RequestOptions::default().cancel_token(token))
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(e.kind(), oxmcp::ErrorKind::Cancelled);
    seen.extend(proxy.children());
    assert_eq!(seen.len(), 1, "one child for every stateless request: {seen:?}");
    assert_eq!(proxy.children().len(), 1, "the child stays for the next request");
    a.close().await;
    b.close().await;
}
