//! The pending map: requests this side sent and not yet ended, by id, each with the
//! completion its caller waits on and where its progress goes.

use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

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

pub(super) struct Pending {
    pub(super) done: oneshot::Sender<Result<Value, ErrorObject>>,
    pub(super) progress: Option<mpsc::UnboundedSender<Progress>>,
}

/// The id allocator and the pending map.
#[derive(Default)]
pub(crate) struct Outgoing {
    pub(super) next_id: AtomicI64,
    pub(super) pending: Mutex<HashMap<i64, Pending>>,
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
        match entry {
            Some(p) => {
                let _ = p.done.send(outcome);
            }
            None => tracing::debug!(%id, "ignoring a late response"),
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
