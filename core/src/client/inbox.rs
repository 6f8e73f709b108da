//! What the client's notification handler shares with its listen stream (stateless era):
//! where the next `notifications/subscriptions/acknowledged` goes, and which resources
//! the client is subscribed to.

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::oneshot;

/// What the session's notification handler needs from the listen stream: where the next
/// acknowledgement goes, and which resources the client is subscribed to right now.
#[derive(Default)]
pub(crate) struct Inbox {
    ack: Mutex<Option<oneshot::Sender<Value>>>,
    subscribed: Mutex<BTreeSet<String>>,
}

impl Inbox {
    /// The next acknowledgement, once it comes (it replaces any earlier waiter).
    pub(crate) fn next_ack(&self) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        *self.ack.lock().unwrap() = Some(tx);
        rx
    }

    /// The resources the client is subscribed to from now on.
    pub(crate) fn set_subscribed(&self, uris: &BTreeSet<String>) {
        self.subscribed.lock().unwrap().clone_from(uris);
    }

    /// Hands an acknowledgement's params to the stream waiting for it (none waits for a
    /// late duplicate, which is dropped).
    pub(crate) fn deliver_ack(&self, params: Option<Value>) {
        if let Some(waiter) = self.ack.lock().unwrap().take() {
            let _ = waiter.send(params.unwrap_or_default());
        }
    }

    /// Whether an update of `uri` that came on a listen stream is still wanted. A stream
    /// the client replaced can deliver a few more messages before the server learns it
    /// is closed; after `unsubscribe` returns, its updates must stop.
    /// (The updated resource may be a sub-resource of the subscribed one.)
    pub(crate) fn wants_update(&self, uri: &str) -> bool {
        self.subscribed.lock().unwrap().iter().any(|s| uri.starts_with(s.as_str()))
    }
}
