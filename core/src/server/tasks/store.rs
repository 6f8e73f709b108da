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

use super::quota::{self, Ledger, TaskLimits};
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
    /// finds it from any node. Fails (a JSON-RPC internal error for the client, naming
    /// the bound) when its owner's tasks or all tasks are at a bound of `limits`.
    fn create<'a>(&'a self, record: TaskRecord, limits: &'a TaskLimits) -> BoxFuture<'a, Result<()>>;

    /// The task, if it exists and has not expired.
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>>;

    /// Replaces the task's state (status, result, input requests...) with `task`. A task
    /// already in a terminal status does not change; `false` if the task is gone or was
    /// terminal. A state that would take its owner's or all tasks past a byte bound of
    /// `limits` is not kept: the task ends failed instead, its error naming the bound.
    fn update<'a>(&'a self, task: DetailedTask, limits: &'a TaskLimits) -> BoxFuture<'a, Result<bool>>;

    /// Records that the task should stop; `false` if there is no such task.
    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>>;

    /// Adds answers to the task's input requests, for its runner to take; `false` if
    /// there is no such task.
    fn answer<'a>(&'a self, task_id: &'a str, responses: Map<String, Value>) -> BoxFuture<'a, Result<bool>>;

    /// Takes the answers added since the last call.
    fn take_answers<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Map<String, Value>>>;

    /// The ids of the tasks `owner` owns and that have not expired, oldest first
    /// (`tasks/list`); at most as many as the per-owner bound lets it hold.
    fn list<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<Vec<String>>>;
}

/// One stored task, when it expires, and what it holds under the bounds.
struct Entry {
    record: TaskRecord,
    expires: Option<Instant>,
    answers: Map<String, Value>,
    /// Its ledger bucket and size.
    bucket: u64,
    bytes: u64,
    /// Its place in the order of creation.
    seq: u64,
}

/// Tasks in this process's memory, each dropped when its TTL has passed. A task without a
/// TTL stays until the store is dropped, so servers give every task one (see
/// `TaskOptions`); how many and how large they are is bounded by `TaskOptions::limits`.
#[derive(Default)]
pub struct MemoryTaskStore {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    tasks: HashMap<String, Entry>,
    /// What all tasks hold, and each owner's (anonymous ones under "").
    all: Ledger,
    owners: HashMap<String, Ledger>,
    /// Tasks created so far (the next one's `seq`).
    created: u64,
}

/// Ledger buckets one millisecond wide: an expired task's share is given back as it expires.
const GRANULARITY: u64 = 1;

impl State {
    fn owner(&mut self, owner: &Option<String>) -> &mut Ledger {
        self.owners.entry(owner.clone().unwrap_or_default()).or_default()
    }

    /// Charges a task's change to its owner's ledger and to all.
    fn charge(&mut self, owner: &Option<String>, bucket: u64, tasks: i64, bytes: i64) {
        self.owner(owner).charge(bucket, tasks, bytes);
        self.all.charge(bucket, tasks, bytes);
    }

    /// Forgets the ledgers of owners holding nothing (a flood of sessions leaves no trail).
    fn sweep_owners(&mut self) {
        self.owners.retain(|_, l| l.live() != quota::Usage::default());
    }
}

impl MemoryTaskStore {
    /// How many tasks it holds now (expired ones not counted).
    pub fn len(&self) -> usize {
        let mut state = self.lock();
        purge(&mut state.tasks);
        state.tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The live entry of `task_id` (an expired one is dropped on the way).
    fn with_entry<T>(&self, task_id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut state = self.lock();
        let expired = state.tasks.get(task_id).is_some_and(|e| e.expires.is_some_and(|at| at <= Instant::now()));
        if expired {
            state.tasks.remove(task_id);
            return None;
        }
        state.tasks.get_mut(task_id).map(f)
    }
}

fn purge(tasks: &mut HashMap<String, Entry>) {
    let now = Instant::now();
    tasks.retain(|_, e| e.expires.is_none_or(|at| at > now));
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, record: TaskRecord, limits: &'a TaskLimits) -> BoxFuture<'a, Result<()>> {
        let outcome = (|| {
            let mut state = self.lock();
            let id = record.task.task.task_id.clone();
            if state.tasks.contains_key(&id) {
                return Err(Error::internal(format!("task {id} exists already")));
            }
            if state.owners.len() > limits.max_tasks {
                state.sweep_owners();
            }
            let bytes = quota::size(&record.task);
            let all = state.all.live();
            let mine = state.owner(&record.owner).live();
            if let Some(why) = quota::refuse_new(limits, mine, all, bytes) {
                return Err(Error::internal(why));
            }
            if state.tasks.len() >= limits.max_tasks {
                purge(&mut state.tasks); // the map follows the ledger: expired entries go
            }
            let ttl = record.task.task.ttl_ms;
            let bucket = quota::bucket(ttl, GRANULARITY);
            state.charge(&record.owner, bucket, 1, bytes as i64);
            let expires = ttl.map(|ms| Instant::now() + Duration::from_millis(ms));
            state.created += 1;
            let seq = state.created;
            state.tasks.insert(id, Entry { record, expires, answers: Map::new(), bucket, bytes, seq });
            Ok(())
        })();
        Box::pin(async move { outcome })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>> {
        let record = self.with_entry(task_id, |e| e.record.clone());
        Box::pin(async move { Ok(record) })
    }

    fn update<'a>(&'a self, task: DetailedTask, limits: &'a TaskLimits) -> BoxFuture<'a, Result<bool>> {
        let changed = (|| {
            let mut state = self.lock();
            let id = task.task.task_id.clone();
            let Some(e) = state.tasks.get(&id) else { return false };
            if e.expires.is_some_and(|at| at <= Instant::now()) || e.record.task.task.status.is_terminal() {
                return false;
            }
            let (owner, old_bucket, old_bytes) = (e.record.owner.clone(), e.bucket, e.bytes);
            let ttl_changed = task.task.ttl_ms != e.record.task.task.ttl_ms;
            let mut task = task;
            let mut bytes = quota::size(&task);
            if bytes > old_bytes {
                let (mine, all) = (state.owner(&owner).live(), state.all.live());
                if let Some(why) = quota::refuse_bytes(limits, mine, all, bytes - old_bytes) {
                    task = quota::too_large(task, &why);
                    bytes = quota::size(&task);
                }
            }
            let ttl = task.task.ttl_ms;
            let bucket = if ttl_changed { quota::bucket(ttl, GRANULARITY) } else { old_bucket };
            state.charge(&owner, old_bucket, -1, -(old_bytes as i64));
            state.charge(&owner, bucket, 1, bytes as i64);
            let e = state.tasks.get_mut(&id).expect("looked up above");
            if ttl_changed {
                e.expires = ttl.map(|ms| Instant::now() + Duration::from_millis(ms));
            }
            (e.record.task, e.bucket, e.bytes) = (task, bucket, bytes);
            true
        })();
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

    fn list<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<Vec<String>>> {
        let mut state = self.lock();
        purge(&mut state.tasks);
        let mut mine: Vec<(u64, String)> = state
            .tasks
            .iter()
            .filter(|(_, e)| e.record.owner.as_deref() == Some(owner))
            .map(|(id, e)| (e.seq, id.clone()))
            .collect();
        drop(state);
        mine.sort_unstable();
        Box::pin(async move { Ok(mine.into_iter().map(|(_, id)| id).collect()) })
    }
}
