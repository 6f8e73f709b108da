//! [`SharedTaskStore`]: tasks kept in a [`SharedStore`] (Redis for a scaled-out server),
//! so that `tasks/get`, `tasks/update` and `tasks/cancel` reaching any node find the task
//! its runner on another node keeps up to date.
//!
//! Each task is two records: the task (its state, owner and cancel flag) and the answers
//! waiting for its runner. Every change is a compare-and-swap on one record, retried when
//! another node changed it in between, so no node's change overwrites another's. What the
//! tasks hold is counted in ledger records (one per owner, one for all), swapped the same
//! way, so the bounds hold for every node together.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::quota::{self, Ledger, TaskLimits, Usage};
use super::store::{TaskRecord, TaskStore};
use crate::error::{Error, Result};
use crate::protocol::DetailedTask;
use crate::store::{SharedStore, StoreError};

/// How long a task without `ttlMs` is kept: a shared store is not emptied by a restart.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// Compare-and-swap attempts before giving up (each lost race is another node's write).
const ATTEMPTS: usize = 32;
/// Ledger buckets ten seconds wide (in milliseconds): a ledger of tasks kept an hour holds
/// at most 360, and an expired task's share is given back within ten seconds.
const GRANULARITY: u64 = 10_000;

/// A [`TaskStore`] on a [`SharedStore`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use oxmcp::server::tasks::{SharedTaskStore, TaskOptions};
/// let store = Arc::new(oxmcp::store::MemoryStore::default());
/// let options = TaskOptions { store: Arc::new(SharedTaskStore::new(store)), ..Default::default() };
/// # drop(options); }
/// ```
pub struct SharedTaskStore {
    store: Arc<dyn SharedStore>,
}

impl SharedTaskStore {
    /// Tasks in `store`.
    pub fn new(store: Arc<dyn SharedStore>) -> Self {
        SharedTaskStore { store }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    task: Value,
    owner: Option<String>,
    cancel_requested: bool,
    /// The task's ledger bucket.
    #[serde(default)]
    bucket: u64,
}

fn task_key(id: &str) -> String {
    format!("task:{id}")
}

fn answers_key(id: &str) -> String {
    format!("task-answers:{id}")
}

/// The ledger of what all tasks hold, or (given an owner) what one owner's hold.
fn ledger_key(owner: Option<&Option<String>>) -> String {
    match owner {
        None => "task-usage".into(),
        Some(o) => format!("task-usage:{}", owner_hash(o.as_deref().unwrap_or_default())),
    }
}

/// The ids of one owner's tasks, with when each expires (`tasks/list`).
fn index_key(owner: &str) -> String {
    format!("task-index:{}", owner_hash(owner))
}

/// Hashed: an owner names a user and a session, which have no place in a key.
fn owner_hash(owner: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(owner.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds since the Unix epoch: expiries every node reads alike.
fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// An owner's index: `(task id, expiry in Unix milliseconds)`, oldest first.
type Index = Vec<(String, u64)>;

fn live_index(bytes: Option<&[u8]>) -> Index {
    let now = unix_ms();
    let index: Index = bytes.and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default();
    index.into_iter().filter(|(_, expires)| *expires > now).collect()
}

fn failed(e: StoreError) -> Error {
    Error::internal(e.to_string())
}

fn encode(record: &TaskRecord, bucket: u64) -> Result<Bytes> {
    let stored = Stored {
        task: serde_json::to_value(&record.task).map_err(|e| Error::internal(e.to_string()))?,
        owner: record.owner.clone(),
        cancel_requested: record.cancel_requested,
        bucket,
    };
    Ok(Bytes::from(serde_json::to_vec(&stored).map_err(|e| Error::internal(e.to_string()))?))
}

fn decode(bytes: &[u8]) -> Result<(TaskRecord, u64)> {
    let stored: Stored =
        serde_json::from_slice(bytes).map_err(|e| Error::internal(format!("a stored task does not parse: {e}")))?;
    let task: DetailedTask =
        serde_json::from_value(stored.task).map_err(|e| Error::internal(format!("a stored task does not parse: {e}")))?;
    Ok((TaskRecord { task, owner: stored.owner, cancel_requested: stored.cancel_requested }, stored.bucket))
}

impl SharedTaskStore {
    /// Adds a new task to its owner's index, dropping the expired ones (so an index holds
    /// no more than the per-owner bound of live tasks).
    async fn index(&self, owner: &str, id: &str, ttl: Duration) -> Result<()> {
        let key = index_key(owner);
        for _ in 0..ATTEMPTS {
            let current = self.store.get_value(&key).await.map_err(failed)?;
            let mut index = live_index(current.as_deref());
            index.push((id.to_string(), unix_ms() + ttl.as_millis() as u64));
            // The index lasts as long as its last task.
            let lasts = index.iter().map(|(_, e)| e.saturating_sub(unix_ms())).max().unwrap_or_default();
            let new = Bytes::from(serde_json::to_vec(&index).map_err(|e| Error::internal(e.to_string()))?);
            if self.store.swap_value(&key, current, new, Some(Duration::from_millis(lasts.max(1)))).await.map_err(failed)? {
                return Ok(());
            }
        }
        Err(Error::internal(format!("{key} kept changing under this node: try again")))
    }

    /// Applies `change` to record `key` (`None` in, the record is absent; `None` out, leave
    /// it) until it sticks; returns what `change` said.
    async fn change<T>(&self, key: &str, mut change: impl FnMut(Option<&[u8]>) -> Result<(Option<Bytes>, T)>) -> Result<T> {
        for _ in 0..ATTEMPTS {
            let current = self.store.get_value(key).await.map_err(failed)?;
            let (new, outcome) = change(current.as_deref())?;
            let Some(new) = new else { return Ok(outcome) };
            if self.store.swap_value(key, current, new, None).await.map_err(failed)? {
                return Ok(outcome);
            }
        }
        Err(Error::internal(format!("{key} kept changing under this node: try again")))
    }

    /// Charges `tasks` and `bytes` in `bucket` to one ledger, unless `refuse` (given what
    /// the ledger holds) says why not.
    async fn charge_one(
        &self,
        key: &str,
        bucket: u64,
        (tasks, bytes): (i64, i64),
        refuse: impl Fn(Usage) -> Option<String>,
    ) -> Result<std::result::Result<(), String>> {
        for _ in 0..ATTEMPTS {
            let current = self.store.get_value(key).await.map_err(failed)?;
            let mut ledger: Ledger = current.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default();
            if let Some(why) = refuse(ledger.live()) {
                return Ok(Err(why));
            }
            ledger.charge(bucket, tasks, bytes);
            let encoded = Bytes::from(serde_json::to_vec(&ledger).map_err(|e| Error::internal(e.to_string()))?);
            // The ledger lasts as long as the last task it counts.
            if self.store.swap_value(key, current, encoded, Some(ledger.lasts())).await.map_err(failed)? {
                return Ok(Ok(()));
            }
        }
        Err(Error::internal(format!("{key} kept changing under this node: try again")))
    }

    /// Charges a change to its owner's ledger and to all tasks' (checked against `limits`
    /// when given: refused, nothing is charged); `Err(why)` names the bound it would pass.
    async fn charge(
        &self,
        owner: &Option<String>,
        bucket: u64,
        change: (i64, i64),
        limits: Option<(&TaskLimits, bool)>,
    ) -> Result<std::result::Result<(), String>> {
        let add = change.1.max(0) as u64;
        // (limits, new): a new task is checked against the task counts too.
        let refuse = |mine: Usage, all: Usage| match limits {
            None => None,
            Some((l, true)) => quota::refuse_new(l, mine, all, add),
            Some((l, false)) => quota::refuse_bytes(l, mine, all, add),
        };
        let own_key = ledger_key(Some(owner));
        if let Err(why) = self.charge_one(&own_key, bucket, change, |mine| refuse(mine, Usage::default())).await? {
            return Ok(Err(why));
        }
        let outcome = self.charge_one(&ledger_key(None), bucket, change, |all| refuse(Usage::default(), all)).await;
        if !matches!(outcome, Ok(Ok(()))) {
            // Given back to the owner: nothing was kept.
            self.charge_one(&own_key, bucket, (-change.0, -change.1), |_| None).await?.map_err(Error::internal)?;
        }
        outcome
    }
}

impl TaskStore for SharedTaskStore {
    fn create<'a>(&'a self, record: TaskRecord, limits: &'a TaskLimits) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let id = record.task.task.task_id.clone();
            let ttl = record.task.task.ttl_ms.map_or(DEFAULT_TTL, Duration::from_millis);
            let bucket = quota::bucket(Some(ttl.as_millis() as u64), GRANULARITY);
            let bytes = quota::size(&record.task) as i64;
            self.charge(&record.owner, bucket, (1, bytes), Some((limits, true))).await?.map_err(Error::internal)?;
            // Indexed before it is stored: an index that cannot be written fails the create
            // with nothing kept, and an id indexed for a task that then fails to be stored is
            // skipped by `tasks/list` (the record is not there).
            let indexed = match &record.owner {
                Some(owner) => self.index(owner, &id, ttl).await,
                None => Ok(()),
            };
            let created = match indexed {
                Ok(()) => self.store.swap_value(&task_key(&id), None, encode(&record, bucket)?, Some(ttl)).await.map_err(failed),
                Err(e) => Err(e),
            };
            if !matches!(created, Ok(true)) {
                self.charge(&record.owner, bucket, (-1, -bytes), None).await?.map_err(Error::internal)?;
            }
            if !created? {
                return Err(Error::internal(format!("task {id} exists already")));
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>> {
        Box::pin(async move {
            match self.store.get_value(&task_key(task_id)).await.map_err(failed)? {
                Some(bytes) => decode(&bytes).map(|(record, _)| Some(record)),
                None => Ok(None),
            }
        })
    }

    fn update<'a>(&'a self, task: DetailedTask, limits: &'a TaskLimits) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let key = task_key(&task.task.task_id);
            for _ in 0..ATTEMPTS {
                let Some(current) = self.store.get_value(&key).await.map_err(failed)? else { return Ok(false) };
                let (mut record, bucket) = decode(&current)?;
                if record.task.task.status.is_terminal() {
                    return Ok(false);
                }
                let old = quota::size(&record.task) as i64;
                let mut new_state = task.clone();
                let mut grows = quota::size(&new_state) as i64 - old;
                // Growth is reserved before the swap (and given back if the swap loses).
                let mut reserved = 0;
                if grows > 0 {
                    match self.charge(&record.owner, bucket, (0, grows), Some((limits, false))).await? {
                        Ok(()) => reserved = grows,
                        Err(why) => {
                            new_state = quota::too_large(new_state, &why);
                            grows = quota::size(&new_state) as i64 - old;
                        }
                    }
                }
                record.task = new_state;
                let swapped = self.store.swap_value(&key, Some(current), encode(&record, bucket)?, None).await;
                if !matches!(swapped, Ok(true)) {
                    if reserved != 0 {
                        self.charge(&record.owner, bucket, (0, -reserved), None).await?.map_err(Error::internal)?;
                    }
                    swapped.map_err(failed)?;
                    continue;
                }
                if grows != reserved {
                    self.charge(&record.owner, bucket, (0, grows - reserved), None).await?.map_err(Error::internal)?;
                }
                return Ok(true);
            }
            Err(Error::internal(format!("{key} kept changing under this node: try again")))
        })
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            self.change(&task_key(task_id), |current| {
                let Some(bytes) = current else { return Ok((None, false)) };
                let (mut record, bucket) = decode(bytes)?;
                record.cancel_requested = true;
                Ok((Some(encode(&record, bucket)?), true))
            })
            .await
        })
    }

    fn answer<'a>(&'a self, task_id: &'a str, responses: Map<String, Value>) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let Some(record) = self.get(task_id).await? else { return Ok(false) };
            let ttl = record.task.task.ttl_ms.map_or(DEFAULT_TTL, Duration::from_millis);
            let key = answers_key(task_id);
            for _ in 0..ATTEMPTS {
                let current = self.store.get_value(&key).await.map_err(failed)?;
                let mut answers: Map<String, Value> =
                    current.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default();
                answers.extend(responses.clone());
                let new = Bytes::from(serde_json::to_vec(&answers).unwrap_or_default());
                if self.store.swap_value(&key, current, new, Some(ttl)).await.map_err(failed)? {
                    return Ok(true);
                }
            }
            Err(Error::internal(format!("{key} kept changing under this node: try again")))
        })
    }

    fn take_answers<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Map<String, Value>>> {
        Box::pin(async move {
            self.change(&answers_key(task_id), |current| {
                let answers: Map<String, Value> = current.and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default();
                if answers.is_empty() {
                    return Ok((None, answers));
                }
                Ok((Some(Bytes::from_static(b"{}")), answers))
            })
            .await
        })
    }

    fn list<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<Vec<String>>> {
        Box::pin(async move {
            let current = self.store.get_value(&index_key(owner)).await.map_err(failed)?;
            Ok(live_index(current.as_deref()).into_iter().map(|(id, _)| id).collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Task, TaskStatus};

    fn record(id: &str, owner: Option<&str>, ttl_ms: u64) -> TaskRecord {
        let task = Task {
            task_id: id.into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-11-28T00:00:00Z".into(),
            last_updated_at: "2026-11-28T00:00:00Z".into(),
            ttl_ms: Some(ttl_ms),
            poll_interval_ms: None,
        };
        let task = DetailedTask { task, result: None, error: None, input_requests: None };
        TaskRecord { task, owner: owner.map(str::to_owned), cancel_requested: false }
    }

    #[tokio::test]
    async fn an_owner_lists_its_live_tasks_oldest_first_and_no_one_elses() {
        let store = SharedTaskStore::new(Arc::new(crate::store::MemoryStore::default()));
        let limits = TaskLimits::default();
        store.create(record("a1", Some("alice"), 60_000), &limits).await.unwrap();
        store.create(record("b1", Some("bob"), 60_000), &limits).await.unwrap();
        store.create(record("a2", Some("alice"), 60_000), &limits).await.unwrap();
        store.create(record("a3", Some("alice"), 50), &limits).await.unwrap();
        store.create(record("anon", None, 60_000), &limits).await.unwrap();
        assert_eq!(store.list("alice").await.unwrap(), ["a1", "a2", "a3"]);
        assert_eq!(store.list("bob").await.unwrap(), ["b1"]);
        assert!(store.list("").await.unwrap().is_empty(), "tasks without an owner are nobody's to list");
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert_eq!(store.list("alice").await.unwrap(), ["a1", "a2"], "an expired task leaves the list");
    }
}
