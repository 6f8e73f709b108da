//! The pending map: requests this side sent and not yet ended, by id, each with the
//! completion its caller waits on, where its progress goes and its deadline.
//!
//! Deadlines share one timer per session (the alarm loop) instead of one tokio timer per
//! request: arming a timer earlier than every other one wakes the runtime's driver thread,
//! which a sequential caller would otherwise pay on every request. Requests of one
//! session mostly get later deadlines than the one the alarm is set for, so it is re-armed
//! only when it rings.

use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::Error;
use crate::protocol::RequestId;

/// One progress notification for a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far (increases with each notification).
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A human-readable status.
    pub message: Option<String>,
}

pub(super) struct Pending {
    /// The peer's response or error.
    pub(super) done: oneshot::Sender<Result<Value, Error>>,
    /// Rung (taken) by the alarm when the deadline passes; the caller then ends the request,
    /// unless the answer wins the race (it is still delivered on `done`).
    rung: Option<oneshot::Sender<()>>,
    pub(super) progress: Option<mpsc::UnboundedSender<Progress>>,
    deadline: Instant,
    /// Progress moves the deadline to `min(now + timeout, hard limit)`.
    renew: Option<(Duration, Instant)>,
}

/// What the caller of [`Outgoing::insert`] waits on.
pub(super) struct Waits {
    pub(super) done: oneshot::Receiver<Result<Value, Error>>,
    pub(super) rung: oneshot::Receiver<()>,
}

/// The id allocator, the pending map and the alarm.
#[derive(Default)]
pub(crate) struct Outgoing {
    pub(super) next_id: AtomicI64,
    pub(super) pending: Mutex<HashMap<i64, Pending>>,
    /// When the alarm loop rings next (`None`: it waits for a deadline).
    armed: Mutex<Option<Instant>>,
    rearm: Notify,
}

impl Outgoing {
    pub(crate) fn len(&self) -> usize {
        self.pending.lock().unwrap().len()
    }

    /// A response or error arrived. Unknown ids (late responses after a timeout or
    /// cancel, or ids we never sent) are ignored.
    pub(crate) fn complete(&self, id: &RequestId, outcome: Result<Value, Error>) {
        let RequestId::Number(n) = id else {
            tracing::debug!(%id, "ignoring a response to an id this side never sent");
            return;
        };
        let entry = self.pending.lock().unwrap().remove(n);
        match entry {
            Some(p) => {
                let _ = p.done.send(outcome);
            }
            None => tracing::debug!(%id, "ignoring a late response"),
        }
    }

    /// Files a request; its caller waits on what this returns. `renew`: progress restarts
    /// the inactivity timeout (the timeout and the hard limit).
    pub(super) fn insert(
        &self,
        id: i64,
        progress: Option<mpsc::UnboundedSender<Progress>>,
        deadline: Instant,
        renew: Option<(Duration, Instant)>,
    ) -> Waits {
        let (done, done_rx) = oneshot::channel();
        let (rung, rung_rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, Pending { done, rung: Some(rung), progress, deadline, renew });
        let mut armed = self.armed.lock().unwrap();
        if armed.is_none_or(|at| deadline < at) {
            *armed = Some(deadline);
            self.rearm.notify_one();
        }
        Waits { done: done_rx, rung: rung_rx }
    }

    /// Ends every request whose deadline passed; returns the next deadline.
    fn ring(&self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for p in self.pending.lock().unwrap().values_mut() {
            if p.rung.is_none() {
                continue; // rung already; its caller is ending it
            }
            if p.deadline <= now {
                let _ = p.rung.take().map(|r| r.send(()));
            } else {
                next = Some(next.map_or(p.deadline, |n| n.min(p.deadline)));
            }
        }
        next
    }

    /// The alarm loop: rings at the earliest deadline until the session closes.
    pub(super) async fn alarm_loop(&self, closed: CancellationToken) {
        loop {
            let rearmed = self.rearm.notified();
            let at = *self.armed.lock().unwrap();
            tokio::select! {
                _ = closed.cancelled() => return,
                _ = rearmed => continue,
                _ = async { tokio::time::sleep_until(at.unwrap()).await }, if at.is_some() => {}
            }
            // Under the alarm's lock: a request filed after the scan compares its deadline
            // with the new target once this is released, and re-arms if it is earlier.
            let mut armed = self.armed.lock().unwrap();
            *armed = self.ring(Instant::now());
        }
    }

    /// A progress notification arrived; the token is the request id oxmcp attached.
    pub(crate) fn progress(&self, params: Option<&Value>) {
        let Some(p) = params else { return };
        let Some(token) = p.get("progressToken").and_then(Value::as_i64) else { return };
        let Some(progress) = p.get("progress").and_then(Value::as_f64) else { return };
        let update = Progress {
            progress,
            total: p.get("total").and_then(Value::as_f64),
            message: p.get("message").and_then(Value::as_str).map(str::to_owned),
        };
        let mut pending = self.pending.lock().unwrap();
        let Some(entry) = pending.get_mut(&token) else { return };
        if let Some((timeout, hard)) = entry.renew {
            // Here, under the map's lock, so the alarm never rings for a request whose
            // progress already arrived (deadlines only move later: no re-arming).
            entry.deadline = entry.deadline.max((Instant::now() + timeout).min(hard));
        }
        if let Some(tx) = &entry.progress {
            let _ = tx.send(update);
        }
    }

    /// The session closed: every caller fails now (dropping the senders wakes them).
    pub(crate) fn fail_all(&self) {
        let drained: Vec<_> = self.pending.lock().unwrap().drain().collect();
        drop(drained);
    }

    pub(super) fn remove(&self, id: i64) -> Option<Pending> {
        self.pending.lock().unwrap().remove(&id)
    }
}
