//! What a node keeps of a session several nodes serve: its shared record, and this node's
//! copy of it (see `cluster`).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::transport::http::shared::log_name;

/// What the store keeps of a session: the tags that name its logs, and its backend's
/// state (the negotiated version, the client, its log level and subscriptions).
#[derive(Serialize, Deserialize, Clone, PartialEq)]
pub(super) struct Record {
    pub(super) owner: u64,
    pub(super) standalone: u64,
    #[serde(default)]
    pub(super) state: Option<Value>,
    /// On a protected server: who opened the session (see `SessionAuth::owner`). Every
    /// node's replica holds the session to it.
    #[serde(default)]
    pub(super) user: Option<String>,
}

/// What a node keeps of a shared session beside its hub: the record it runs on.
pub(super) struct Replica {
    /// Updated when this node saves the state too, so that only another node's change is
    /// applied here.
    pub(super) record: Arc<Mutex<Record>>,
}

impl Replica {
    /// Takes on the session's record as another node saved it, if its state differs.
    pub(super) fn take_on(&self, control: &Arc<dyn crate::transport::http::SessionControl>, record: Record) {
        let mut mine = self.record.lock().unwrap();
        if mine.state != record.state {
            if let Some(state) = &record.state {
                control.apply_state(state);
            }
            *mine = record;
        }
    }

    /// The log of the session's standalone stream.
    pub(super) fn standalone_log(&self) -> (u64, String) {
        let r = self.record.lock().unwrap();
        (r.standalone, log_name(r.owner, r.standalone))
    }
}
