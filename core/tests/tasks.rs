//! Tasks on the server. The `io.modelcontextprotocol/tasks` extension: a task-supporting
//! tool called by a client that declared the extension answers with a task handle and runs
//! in the background; tasks/get, tasks/update and tasks/cancel follow it, in both eras.
//! The 2025-11-25 form, for clients of that version: the client asks with `params.task`,
//! tasks/result gives the outcome and carries the task's questions, tasks/list pages.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oxmcp::client::{Client, Era};
use oxmcp::protocol::{
    CallToolResult, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ProtocolVersion, TaskSupport, Tool,
    ToolExecution, TASKS_EXTENSION,
};
use oxmcp::server::tasks::{MemoryTaskStore, SharedTaskStore, TaskLimits, TaskOptions, TaskStore};
use oxmcp::server::{Arguments, RequestContext, Server, ServerConfig, ServerSession};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::transport::MemoryTransport;
use oxmcp::Error;
use serde_json::{json, Value};

mod common;

fn task_tool(name: &str, support: TaskSupport) -> Tool {
    let mut tool = Tool::new(name, "", json!({"type": "object"}));
    tool.execution = Some(ToolExecution { task_support: Some(support), ..Default::default() });
    tool
}

/// greet (no tasks), slow (sleeps `ms`, notes a cancel), needs_task (tasks required), ask
/// (asks the user its name mid-run), broken (fails with a JSON-RPC error), refusing (an
/// isError result).
fn server(config: ServerConfig, cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("tasks", "1")
        .config(config)
        .tool(Tool::new("greet", "", json!({"type": "object"})), |_a: Arguments, _c: RequestContext| async {
            Ok(CallToolResult::text("hello"))
        })
        .tool(task_tool("slow", TaskSupport::Optional), move |a: Arguments, ctx: RequestContext| {
            let cancelled = cancelled.clone();
            async move {
                let ms = a.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(CallToolResult::text(format!("slept {ms} ms"))),
                    _ = ctx.cancelled() => {
                        cancelled.store(true, Ordering::SeqCst);
                        Ok(CallToolResult::text("stopped"))
                    }
                }
            }
        })
        .tool(task_tool("needs_task", TaskSupport::Required), |_a: Arguments, _c: RequestContext| async {
            Ok(CallToolResult::text("ran"))
        })
        .tool(task_tool("ask", TaskSupport::Optional), |_a: Arguments, ctx: RequestContext| async move {
            let form =
                ElicitRequestFormParams::new("Your name?", json!({"type": "object", "properties": {"name": {"type": "string"}}}));
            let answer = ctx.keyed("who").elicit(ElicitRequestParams::Form(form)).await?;
            let name = answer.content.and_then(|c| c.get("name").cloned()).unwrap_or_default();
            Ok(CallToolResult::text(format!("hello {}", name.as_str().unwrap_or("?"))))
        })
        .tool(task_tool("broken", TaskSupport::Optional), |_a: Arguments, _c: RequestContext| async {
            Err(Error::rpc_error(-32050, "the job server is down"))
        })
        .tool(task_tool("refusing", TaskSupport::Optional), |_a: Arguments, _c: RequestContext| async {
            Ok(CallToolResult::error_text("no"))
        })
        .tool(task_tool("big", TaskSupport::Optional), |a: Arguments, _c: RequestContext| async move {
            let bytes = a.get("bytes").and_then(Value::as_u64).unwrap_or(0) as usize;
            Ok(CallToolResult::text("x".repeat(bytes)))
        })
        .tool(task_tool("stepping", TaskSupport::Optional), |_a: Arguments, ctx: RequestContext| async move {
            ctx.report_progress(1.0, Some(2.0), Some("halfway"))?;
            tokio::time::sleep(Duration::from_millis(400)).await;
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap()
}

async fn call(client: &Client, method: &str, params: Value) -> oxmcp::Result<Value> {
    client.request(method, Some(params), RequestOptions::default()).await
}

/// Polls tasks/get until `done` holds for the task (or 10 s pass); the last answer.
async fn poll_until(client: &Client, id: &Value, done: impl Fn(&Value) -> bool) -> Value {
    let mut task = Value::Null;
    for _ in 0..500 {
        task = call(client, "tasks/get", json!({"taskId": id})).await.unwrap();
        if done(&task) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    task
}

/// Polls tasks/get until the task leaves `working`.
async fn settle(client: &Client, id: &str) -> Value {
    let task = poll_until(client, &json!(id), |t| t["status"] != "working").await;
    assert_ne!(task["status"], "working", "task {id} kept working");
    task
}

/// Waits (up to 10 s) until `flag` is set.
async fn eventually(flag: &AtomicBool) -> bool {
    for _ in 0..500 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// A client that declared the extension (and elicitation), over each era's transport.
async fn clients(server: &Server) -> (Vec<(&'static str, Client)>, HttpServer, ServerSession) {
    let (a, b) = MemoryTransport::pair();
    let served = server.serve(a);
    let session = Client::builder("c", "1")
        .era(Era::Session)
        .extension(TASKS_EXTENSION, json!({}))
        .on_elicitation(|_p, _c| async { Ok(ElicitResult::accept(Default::default())) })
        .connect(b)
        .await
        .unwrap();
    let http = HttpServer::bind(server.clone(), HttpServerConfig::default()).await.unwrap();
    let stateless = Client::builder("c", "1")
        .era(Era::Stateless)
        .extension(TASKS_EXTENSION, json!({}))
        .on_elicitation(|_p, _c| async { Ok(ElicitResult::accept(Default::default())) })
        .connect(HttpClientTransport::new(http.url()))
        .await
        .unwrap();
    (vec![("session", session), ("stateless", stateless)], http, served)
}

#[tokio::test]
async fn a_task_runs_in_the_background_and_tasks_get_inlines_its_result() {
    let server = server(ServerConfig::default(), Arc::default());
    let (clients, http, _served) = clients(&server).await;
    for (era, client) in &clients {
        let info = client.initialize_result();
        assert!(info.capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION)), "{era}");

        // A tool without task support answers as always.
        let sync = call(client, "tools/call", json!({"name": "greet", "arguments": {}})).await.unwrap();
        assert!(sync.get("taskId").is_none() && sync["content"][0]["text"] == "hello", "{era}: {sync}");

        let created = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 300}})).await.unwrap();
        assert_eq!(created["resultType"], "task", "{era}: {created}");
        assert_eq!(created["status"], "working");
        assert!(created["ttlMs"].is_u64() && created["pollIntervalMs"].is_u64());
        assert!(created.get("result").is_none() && created.get("task").is_none());
        let id = created["taskId"].as_str().unwrap().to_string();
        // Durable before it was returned: the first poll finds it.
        let working = call(client, "tasks/get", json!({"taskId": id})).await.unwrap();
        assert_eq!((working["status"].as_str(), working["resultType"].as_str()), (Some("working"), Some("complete")));
        assert!(working.get("result").is_none());

        let done = settle(client, &id).await;
        assert_eq!(done["status"], "completed", "{era}: {done}");
        assert_eq!(done["result"]["content"][0]["text"], "slept 300 ms");
        assert!(done["result"].get("resultType").is_none(), "the envelope is tasks/get's, not the result's");

        // A task's progress message is its statusMessage.
        let id = call(client, "tools/call", json!({"name": "stepping", "arguments": {}})).await.unwrap()["taskId"].clone();
        let task = poll_until(client, &id, |t| t["statusMessage"] == "halfway").await;
        assert_eq!(task["statusMessage"], "halfway", "{era}");

        // A tool error completes the task with isError; a JSON-RPC error fails it.
        let id = call(client, "tools/call", json!({"name": "refusing", "arguments": {}})).await.unwrap()["taskId"].clone();
        let done = settle(client, id.as_str().unwrap()).await;
        assert_eq!((done["status"].as_str(), done["result"]["isError"].as_bool()), (Some("completed"), Some(true)));
        let id = call(client, "tools/call", json!({"name": "broken", "arguments": {}})).await.unwrap()["taskId"].clone();
        let done = settle(client, id.as_str().unwrap()).await;
        assert_eq!(done["status"], "failed", "{era}: {done}");
        assert_eq!((done["error"]["code"].as_i64(), done.get("result")), (Some(-32050), None));
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn tasks_cancel_reaches_the_handler_and_the_task_ends_cancelled() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server(ServerConfig::default(), cancelled.clone());
    let (clients, http, _served) = clients(&server).await;
    for (era, client) in &clients {
        cancelled.store(false, Ordering::SeqCst);
        let id =
            call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 60_000}})).await.unwrap()["taskId"].clone();
        let ack = call(client, "tasks/cancel", json!({"taskId": id})).await.unwrap();
        assert_eq!(ack, json!({"resultType": "complete"}), "{era}: an empty acknowledgement");
        let done = settle(client, id.as_str().unwrap()).await;
        assert_eq!(done["status"], "cancelled", "{era}: {done}");
        assert!(eventually(&cancelled).await, "{era}: the handler saw the cancel");
        // Cancelling a finished task is acknowledged the same way.
        assert_eq!(call(client, "tasks/cancel", json!({"taskId": id})).await.unwrap()["resultType"], "complete");
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_task_asks_for_input_and_goes_on_with_the_answer() {
    let server = server(ServerConfig::default(), Arc::default());
    let (clients, http, _served) = clients(&server).await;
    for (era, client) in &clients {
        let id = call(client, "tools/call", json!({"name": "ask", "arguments": {}})).await.unwrap()["taskId"].clone();
        let waiting = settle(client, id.as_str().unwrap()).await;
        assert_eq!(waiting["status"], "input_required", "{era}: {waiting}");
        assert_eq!(waiting["inputRequests"]["who"]["method"], "elicitation/create");
        // An answer to a key the task is not waiting for is ignored; the task still waits.
        let ack = call(client, "tasks/update", json!({"taskId": id, "inputResponses": {"other": {"action": "decline"}}}));
        assert_eq!(ack.await.unwrap()["resultType"], "complete");
        assert_eq!(call(client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "input_required");
        let answer = json!({"who": {"action": "accept", "content": {"name": "Ada"}}});
        call(client, "tasks/update", json!({"taskId": id, "inputResponses": answer})).await.unwrap();
        let done = poll_until(client, &id, |t| t["status"] == "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "hello Ada", "{era}: {done}");
        assert!(done.get("inputRequests").is_none());
        // A task waiting for nothing takes no answers.
        let late = call(client, "tasks/update", json!({"taskId": id, "inputResponses": answer})).await.unwrap_err();
        assert_eq!(late.code(), Some(-32602), "{era}: {late}");
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn without_the_extension_tasks_stay_off_and_required_ones_are_refused() {
    let server = server(ServerConfig::default(), Arc::default());
    let (a, b) = MemoryTransport::pair();
    let _served = server.serve(a);
    // A client of 2025-06-18 knows neither the extension nor the 2025-11-25 tasks.
    let plain =
        Client::builder("c", "1").era(Era::Session).protocol_version(ProtocolVersion::V2025_06_18).connect(b).await.unwrap();
    assert!(plain.server_capabilities().tasks.is_none());
    // A task-supporting tool runs as an ordinary call.
    let sync = call(&plain, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap();
    assert_eq!(sync["content"][0]["text"], "slept 1 ms");
    let refused = call(&plain, "tools/call", json!({"name": "needs_task", "arguments": {}})).await.unwrap_err();
    assert_eq!(refused.code(), Some(-32021));
    assert_eq!(refused.rpc().unwrap().data.as_ref().unwrap()["requiredCapabilities"]["extensions"][TASKS_EXTENSION], json!({}));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let err = call(&plain, method, json!({"taskId": "x", "inputResponses": {}})).await.unwrap_err();
        assert_eq!(err.code(), Some(-32021), "{method}");
    }
    // The client may opt in for one request through its _meta.
    let meta = json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}}});
    let created = call(&plain, "tools/call", json!({"name": "needs_task", "arguments": {}, "_meta": meta})).await.unwrap();
    assert_eq!(created["resultType"], "task");
    // The 2025-11-25 methods are not this client's.
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(call(&plain, method, json!({"taskId": "x"})).await.unwrap_err().code(), Some(-32601), "{method}");
    }
}

#[tokio::test]
async fn unknown_ids_expired_tasks_and_a_full_store_get_clear_errors() {
    let store = Arc::new(MemoryTaskStore::default());
    let tasks = TaskOptions {
        store: store.clone(),
        limits: TaskLimits { max_tasks: 3, ..Default::default() },
        ttl: Some(Duration::from_millis(300)),
        poll_interval: Duration::from_millis(50),
        ..Default::default()
    };
    let server = server(ServerConfig { tasks, ..Default::default() }, Arc::default());
    let (clients, http, _served) = clients(&server).await;
    let client = &clients[0].1;
    let unknown = call(client, "tasks/get", json!({"taskId": "no-such-task"})).await.unwrap_err();
    assert_eq!(unknown.code(), Some(-32602));
    assert!(unknown.to_string().contains("unknown task"), "{unknown}");
    assert_eq!(call(client, "tasks/cancel", json!({"taskId": "no-such-task"})).await.unwrap_err().code(), Some(-32602));

    // A flood: the store takes 3, the rest are refused until the first ones expire.
    let mut created = Vec::new();
    for _ in 0..3 {
        created.push(call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 10}})).await.unwrap());
    }
    let full = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 10}})).await.unwrap_err();
    assert!(full.to_string().contains("3 tasks, its bound for all clients"), "{full}");
    assert_eq!(store.len(), 3);

    // Past its TTL a task is gone: tasks/get says unknown, and the store holds nothing.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let gone = call(client, "tasks/get", json!({"taskId": created[0]["taskId"]})).await.unwrap_err();
    assert_eq!(gone.code(), Some(-32602));
    assert!(store.is_empty());
    assert_eq!(call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap()["resultType"], "task");
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_task_started_on_one_node_is_read_answered_and_cancelled_through_another() {
    // Two servers sharing one task store, as two nodes behind a load balancer would.
    across_nodes(TaskOptions { poll_interval: Duration::from_millis(50), ..Default::default() }).await;
}

#[tokio::test]
async fn tasks_in_a_shared_store_are_followed_through_another_node() {
    // The store scaled-out servers use (here on the in-memory shared store): every change
    // a compare-and-swap on a serialized record.
    let shared = Arc::new(SharedTaskStore::new(Arc::new(oxmcp::store::MemoryStore::default())));
    across_nodes(TaskOptions { store: shared, poll_interval: Duration::from_millis(50), ..Default::default() }).await;
}

async fn across_nodes(tasks: TaskOptions) {
    let cancelled = Arc::new(AtomicBool::new(false));
    let node_a = server(ServerConfig { tasks: tasks.clone(), ..Default::default() }, cancelled.clone());
    let node_b = server(ServerConfig { tasks, ..Default::default() }, Arc::default());
    let (clients_a, http_a, _served_a) = clients(&node_a).await;
    let (clients_b, http_b, _served_b) = clients(&node_b).await;
    let (a, b) = (&clients_a[1].1, &clients_b[1].1);

    let id = call(a, "tools/call", json!({"name": "ask", "arguments": {}})).await.unwrap()["taskId"].clone();
    let seen = poll_until(b, &id, |t| t["status"] == "input_required").await;
    assert_eq!(seen["inputRequests"]["who"]["method"], "elicitation/create", "{seen}");
    let answer = json!({"who": {"action": "accept", "content": {"name": "Grace"}}});
    call(b, "tasks/update", json!({"taskId": id, "inputResponses": answer})).await.unwrap();
    assert_ne!(call(b, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "input_required", "acknowledged at once");
    let done = settle(b, id.as_str().unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Grace", "{done}");

    let id = call(a, "tools/call", json!({"name": "slow", "arguments": {"ms": 60_000}})).await.unwrap()["taskId"].clone();
    call(b, "tasks/cancel", json!({"taskId": id})).await.unwrap();
    assert_eq!(poll_until(a, &id, |t| t["status"] == "cancelled").await["status"], "cancelled");
    assert!(eventually(&cancelled).await, "node A's handler saw node B's cancel");
    for (_, c) in clients_a.into_iter().chain(clients_b) {
        c.close().await;
    }
    http_a.shutdown().await;
    http_b.shutdown().await;
}

#[tokio::test]
async fn the_client_waits_for_a_task_answering_its_questions_and_cancels_it_when_dropped() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let tasks = TaskOptions { poll_interval: Duration::from_millis(30), ..Default::default() };
    let server = server(ServerConfig { tasks, ..Default::default() }, cancelled.clone());
    let http = HttpServer::bind(server.clone(), HttpServerConfig::default()).await.unwrap();
    for era in [Era::Session, Era::Stateless] {
        // No .extension(): call_tool_as_task opts each call in by itself.
        let client = Client::builder("c", "1")
            .era(era)
            .on_elicitation(|_p, _c| async { Ok(ElicitResult::accept(serde_json::from_value(json!({"name": "Lin"})).unwrap())) })
            .connect(HttpClientTransport::new(http.url()))
            .await
            .unwrap();
        let statuses = std::sync::Mutex::new(Vec::new());
        let result = client
            .call_tool_as_task("ask", json!({}), |t| statuses.lock().unwrap().push(t.status.as_str().to_string()))
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text(), Some("hello Lin"), "{era:?}");
        let seen = statuses.lock().unwrap().clone();
        assert!(seen.contains(&"input_required".to_string()) && seen.last().map(String::as_str) == Some("completed"), "{seen:?}");
        // A tool without task support answers at once; `null` arguments mean none, as
        // for a plain call, and anything else but an object is refused before sending.
        let greet = client.call_tool_as_task("greet", Value::Null, |_| {}).await.unwrap();
        assert_eq!(greet.content[0].as_text(), Some("hello"));
        let err = client.call_tool_as_task("greet", json!([1]), |_| {}).await.unwrap_err();
        assert_eq!(err.kind(), oxmcp::ErrorKind::InvalidInput, "{err}");
        // A failed task is its JSON-RPC error.
        let err = client.call_tool_as_task("broken", json!({}), |_| {}).await.unwrap_err();
        assert_eq!(err.code(), Some(-32050), "{era:?}: {err}");

        // Dropping the wait cancels the task, and its handler sees it.
        cancelled.store(false, Ordering::SeqCst);
        let waiting = client.call_tool_as_task("slow", json!({"ms": 60_000}), |_| {});
        assert!(tokio::time::timeout(Duration::from_millis(300), waiting).await.is_err());
        assert!(eventually(&cancelled).await, "{era:?}: the dropped wait cancelled the task");
        client.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_listen_stream_follows_the_tasks_it_names() {
    use oxmcp::protocol::meta;
    use oxmcp::transport::Transport;
    let server = server(ServerConfig::default(), Arc::default());
    let (a, b) = MemoryTransport::pair();
    let _served = server.serve(a);
    let (rx, tx) = b.split();
    let mut raw = common::Raw { rx, tx };
    let request = |id: u64, method: &str, mut params: Value, tasks: bool| {
        let extensions = if tasks { json!({TASKS_EXTENSION: {}}) } else { json!({}) };
        params["_meta"] = json!({
            meta::PROTOCOL_VERSION: "2026-07-28",
            meta::CLIENT_CAPABILITIES: {"extensions": extensions},
            meta::CLIENT_INFO: {"name": "raw", "version": "1"},
        });
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    };
    let created = raw.ask(request(1, "tools/call", json!({"name": "stepping", "arguments": {}}), true)).await;
    let id = created["result"]["taskId"].clone();
    assert_eq!(created["result"]["resultType"], "task", "{created}");

    // Without the extension a client may not ask for task notifications.
    let refused = raw.ask(request(2, "subscriptions/listen", json!({"notifications": {"taskIds": [id]}}), false)).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // Each task change is looked up among a stream's taskIds: their number is bounded.
    let many: Vec<String> = (0..1025).map(|i| format!("t{i}")).collect();
    let refused = raw.ask(request(4, "subscriptions/listen", json!({"notifications": {"taskIds": many}}), true)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("at most 1024"), "{refused}");

    let ack = raw.ask(request(3, "subscriptions/listen", json!({"notifications": {"taskIds": [id]}}), true)).await;
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]), "{ack}");
    // The task reports its end on the stream, as tasks/get would answer it, tagged with
    // the subscription.
    let mut done = Value::Null;
    for _ in 0..5 {
        done = raw.next().await;
        if done["params"]["status"] == "completed" {
            break;
        }
    }
    assert_eq!(done["method"], "notifications/tasks", "{done}");
    assert_eq!((done["params"]["taskId"].clone(), done["params"]["result"]["content"][0]["text"].clone()), (id, json!("done")));
    assert_eq!(done["params"]["_meta"][meta::SUBSCRIPTION_ID], 3);
}

#[tokio::test]
async fn the_tasks_running_at_once_are_bounded() {
    // A task outlives its request: without this bound one client could start thousands.
    let tasks = TaskOptions { max_running: 2, ..Default::default() };
    let server = server(ServerConfig { tasks, ..Default::default() }, Arc::default());
    let (clients, http, _served) = clients(&server).await;
    let client = &clients[0].1;
    let mut ids = Vec::new();
    for _ in 0..2 {
        ids.push(
            call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 60_000}})).await.unwrap()["taskId"].clone(),
        );
    }
    let refused = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap_err();
    assert!(refused.to_string().contains("runs 2 tasks"), "{refused}");
    // Once one ends, another may start.
    call(client, "tasks/cancel", json!({"taskId": ids[0]})).await.unwrap();
    let mut started = None;
    for _ in 0..200 {
        if let Ok(r) = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await {
            started = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(started.expect("a task starts again")["resultType"], "task");
    call(client, "tasks/cancel", json!({"taskId": ids[1]})).await.unwrap();
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

/// An escalating tool: asks the user's name inline, then (escalated) waits `ms` or for its
/// cancellation, noting each step.
fn escalating_server(steps: Arc<std::sync::Mutex<Vec<String>>>, support: TaskSupport) -> Server {
    Server::builder("escalating", "1")
        .escalating_tool(task_tool("report", support), move |a: Arguments, ctx: RequestContext| {
            let steps = steps.clone();
            async move {
                let form =
                    ElicitRequestFormParams::new("Name?", json!({"type": "object", "properties": {"name": {"type": "string"}}}));
                let answer = ctx.keyed("user_name").elicit(ElicitRequestParams::Form(form)).await?;
                let name = answer.content.and_then(|c| c.get("name").cloned()).unwrap_or_default();
                let name = name.as_str().unwrap_or("?").to_string();
                let escalated = ctx.escalate_to_task().await?;
                steps.lock().unwrap().push(format!("escalated={escalated}"));
                let ms = a.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    _ = ctx.cancelled() => {
                        steps.lock().unwrap().push("cancelled".into());
                        return Ok(CallToolResult::text("stopped"));
                    }
                }
                Ok(CallToolResult::text(format!("report for {name}")))
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_escalating_tool_gathers_input_inline_then_goes_on_as_a_task() {
    let steps = Arc::new(std::sync::Mutex::new(Vec::new()));
    let server = escalating_server(steps.clone(), TaskSupport::Optional);
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    for era in [Era::Session, Era::Stateless] {
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = asked.clone();
        let client = Client::builder("c", "1")
            .era(era)
            .extension(TASKS_EXTENSION, json!({}))
            .on_elicitation(move |_p, _c| {
                counter.fetch_add(1, Ordering::SeqCst);
                async { Ok(ElicitResult::accept(serde_json::from_value(json!({"name": "Ada"})).unwrap())) }
            })
            .connect(HttpClientTransport::new(http.url()))
            .await
            .unwrap();
        // The question is answered inline (an MRTR round, or a request in the session era);
        // the answer to the call is a task, whose result carries what was gathered.
        steps.lock().unwrap().clear();
        let start = call(&client, "tools/call", json!({"name": "report", "arguments": {"ms": 200}})).await.unwrap();
        assert_eq!(start["status"], "working", "{era:?}: {start}");
        assert!(start.get("inputRequests").is_none() && start.get("requestState").is_none(), "{start}");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{era:?}: asked once, before the task");
        let done = poll_until(&client, &start["taskId"], |t| t["status"] != "working").await;
        assert_eq!(done["status"], "completed", "{era:?}: {done}");
        assert_eq!(done["result"]["content"][0]["text"], "report for Ada");
        assert_eq!(steps.lock().unwrap().clone(), ["escalated=true"]);

        // tasks/cancel reaches the escalated handler's cancellation.
        steps.lock().unwrap().clear();
        let start = call(&client, "tools/call", json!({"name": "report", "arguments": {"ms": 60_000}})).await.unwrap();
        call(&client, "tasks/cancel", json!({"taskId": start["taskId"]})).await.unwrap();
        let done = poll_until(&client, &start["taskId"], |t| t["status"] != "working").await;
        assert_eq!(done["status"], "cancelled", "{era:?}: {done}");
        for _ in 0..100 {
            if steps.lock().unwrap().len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(steps.lock().unwrap().clone(), ["escalated=true", "cancelled"], "{era:?}");
        client.close().await;
    }

    // A client without the extension gets the whole call inline: nothing to escalate to.
    let client = Client::builder("c", "1")
        .era(Era::Stateless)
        .on_elicitation(|_p, _c| async { Ok(ElicitResult::accept(serde_json::from_value(json!({"name": "Bo"})).unwrap())) })
        .connect(HttpClientTransport::new(http.url()))
        .await
        .unwrap();
    steps.lock().unwrap().clear();
    let r = client.call_tool("report", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("report for Bo"));
    assert_eq!(steps.lock().unwrap().clone(), ["escalated=false"]);
    client.close().await;
    http.shutdown().await;
}

/// A session-era client declaring the extension and answering elicitations, over memory.
async fn session_client(server: &Server) -> (Client, ServerSession) {
    let (a, b) = MemoryTransport::pair();
    let served = server.serve(a);
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .extension(TASKS_EXTENSION, json!({}))
        .on_elicitation(|_p, _c| async { Ok(ElicitResult::accept(Default::default())) })
        .connect(b)
        .await
        .unwrap();
    (client, served)
}

#[tokio::test]
async fn another_session_can_neither_read_nor_steer_nor_answer_a_task() {
    // An open server (no OAuth): the task belongs to the session that made it.
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server(ServerConfig::default(), cancelled.clone());
    let (alice, _a) = session_client(&server).await;
    let (mallory, _m) = session_client(&server).await;
    let asking = call(&alice, "tools/call", json!({"name": "ask", "arguments": {}})).await.unwrap()["taskId"].clone();
    let slow = call(&alice, "tools/call", json!({"name": "slow", "arguments": {"ms": 60_000}})).await.unwrap()["taskId"].clone();
    poll_until(&alice, &asking, |t| t["status"] == "input_required").await;

    let answer = json!({"who": {"action": "accept", "content": {"name": "Mallory"}}});
    for (method, id, extra) in [
        ("tasks/get", &asking, json!({})),
        ("tasks/update", &asking, json!({"inputResponses": answer})),
        ("tasks/cancel", &slow, json!({})),
    ] {
        let mut params = json!({"taskId": id});
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let err = call(&mallory, method, params).await.unwrap_err();
        assert_eq!(err.code(), Some(-32602), "{method}: {err}");
        assert!(err.to_string().contains("unknown task"), "{method}: {err}");
    }
    // Alice's task still waits for her answer, and her other task still runs.
    assert_eq!(call(&alice, "tasks/get", json!({"taskId": asking})).await.unwrap()["status"], "input_required");
    assert_eq!(call(&alice, "tasks/get", json!({"taskId": slow})).await.unwrap()["status"], "working");
    assert!(!cancelled.load(Ordering::SeqCst));
    let answer = json!({"who": {"action": "accept", "content": {"name": "Alice"}}});
    call(&alice, "tasks/update", json!({"taskId": asking, "inputResponses": answer})).await.unwrap();
    let done = settle(&alice, asking.as_str().unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Alice", "{done}");
    call(&alice, "tasks/cancel", json!({"taskId": slow})).await.unwrap();
    assert!(eventually(&cancelled).await);
    alice.close().await;
    mallory.close().await;
}

async fn start(c: &Client) -> oxmcp::Result<Value> {
    call(c, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await
}

/// Runs `big` as a task making `bytes` bytes of text; the settled task.
async fn big(c: &Client, bytes: u64) -> Value {
    let id = call(c, "tools/call", json!({"name": "big", "arguments": {"bytes": bytes}})).await.unwrap()["taskId"].clone();
    settle(c, id.as_str().unwrap()).await
}

/// The two stores a server keeps tasks in: this process's memory, or a shared store.
fn stores() -> Vec<(&'static str, Arc<dyn TaskStore>)> {
    let shared = SharedTaskStore::new(Arc::new(oxmcp::store::MemoryStore::default()));
    vec![("memory", Arc::new(MemoryTaskStore::default())), ("shared", Arc::new(shared))]
}

#[tokio::test]
async fn one_client_at_its_bound_leaves_room_for_the_others() {
    for (name, store) in stores() {
        let limits = TaskLimits { max_tasks: 5, max_tasks_per_owner: 3, ..Default::default() };
        let server = server(
            ServerConfig { tasks: TaskOptions { store, limits, ..Default::default() }, ..Default::default() },
            Arc::default(),
        );
        let (flooder, _f) = session_client(&server).await;
        let (other, _o) = session_client(&server).await;
        let (third, _t) = session_client(&server).await;
        for _ in 0..3 {
            assert_eq!(start(&flooder).await.unwrap()["resultType"], "task", "{name}");
        }
        let refused = start(&flooder).await.unwrap_err();
        assert_eq!(refused.code(), Some(-32603), "{name}");
        assert!(refused.to_string().contains("3 tasks, the bound per client"), "{name}: {refused}");
        // The others still get tasks, until all of them together reach the server's bound.
        assert_eq!(start(&other).await.unwrap()["resultType"], "task", "{name}");
        assert_eq!(start(&other).await.unwrap()["resultType"], "task", "{name}");
        let full = start(&third).await.unwrap_err();
        assert!(full.to_string().contains("5 tasks, its bound for all clients"), "{name}: {full}");
        for c in [flooder, other, third] {
            c.close().await;
        }
    }
}

#[tokio::test]
async fn stored_results_are_bounded_in_bytes() {
    for (name, store) in stores() {
        let limits = TaskLimits { max_bytes_per_owner: 60_000, max_bytes: 80_000, ..Default::default() };
        let server = server(
            ServerConfig { tasks: TaskOptions { store, limits, ..Default::default() }, ..Default::default() },
            Arc::default(),
        );
        let (a, _a) = session_client(&server).await;
        let (b, _b) = session_client(&server).await;
        // Kept: 30 KB for a.
        let kept = big(&a, 30_000).await;
        assert_eq!(kept["status"], "completed", "{name}");
        assert_eq!(kept["result"]["content"][0]["text"].as_str().unwrap().len(), 30_000);
        // Another 35 KB would take a past its 60 KB: its task fails, saying which bound.
        let dropped = big(&a, 35_000).await;
        assert_eq!(dropped["status"], "failed", "{name}: {dropped}");
        assert!(dropped["result"].is_null());
        let why = dropped["error"]["message"].as_str().unwrap();
        assert!(why.contains("bound per client"), "{name}: {why}");
        // b has room of its own, up to what the server keeps for everyone (80 KB).
        assert_eq!(big(&b, 40_000).await["status"], "completed", "{name}");
        let over = big(&b, 15_000).await;
        assert_eq!(over["status"], "failed", "{name}");
        assert!(over["error"]["message"].as_str().unwrap().contains("all clients"), "{name}: {over}");
        a.close().await;
        b.close().await;
    }
}

#[tokio::test]
async fn a_shared_store_keeps_the_bounds_the_host_set() {
    // Two nodes sharing one store, the bound set before sharing: it holds for both together.
    let store: Arc<dyn oxmcp::store::SharedStore> = Arc::new(oxmcp::store::MemoryStore::default());
    let limits = TaskLimits { max_tasks: 4, ..Default::default() };
    let mut nodes = Vec::new();
    for _ in 0..2 {
        let config = ServerConfig { tasks: TaskOptions { limits, ..Default::default() }, ..Default::default() };
        nodes.push(server(config.shared_through(&store).await.unwrap(), Arc::default()));
    }
    let mut clients = Vec::new();
    for node in &nodes {
        clients.push(session_client(node).await);
        clients.push(session_client(node).await);
    }
    for (c, _) in &clients {
        assert_eq!(call(c, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap()["resultType"], "task");
    }
    for (c, _) in &clients {
        let full = call(c, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap_err();
        assert!(full.to_string().contains("4 tasks, its bound for all clients"), "{full}");
    }
}

/// 2025-11-25 clients without the extension: over memory and over Streamable HTTP, each
/// answering elicitations with the name "Ada" and keeping the `_meta` it was asked with.
type Asked = Arc<std::sync::Mutex<Vec<Value>>>;

async fn clients_2025(server: &Server) -> (Vec<(&'static str, Client)>, HttpServer, Asked, ServerSession) {
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let build = |asked: Asked| {
        Client::builder("c", "1").era(Era::Session).on_elicitation(move |p, _c| {
            asked.lock().unwrap().push(serde_json::to_value(&p).unwrap()["_meta"].clone());
            async { Ok(ElicitResult::accept(serde_json::from_value(json!({"name": "Ada"})).unwrap())) }
        })
    };
    let (a, b) = MemoryTransport::pair();
    let served = server.serve(a);
    let memory = build(asked.clone()).connect(b).await.unwrap();
    let http = HttpServer::bind(server.clone(), HttpServerConfig::default()).await.unwrap();
    let over_http = build(asked.clone()).connect(HttpClientTransport::new(http.url())).await.unwrap();
    (vec![("memory", memory), ("http", over_http)], http, asked, served)
}

#[tokio::test]
async fn a_2025_11_25_client_asks_for_a_task_and_takes_its_outcome_from_tasks_result() {
    let server = server(ServerConfig::default(), Arc::default());
    let (clients, http, _, _served) = clients_2025(&server).await;
    for (over, client) in &clients {
        assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
        let tasks = client.server_capabilities().tasks.clone().unwrap();
        assert_eq!(tasks, json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}), "{over}");

        // Asked for: the task, in that version's shape, kept for the TTL asked (under the
        // server's hour).
        let params = json!({"name": "slow", "arguments": {"ms": 300}, "task": {"ttl": 60000}});
        let created = call(client, "tools/call", params).await.unwrap();
        let task = &created["task"];
        assert_eq!(
            (task["status"].as_str(), task["ttl"].as_u64(), task["pollInterval"].as_u64()),
            (Some("working"), Some(60000), Some(500))
        );
        assert!(created.get("resultType").is_none() && task.get("ttlMs").is_none(), "{over}: {created}");
        let id = task["taskId"].as_str().unwrap().to_string();
        let working = call(client, "tasks/get", json!({"taskId": id})).await.unwrap();
        assert_eq!(working["status"], "working");
        assert!(working.get("result").is_none() && working.get("resultType").is_none(), "{over}: {working}");
        // tasks/result waits for the end and answers what the call would have.
        let result = call(client, "tasks/result", json!({"taskId": id})).await.unwrap();
        assert_eq!(result["content"][0]["text"], "slept 300 ms", "{over}: {result}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"], json!({"taskId": id}));
        assert_eq!(call(client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "completed");

        // Not asked for, an optional tool runs inline.
        let inline = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await.unwrap();
        assert_eq!(inline["content"][0]["text"], "slept 1 ms");
        // A tool's error result ends the task failed, and tasks/result gives the result;
        // a JSON-RPC error is tasks/result's error.
        let refusing = call(client, "tools/call", json!({"name": "refusing", "arguments": {}, "task": {}})).await.unwrap();
        let rid = refusing["task"]["taskId"].clone();
        let result = call(client, "tasks/result", json!({"taskId": rid})).await.unwrap();
        assert_eq!(result["isError"], true, "{over}: {result}");
        let failed = call(client, "tasks/get", json!({"taskId": rid})).await.unwrap();
        assert_eq!(
            (failed["status"].as_str(), failed["statusMessage"].as_str()),
            (Some("failed"), Some("no")),
            "{over}: {failed}"
        );
        let broken = call(client, "tools/call", json!({"name": "broken", "arguments": {}, "task": {}})).await.unwrap();
        let err = call(client, "tasks/result", json!({"taskId": broken["task"]["taskId"]})).await.unwrap_err();
        assert_eq!(err.code(), Some(-32050), "{over}: {err}");
        let failed = call(client, "tasks/get", json!({"taskId": broken["task"]["taskId"]})).await.unwrap();
        assert_eq!(failed["statusMessage"], "the job server is down", "{over}: {failed}");

        // taskSupport is kept: required without a task, forbidden with one, are -32601.
        let required = call(client, "tools/call", json!({"name": "needs_task", "arguments": {}})).await.unwrap_err();
        assert_eq!(required.code(), Some(-32601), "{over}: {required}");
        let forbidden = call(client, "tools/call", json!({"name": "greet", "arguments": {}, "task": {}})).await.unwrap_err();
        assert_eq!(forbidden.code(), Some(-32601), "{over}: {forbidden}");
        let bad =
            call(client, "tools/call", json!({"name": "slow", "arguments": {}, "task": {"ttl": "soon"}})).await.unwrap_err();
        assert_eq!(bad.code(), Some(-32602), "{over}: {bad}");
        // The extension's method is not this version's.
        let update = call(client, "tasks/update", json!({"taskId": id, "inputResponses": {}})).await.unwrap_err();
        assert_eq!(update.code(), Some(-32601));
        // An unknown task is -32602 on every method.
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let err = call(client, method, json!({"taskId": "nope"})).await.unwrap_err();
            assert_eq!(err.code(), Some(-32602), "{over} {method}: {err}");
        }
        // tasks/list: this session's tasks, oldest first.
        let listed = call(client, "tasks/list", json!({})).await.unwrap();
        let ids: Vec<&Value> = listed["tasks"].as_array().unwrap().iter().map(|t| &t["taskId"]).collect();
        assert_eq!(ids, vec![&json!(id), &rid, &broken["task"]["taskId"]], "{over}: {listed}");
        assert!(listed["tasks"][0].get("ttl").is_some() && listed.get("nextCursor").is_none());
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn tasks_result_carries_a_tasks_question_to_the_client_and_its_answer_back() {
    let server = server(ServerConfig::default(), Arc::default());
    let (clients, http, asked, _served) = clients_2025(&server).await;
    for (over, client) in &clients {
        let created = call(client, "tools/call", json!({"name": "ask", "arguments": {}, "task": {}})).await.unwrap();
        let id = created["task"]["taskId"].clone();
        let waiting = poll_until(client, &id, |t| t["status"] == "input_required").await;
        assert_eq!(waiting["status"], "input_required", "{over}: {waiting}");
        assert!(waiting.get("inputRequests").is_none(), "the questions travel through tasks/result");
        asked.lock().unwrap().clear();
        let result = call(client, "tasks/result", json!({"taskId": id})).await.unwrap();
        assert_eq!(result["content"][0]["text"], "hello Ada", "{over}: {result}");
        // The question named its task.
        let related: Vec<Value> =
            asked.lock().unwrap().iter().map(|m| m["io.modelcontextprotocol/related-task"].clone()).collect();
        assert_eq!(related, vec![json!({"taskId": id})], "{over}");
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_2025_11_25_cancel_ends_the_task_before_it_answers_and_refuses_an_ended_one() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server(ServerConfig::default(), cancelled.clone());
    let (clients, http, _, _served) = clients_2025(&server).await;
    let client = &clients[1].1;
    let created = call(client, "tools/call", json!({"name": "slow", "arguments": {"ms": 60000}, "task": {}})).await.unwrap();
    let id = created["task"]["taskId"].clone();
    let answer = call(client, "tasks/cancel", json!({"taskId": id})).await.unwrap();
    assert_eq!((answer["taskId"].as_str(), answer["status"].as_str()), (id.as_str(), Some("cancelled")), "{answer}");
    assert_eq!(call(client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "cancelled");
    assert!(eventually(&cancelled).await, "the handler saw its cancellation");
    // Still cancelled once the handler wound down (it answered "stopped").
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(call(client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "cancelled");
    let again = call(client, "tasks/cancel", json!({"taskId": id})).await.unwrap_err();
    assert_eq!(again.code(), Some(-32602), "{again}");
    assert!(again.to_string().contains("already cancelled"), "{again}");
    let result = call(client, "tasks/result", json!({"taskId": id})).await.unwrap_err();
    assert!(result.to_string().contains("cancelled"), "{result}");
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_2025_11_25_task_is_its_sessions_alone_and_tasks_list_pages() {
    let config = ServerConfig { page_size: 2, ..Default::default() };
    let server = server(config, Arc::default());
    let (clients, http, _, _served) = clients_2025(&server).await;
    let (mine, other) = (&clients[0].1, &clients[1].1);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let created = call(mine, "tools/call", json!({"name": "slow", "arguments": {"ms": 60000}, "task": {}})).await.unwrap();
        ids.push(created["task"]["taskId"].clone());
    }
    let first = call(mine, "tasks/list", json!({})).await.unwrap();
    assert_eq!(first["tasks"].as_array().unwrap().len(), 2, "{first}");
    let second = call(mine, "tasks/list", json!({"cursor": first["nextCursor"]})).await.unwrap();
    let listed: Vec<Value> = first["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["tasks"].as_array().unwrap())
        .map(|t| t["taskId"].clone())
        .collect();
    assert_eq!(listed, ids);
    assert!(second.get("nextCursor").is_none());
    let bad = call(mine, "tasks/list", json!({"cursor": "zz"})).await.unwrap_err();
    assert_eq!(bad.code(), Some(-32602));
    // Another session sees none of them, and reaches none.
    assert_eq!(call(other, "tasks/list", json!({})).await.unwrap()["tasks"], json!([]));
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let err = call(other, method, json!({"taskId": ids[0]})).await.unwrap_err();
        assert_eq!(err.code(), Some(-32602), "{method}: {err}");
    }
    assert_eq!(call(mine, "tasks/get", json!({"taskId": ids[0]})).await.unwrap()["status"], "working");
    for id in &ids {
        call(mine, "tasks/cancel", json!({"taskId": id})).await.unwrap();
    }
    for (_, c) in clients {
        c.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_2025_11_25_tasks_progress_reaches_the_client_under_its_token_and_names_the_task() {
    let server = server(ServerConfig::default(), Arc::default());
    let (a, b) = MemoryTransport::pair();
    let _served = server.serve(a);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let client = Client::builder("c", "1")
        .era(Era::Session)
        .on_notification(move |n| {
            if let oxmcp::client::ServerNotification::Progress(p) = n {
                sink.lock().unwrap().push(serde_json::to_value(p).unwrap());
            }
        })
        .connect(b)
        .await
        .unwrap();
    let params = json!({"name": "stepping", "arguments": {}, "task": {}, "_meta": {"progressToken": "p1"}});
    let created = call(&client, "tools/call", params).await.unwrap();
    let id = created["task"]["taskId"].clone();
    let result = call(&client, "tasks/result", json!({"taskId": id})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "done");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!((seen[0]["progressToken"].as_str(), seen[0]["message"].as_str()), (Some("p1"), Some("halfway")));
    assert_eq!(seen[0]["_meta"]["io.modelcontextprotocol/related-task"], json!({"taskId": id}));
    client.close().await;
}
