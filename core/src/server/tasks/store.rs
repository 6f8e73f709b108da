//! Where tasks live: the [`TaskStore`] trait and its in-memory default.
//!
//! A store may be shared by several server processes (the scale-out issue backs it with
//! Redis), so the trait assumes nothing of this process: every method is async, records
//! are values, and what one node writes another reads.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::protocol::DetailedTask;

/// A task as stored: its state as clients see it, and whose it is.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task as `tasks/get` reports it.
    pub task: DetailedTask,
    /// Who may see and steer it (the access token's subject on a protected server): a
    /// request of anyone else finds no such task.
    pub owner: Option<String>,
    /// Whether `tasks/cancel` asked for it to stop.
    pub cancel_requested: bool,
}

/// The tasks of one server (or of several sharing the store).
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task, for its `ttlMs` (or until deleted); once this returns, `get`
    /// finds it from any node. Fails (a JSON-RPC internal error for the client) when the
    /// store is full.
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<()>>;

    /// The task, if it exists and has not expired.
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>>;

    /// Replaces the task's state (status, result, input requests...) with `task`. A task
    /// already in a terminal status does not change; `false` if the task is gone or was
    /// terminal.
    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool>>;

    /// Records that the task should stop; `false` if there is no such task.
    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>>;

    /// Adds answers to the task's input requests, for its runner to take; `false` if
    /// there is no such task.
    fn answer<'a>(&'a self, task_id: &'a str, responses: Map<String, Value>) -> BoxFuture<'a, Result<bool>>;

    /// Takes the answers added since the last call.
    fn take_answers<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Map<String, Value>>>;
}

/// One stored task and when it expires.
struct Entry {
    record: TaskRecord,
    expires: Option<Instant>,
    answers: Map<String, Value>,
}

/// Tasks in this process's memory: at most `capacity` at once, each dropped when its TTL
/// has passed. A task without a TTL stays until the store is dropped, so servers give
/// every task one (see `TaskOptions`).
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<HashMap<String, Entry>>,
}

/// The default bound: a client flooding task creations gets errors past it, and memory
/// stays bounded.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_TASK_CAPACITY)
    }
}

impl MemoryTaskStore {
    /// A store keeping at most `capacity` tasks.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryTaskStore { capacity, tasks: Mutex::new(HashMap::new()) }
    }

    /// How many tasks it holds now (expired ones not counted).
    pub fn len(&self) -> usize {
        let mut tasks = self.lock();
        purge(&mut tasks);
        tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The live entry of `task_id` (an expired one is dropped on the way).
    fn with_entry<T>(&self, task_id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut tasks = self.lock();
        let expired = tasks.get(task_id).is_some_and(|e| e.expires.is_some_and(|at| at <= Instant::now()));
        if expired {
            tasks.remove(task_id);
            return None;
        }
        tasks.get_mut(task_id).map(f)
    }
}

fn purge(tasks: &mut HashMap<String, Entry>) {
    let now = Instant::now();
    tasks.retain(|_, e| e.expires.is_none_or(|at| at > now));
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<()>> {
        let outcome = (|| {
            let mut tasks = self.lock();
            if tasks.len() >= self.capacity {
                purge(&mut tasks);
                if tasks.len() >= self.capacity {
                    return Err(Error::internal(format!("the server holds {} tasks, its limit: try again later", self.capacity)));
                }
            }
            let id = record.task.task.task_id.clone();
            if tasks.contains_key(&id) {
                return Err(Error::internal(format!("task {id} exists already")));
            }
            let expires = record.task.task.ttl_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
            tasks.insert(id, Entry { record, expires, answers: Map::new() });
            Ok(())
        })();
        Box::pin(async move { outcome })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>> {
        let record = self.with_entry(task_id, |e| e.record.clone());
        Box::pin(async move { Ok(record) })
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool>> {
        let id = task.task.task_id.clone();
        let changed = self
            .with_entry(&id, |e| {
                if e.record.task.task.status.is_terminal() {
                    return false;
                }
                if task.task.ttl_ms != e.record.task.task.ttl_ms {
                    e.expires = task.task.ttl_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
                }
                e.record.task = task;
                true
            })
            .unwrap_or(false);
        Box::pin(async move { Ok(changed) })
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>> {
        let found = self.with_entry(task_id, |e| e.record.cancel_requested = true).is_some();
        Box::pin(async move { Ok(found) })
    }

    fn answer<'a>(&'a self, task_id: &'a str, responses: Map<String, Value>) -> BoxFuture<'a, Result<bool>> {
        let found = self.with_entry(task_id, |e| e.answers.extend(responses)).is_some();
        Box::pin(async move { Ok(found) })
    }

    fn take_answers<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Map<String, Value>>> {
        let answers = self.with_entry(task_id, |e| std::mem::take(&mut e.answers)).unwrap_or_default();
        Box::pin(async move { Ok(answers) })
    }
}
