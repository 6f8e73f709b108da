//! The host layer's by-name context door and the protocol rules every host is held to,
//! through a staged server and an in-memory client (no binding in between).

use std::sync::Arc;

use oxmcp::host::{client, context, failure, CallId, ClientHooks, ConnectOptions, HandlerKind, HostCalls, StagedServer};
use oxmcp::ErrorKind;

async fn connect(server: &StagedServer) -> oxmcp::client::Client {
    client::connect_in_memory(server, ConnectOptions::default(), ClientHooks::default()).await.unwrap()
}

/// Registers tool `name`, whose handler runs `body` (the call table and the call's id) on a
/// task and answers its text.
fn text_tool<F, Fut>(server: &StagedServer, name: &str, body: F)
where
    F: Fn(Arc<HostCalls>, CallId) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = String> + Send + 'static,
{
    let calls = server.calls().clone();
    let body = Arc::new(body);
    let tool = serde_json::json!({"name": name, "inputSchema": {"type": "object"}}).to_string();
    let f = Arc::new(move |id, _| {
        let (calls, body) = (calls.clone(), body.clone());
        tokio::spawn(async move {
            let text = body(calls.clone(), id).await;
            calls.complete(id, Ok(serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string()));
        });
        true
    });
    server.register(HandlerKind::Tool, &tool, f).unwrap();
}

/// Calls tool `name` and gives its first text block.
async fn call_text(c: &oxmcp::client::Client, name: &str) -> String {
    let result = client::call(c, "tools/call", Some(name), Some("{}"), Default::default()).await.unwrap().unwrap();
    let result: serde_json::Value = serde_json::from_str(&result).unwrap();
    result["content"][0]["text"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_handler_reaches_its_request_by_name_through_the_context_door() {
    let server = StagedServer::new("doors", "1");
    let calls = server.calls().clone();
    let resource = r#"{"uri": "mem://a", "name": "a"}"#;
    server
        .register(
            HandlerKind::Resource,
            resource,
            Arc::new(move |id, _| calls.complete(id, Ok(r#"{"contents": [{"uri": "mem://a", "text": "alpha"}]}"#.into()))),
        )
        .unwrap();
    text_tool(&server, "facts", |calls, id| async move {
        let info = context::call_now(&calls, id, context::op::INFO, "").unwrap().unwrap();
        let cancelled = context::call_now(&calls, id, context::op::CANCELLED, "").unwrap().unwrap();
        let bad = context::call_now(&calls, id, context::op::LOG, r#"{"level": "loud"}"#).unwrap_err();
        let later = context::call_now(&calls, id, context::op::READ_RESOURCE, "").unwrap_err();
        let unknown = context::call(&calls, id, "teleport", "").await.unwrap_err();
        let read = context::call(&calls, id, context::op::READ_RESOURCE, r#"{"uri": "mem://a"}"#).await.unwrap().unwrap();
        let stays = context::call(&calls, id, context::op::ESCALATE, "").await;
        serde_json::json!({
            "info": serde_json::from_str::<serde_json::Value>(&info).unwrap(),
            "cancelled": cancelled,
            "bad": bad.message(),
            "later": later.message(),
            "unknown": unknown.message(),
            "read": serde_json::from_str::<serde_json::Value>(&read).unwrap(),
            "escalate": stays.map_err(|e| e.message().to_string()),
        })
        .to_string()
    });
    let c = connect(&server).await;
    let out: serde_json::Value = serde_json::from_str(&call_text(&c, "facts").await).unwrap();
    assert_eq!(out["info"]["clientInfo"]["name"], "oxmcp", "{out}");
    assert_eq!(out["cancelled"], "false");
    assert!(out["bad"].as_str().unwrap().contains("unknown log level"), "{out}");
    assert!(out["later"].as_str().unwrap().contains("asynchronous door"), "{out}");
    assert!(out["unknown"].as_str().unwrap().contains("unknown context call"), "{out}");
    assert_eq!(out["read"]["contents"][0]["text"], "alpha");
    // Not an escalating tool: the call stays inline, and the door says so.
    assert_eq!(out["escalate"], serde_json::json!({"Ok": "false"}), "{out}");
    c.close().await;
}

#[tokio::test]
async fn a_call_that_is_over_drops_progress_and_refuses_questions() {
    let calls = HostCalls::new(Default::default());
    assert_eq!(context::call_now(&calls, 1, context::op::CANCELLED, "").unwrap().as_deref(), Some("true"));
    assert!(context::call_now(&calls, 1, context::op::LOG, r#"{"level": "info", "data": 1}"#).unwrap().is_none());
    assert!(context::call_now(&calls, 1, context::op::END_RESPONSE_STREAM, "").unwrap().is_none());
    let e = context::call(
        &calls,
        1,
        context::op::ELICITATION,
        r#"{"message": "?", "requestedSchema": {"type": "object", "properties": {}}}"#,
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Closed);
    // Bad params are refused before the request is even looked up.
    let e = context::call(&calls, 1, context::op::PROGRESS, "{not json").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

#[test]
fn an_escalating_tool_must_let_clients_run_it_as_a_task() {
    let server = StagedServer::new("rules", "1");
    let f: oxmcp::host::HostFn = Arc::new(|_, _| true);
    for support in [None, Some("forbidden")] {
        let mut tool = serde_json::json!({"name": "slow", "inputSchema": {"type": "object"}, "escalating": true});
        if let Some(s) = support {
            tool["execution"] = serde_json::json!({"taskSupport": s});
        }
        let e = server.register(HandlerKind::Tool, &tool.to_string(), f.clone()).unwrap_err();
        assert!(e.message().contains("escalating tool needs execution.taskSupport"), "{e}");
    }
    for support in ["optional", "required"] {
        let tool = serde_json::json!({"name": "slow", "inputSchema": {"type": "object"}, "escalating": true,
            "execution": {"taskSupport": support}});
        server.register(HandlerKind::Tool, &tool.to_string(), f.clone()).unwrap();
    }
}

#[test]
fn a_hosts_failure_reads_one_way_whatever_the_host() {
    let e = failure::from_parts(Some(-32042), "custom", Some(r#"{"why": 1}"#));
    assert_eq!((e.kind(), e.rpc().unwrap().data.clone()), (ErrorKind::Rpc, Some(serde_json::json!({"why": 1}))));
    let e = failure::from_parts(Some(-32042), "custom", Some("plain words"));
    assert_eq!(e.rpc().unwrap().data, Some(serde_json::json!("plain words")));
    for none in [None, Some(""), Some("null")] {
        assert_eq!(failure::from_parts(Some(-1), "m", none).rpc().unwrap().data, None);
    }
    let e = failure::from_parts(None, "boom", Some("ignored"));
    assert_eq!((e.kind(), e.message()), (ErrorKind::Handler, "boom"));
    let e = failure::from_json(r#"{"code": -32602, "message": "bad", "data": "x"}"#);
    assert_eq!((e.rpc().unwrap().code, e.rpc().unwrap().data.clone()), (-32602, Some(serde_json::json!("x"))));
    assert_eq!(failure::from_json(r#"{"message": "m"}"#).kind(), ErrorKind::Handler);
}

#[test]
fn an_error_keeps_its_cause() {
    use std::error::Error as _;
    let e: oxmcp::Error = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe gone").into();
    assert_eq!(e.source().map(|s| s.to_string()).as_deref(), Some("pipe gone"));
    let e: oxmcp::Error = serde_json::from_str::<u8>("x").unwrap_err().into();
    assert!(e.source().is_some());
    assert!(oxmcp::Error::new(ErrorKind::Handler, "m").source().is_none());
}

#[tokio::test]
async fn a_host_sees_why_a_connection_failed() {
    // A port nothing listens on: the HTTP client's own message names only the URL; the
    // reason is the OS's, three causes down.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // Each era's first request fails on its own path (discovery, initialize).
    for era in ["auto", "session", "stateless"] {
        let url = Some(format!("http://127.0.0.1:{port}/mcp"));
        let options = ConnectOptions { url, era: Some(era.into()), ..Default::default() };
        let Err(e) = client::connect(options, ClientHooks::default()).await else { panic!("connected") };
        assert_eq!(e.kind(), ErrorKind::Transport, "{era}: {e}");
        assert!(!e.message().contains("os error"), "{era}: the cause is in the message already: {e}");
        assert!(e.detail().contains("os error"), "{era}: {}", e.detail());
    }
    // A missing command: the message says it, nothing is repeated.
    let options = ConnectOptions { command: Some("oxmcp-no-such-command".into()), ..Default::default() };
    let Err(e) = client::connect(options, ClientHooks::default()).await else { panic!("connected") };
    assert_eq!(e.kind(), ErrorKind::Transport, "{e}");
    assert!(e.detail().contains("oxmcp-no-such-command") && e.detail().contains("os error"), "{}", e.detail());
    assert_eq!(e.detail().matches("os error").count(), 1, "{}", e.detail());
}

#[tokio::test]
async fn set_level_and_ping_by_name_honour_the_calls_options() {
    let server = StagedServer::new("levels", "1");
    // The session era: there both are requests (the stateless era keeps the level itself).
    let options = ConnectOptions { era: Some("session".into()), ..Default::default() };
    let c = client::connect_in_memory(&server, options, ClientHooks::default()).await.unwrap();
    for (op, a) in [("logging/setLevel", Some("info")), ("ping", None)] {
        // The call's own options reach its request: their on_sent hears of it.
        let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = sent.clone();
        let options = oxmcp::session::RequestOptions {
            on_sent: Some(Arc::new(move |_| {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })),
            ..Default::default()
        };
        client::call(&c, op, a, None, options).await.unwrap();
        assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 1, "{op}");
    }
    c.close().await;
}

#[test]
fn a_refused_definition_names_its_field() {
    let server = StagedServer::new("fields", "1");
    let tool = r#"{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "sometimes"}}"#;
    let e = server.register(HandlerKind::Tool, tool, Arc::new(|_, _| true)).unwrap_err();
    assert!(e.message().contains("execution.taskSupport"), "{e}");
}

#[tokio::test]
async fn an_elicitation_form_no_client_could_render_is_refused_before_it_is_sent() {
    let server = StagedServer::new("forms", "1");
    text_tool(&server, "ask", |calls, id| async move {
        // What a host's type reflection gives for an optional enum field.
        let form = r##"{"message": "?", "requestedSchema": {"type": "object",
            "$defs": {"Color": {"enum": ["red"], "type": "string"}},
            "properties": {"color": {"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}]}}}}"##;
        let e = context::call(&calls, id, context::op::ELICITATION, form).await.unwrap_err();
        format!("{:?}: {}", e.kind(), e.message())
    });
    let c = connect(&server).await;
    let text = call_text(&c, "ask").await;
    assert!(text.starts_with("InvalidInput: this elicitation form cannot be asked: requestedSchema.properties.color"), "{text}");
    assert!(text.contains("\"anyOf\" is not allowed"), "{text}");
    c.close().await;
}
