//! Server and client roles end to end over the in-memory transport: negotiation, tools,
//! validation, progress, timeouts, cancellation both ways, logging, server-to-client
//! requests, list changes, subscriptions, pagination and error mapping.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp::client::{Client, Era, ServerNotification};
use oxmcp::protocol::*;
use oxmcp::server::{Arguments, RequestContext, ResourceRequest, Server, ServerBuilder, ServerConfig, ServerSession};
use oxmcp::session::{RequestOptions, SessionConfig, SessionStats};
use oxmcp::transport::MemoryTransport;
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

fn int_args(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> = names.iter().map(|n| (n.to_string(), json!({"type": "integer"}))).collect();
    json!({"type": "object", "properties": props, "required": names})
}

/// Observations a test makes of the server side.
#[derive(Default)]
struct Seen {
    cancelled: AtomicUsize,
    cancel_signal: Notify,
}

fn base(seen: Arc<Seen>) -> ServerBuilder {
    let s2 = seen.clone();
    Server::builder("test-server", "0.0.1")
        .tool(Tool::new("add", "add", int_args(&["a", "b"])), |a: Arguments, _| async move {
            Ok(CallToolResult::text((a["a"].as_i64().unwrap() + a["b"].as_i64().unwrap()).to_string()))
        })
        .tool(Tool::new("wait", "waits until cancelled", json!({"type": "object"})), move |_, ctx: RequestContext| {
            let seen = s2.clone();
            async move {
                ctx.cancelled().await;
                seen.cancelled.fetch_add(1, Ordering::SeqCst);
                seen.cancel_signal.notify_one();
                Ok(CallToolResult::text("unreachable: a cancelled request gets no response"))
            }
        })
        .tool(
            Tool::new("ticker", "progress every `every` ms, `n` times", int_args(&["every", "n"])),
            |a: Arguments, ctx: RequestContext| async move {
                let n = a["n"].as_u64().unwrap();
                for i in 0..n {
                    tokio::time::sleep(Duration::from_millis(a["every"].as_u64().unwrap())).await;
                    ctx.report_progress((i + 1) as f64, Some(n as f64), None)?;
                }
                Ok(CallToolResult::text("ticked"))
            },
        )
        .tool(Tool::new("boom", "panics", json!({"type": "object"})), |_, _| async { panic!("kaboom") })
        .tool(Tool::new("fail", "fails", json!({"type": "object"})), |_, _| async {
            Err::<CallToolResult, _>(Error::new(ErrorKind::InvalidInput, "disk is full"))
        })
        .tool(Tool::new("rpc_fail", "fails with a JSON-RPC error", json!({"type": "object"})), |_, _| async {
            Err::<CallToolResult, _>(Error::rpc_error(-32001, "custom failure"))
        })
        .tool(
            Tool::new("structured", "structured output", json!({"type": "object", "properties": {"good": {"type": "boolean"}}}))
                .with_output_schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})),
            |a: Arguments, _| async move {
                let n = if a.get("good") == Some(&json!(false)) { json!("x") } else { json!(7) };
                Ok(CallToolResult::text("s").with_structured_content(json!({ "n": n })))
            },
        )
        .tool(
            Tool::new("ask", "uses sampling, elicitation and roots", json!({"type": "object"})),
            |_, ctx: RequestContext| async move {
                let sample =
                    ctx.create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 10)).await?;
                let answer = ctx
                    .elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new(
                        "name?",
                        json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                    )))
                    .await?;
                let roots = ctx.list_roots().await?;
                let text = format!(
                    "{}|{}|{}",
                    sample.content.blocks()[0].as_text().unwrap(),
                    answer.content.unwrap()["name"],
                    roots.roots[0].uri
                );
                Ok(CallToolResult::text(text))
            },
        )
        .tool(Tool::new("ask_sampling", "sampling only", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            match ctx.create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 10)).await {
                Err(e) => Ok(CallToolResult::text(format!("{:?}: {}", e.kind(), e.message()))),
                Ok(_) => Ok(CallToolResult::text("sampled")),
            }
        })
        .tool(Tool::new("chatty", "logs at each level", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Warning, LoggingLevel::Error] {
                ctx.log(level, json!(level.as_str()))?;
            }
            Ok(CallToolResult::text("logged"))
        })
        .resource(Resource::new("mem://a", "a"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "A")]))
        })
        .resource_template(
            ResourceTemplate::new("mem://users/{user}/files/{+path}", "files"),
            |r: ResourceRequest, _| async move {
                let text = format!("{}:{}", r.variables["user"], r.variables["path"]);
                Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, text)]))
            },
        )
        .prompt(
            Prompt::new("greet").with_argument(PromptArgument::new("name").required(true)),
            |a: oxmcp::server::PromptArguments, _| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::text(Role::User, format!("hello {}", a["name"]))]))
            },
        )
}

struct Pair {
    server: Server,
    session: ServerSession,
    client: Client,
    seen: Arc<Seen>,
    notes: Arc<Mutex<Vec<ServerNotification>>>,
}

async fn pair_with(
    builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    client: impl FnOnce(oxmcp::client::ClientBuilder) -> oxmcp::client::ClientBuilder,
) -> Pair {
    let seen = Arc::new(Seen::default());
    let server = builder(base(seen.clone())).build().unwrap();
    let (a, b) = MemoryTransport::pair();
    let session = server.serve(a);
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let client =
        client(Client::builder("test-client", "0.0.1").era(Era::Session).on_notification(move |n| sink.lock().unwrap().push(n)))
            .connect(b)
            .await
            .unwrap();
    Pair { server, session, client, seen, notes }
}

async fn pair() -> Pair {
    pair_with(|b| b, |c| c).await
}

async fn eventually(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(5), "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until nothing is left in flight but, in the stateless era, the client's listen
/// stream (these clients have a notification callback): one request each way.
async fn assert_drained(p: &Pair) {
    let (c, s) = (p.client.peer().clone(), p.session.peer().clone());
    let listening = usize::from(p.client.era() == Era::Stateless);
    let client_idle = SessionStats { pending_requests: listening, in_flight_requests: 0 };
    let server_idle = SessionStats { pending_requests: 0, in_flight_requests: listening };
    eventually("both maps drained", || c.stats() == client_idle && s.stats() == server_idle).await;
}

#[tokio::test]
async fn negotiates_each_version_and_declares_capabilities() {
    for v in ProtocolVersion::ALL {
        let p = pair_with(|b| b, |c| c.protocol_version(v)).await;
        assert_eq!(p.client.protocol_version(), v);
        assert_eq!(p.session.peer().protocol_version(), Some(v));
        let caps = p.client.server_capabilities();
        assert!(caps.tools.is_some() && caps.resources.is_some() && caps.prompts.is_some() && caps.logging.is_some());
        assert!(caps.completions.is_none(), "no completion provider was registered");
        assert_eq!(p.client.server_info().name, "test-server");
        assert_eq!(p.session.client_info().unwrap().name, "test-client");
    }
}

#[tokio::test]
async fn tools_validate_arguments_and_map_errors() {
    let p = pair().await;
    let r = p.client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("5"));

    let bad = p.client.call_tool("add", json!({"a": "two"})).await.unwrap();
    assert!(bad.is_error());
    let msg = bad.content[0].as_text().unwrap();
    assert!(msg.contains("/a") && msg.contains("\"b\""), "names the bad and the missing field: {msg}");

    let unknown = p.client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!((unknown.kind(), unknown.code()), (ErrorKind::Rpc, Some(codes::INVALID_PARAMS)));

    let failed = p.client.call_tool("fail", json!({})).await.unwrap();
    assert!(failed.is_error() && failed.content[0].as_text() == Some("disk is full"));
    let rpc = p.client.call_tool("rpc_fail", json!({})).await.unwrap_err();
    assert_eq!(rpc.code(), Some(-32001));

    // A panicking handler is -32603 and the session keeps serving.
    let boom = p.client.call_tool("boom", json!({})).await.unwrap_err();
    assert_eq!(boom.code(), Some(codes::INTERNAL_ERROR));
    assert!(boom.message().contains("kaboom"));
    assert_eq!(p.client.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap().content[0].as_text(), Some("2"));

    let ok = p.client.call_tool("structured", json!({})).await.unwrap();
    assert_eq!(ok.structured_content, Some(json!({"n": 7})));
    let wrong = p.client.call_tool("structured", json!({"good": false})).await.unwrap_err();
    assert_eq!(wrong.code(), Some(codes::INTERNAL_ERROR));
    assert!(wrong.message().contains("outputSchema"), "{}", wrong.message());

    let not_object = p.client.call_tool("add", json!([1, 2])).await.unwrap_err();
    assert_eq!(not_object.kind(), ErrorKind::InvalidInput);
    assert_drained(&p).await;
}

#[tokio::test]
async fn progress_reaches_the_callback_and_resets_the_timeout() {
    let p = pair().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    // 6 ticks of 60 ms = 360 ms in all, longer than the 150 ms inactivity timeout.
    let options = RequestOptions::default()
        .timeout(Duration::from_millis(150))
        .on_progress(move |pr| sink.lock().unwrap().push((pr.progress, pr.total)));
    let r = p.client.call_tool_with("ticker", json!({"every": 60, "n": 6}), options).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("ticked"));
    assert_eq!(*seen.lock().unwrap(), (1..=6).map(|i| (i as f64, Some(6.0))).collect::<Vec<_>>());

    // Without the reset, the same call times out...
    let options = RequestOptions::default().timeout(Duration::from_millis(150)).reset_timeout_on_progress(false);
    let e = p.client.call_tool_with("ticker", json!({"every": 60, "n": 6}), options).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    // ...and with it, the hard maximum still applies.
    let options = RequestOptions::default().timeout(Duration::from_millis(150)).max_timeout(Duration::from_millis(200));
    let e = p.client.call_tool_with("ticker", json!({"every": 60, "n": 6}), options).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(e.message().contains("maximum"), "{}", e.message());
    assert_drained(&p).await;
}

#[tokio::test]
async fn local_cancel_and_dropped_future_reach_the_handler() {
    let p = pair().await;
    let token = CancellationToken::new();
    let call = p.client.call_tool_with("wait", json!({}), RequestOptions::default().cancel_token(token.clone()));
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    };
    let (r, _) = tokio::join!(call, canceller);
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Cancelled);
    tokio::time::timeout(Duration::from_secs(2), p.seen.cancel_signal.notified()).await.expect("handler saw the cancel");

    // Dropping the future cancels too.
    let dropped = tokio::time::timeout(Duration::from_millis(50), p.client.call_tool("wait", json!({}))).await;
    assert!(dropped.is_err());
    tokio::time::timeout(Duration::from_secs(2), p.seen.cancel_signal.notified()).await.expect("handler saw the drop");
    assert_eq!(p.seen.cancelled.load(Ordering::SeqCst), 2);

    // A timeout also tells the server.
    let e = p
        .client
        .call_tool_with("wait", json!({}), RequestOptions::default().timeout(Duration::from_millis(50)))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    tokio::time::timeout(Duration::from_secs(2), p.seen.cancel_signal.notified())
        .await
        .expect("handler saw the timeout's cancel");
    assert_drained(&p).await;
}

#[tokio::test]
async fn closing_fails_pending_requests_at_once_and_cancels_handlers() {
    let p = pair().await;
    let client_peer = p.client.peer().clone();
    let call =
        tokio::spawn(
            async move { client_peer.request("tools/call", Some(json!({"name": "wait"})), RequestOptions::default()).await },
        );
    eventually("request in flight", || p.session.peer().stats().in_flight_requests == 1).await;
    let started = Instant::now();
    p.session.peer().close("server going away");
    let e = call.await.unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Closed);
    assert!(started.elapsed() < Duration::from_secs(1));
    tokio::time::timeout(Duration::from_secs(2), p.seen.cancel_signal.notified()).await.expect("handler cancelled on close");
    let after = p.client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap_err();
    assert_eq!(after.kind(), ErrorKind::Closed);
    assert_drained(&p).await;
}

#[tokio::test]
async fn server_to_client_requests_and_capability_refusal() {
    // The same handler asks the same questions in both eras: requests to the client in a
    // session, input requests and a retry in the stateless era.
    for era in [Era::Session, Era::Stateless] {
        let p = pair_with(
            |b| b,
            |c| {
                c.on_sampling(|params: CreateMessageRequestParams, _| async move {
                    let asked = params.messages[0].content.blocks()[0].as_text().unwrap().to_string();
                    Ok(CreateMessageResult::new(
                        Role::Assistant,
                        SamplingContentBlock::text(format!("echo:{asked}")),
                        "test-model",
                    ))
                })
                .on_elicitation(|_, _| async {
                    let mut r = ElicitResult::new(ElicitAction::Accept);
                    r.content = Some(json!({"name": "Ada"}).as_object().unwrap().clone());
                    Ok(r)
                })
                .roots(vec![Root::new("file:///work")])
                .era(era)
            },
        )
        .await;
        assert_eq!(p.client.era(), era);
        let r = p.client.call_tool("ask", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("echo:hi|\"Ada\"|file:///work"), "{era:?}");
        assert_drained(&p).await;
    }

    // A client without the sampling capability: the handler's ask fails at once, nothing
    // sent, with CapabilityMissing in both eras (the stateless era's error also carries the
    // -32021 the request answers with if the handler lets it through).
    let q = pair().await;
    let r = q.client.call_tool("ask_sampling", json!({})).await.unwrap();
    assert!(r.content[0].as_text().unwrap().starts_with("CapabilityMissing: the client did not declare"), "{:?}", r.content);
    let q = pair_with(|b| b, |c| c.era(Era::Stateless)).await;
    let r = q.client.call_tool("ask_sampling", json!({})).await.unwrap();
    assert!(
        r.content[0].as_text().unwrap().starts_with("CapabilityMissing: this request needs the client's sampling capability"),
        "{:?}",
        r.content
    );
}

#[tokio::test]
async fn logging_respects_set_level() {
    let p = pair().await;
    p.client.call_tool("chatty", json!({})).await.unwrap();
    p.client.set_log_level(LoggingLevel::Warning).await.unwrap();
    p.client.call_tool("chatty", json!({})).await.unwrap();
    let notes = p.notes.clone();
    eventually("6 log messages", || notes.lock().unwrap().len() >= 6).await;
    let levels: Vec<String> = p
        .notes
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            ServerNotification::LoggingMessage(m) => Some(m.level.as_str().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(levels, ["debug", "info", "warning", "error", "warning", "error"]);
}

#[tokio::test]
async fn list_changes_subscriptions_and_resources() {
    // The same notifications in both eras: unasked in the session era, on the client's
    // subscriptions/listen stream in the stateless era (opened for its callback, reopened
    // by subscribe and unsubscribe).
    for era in [Era::Session, Era::Stateless] {
        let p = pair_with(|b| b, |c| c.era(era)).await;
        assert_eq!(p.client.era(), era);
        p.server
            .add_tool(Tool::new("late", "added later", json!({"type": "object"})), |_, _| async {
                Ok(CallToolResult::text("late"))
            })
            .unwrap();
        assert_eq!(p.client.call_tool("late", json!({})).await.unwrap().content[0].as_text(), Some("late"));
        assert!(p.server.remove_tool("late"));
        assert!(!p.server.remove_tool("late"));
        p.server.add_prompt(Prompt::new("p2"), |_, _| async { Ok(GetPromptResult::new(vec![])) });
        p.server.add_resource(Resource::new("mem://b", "b"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "B")]))
        });

        p.client.subscribe("mem://a").await.unwrap();
        p.server.notify_resource_updated("mem://a");
        p.server.notify_resource_updated("mem://not-subscribed");
        let notes = p.notes.clone();
        eventually("notifications", || notes.lock().unwrap().len() >= 5).await;
        p.client.unsubscribe("mem://a").await.unwrap();
        p.server.notify_resource_updated("mem://a");
        p.client.ping().await.unwrap(); // flush: anything sent before the pong has arrived
        let notes: Vec<String> = p
            .notes
            .lock()
            .unwrap()
            .iter()
            .map(|n| match n {
                // The stateless era tags it with its subscription: compare what changed.
                ServerNotification::ResourceUpdated(u) => format!("updated {}", u.uri),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            notes,
            ["ToolListChanged", "ToolListChanged", "PromptListChanged", "ResourceListChanged", "updated mem://a"],
            "{era:?}"
        );
        check_resources(&p, era).await;
    }
}

#[tokio::test]
async fn a_session_follows_only_so_many_resources() {
    // A session follows a bounded number: one more is refused, one it has is taken again,
    // and unsubscribing makes room.
    let p = pair().await;
    let most = oxmcp::server::MAX_RESOURCE_SUBSCRIPTIONS;
    for i in 0..most {
        p.client.subscribe(&format!("mem://users/u{i}/files/f")).await.unwrap();
    }
    let e = p.client.subscribe("mem://a").await.unwrap_err();
    assert_eq!(e.code(), Some(codes::INVALID_PARAMS), "{e}");
    assert!(e.message().contains(&most.to_string()), "{e}");
    p.client.subscribe("mem://users/u0/files/f").await.unwrap();
    p.client.unsubscribe("mem://users/u0/files/f").await.unwrap();
    p.client.subscribe("mem://a").await.unwrap();
    // What was taken still works.
    p.server.notify_resource_updated("mem://a");
    let notes = p.notes.clone();
    let updated =
        move || notes.lock().unwrap().iter().any(|n| matches!(n, ServerNotification::ResourceUpdated(u) if u.uri == "mem://a"));
    eventually("the update of a taken subscription", updated).await;
}

async fn check_resources(p: &Pair, era: Era) {
    let files = p.client.read_resource("mem://users/ada/files/docs/a.txt").await.unwrap();
    assert_eq!(serde_json::to_value(&files.contents[0]).unwrap()["text"], "ada:docs/a.txt");
    let missing = p.client.read_resource("mem://missing").await.unwrap_err();
    // 2026-07-28 reports a missing resource as invalid params.
    let not_found = if era == Era::Session { codes::RESOURCE_NOT_FOUND } else { codes::INVALID_PARAMS };
    assert_eq!(missing.code(), Some(not_found));

    let prompt = p.client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
    assert_eq!(prompt.messages[0].content.as_text(), Some("hello Ada"));
    let no_arg = p.client.get_prompt("greet", Vec::<(String, String)>::new()).await.unwrap_err();
    assert_eq!(no_arg.code(), Some(codes::INVALID_PARAMS));
}

#[tokio::test]
async fn pagination_walks_every_page() {
    let p = pair_with(|b| b.config(ServerConfig { page_size: 3, ..Default::default() }), |c| c).await;
    let first = p.client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 3);
    assert!(first.next_cursor.is_some());
    let all = p.client.list_all_tools().await.unwrap();
    let names: Vec<_> = all.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "wait", "ticker", "boom", "fail", "rpc_fail", "structured", "ask", "ask_sampling", "chatty"]);
    let bad = p.client.list_tools(Some("not-a-cursor")).await.unwrap_err();
    assert_eq!(bad.code(), Some(codes::INVALID_PARAMS));
}

#[tokio::test]
async fn requests_time_out_with_the_session_default() {
    let config = SessionConfig { request_timeout: Duration::from_millis(80), ..Default::default() };
    let p = pair_with(|b| b, |c| c.session_config(config)).await;
    let started = Instant::now();
    let e = p.client.call_tool("wait", json!({})).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2));
    tokio::time::timeout(Duration::from_secs(2), p.seen.cancel_signal.notified())
        .await
        .expect("the timeout cancelled the handler");
    assert_drained(&p).await;
}
