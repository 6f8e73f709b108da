//! How much the stored tasks may hold: [`TaskLimits`], counted per owner and for the whole
//! server, in tasks and in bytes, so that no client can fill the store for the others
//! (or fill memory) for the hour a task is kept.
//!
//! A [`Ledger`] counts what live tasks hold, filed by when they expire: an expired task
//! leaves the count as its bucket passes, without anyone visiting it. The memory store
//! keeps its ledgers in memory; the shared store keeps them as records every node swaps.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::protocol::{DetailedTask, TaskStatus};

/// Bounds on what a server's stored tasks hold. A task that would pass a bound is refused
/// when it is made (-32603, naming the bound); a result that would pass a byte bound is
/// not kept: its task ends failed, its error naming the bound.
///
/// ```
/// use oxmcp::server::tasks::{TaskLimits, TaskOptions};
/// let options = TaskOptions {
///     limits: TaskLimits { max_tasks_per_owner: 50, ..Default::default() },
///     ..Default::default()
/// };
/// assert_eq!(options.limits.max_tasks, 10_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks kept at once, every owner's together. Default: 10,000.
    pub max_tasks: usize,
    /// Tasks kept at once for one owner (a session; a user on a protected server; every
    /// anonymous stateless-era client together). Default: 1,000.
    pub max_tasks_per_owner: usize,
    /// Bytes the stored tasks hold (results, errors, input requests), every owner's
    /// together. Default: 256 MiB.
    pub max_bytes: u64,
    /// Bytes one owner's stored tasks hold. Default: 32 MiB.
    pub max_bytes_per_owner: u64,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits { max_tasks: 10_000, max_tasks_per_owner: 1_000, max_bytes: 256 << 20, max_bytes_per_owner: 32 << 20 }
    }
}

/// What some tasks hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Usage {
    pub(crate) tasks: u64,
    pub(crate) bytes: u64,
}

/// What live tasks hold, by expiry bucket (Unix milliseconds, rounded up to the ledger's
/// granularity; `u64::MAX` for tasks that never expire).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Ledger {
    buckets: BTreeMap<u64, Usage>,
}

/// The bucket of a task expiring `ttl_ms` from now, `granularity` milliseconds wide.
pub(crate) fn bucket(ttl_ms: Option<u64>, granularity: u64) -> u64 {
    let Some(ms) = ttl_ms else { return u64::MAX };
    let at = unix_now().saturating_add(ms);
    at.div_ceil(granularity).saturating_mul(granularity)
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64
}

impl Ledger {
    /// Forgets what expired tasks held; what is left.
    pub(crate) fn live(&mut self) -> Usage {
        let now = unix_now();
        self.buckets.retain(|&at, u| at > now && (u.tasks > 0 || u.bytes > 0));
        self.buckets.values().fold(Usage::default(), |a, u| Usage { tasks: a.tasks + u.tasks, bytes: a.bytes + u.bytes })
    }

    /// Adds (or with negative numbers, takes back) tasks and bytes in `bucket`.
    pub(crate) fn charge(&mut self, bucket: u64, tasks: i64, bytes: i64) {
        let u = self.buckets.entry(bucket).or_default();
        u.tasks = u.tasks.saturating_add_signed(tasks);
        u.bytes = u.bytes.saturating_add_signed(bytes);
    }

    /// How long the latest bucket lasts: how long a stored ledger must be kept.
    pub(crate) fn lasts(&self) -> Duration {
        let last = self.buckets.keys().next_back().copied().unwrap_or(0);
        Duration::from_millis(last.saturating_sub(unix_now()).clamp(1000, 7 * 24 * 3600 * 1000))
    }
}

/// Why a new task may not be kept, given what its owner's and all tasks hold; `None` if
/// it may. `bytes`: the new task's size.
pub(crate) fn refuse_new(limits: &TaskLimits, owner: Usage, all: Usage, bytes: u64) -> Option<String> {
    if owner.tasks >= limits.max_tasks_per_owner as u64 {
        return Some(format!("this client holds {} tasks, the bound per client: try again once some expire", owner.tasks));
    }
    if all.tasks >= limits.max_tasks as u64 {
        return Some(format!("the server holds {} tasks, its bound for all clients: try again later", all.tasks));
    }
    refuse_bytes(limits, owner, all, bytes)
}

/// Why `more` bytes may not be kept, given what its owner's and all tasks hold.
pub(crate) fn refuse_bytes(limits: &TaskLimits, owner: Usage, all: Usage, more: u64) -> Option<String> {
    if owner.bytes.saturating_add(more) > limits.max_bytes_per_owner {
        return Some(format!(
            "this client's tasks would hold {} bytes, past the bound per client ({})",
            owner.bytes + more,
            limits.max_bytes_per_owner
        ));
    }
    if all.bytes.saturating_add(more) > limits.max_bytes {
        return Some(format!(
            "the server's tasks would hold {} bytes, past its bound for all clients ({})",
            all.bytes + more,
            limits.max_bytes
        ));
    }
    None
}

/// The bytes a task holds in the store.
pub(crate) fn size(task: &DetailedTask) -> u64 {
    serde_json::to_vec(task).map_or(0, |v| v.len() as u64)
}

/// What is kept instead of a state too large to keep: the task failed, saying why.
pub(crate) fn too_large(mut task: DetailedTask, why: &str) -> DetailedTask {
    task.task.status = TaskStatus::Failed;
    task.result = None;
    task.input_requests = None;
    task.error =
        Some(json!({"code": crate::protocol::codes::INTERNAL_ERROR, "message": format!("the task's result is not kept: {why}")}));
    task
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_forgets_what_expired_and_names_the_bound_hit() {
        let mut ledger = Ledger::default();
        ledger.charge(bucket(Some(60_000), 1), 2, 100);
        ledger.charge(unix_now() - 1, 5, 5); // already expired
        ledger.charge(bucket(None, 10), 1, 1);
        assert_eq!(ledger.live(), Usage { tasks: 3, bytes: 101 });
        ledger.charge(bucket(None, 10), -1, -1);
        assert_eq!(ledger.live(), Usage { tasks: 2, bytes: 100 });
        let limits = TaskLimits { max_tasks: 10, max_tasks_per_owner: 2, max_bytes: 1000, max_bytes_per_owner: 500 };
        let u = |tasks, bytes| Usage { tasks, bytes };
        assert!(refuse_new(&limits, u(2, 0), u(2, 0), 1).unwrap().contains("per client"));
        assert!(refuse_new(&limits, u(0, 0), u(10, 0), 1).unwrap().contains("all clients"));
        assert!(refuse_new(&limits, u(1, 499), u(1, 499), 2).unwrap().contains("per client"));
        assert!(refuse_new(&limits, u(1, 0), u(5, 999), 2).unwrap().contains("all clients"));
        assert_eq!(refuse_new(&limits, u(1, 0), u(1, 0), 10), None);
    }
}
