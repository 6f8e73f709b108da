//! A server whose sessions several nodes serve (an HTTP server with a shared store): the
//! changes every client must hear, wherever it is connected, go through the store's bus.
//!
//! `notify_resource_updated` and the list-changed notifications publish a [`Change`];
//! every node (this one too) hears it and tells its own clients: the listen streams open
//! on it, and the sessions whose standalone stream is read on it, so that a client hears
//! each change once however many nodes have served it.

use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::Server;
use crate::store::SharedStore;

/// What the bus carries for this role, after this tag.
const TAG: &[u8] = b"change:";

/// A change every client must hear.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub(super) enum Change {
    /// `notifications/resources/updated` for this URI.
    Updated(String),
    /// This list-changed notification.
    Listed(String),
    /// A task's new state (the tasks extension's `notifications/tasks`).
    Task(Box<super::tasks::TaskEvent>),
}

/// The store the server publishes changes on, and the runtime that publishes them (the
/// notifying call may come from a host's thread).
pub(super) struct Shared {
    store: Arc<dyn SharedStore>,
    runtime: tokio::runtime::Handle,
}

impl Server {
    #[cfg(feature = "http")]
    /// Shares this server's sessions through `store` (the HTTP server calls this once).
    pub(super) fn share_through(&self, store: Arc<dyn SharedStore>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        if self.inner.shared.set(Shared { store, runtime }).is_err() {
            return;
        }
        // A listen stream on any node follows a task running on this one. Weak: the
        // server owns its tasks.
        let server = Arc::downgrade(&self.inner);
        self.inner.tasks.relay_events(move |event| {
            if let Some(inner) = server.upgrade() {
                Server { inner }.tell_every_node(Change::Task(Box::new(event)));
            }
        });
    }

    /// Tells every node's clients of `change` (only this node's when nothing is shared).
    pub(super) fn tell_every_node(&self, change: Change) {
        let Some(shared) = self.inner.shared.get() else {
            return self.tell_clients(&change);
        };
        let message = [TAG, &serde_json::to_vec(&change).unwrap_or_default()].concat();
        let store = shared.store.clone();
        let server = self.clone();
        shared.runtime.spawn(async move {
            if let Err(e) = store.publish(Bytes::from(message)).await {
                // The other nodes will not hear it: this node's clients still do.
                tracing::warn!("a change could not reach the other nodes: {e}");
                server.tell_clients(&change);
            }
        });
    }

    #[cfg(feature = "http")]
    /// A change some node published.
    pub(super) fn heard_change(&self, message: &[u8]) {
        let Some(body) = message.strip_prefix(TAG) else { return };
        match serde_json::from_slice::<Change>(body) {
            Ok(change) => self.tell_clients(&change),
            Err(e) => tracing::debug!("ignoring a change that does not parse: {e}"),
        }
    }
}
