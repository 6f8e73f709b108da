//! A running task's requests to the client. A task outlives the request that started it,
//! so it cannot send the client a request of its own: what its handler asks
//! (`ctx.elicit()`, `ctx.create_message()`, `ctx.list_roots()`) becomes an entry of the
//! task's `inputRequests`, the task waits in `input_required`, and the answer arrives
//! through `tasks/update` (on any node: answers go through the store).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::super::context::{ProgressTo, Questions};
use super::{clock, TaskStore};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, DetailedTask, Task, TaskStatus};

/// What one task asked and was answered.
pub(crate) struct TaskInputs {
    store: Arc<dyn TaskStore>,
    limits: super::TaskLimits,
    poll: Duration,
    state: Mutex<State>,
    /// `tasks/update` on this node wakes the waiting asks at once.
    wake: Notify,
    /// One write of the task's state at a time, the latest state each time.
    writing: tokio::sync::Mutex<()>,
    /// Where each stored change goes (the listen streams), and whose task it is.
    events: (Arc<super::TaskEvents>, Option<String>),
    /// A status message waits for its write: later ones ride along (a handler reporting
    /// progress in a tight loop costs a store write per write's time, not per report).
    status_pending: std::sync::atomic::AtomicBool,
    /// How the client asked for the task (a 2025-11-25 task keeps its progress token).
    form: super::TaskForm,
}

struct State {
    task: DetailedTask,
    asks: usize,
    /// Answers taken from the store and not yet claimed by their ask.
    received: Map<String, Value>,
}

impl TaskInputs {
    pub(crate) fn new(
        task: Task,
        form: super::TaskForm,
        (store, limits): (Arc<dyn TaskStore>, super::TaskLimits),
        poll: Duration,
        events: (Arc<super::TaskEvents>, Option<String>),
    ) -> Self {
        let task = DetailedTask { task, result: None, error: None, input_requests: None };
        TaskInputs {
            store,
            limits,
            poll,
            state: Mutex::new(State { task, asks: 0, received: Map::new() }),
            wake: Notify::new(),
            writing: tokio::sync::Mutex::new(()),
            events,
            status_pending: Default::default(),
            form,
        }
    }

    /// How the client asked for the task.
    pub(crate) fn form(&self) -> super::TaskForm {
        self.form
    }

    /// The task's id.
    pub(crate) fn task_id(&self) -> String {
        self.lock().task.task.task_id.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task as it stands here.
    pub(crate) fn snapshot(&self) -> DetailedTask {
        self.lock().task.clone()
    }

    /// Answers given on this node: the answered requests leave `inputRequests` before
    /// this returns (a `tasks/get` right after the acknowledgement no longer shows them),
    /// and the asks waiting for them go on.
    pub(crate) async fn deliver(&self, answers: Map<String, Value>) -> Result<()> {
        {
            let mut st = self.lock();
            let State { task, received, .. } = &mut *st;
            let requests = task.input_requests.get_or_insert_with(Map::new);
            for (key, answer) in answers {
                if requests.remove(&key).is_some() {
                    received.insert(key, answer);
                }
            }
            if requests.is_empty() {
                task.input_requests = None;
                task.task.status = TaskStatus::Working;
            }
            task.task.last_updated_at = clock::now();
        }
        self.wake.notify_waiters();
        self.publish().await
    }

    /// Sets the task's `statusMessage` (a handler's progress message), stored in the
    /// background.
    pub(crate) fn set_status_message(self: &Arc<Self>, message: &str) {
        {
            let mut st = self.lock();
            st.task.task.status_message = Some(message.to_string());
            st.task.task.last_updated_at = clock::now();
        }
        if self.status_pending.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return; // the write already scheduled takes the latest state
        }
        let inputs = self.clone();
        tokio::spawn(async move {
            // Cleared before the snapshot: a message after it schedules the next write.
            inputs.status_pending.store(false, std::sync::atomic::Ordering::SeqCst);
            let _ = inputs.publish().await;
        });
    }

    /// Stores the latest state (one write at a time, so an older state never lands last).
    async fn publish(&self) -> Result<()> {
        let _turn = self.writing.lock().await;
        let latest = self.snapshot();
        if self.store.update(latest.clone(), &self.limits).await? {
            self.events.0.send(super::TaskEvent { task: latest, owner: self.events.1.clone() });
        }
        Ok(())
    }

    /// Asks the client `method` with `params` under `key` (else `elicitation-N`,
    /// `sampling-N` or `roots-N` by the order of the asks) and waits for the answer, or
    /// fails as [`ErrorKind::Cancelled`] when the task is cancelled first.
    pub(crate) async fn ask(&self, key: Option<&str>, method: &str, params: Value, cancel: &CancellationToken) -> Result<Value> {
        let key = {
            let mut st = self.lock();
            st.asks += 1;
            let key = key.map(str::to_owned).unwrap_or_else(|| {
                let kind = match method {
                    methods::ELICITATION_CREATE => "elicitation",
                    methods::SAMPLING_CREATE_MESSAGE => "sampling",
                    _ => "roots",
                };
                format!("{kind}-{}", st.asks)
            });
            let requests = st.task.input_requests.get_or_insert_with(Map::new);
            requests.insert(key.clone(), json!({ "method": method, "params": params }));
            st.task.task.status = TaskStatus::InputRequired;
            st.task.task.last_updated_at = clock::now();
            key
        };
        self.publish().await?;
        loop {
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable(); // an answer arriving from here on is not missed
            let answers = self.store.take_answers(&self.snapshot().task.task_id).await?;
            let (mine, asked) = {
                let mut st = self.lock();
                st.received.extend(answers);
                let mine = st.received.remove(&key);
                // Answered through the store (another node's tasks/update): the request
                // is still listed here.
                let asked = mine.is_some() && st.task.input_requests.as_mut().is_some_and(|r| r.remove(&key).is_some());
                if asked {
                    if st.task.input_requests.as_ref().is_some_and(Map::is_empty) {
                        st.task.input_requests = None;
                        st.task.task.status = TaskStatus::Working;
                    }
                    st.task.task.last_updated_at = clock::now();
                }
                if !st.received.is_empty() {
                    self.wake.notify_waiters(); // another ask's answer came along with this one
                }
                (mine, asked)
            };
            if let Some(answer) = mine {
                if asked {
                    self.publish().await?;
                }
                return Ok(answer);
            }
            tokio::select! {
                _ = woken => {}
                _ = tokio::time::sleep(self.poll) => {}
                _ = cancel.cancelled() => {
                    return Err(Error::new(ErrorKind::Cancelled, "the task was cancelled while it waited for input"));
                }
            }
        }
    }
}

/// A task takes its handler's questions (and progress messages): the context hands them
/// on through this trait, naming no task.
impl Questions for TaskInputs {
    fn ask<'a>(
        &'a self,
        key: Option<&'a str>,
        method: &'a str,
        params: Value,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, Result<Value>> {
        Box::pin(TaskInputs::ask(self, key, method, params, cancel))
    }

    fn is_task(&self) -> bool {
        true
    }

    fn progress(self: Arc<Self>, message: Option<&str>) -> ProgressTo {
        if let Some(message) = message {
            self.set_status_message(message);
        }
        if self.form() == super::TaskForm::Extension {
            return ProgressTo::Nowhere;
        }
        ProgressTo::Task(self.task_id())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::future::BoxFuture;

    use super::*;
    use crate::protocol::{Task, TaskStatus};
    use crate::server::tasks::{MemoryTaskStore, TaskLimits, TaskRecord};

    /// The memory store, counting its updates.
    struct Counting(MemoryTaskStore, AtomicUsize);

    impl TaskStore for Counting {
        fn create<'a>(&'a self, record: TaskRecord, limits: &'a TaskLimits) -> BoxFuture<'a, Result<()>> {
            self.0.create(record, limits)
        }
        fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>> {
            self.0.get(task_id)
        }
        fn update<'a>(&'a self, task: DetailedTask, limits: &'a TaskLimits) -> BoxFuture<'a, Result<bool>> {
            self.1.fetch_add(1, Ordering::SeqCst);
            self.0.update(task, limits)
        }
        fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>> {
            self.0.request_cancel(task_id)
        }
        fn answer<'a>(&'a self, task_id: &'a str, responses: Map<String, Value>) -> BoxFuture<'a, Result<bool>> {
            self.0.answer(task_id, responses)
        }
        fn take_answers<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Map<String, Value>>> {
            self.0.take_answers(task_id)
        }
        fn list<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<Vec<String>>> {
            self.0.list(owner)
        }
    }

    #[tokio::test]
    async fn status_messages_in_a_tight_loop_cost_few_store_writes_and_the_last_one_lands() {
        let store = Arc::new(Counting(MemoryTaskStore::default(), AtomicUsize::new(0)));
        let now = clock::now();
        let task = Task {
            task_id: "t".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: None,
            poll_interval_ms: None,
        };
        let detailed = DetailedTask { task: task.clone(), result: None, error: None, input_requests: None };
        store.create(TaskRecord { task: detailed, owner: None, cancel_requested: false }, &TaskLimits::default()).await.unwrap();
        let events =
            Arc::new(super::super::TaskEvents { local: tokio::sync::broadcast::channel(4).0, relay: Default::default() });
        let inputs = Arc::new(TaskInputs::new(
            task,
            super::super::TaskForm::Extension,
            (store.clone(), TaskLimits::default()),
            Duration::from_millis(10),
            (events, None),
        ));
        for i in 0..10_000 {
            inputs.set_status_message(&format!("step {i}"));
        }
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        let stored = store.get("t").await.unwrap().unwrap();
        assert_eq!(stored.task.task.status_message.as_deref(), Some("step 9999"));
        let writes = store.1.load(Ordering::SeqCst);
        assert!((1..=2).contains(&writes), "{writes} writes for 10000 reports");
    }
}
