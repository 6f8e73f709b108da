//! Tool calls that the server may run as tasks (the `io.modelcontextprotocol/tasks`
//! extension): [`Client::call_tool_as_task`] waits for the final result, polling the task
//! and answering what it asks with the client's handlers; [`Client::start_tool_task`],
//! [`Client::get_task`], [`Client::update_task`] and [`Client::cancel_task`] are the
//! steps, for those who keep a task id across restarts.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::handlers::answer_input_requests;
use super::stateless::Stateless;
use super::{parse_result, Client};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    meta, methods, CallToolRequestParams, CallToolResult, DetailedTask, Task, TaskStatus, RESULT_TASK, TASKS_EXTENSION,
};
use crate::session::{Peer, RequestOptions};

/// What a tool call started: its result at once, or a task to follow.
#[derive(Debug, Clone)]
pub enum TaskStart {
    /// The server answered at once (it runs this call synchronously).
    Done(CallToolResult),
    /// The server runs the call as this task.
    Task(Task),
}

/// Polling bounds: a server's `pollIntervalMs` is honoured within them.
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(30);

/// Sends `tasks/cancel` for a task whose caller stopped waiting.
struct CancelOnDrop {
    peer: Peer,
    /// The stateless era's request path (its `_meta`), when the client speaks it.
    stateless: Option<Arc<Stateless>>,
    task_id: Option<String>,
    params: Map<String, Value>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.task_id.take() else { return };
        let (peer, stateless, mut params) = (self.peer.clone(), self.stateless.clone(), self.params.clone());
        params.insert("taskId".into(), json!(id));
        let params = Some(Value::Object(params));
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let options = RequestOptions::default();
                let _ = match stateless {
                    Some(s) => s.request(&peer, methods::TASKS_CANCEL, params, options).await,
                    None => peer.request(methods::TASKS_CANCEL, params, options).await,
                };
            });
        }
    }
}

impl Client {
    /// The `_meta` that opts one request into the tasks extension: the client's
    /// capabilities with the extension added (so a client built without
    /// [`ClientBuilder::extension`](super::ClientBuilder::extension) may still use tasks).
    fn task_params(&self, mut params: Map<String, Value>) -> Result<Map<String, Value>> {
        let mut capabilities = self.capabilities.clone();
        capabilities.extensions.get_or_insert_with(Map::new).entry(TASKS_EXTENSION).or_insert_with(|| json!({}));
        let meta = params.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(m) = meta {
            m.insert(meta::CLIENT_CAPABILITIES.into(), serde_json::to_value(capabilities)?);
        }
        Ok(params)
    }

    async fn task_request(&self, method: &str, params: Map<String, Value>) -> Result<Value> {
        let params = self.task_params(params)?;
        self.request(method, Some(Value::Object(params)), RequestOptions::default()).await
    }

    /// Calls a tool, telling the server it may answer with a task; the result at once, or
    /// the task.
    pub async fn start_tool_task(&self, name: &str, arguments: Value) -> Result<TaskStart> {
        let mut call = CallToolRequestParams::new(name);
        call.arguments = super::tool_arguments(arguments)?;
        let Value::Object(params) = serde_json::to_value(call)? else { unreachable!("params serialize as an object") };
        let answer = self.task_request(methods::TOOLS_CALL, params).await?;
        if answer.get("resultType").and_then(Value::as_str) == Some(RESULT_TASK) {
            return parse_result(methods::TOOLS_CALL, answer).map(TaskStart::Task);
        }
        parse_result(methods::TOOLS_CALL, answer).map(TaskStart::Done)
    }

    /// The task as it stands (`tasks/get`): the result once completed, the error once
    /// failed, what it asks while input is required.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask> {
        let answer = self.task_request(methods::TASKS_GET, Map::from_iter([("taskId".into(), json!(task_id))])).await?;
        parse_result(methods::TASKS_GET, answer)
    }

    /// Answers some or all of the task's input requests, by their keys (`tasks/update`).
    pub async fn update_task(&self, task_id: &str, responses: Map<String, Value>) -> Result<()> {
        let params = Map::from_iter([("taskId".into(), json!(task_id)), ("inputResponses".into(), Value::Object(responses))]);
        self.task_request(methods::TASKS_UPDATE, params).await.map(|_| ())
    }

    /// Asks the server to stop the task (`tasks/cancel`); it may still finish otherwise.
    pub async fn cancel_task(&self, task_id: &str) -> Result<()> {
        self.task_request(methods::TASKS_CANCEL, Map::from_iter([("taskId".into(), json!(task_id))])).await.map(|_| ())
    }

    /// Calls a tool the server may run as a task, and waits for the final result: the
    /// task is polled at the server's `pollIntervalMs`, each status goes to `on_status`,
    /// what it asks is answered with this client's sampling, elicitation and roots
    /// handlers, and dropping the future cancels the task. A server that answers at once
    /// answers here as [`call_tool`](Client::call_tool) does.
    ///
    /// ```no_run
    /// # async fn f(client: oxmcp::client::Client) -> oxmcp::Result<()> {
    /// let result = client
    ///     .call_tool_as_task("build", serde_json::json!({"target": "release"}), |task| {
    ///         eprintln!("{}: {}", task.status.as_str(), task.status_message.as_deref().unwrap_or(""))
    ///     })
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        on_status: impl Fn(&Task) + Send + Sync,
    ) -> Result<CallToolResult> {
        let task = match self.start_tool_task(name, arguments).await? {
            TaskStart::Done(result) => return Ok(result),
            TaskStart::Task(task) => task,
        };
        on_status(&task);
        let id = task.task_id.clone();
        let mut guard = CancelOnDrop {
            peer: self.peer.clone(),
            stateless: self.stateless.as_ref().map(|(s, _)| s.clone()),
            task_id: Some(id.clone()),
            params: self.task_params(Map::new())?,
        };
        let mut poll = task.poll_interval_ms;
        let mut answered = HashSet::new();
        loop {
            let wait = poll.map_or(Duration::from_millis(500), Duration::from_millis).clamp(MIN_POLL, MAX_POLL);
            tokio::time::sleep(wait).await;
            let now = self.get_task(&id).await?;
            poll = now.task.poll_interval_ms.or(poll);
            on_status(&now.task);
            match now.task.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    // Each request once: a later poll may list it again before the server
                    // took the answer.
                    let new: Map<String, Value> =
                        now.input_requests.unwrap_or_default().into_iter().filter(|(k, _)| !answered.contains(k)).collect();
                    if !new.is_empty() {
                        answered.extend(new.keys().cloned());
                        let responses = answer_input_requests(&self.handlers, &self.peer, new).await?;
                        self.update_task(&id, responses).await?;
                    }
                }
                TaskStatus::Completed => {
                    guard.task_id = None;
                    let result = now
                        .result
                        .ok_or_else(|| Error::new(ErrorKind::Protocol, format!("task {id} completed without a result")))?;
                    return parse_result(methods::TOOLS_CALL, result);
                }
                TaskStatus::Failed => {
                    guard.task_id = None;
                    let error = now.error.and_then(|e| serde_json::from_value(e).ok());
                    return Err(match error {
                        Some(e) => Error::from_rpc(e),
                        None => Error::new(ErrorKind::Protocol, format!("task {id} failed without an error")),
                    });
                }
                TaskStatus::Cancelled => {
                    guard.task_id = None;
                    return Err(Error::new(ErrorKind::Cancelled, format!("task {id} was cancelled")));
                }
            }
        }
    }
}
