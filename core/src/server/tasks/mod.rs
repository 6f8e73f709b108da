//! Tasks, in two wire forms over one machinery (`TaskForm`). A tool that declares
//! `execution.taskSupport` and is called by a client that declared the
//! `io.modelcontextprotocol/tasks` extension is answered with a task handle at once and
//! runs in the background; `tasks/get` reports it (the result inlined once it completed),
//! `tasks/update` answers what it asked the client, `tasks/cancel` stops it. A client of
//! the 2025-11-25 specification asks for the task itself (`params.task`), and takes the
//! outcome and the task's questions from `tasks/result` (`augmented`).
//!
//! - `store`: [`TaskStore`], where tasks live, and [`MemoryTaskStore`];
//! - `augmented`: the 2025-11-25 form's methods (`tasks/get`, `tasks/result`,
//!   `tasks/list`, `tasks/cancel`);
//! - `shared`: [`SharedTaskStore`], tasks in a shared store (several nodes);
//! - `inputs`: a running task's requests to the client, surfaced as `inputRequests`;
//! - `clock`: the tasks' timestamps;
//! - `escalate`: calls that become tasks midway (escalating tools).

mod augmented;
mod clock;
mod escalate;
mod inputs;
mod owner;
mod quota;
mod shared;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::protocol::{codes, DetailedTask, ErrorObject, Task, TaskStatus, TASKS_EXTENSION};

pub(crate) use escalate::escalating_call;
pub(crate) use inputs::TaskInputs;
pub(crate) use owner::owner;
pub use quota::TaskLimits;
pub use shared::SharedTaskStore;
pub use store::{MemoryTaskStore, TaskRecord, TaskStore};

/// How a server keeps and paces its tasks.
#[derive(Clone)]
pub struct TaskOptions {
    /// Where tasks live (default: a [`MemoryTaskStore`] of this process).
    pub store: Arc<dyn TaskStore>,
    /// How many tasks, and how many bytes of them, the store keeps: per owner and in all,
    /// whichever store it is.
    pub limits: TaskLimits,
    /// How long after its creation a task is kept (`ttlMs`); `None` keeps it until the
    /// store drops it. Default: one hour.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients (`pollIntervalMs`). Default: 500 ms.
    pub poll_interval: Duration,
    /// The most tasks this server runs at once: a task outlives its request, so the
    /// session's limit on requests in flight does not bound them. Past it, a call that
    /// would start one is refused (-32603) until one ends. Default: 1000.
    pub max_running: usize,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            store: Arc::new(MemoryTaskStore::default()),
            limits: TaskLimits::default(),
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_running: 1000,
        }
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("limits", &self.limits)
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_running", &self.max_running)
            .finish_non_exhaustive()
    }
}

/// How a client asked for a task, and so how the task is written to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskForm {
    /// The tasks extension (SEP-2663): the server decides, `tasks/get` inlines the outcome
    /// and the questions, `tasks/update` answers them.
    Extension,
    /// The 2025-11-25 specification: the client asked with `params.task`; `tasks/result`
    /// gives the outcome and carries the questions as requests to the client.
    Augmentation,
}

impl TaskForm {
    /// The answer to the request that created `task`.
    fn created(self, task: &Task) -> Result<Value, ErrorObject> {
        match self {
            TaskForm::Extension => {
                let mut created = serde_json::to_value(task).map_err(|e| ErrorObject::internal(e.to_string()))?;
                created["resultType"] = json!("task");
                Ok(created)
            }
            TaskForm::Augmentation => Ok(json!({ "task": task.to_2025() })),
        }
    }
}

/// The -32021 error of a request that needs the tasks extension the client did not
/// declare.
pub(crate) fn extension_required(what: &str) -> ErrorObject {
    ErrorObject::new(codes::MISSING_CLIENT_CAPABILITY, format!("{what} needs the client capability {TASKS_EXTENSION}"))
        .with_data(json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } }))
}

fn unknown(task_id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("unknown task: {task_id}"))
}

fn store_error(e: crate::Error) -> ErrorObject {
    e.to_error_object()
}

/// The tasks of one server: the store, and the cancellation of those running here.
pub(crate) struct Tasks {
    options: TaskOptions,
    /// How long a cancelled task's handler may take to wind down.
    grace: Duration,
    /// Tasks running in this process, by id: what `tasks/cancel` and `tasks/update` reach
    /// at once (another node's runner learns of them from the store).
    running: Mutex<HashMap<String, Running>>,
    /// Every stored change of a task running here (of every node's, when shared).
    events: Arc<TaskEvents>,
    /// Tasks started here and not ended (a slot is taken before the task is stored, so
    /// concurrent starts cannot overshoot `max_running`).
    slots: std::sync::atomic::AtomicUsize,
    /// The questions a `tasks/result` call is putting to the client now, by task and key:
    /// another call for the same task does not ask them twice.
    forwarding: Mutex<std::collections::HashSet<(String, String)>>,
}

struct Running {
    cancel: CancellationToken,
    inputs: Arc<TaskInputs>,
}

/// A running task's place under `max_running`.
struct SlotGuard(Arc<Tasks>);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.0.slots.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Where the changes of tasks go: to this process's listen streams, or, when the server
/// shares its sessions with other nodes, to every node's (which then hear them back).
pub(crate) struct TaskEvents {
    local: tokio::sync::broadcast::Sender<TaskEvent>,
    relay: std::sync::OnceLock<Box<dyn Fn(TaskEvent) + Send + Sync>>,
}

impl TaskEvents {
    /// A task's change, for every listener that may hear it.
    pub(crate) fn send(&self, event: TaskEvent) {
        match self.relay.get() {
            Some(relay) => relay(event),
            None => self.deliver(event),
        }
    }

    /// A change for this process's listeners.
    pub(crate) fn deliver(&self, event: TaskEvent) {
        let _ = self.local.send(event);
    }
}

/// A task's new state, for the `subscriptions/listen` streams that follow it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct TaskEvent {
    pub(crate) task: DetailedTask,
    /// Whose task it is: a stream of someone else hears nothing of it.
    pub(crate) owner: Option<String>,
}

/// Events a slow listener may fall behind by before it misses some (it can still poll).
const EVENT_BACKLOG: usize = 256;

impl Tasks {
    pub(crate) fn new(options: TaskOptions, grace: Duration) -> Arc<Tasks> {
        let (local, _) = tokio::sync::broadcast::channel(EVENT_BACKLOG);
        let events = Arc::new(TaskEvents { local, relay: std::sync::OnceLock::new() });
        Arc::new(Tasks {
            options,
            grace,
            running: Mutex::new(HashMap::new()),
            events,
            slots: Default::default(),
            forwarding: Default::default(),
        })
    }

    /// The changes of the tasks running here (every node's, when shared), from now on.
    pub(crate) fn subscribe(&self) -> tokio::sync::broadcast::Receiver<TaskEvent> {
        self.events.local.subscribe()
    }

    #[cfg(feature = "http")]
    /// Sends every task change through `relay` (to every node) instead of to this
    /// process's listeners; set once.
    pub(crate) fn relay_events(&self, relay: impl Fn(TaskEvent) + Send + Sync + 'static) {
        let _ = self.events.relay.set(Box::new(relay));
    }

    /// A task change another node (or this one, through the relay) published.
    pub(crate) fn heard(&self, event: TaskEvent) {
        self.events.deliver(event);
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates a task owned by `owner` (durably: once this returns, `tasks/get` finds it)
    /// and runs `work` in the background with the task's cancellation and inputs; its
    /// outcome completes the task (an `Err` fails it). Returns the `CreateTaskResult` in
    /// `form`. The task is kept for the server's TTL, or for `ttl` if the client asked
    /// for less.
    pub(crate) async fn start(
        self: &Arc<Self>,
        owner: Option<String>,
        (form, ttl): (TaskForm, Option<Duration>),
        work: impl FnOnce(CancellationToken, Arc<TaskInputs>) -> BoxFuture<'static, Result<Value, ErrorObject>>,
    ) -> Result<Value, ErrorObject> {
        use std::sync::atomic::Ordering::SeqCst;
        if self.slots.fetch_add(1, SeqCst) >= self.options.max_running {
            self.slots.fetch_sub(1, SeqCst);
            return Err(ErrorObject::internal(format!(
                "the server runs {} tasks, its limit: try again later",
                self.options.max_running
            )));
        }
        // Given back when the task ends, or now if it cannot be created.
        let slot = SlotGuard(self.clone());
        let now = clock::now();
        let task = Task {
            task_id: crate::random::random_id(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: match (self.options.ttl, ttl) {
                (Some(kept), Some(asked)) => Some(kept.min(asked)),
                (kept, asked) => kept.or(asked),
            }
            .map(|t| t.as_millis() as u64),
            poll_interval_ms: Some(self.options.poll_interval.as_millis() as u64),
        };
        let detailed = DetailedTask { task: task.clone(), result: None, error: None, input_requests: None };
        let record = TaskRecord { task: detailed, owner: owner.clone(), cancel_requested: false };
        self.options.store.create(record, &self.options.limits).await.map_err(store_error)?;
        let cancel = CancellationToken::new();
        let events = (self.events.clone(), owner.clone());
        let kept = (self.options.store.clone(), self.options.limits);
        let inputs = Arc::new(TaskInputs::new(task.clone(), form, kept, self.options.poll_interval, events));
        let id = task.task_id.clone();
        self.running().insert(id.clone(), Running { cancel: cancel.clone(), inputs: inputs.clone() });
        let run = work(cancel.clone(), inputs.clone());
        let tasks = self.clone();
        // The task's life, from here to its last status, under the span of the request that
        // made it (telemetry on): what it does in its run is the child of this one.
        let life = crate::telemetry::Step::internal("task", vec![opentelemetry::KeyValue::new("oxmcp.task.id", id.clone())]);
        let cx = life.as_ref().map(|s| s.context().clone());
        let lived = async move {
            tokio::pin!(run);
            // A handler ending because it saw the cancel ends a cancelled task.
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                r = &mut run => Some(r),
                _ = tasks.cancelled_elsewhere(&id) => None,
            };
            // A failed task says why in its statusMessage too (what a 2025-11-25 client reads).
            let (status, result, error, why) = match outcome {
                Some(Ok(result)) => (TaskStatus::Completed, Some(strip_result(result)), None, None),
                Some(Err(error)) => (TaskStatus::Failed, None, serde_json::to_value(&error).ok(), Some(error.message)),
                None => (TaskStatus::Cancelled, None, None, None),
            };
            let mut last = inputs.snapshot();
            last.task.status = status;
            if why.is_some() {
                last.task.status_message = why;
            }
            last.task.last_updated_at = clock::now();
            let done = DetailedTask { result, error, input_requests: None, ..last };
            match tasks.options.store.update(done.clone(), &tasks.options.limits).await {
                Ok(true) => {
                    tasks.events.send(TaskEvent { task: done, owner });
                }
                Ok(false) => {}
                Err(e) => tracing::warn!("task {id}: its outcome could not be stored: {e}"),
            }
            if status == TaskStatus::Cancelled {
                // The handler sees its cancellation and gets the grace period to wind down
                // (what it answers then is nobody's: the task stays cancelled).
                cancel.cancel();
                let _ = tokio::time::timeout(tasks.grace, run).await;
            }
            tasks.running().remove(&id);
            drop(slot);
            if let Some(life) = life {
                life.set_attribute(opentelemetry::KeyValue::new("oxmcp.task.status", status.as_str().to_owned()));
                life.end(match status {
                    TaskStatus::Completed => Ok(()),
                    TaskStatus::Cancelled => Err(("cancelled", "the task was cancelled")),
                    _ => Err(("task_failed", "the task failed")),
                });
            }
        };
        match cx {
            Some(cx) => drop(tokio::spawn(opentelemetry::trace::FutureExt::with_context(lived, cx))),
            None => drop(tokio::spawn(lived)),
        }
        form.created(&task)
    }

    /// Resolves once `tasks/cancel` reached the task through another node (the store);
    /// a cancel on this node reaches the runner's token directly.
    async fn cancelled_elsewhere(&self, task_id: &str) {
        loop {
            tokio::time::sleep(self.options.poll_interval.max(Duration::from_millis(100))).await;
            match self.options.store.get(task_id).await {
                Ok(Some(r)) if !r.cancel_requested && !r.task.task.status.is_terminal() => {}
                Ok(None) => return, // expired or deleted: nobody can read the outcome
                Ok(Some(_)) => return,
                Err(_) => {} // the store is unreachable for now: keep running
            }
        }
    }

    /// The task for `tasks/get`, if `owner` may see it.
    async fn record(&self, task_id: &str, owner: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        let record = self.options.store.get(task_id).await.map_err(store_error)?.ok_or_else(|| unknown(task_id))?;
        // Another client's task is as unknown as a task that never was.
        if record.owner.is_some() && record.owner.as_deref() != owner {
            return Err(unknown(task_id));
        }
        Ok(record)
    }

    /// `tasks/get`: the task with what its status brings.
    pub(crate) async fn get(&self, task_id: &str, owner: Option<&str>) -> Result<Value, ErrorObject> {
        let record = self.record(task_id, owner).await?;
        let mut answer = serde_json::to_value(record.task).map_err(|e| ErrorObject::internal(e.to_string()))?;
        answer["resultType"] = json!("complete");
        Ok(answer)
    }

    /// `tasks/cancel`: a task still running is `cancelled` in the store before this
    /// acknowledges (the extension only asks for the intent, but a `tasks/get` right after
    /// should not still read `working`); its handler sees the cancellation. Acknowledged
    /// however it stood.
    pub(crate) async fn cancel(&self, task_id: &str, owner: Option<&str>) -> Result<Value, ErrorObject> {
        let record = self.record(task_id, owner).await?;
        if !record.task.task.status.is_terminal() {
            self.mark_cancelled(record).await?;
        }
        Ok(json!({ "resultType": "complete" }))
    }

    /// Stores `record`'s task as `cancelled` and stops its handler, here or (through the
    /// store) on the node running it. The task as stored, or `None` if it ended between
    /// the caller's read and this write.
    async fn mark_cancelled(&self, record: TaskRecord) -> Result<Option<DetailedTask>, ErrorObject> {
        let task_id = record.task.task.task_id.clone();
        let mut task = record.task;
        task.task.status = TaskStatus::Cancelled;
        task.task.status_message = Some("cancelled by the client".into());
        task.task.last_updated_at = clock::now();
        task.input_requests = None;
        self.options.store.request_cancel(&task_id).await.map_err(store_error)?;
        if !self.options.store.update(task.clone(), &self.options.limits).await.map_err(store_error)? {
            return Ok(None);
        }
        let local = self.running().get(&task_id).map(|r| r.cancel.clone());
        if let Some(token) = local {
            token.cancel();
        }
        self.events.send(TaskEvent { task: task.clone(), owner: record.owner });
        Ok(Some(task))
    }

    /// `tasks/update`: answers to what the task asked. Keys it is not waiting for are
    /// ignored; a task that waits for nothing is an error.
    pub(crate) async fn update(
        &self,
        task_id: &str,
        owner: Option<&str>,
        responses: Map<String, Value>,
    ) -> Result<Value, ErrorObject> {
        let record = self.record(task_id, owner).await?;
        if record.task.task.status != TaskStatus::InputRequired {
            return Err(ErrorObject::invalid_params(format!(
                "task {task_id} is not waiting for input (it is {})",
                record.task.task.status.as_str()
            )));
        }
        let waiting = record.task.input_requests.clone().unwrap_or_default();
        let wanted: Map<String, Value> = responses.into_iter().filter(|(k, _)| waiting.contains_key(k)).collect();
        if wanted.is_empty() {
            return Ok(json!({ "resultType": "complete" }));
        }
        let local = self.running().get(task_id).map(|r| r.inputs.clone());
        match local {
            Some(inputs) => inputs.deliver(wanted).await.map_err(store_error)?,
            None => {
                // The task runs on another node: the answers wait in the store for its
                // runner, and the answered requests leave the task's state now.
                let mut task = record.task;
                let requests = task.input_requests.get_or_insert_with(Map::new);
                for key in wanted.keys() {
                    requests.remove(key);
                }
                if requests.is_empty() {
                    task.input_requests = None;
                    task.task.status = TaskStatus::Working;
                }
                self.options.store.answer(task_id, wanted).await.map_err(store_error)?;
                self.options.store.update(task, &self.options.limits).await.map_err(store_error)?;
            }
        }
        Ok(json!({ "resultType": "complete" }))
    }
}

/// A tool result as a task inlines it: the stateless era's envelope fields belong to the
/// `tasks/get` answer, not to the result inside it.
fn strip_result(mut result: Value) -> Value {
    if let Value::Object(fields) = &mut result {
        fields.remove("resultType");
    }
    result
}
