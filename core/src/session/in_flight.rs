//! The in-flight map: requests the peer sent and this side is handling, by id, each with
//! its cancellation token; the concurrency limit; and the cancels that came before their
//! requests.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;

/// The in-flight map: `id -> cancellation token` for requests being handled.
pub(crate) struct InFlight {
    map: Mutex<Requests>,
    pub(super) slots: Arc<Semaphore>,
    /// Requests running and waiting for a slot together; more are refused at once, so a
    /// peer that sends faster than handlers finish cannot grow memory without bound.
    pub(super) capacity: usize,
}

#[derive(Default)]
struct Requests {
    running: HashMap<RequestId, CancellationToken>,
    /// Cancels of ids not seen yet, newest last: over HTTP a cancel may arrive on another
    /// connection before the request it cancels, which then must not run.
    early_cancels: VecDeque<RequestId>,
}

/// How many early cancels a session remembers (a peer cannot grow this).
const EARLY_CANCELS: usize = 64;

/// Why a request could not be registered.
pub(super) enum Refused {
    DuplicateId,
    Full,
}

impl InFlight {
    pub(crate) fn new(limit: usize, queue: usize) -> Self {
        let limit = limit.max(1);
        Self { map: Mutex::default(), slots: Arc::new(Semaphore::new(limit)), capacity: limit + queue }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.lock().unwrap().running.len()
    }

    /// Registers a request, unless its id is in flight already or the map is full. A
    /// request whose cancel came first is registered cancelled: it never runs.
    pub(super) fn register(&self, id: &RequestId, token: &CancellationToken) -> Result<(), Refused> {
        let mut map = self.map.lock().unwrap();
        if map.running.contains_key(id) {
            return Err(Refused::DuplicateId);
        }
        if map.running.len() >= self.capacity {
            return Err(Refused::Full);
        }
        if let Some(at) = map.early_cancels.iter().position(|early| early == id) {
            map.early_cancels.remove(at);
            tracing::debug!(%id, "request cancelled by the peer before it arrived");
            token.cancel();
        }
        map.running.insert(id.clone(), token.clone());
        Ok(())
    }

    pub(super) fn remove(&self, id: &RequestId) {
        self.map.lock().unwrap().running.remove(id);
    }

    /// Handles `notifications/cancelled`.
    pub(crate) fn cancel_from_peer(&self, params: Option<&Value>) {
        let Some(id) = params.and_then(|p| p.get("requestId")).and_then(RequestId::from_value) else {
            return;
        };
        self.cancel(id, "notifications/cancelled");
    }

    /// Cancels request `id` of the peer's: its `notifications/cancelled` arrived, or the
    /// transport can no longer deliver its answer (`why`, for logs).
    pub(crate) fn cancel(&self, id: RequestId, why: &str) {
        // Removing under the lock means a request that is just finishing either sees its
        // token fired (and sends nothing) or has already left the map (cancel ignored).
        let mut map = self.map.lock().unwrap();
        match map.running.remove(&id) {
            Some(token) => {
                tracing::debug!(%id, why, "request cancelled by the peer");
                token.cancel();
            }
            None => {
                // Unknown: finished already (ignored), or not arrived yet (remembered).
                if map.early_cancels.len() == EARLY_CANCELS {
                    map.early_cancels.pop_front();
                }
                map.early_cancels.push_back(id);
            }
        }
    }

    pub(crate) fn cancel_all(&self) {
        let drained: Vec<_> = self.map.lock().unwrap().running.drain().map(|(_, t)| t).collect();
        for token in drained {
            token.cancel();
        }
    }
}
