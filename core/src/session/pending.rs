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

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::protocol::{ErrorObject, RequestId};

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

/// How a pending request ended, as its caller learns it.
pub(super) enum Ended {
    /// The peer's response or error.
    Answer(Result<Value, ErrorObject>),
    /// Its deadline passed (the caller decides which timeout it was, and cancels).
    Deadline,
}

pub(super) struct Pending {
    /// Taken by whichever ends the request first: its answer or the alarm.
    pub(super) done: Option<oneshot::Sender<Ended>>,
    pub(super) progress: Option<mpsc::UnboundedSender<Progress>>,
    pub(super) deadline: Instant,
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
    pub(crate) fn complete(&self, id: &RequestId, outcome: Result<Value, ErrorObject>) {
        let RequestId::Number(n) = id else {
            tracing::debug!(%id, "ignoring a response to an id this side never sent");
            return;
        };
        let entry = self.pending.lock().unwrap().remove(n);
        match entry.and_then(|p| p.done) {
            Some(done) => {
                let _ = done.send(Ended::Answer(outcome));
            }
            None => tracing::debug!(%id, "ignoring a late response"),
        }
    }

    /// Files a request; its caller waits on the returned receiver.
    pub(super) fn insert(
        &self,
        id: i64,
        progress: Option<mpsc::UnboundedSender<Progress>>,
        deadline: Instant,
    ) -> oneshot::Receiver<Ended> {
        let (done, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, Pending { done: Some(done), progress, deadline });
        let mut armed = self.armed.lock().unwrap();
        if armed.is_none_or(|at| deadline < at) {
            *armed = Some(deadline);
            self.rearm.notify_one();
        }
        rx
    }

    /// Moves a request's deadline later (progress arrived). An earlier one would need the
    /// alarm re-armed; deadlines only move later.
    pub(super) fn postpone(&self, id: i64, deadline: Instant) {
        if let Some(p) = self.pending.lock().unwrap().get_mut(&id) {
            p.deadline = p.deadline.max(deadline);
        }
    }

    /// Ends every request whose deadline passed; returns the next deadline.
    fn ring(&self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for p in self.pending.lock().unwrap().values_mut() {
            if p.done.is_none() {
                continue; // rung already; its caller is ending it
            }
            if p.deadline <= now {
                let _ = p.done.take().map(|d| d.send(Ended::Deadline));
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
        if let Some(tx) = self.pending.lock().unwrap().get(&token).and_then(|e| e.progress.as_ref()) {
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
