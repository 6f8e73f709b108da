//! [`SharedTaskStore`]: tasks kept in a [`SharedStore`] (Redis for a scaled-out server),
//! so that `tasks/get`, `tasks/update` and `tasks/cancel` reaching any node find the task
//! its runner on another node keeps up to date.
//!
//! Each task is two records: the task (its state, owner and cancel flag) and the answers
//! waiting for its runner. Every change is a compare-and-swap on one record, retried when
//! another node changed it in between, so no node's change overwrites another's.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::store::{TaskRecord, TaskStore};
use crate::error::{Error, Result};
use crate::protocol::DetailedTask;
use crate::store::{SharedStore, StoreError};

/// How long a task without `ttlMs` is kept: a shared store is not emptied by a restart.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// Compare-and-swap attempts before giving up (each lost race is another node's write).
const ATTEMPTS: usize = 32;

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
}

fn task_key(id: &str) -> String {
    format!("task:{id}")
}

fn answers_key(id: &str) -> String {
    format!("task-answers:{id}")
}

fn failed(e: StoreError) -> Error {
    Error::internal(e.to_string())
}

fn encode(record: &TaskRecord) -> Result<Bytes> {
    let stored = Stored {
        task: serde_json::to_value(&record.task).map_err(|e| Error::internal(e.to_string()))?,
        owner: record.owner.clone(),
        cancel_requested: record.cancel_requested,
    };
    Ok(Bytes::from(serde_json::to_vec(&stored).map_err(|e| Error::internal(e.to_string()))?))
}

fn decode(bytes: &[u8]) -> Result<TaskRecord> {
    let stored: Stored =
        serde_json::from_slice(bytes).map_err(|e| Error::internal(format!("a stored task does not parse: {e}")))?;
    let task: DetailedTask =
        serde_json::from_value(stored.task).map_err(|e| Error::internal(format!("a stored task does not parse: {e}")))?;
    Ok(TaskRecord { task, owner: stored.owner, cancel_requested: stored.cancel_requested })
}

impl SharedTaskStore {
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
}

impl TaskStore for SharedTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let id = record.task.task.task_id.clone();
            let ttl = record.task.task.ttl_ms.map_or(DEFAULT_TTL, Duration::from_millis);
            let created = self.store.swap_value(&task_key(&id), None, encode(&record)?, Some(ttl)).await.map_err(failed)?;
            if !created {
                return Err(Error::internal(format!("task {id} exists already")));
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>>> {
        Box::pin(async move {
            match self.store.get_value(&task_key(task_id)).await.map_err(failed)? {
                Some(bytes) => decode(&bytes).map(Some),
                None => Ok(None),
            }
        })
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool>> {
        Box::pin(async move {
            let key = task_key(&task.task.task_id);
            self.change(&key, |current| {
                let Some(bytes) = current else { return Ok((None, false)) };
                let mut record = decode(bytes)?;
                if record.task.task.status.is_terminal() {
                    return Ok((None, false));
                }
                record.task = task.clone();
                Ok((Some(encode(&record)?), true))
            })
            .await
        })
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            self.change(&task_key(task_id), |current| {
                let Some(bytes) = current else { return Ok((None, false)) };
                let mut record = decode(bytes)?;
                record.cancel_requested = true;
                Ok((Some(encode(&record)?), true))
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
}
