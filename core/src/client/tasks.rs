//! Tool calls that the server may run as tasks: [`Client::call_tool_as_task`] waits for
//! the final result, polling the task and answering what it asks with the client's
//! handlers; [`Client::start_tool_task`], [`Client::get_task`], [`Client::update_task`]
//! and [`Client::cancel_task`] are the steps, for those who keep a task id across
//! restarts.
//!
//! Two wire forms, chosen by what the server declared: the `io.modelcontextprotocol/tasks`
//! extension (the server decides; `tasks/get` inlines the outcome and the questions,
//! `tasks/update` answers them), and a 2025-11-25 server's task augmentation (the client
//! asks with `params.task`; [`Client::task_result`] waits for the outcome while the
//! task's questions arrive as requests the handlers answer; [`Client::list_tasks`]).
//! A 2025-11-25 tool that runs only as a task is called as one by
//! [`Client::call_tool`] too.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::handlers::answer_input_requests;
use super::stateless::Stateless;
use super::{parse_result, Client};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    meta, methods, CallToolRequestParams, CallToolResult, DetailedTask, ListTasksResult, ProtocolVersion, Task, TaskStatus,
    TaskSupport, Tool, RESULT_TASK, TASKS_EXTENSION,
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

/// Which tasks the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The extension (also what a server declaring neither is asked in).
    Extension,
    /// The 2025-11-25 task augmentation, of a server that declared
    /// `capabilities.tasks.requests.tools.call` and not the extension.
    Augmentation,
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
    fn task_form(&self) -> Form {
        let caps = self.server_capabilities();
        let extension = caps.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        if !extension && self.version == ProtocolVersion::V2025_11_25 && caps.tasks_tool_calls() {
            Form::Augmentation
        } else {
            Form::Extension
        }
    }

    /// Keeps what listed tools say of tasks.
    pub(super) fn note_task_support(&self, tools: &[Tool]) {
        let mut known = self.tool_tasks.lock().unwrap_or_else(|e| e.into_inner());
        for tool in tools {
            let support = tool.execution.as_ref().and_then(|e| e.task_support).unwrap_or(TaskSupport::Forbidden);
            known.insert(tool.name.clone(), support);
        }
    }

    /// Whether `name` is a 2025-11-25 server's tool that runs only as a task. A tool not
    /// listed yet is looked up (`tools/list`) first: such a server may refuse a plain call
    /// with an `isError` result rather than an error (the official TypeScript SDK does).
    pub(super) async fn runs_only_as_task(&self, name: &str) -> bool {
        if self.task_form() != Form::Augmentation {
            return false;
        }
        let known = |client: &Client| client.tool_tasks.lock().unwrap_or_else(|e| e.into_inner()).get(name).copied();
        let support = match known(self) {
            Some(support) => Some(support),
            None => match self.list_all_tools().await {
                Ok(_) => known(self),
                Err(_) => None,
            },
        };
        support == Some(TaskSupport::Required)
    }

    /// A tool that runs only as a task, called as one; the token of `options` cancels it.
    pub(super) async fn call_tool_as_required_task(
        &self,
        name: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<CallToolResult> {
        let call = self.call_tool_as_task(name, arguments, |_| {});
        match options.cancel {
            Some(token) => tokio::select! {
                r = call => r,
                // Dropping the call cancels the task.
                _ = token.cancelled() => Err(Error::new(ErrorKind::Cancelled, format!("the call of {name} was cancelled"))),
            },
            None => call.await,
        }
    }

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

    /// A task request in the server's form: the extension's carries the extension in
    /// its `_meta`.
    async fn task_request(&self, method: &str, params: Map<String, Value>) -> Result<Value> {
        let params = match self.task_form() {
            Form::Extension => self.task_params(params)?,
            Form::Augmentation => params,
        };
        self.request(method, Some(Value::Object(params)), RequestOptions::default()).await
    }

    /// Calls a tool, telling the server it may answer with a task; the result at once, or
    /// the task.
    pub async fn start_tool_task(&self, name: &str, arguments: Value) -> Result<TaskStart> {
        let mut call = CallToolRequestParams::new(name);
        call.arguments = super::tool_arguments(arguments)?;
        let Value::Object(mut params) = serde_json::to_value(call)? else { unreachable!("params serialize as an object") };
        if self.task_form() == Form::Augmentation {
            // The server's TTL: the client asks for no particular one.
            params.insert("task".into(), json!({}));
        }
        let mut answer = self.task_request(methods::TOOLS_CALL, params).await?;
        if let Some(task) = answer.get_mut("task").filter(|t| t.is_object()).map(Value::take) {
            return parse_result(methods::TOOLS_CALL, task).map(TaskStart::Task);
        }
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

    /// A 2025-11-25 server's `tasks/result`: waits until the task ends and returns what
    /// the call would have returned (its error, if the task failed). Meanwhile the
    /// task's questions arrive as requests, answered by this client's handlers.
    pub async fn task_result(&self, task_id: &str) -> Result<Value> {
        let params = json!({ "taskId": task_id });
        self.request(methods::TASKS_RESULT, Some(params), RequestOptions::default()).await
    }

    /// One page of a 2025-11-25 server's `tasks/list`: this client's tasks.
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult> {
        let value = self.request(methods::TASKS_LIST, Some(super::cursor_params(cursor)), RequestOptions::default()).await?;
        parse_result(methods::TASKS_LIST, value)
    }

    /// Every task of `tasks/list`, following `nextCursor`.
    pub async fn list_all_tasks(&self) -> Result<Vec<Task>> {
        self.all_pages(|c| async move { self.list_tasks(c.as_deref()).await.map(|r| (r.tasks, r.next_cursor)) }).await
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
        if self.task_form() == Form::Augmentation {
            let outcome = self.follow_2025(&id, poll, &on_status).await;
            if !matches!(&outcome, Err(e) if e.kind() == ErrorKind::Transport) {
                guard.task_id = None; // it ended
            }
            return outcome;
        }
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

impl Client {
    /// Follows a 2025-11-25 task to its end: polls it until it needs input or ended, then
    /// takes the outcome from `tasks/result` (the handlers answer its questions
    /// meanwhile), still polling for `on_status`.
    async fn follow_2025(
        &self,
        id: &str,
        mut poll: Option<u64>,
        on_status: &(impl Fn(&Task) + Send + Sync),
    ) -> Result<CallToolResult> {
        let interval =
            |poll: Option<u64>| poll.map_or(Duration::from_millis(500), Duration::from_millis).clamp(MIN_POLL, MAX_POLL);
        loop {
            tokio::time::sleep(interval(poll)).await;
            let now = self.get_task(id).await?;
            poll = now.task.poll_interval_ms.or(poll);
            on_status(&now.task);
            match now.task.status {
                TaskStatus::Working => {}
                TaskStatus::Cancelled => return Err(Error::new(ErrorKind::Cancelled, format!("task {id} was cancelled"))),
                _ => break,
            }
        }
        let result = self.task_result(id);
        tokio::pin!(result);
        loop {
            tokio::select! {
                outcome = &mut result => return parse_result(methods::TOOLS_CALL, outcome?),
                _ = tokio::time::sleep(interval(poll)) => {
                    if let Ok(now) = self.get_task(id).await {
                        on_status(&now.task);
                    }
                }
            }
        }
    }
}
