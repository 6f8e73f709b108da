//! Two HTTP server nodes sharing one store (in memory: the same code paths the Redis
//! backend drives, see tests/scaleout for Redis and a real load balancer). Each step
//! sends the client's requests to a node of its choosing, as a round-robin balancer
//! would, and checks that the two nodes behave as one server.

#![cfg(feature = "http")]

use std::sync::Arc;
use std::time::Duration;

use oxmcp::protocol::*;
use oxmcp::server::{RequestContext, Server, ServerConfig};
use oxmcp::store::{MemoryStore, SharedStore};
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use serde_json::{json, Value};
use tokio::sync::Notify;

fn server(cancelled: Arc<Notify>, config: ServerConfig) -> Server {
    Server::builder("shared-test", "1")
        .config(config)
        .tool(Tool::new("chatty", "logs at info, then answers", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.log(LoggingLevel::Info, json!("chatter"))?;
            Ok(CallToolResult::text("done"))
        })
        .tool(Tool::new("ask", "asks the client's model", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            let r = ctx.create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("2+2?")], 5)).await?;
            Ok(CallToolResult::text(format!("model said {}", r.content.blocks()[0].as_text().unwrap_or("?"))))
        })
        .tool(Tool::new("wait", "waits until cancelled", json!({"type": "object"})), move |_, ctx: RequestContext| {
            let cancelled = cancelled.clone();
            async move {
                ctx.cancelled().await;
                cancelled.notify_one();
                Ok(CallToolResult::text("cancelled"))
            }
        })
        .resource(Resource::new("test://watched", "watched"), |r: oxmcp::server::ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "now")]))
        })
        .tool(job_tool(), |_, _| async move {
            tokio::time::sleep(Duration::from_millis(800)).await;
            Ok(CallToolResult::text("job done"))
        })
        .tool(Tool::new("poll", "ends its stream mid-call", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            ctx.report_progress(1.0, Some(2.0), None)?;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.end_response_stream();
            tokio::time::sleep(Duration::from_millis(300)).await;
            ctx.report_progress(2.0, Some(2.0), None)?;
            Ok(CallToolResult::text("polled"))
        })
        .build()
        .unwrap()
}

/// A tool that runs as a task for clients that declared the tasks extension.
fn job_tool() -> Tool {
    let mut tool = Tool::new("job", "takes 800 ms", json!({"type": "object"}));
    tool.execution = Some(ToolExecution { task_support: Some(TaskSupport::Optional), ..Default::default() });
    tool
}

struct Nodes {
    urls: [String; 2],
    cancelled: Arc<Notify>,
    /// Each node's MCP server (what its own code would notify through).
    roles: Vec<Server>,
    _servers: Vec<HttpServer>,
}

/// Two nodes on one store; each node is a separate `Server` (as separate processes are).
async fn two_nodes() -> Nodes {
    let store: Arc<dyn SharedStore> = Arc::new(MemoryStore::default());
    let cancelled = Arc::new(Notify::new());
    let (mut servers, mut roles) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let config = HttpServerConfig { store: Some(store.clone()), ..Default::default() };
        let shared = ServerConfig::default().shared_through(&store).await.unwrap();
        let role = server(cancelled.clone(), shared);
        roles.push(role.clone());
        servers.push(HttpServer::bind(role, config).await.unwrap());
    }
    Nodes { urls: [servers[0].url(), servers[1].url()], cancelled, roles, _servers: servers }
}

fn post(url: &str, sid: Option<&str>, body: Value) -> reqwest::RequestBuilder {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(sid) = sid {
        r = r.header("mcp-session-id", sid);
    }
    r.body(body.to_string())
}

/// The JSON messages of an SSE body.
fn messages(sse: &str) -> Vec<Value> {
    sse.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

async fn call(url: &str, sid: &str, id: u64, method: &str, params: Value) -> Vec<Value> {
    let r = post(url, Some(sid), json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).send().await.unwrap();
    assert_eq!(r.status(), 200, "{method} on {url}");
    messages(&r.text().await.unwrap())
}

async fn initialize(url: &str, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = post(url, None, init).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let answer = messages(&r.text().await.unwrap());
    assert_eq!(answer[0]["result"]["protocolVersion"], "2025-11-25");
    sid
}

#[tokio::test]
async fn a_session_started_on_one_node_is_served_by_the_other() {
    let n = two_nodes().await;
    let sid = initialize(&n.urls[0], json!({})).await;
    let r = post(&n.urls[1], Some(&sid), json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).send().await.unwrap();
    assert_eq!(r.status(), 202);
    // Node 1 never saw initialize: it serves the session from the shared record.
    let out = call(&n.urls[1], &sid, 1, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(out.last().unwrap()["result"]["content"][0]["text"], "done", "{out:?}");
    assert_eq!(out[0]["method"], "notifications/message", "{out:?}");

    // The log level set through one node holds on the other, both ways.
    call(&n.urls[0], &sid, 2, "logging/setLevel", json!({"level": "error"})).await;
    let out = call(&n.urls[1], &sid, 3, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(out.len(), 1, "at error, node 1 sends no info log: {out:?}");
    call(&n.urls[1], &sid, 4, "logging/setLevel", json!({"level": "debug"})).await;
    let out = call(&n.urls[0], &sid, 5, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(out.len(), 2, "at debug, node 0 sends the info log again: {out:?}");

    // Another id, made up, is unknown on both nodes.
    for url in &n.urls {
        let r = post(url, Some("00112233445566778899aabbccddeeff"), json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
        assert_eq!(r.send().await.unwrap().status(), 404);
    }

    // DELETE through node 1 ends the session on node 0 too.
    let r = reqwest::Client::new().delete(&n.urls[1]).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = post(&n.urls[0], Some(&sid), json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})).send().await.unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn the_clients_answer_reaches_the_node_that_asked() {
    let n = two_nodes().await;
    let sid = initialize(&n.urls[0], json!({"sampling": {}})).await;
    // The tool runs on node 0 and asks the client; the client answers through node 1.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask"}});
    let mut stream = post(&n.urls[0], Some(&sid), body).send().await.unwrap();
    let mut seen = String::new();
    let request = loop {
        seen.push_str(&String::from_utf8_lossy(&stream.chunk().await.unwrap().expect("the stream ended early")));
        if let Some(m) = messages(&seen).into_iter().find(|m| m["method"] == "sampling/createMessage") {
            break m;
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "model": "m", "content": {"type": "text", "text": "4"}}});
    assert_eq!(post(&n.urls[1], Some(&sid), answer).send().await.unwrap().status(), 202);
    while let Some(chunk) = stream.chunk().await.unwrap() {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let out = messages(&seen);
    assert_eq!(out.last().unwrap()["result"]["content"][0]["text"], "model said 4", "{out:?}");

    // A cancel sent through node 1 reaches the handler running on node 0.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "wait"}});
    let waiting = tokio::spawn(post(&n.urls[0], Some(&sid), body).send());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    assert_eq!(post(&n.urls[1], Some(&sid), cancel).send().await.unwrap().status(), 202);
    tokio::time::timeout(Duration::from_secs(5), n.cancelled.notified()).await.expect("the handler saw the cancel");
    waiting.abort();
}

#[tokio::test]
async fn a_stream_resumes_on_the_other_node_and_only_for_its_session() {
    let n = two_nodes().await;
    let sid = initialize(&n.urls[0], json!({})).await;
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "poll", "_meta": {"progressToken": "p"}}});
    // Node 0 runs the call and ends the first connection mid-call.
    let first = post(&n.urls[0], Some(&sid), body).send().await.unwrap().text().await.unwrap();
    let last_id = first.lines().filter_map(|l| l.strip_prefix("id: ")).next_back().unwrap().to_string();
    assert!(messages(&first).iter().all(|m| m.get("result").is_none()), "the answer came later: {first}");
    let get = |url: &str, sid: &str, last: &str| {
        reqwest::Client::new()
            .get(url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", sid)
            .header("last-event-id", last)
            .send()
    };
    // Another session cannot resume this stream, on either node.
    let other = initialize(&n.urls[1], json!({})).await;
    assert_eq!(get(&n.urls[1], &other, &last_id).await.unwrap().status(), 404);
    // The client resumes on node 1 and gets the rest, nothing twice.
    let rest = get(&n.urls[1], &sid, &last_id).await.unwrap();
    assert_eq!(rest.status(), 200);
    let rest = rest.text().await.unwrap();
    let firsts = messages(&first);
    let rests = messages(&rest);
    assert!(rests.iter().all(|m| !firsts.contains(m)), "repeated: {first} / {rest}");
    assert_eq!(rests.iter().filter(|m| m["method"] == "notifications/progress").count(), 1, "{rest}");
    assert_eq!(rests.last().unwrap()["result"]["content"][0]["text"], "polled", "{rest}");
}

/// A stateless-era POST (2026-07-28) of `method` with the tasks extension declared.
fn stateless(url: &str, id: u64, method: &str, name: Option<&str>, mut params: Value) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
    });
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        r = r.header("mcp-name", name);
    }
    r.body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string())
}

#[tokio::test]
async fn a_listen_stream_on_one_node_follows_a_task_running_on_the_other() {
    let n = two_nodes().await;
    let created =
        stateless(&n.urls[0], 1, "tools/call", Some("job"), json!({"name": "job", "arguments": {}})).send().await.unwrap();
    let created: Value = serde_json::from_str(&created.text().await.unwrap()).unwrap();
    let task_id = created["result"]["taskId"].as_str().expect("a task").to_string();
    // tasks/get through the other node finds it (the task store is shared too).
    let got = stateless(&n.urls[1], 2, "tasks/get", Some(&task_id), json!({"taskId": task_id})).send().await.unwrap();
    let got: Value = serde_json::from_str(&got.text().await.unwrap()).unwrap();
    assert_eq!(got["result"]["taskId"], task_id.as_str(), "{got}");

    let listen = json!({"notifications": {"taskIds": [task_id]}});
    let mut stream = stateless(&n.urls[1], 3, "subscriptions/listen", None, listen).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let mut seen = String::new();
    let done = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let chunk = stream.chunk().await.unwrap().expect("the listen stream ended");
            seen.push_str(&String::from_utf8_lossy(&chunk));
            let found = messages(&seen)
                .into_iter()
                .find(|m| m["method"] == "notifications/tasks" && m["params"]["status"] == "completed");
            if let Some(m) = found {
                return m;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("node 1's listener never heard of node 0's task: {seen}"));
    assert_eq!(done["params"]["taskId"], task_id.as_str(), "{done}");
}

#[tokio::test]
async fn a_session_of_a_protected_server_stays_its_users_on_every_node() {
    use oxmcp::auth::{AuthInfo, ProtectedResource, TokenVerifier};
    // Tokens are user names here (the host's own check): "alice" speaks for alice.
    let verify: oxmcp::auth::VerifyFn =
        Arc::new(|token: String| Box::pin(async move { Ok(AuthInfo { subject: Some(token), ..Default::default() }) }));
    let store: Arc<dyn SharedStore> = Arc::new(MemoryStore::default());
    let mut urls = Vec::new();
    let mut servers = Vec::new();
    for _ in 0..2 {
        let resource = ProtectedResource::new(
            "http://127.0.0.1/mcp",
            vec!["https://as.example".into()],
            TokenVerifier::Custom(verify.clone()),
        );
        let config = HttpServerConfig { store: Some(store.clone()), auth: Some(Arc::new(resource)), ..Default::default() };
        let http = HttpServer::bind(server(Arc::default(), ServerConfig::default()), config).await.unwrap();
        urls.push(http.url());
        servers.push(http);
    }
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = post(&urls[0], None, init).bearer_auth("alice").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    // Node 1 has no replica yet: another user's token is refused there all the same.
    let r = post(&urls[1], Some(&sid), list.clone()).bearer_auth("mallory").send().await.unwrap();
    assert_eq!(r.status(), 403, "mallory used alice's session on the other node");
    let r = post(&urls[1], Some(&sid), list).bearer_auth("alice").send().await.unwrap();
    assert_eq!(r.status(), 200);

    // Legacy HTTP+SSE: alice's stream on node 0; a POST to node 1 passes only for her.
    let base0 = urls[0].trim_end_matches("/mcp").to_string();
    let base1 = urls[1].trim_end_matches("/mcp").to_string();
    let mut sse = reqwest::Client::new().get(format!("{base0}/sse")).bearer_auth("alice").send().await.unwrap();
    assert_eq!(sse.status(), 200);
    let mut seen = String::new();
    let endpoint = loop {
        seen.push_str(&String::from_utf8_lossy(&sse.chunk().await.unwrap().expect("the endpoint event")));
        if let Some(line) = seen.lines().find_map(|l| l.strip_prefix("data: /message")) {
            break format!("{base1}/message{line}");
        }
    };
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let as_user = |who: &'static str| {
        reqwest::Client::new().post(&endpoint).header("content-type", "application/json").bearer_auth(who).body(note.clone())
    };
    assert_eq!(as_user("mallory").send().await.unwrap().status(), 403, "mallory posted to alice's legacy session");
    assert_eq!(as_user("alice").send().await.unwrap().status(), 202);
}

#[tokio::test]
async fn a_subscription_made_through_one_node_is_heard_on_the_node_holding_the_get_stream() {
    let n = two_nodes().await;
    let sid = initialize(&n.urls[0], json!({})).await;
    // The standalone GET stream is read on node 1 (its replica made then, unsubscribed).
    let mut get = reqwest::Client::new()
        .get(&n.urls[1])
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    call(&n.urls[0], &sid, 1, "resources/subscribe", json!({"uri": "test://watched"})).await;
    // Node 0's own code reports the change; the client hears it on node 1's stream.
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        let mut seen = String::new();
        loop {
            n.roles[0].notify_resource_updated("test://watched");
            let chunk = tokio::time::timeout(Duration::from_millis(300), get.chunk()).await;
            if let Ok(chunk) = chunk {
                seen.push_str(&String::from_utf8_lossy(&chunk.unwrap().expect("the GET stream ended")));
            }
            if let Some(m) = messages(&seen).into_iter().find(|m| m["method"] == "notifications/resources/updated") {
                return m;
            }
        }
    })
    .await
    .expect("node 1's stream never carried the update of a subscription made through node 0");
    assert_eq!(heard["params"]["uri"], "test://watched");
}

#[tokio::test]
async fn a_session_reaches_its_task_on_either_node_and_no_other_session_does() {
    let n = two_nodes().await;
    let tasks = json!({"extensions": {TASKS_EXTENSION: {}}});
    let mine = initialize(&n.urls[0], tasks.clone()).await;
    let other = initialize(&n.urls[0], tasks).await;
    let created = call(&n.urls[0], &mine, 1, "tools/call", json!({"name": "job", "arguments": {}})).await;
    let task_id = created[0]["result"]["taskId"].as_str().expect("a task handle").to_string();
    // The session's key travelled with its record: node 1 knows the task is this session's.
    let got = call(&n.urls[1], &mine, 2, "tasks/get", json!({"taskId": task_id})).await;
    assert_eq!(got[0]["result"]["taskId"], task_id.as_str(), "{got:?}");
    for url in &n.urls {
        let refused = call(url, &other, 3, "tasks/get", json!({"taskId": task_id})).await;
        assert_eq!(refused[0]["error"]["code"], -32602, "{refused:?}");
    }
}
