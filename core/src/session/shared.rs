//! What the session's tasks and every [`Peer`](super::Peer) handle share: the two maps,
//! the way out to the transport, and how the session ends.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use super::config::SessionConfig;
use super::in_flight::InFlight;
use super::pending::Outgoing;
use super::writer::{Outbox, Refused};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, ErrorObject, Message, ProtocolVersion, RequestId};
use crate::transport::{MessageKind, Outbound, Route};

/// One outgoing message, with what the session knows of it.
#[derive(Debug)]
pub(super) struct Queued {
    pub(super) message: Outbound,
    pub(super) kind: Option<MessageKind>,
}

impl From<Outbound> for Queued {
    fn from(message: Outbound) -> Self {
        Queued { message, kind: None }
    }
}

/// What a transport may want to know of a message without reading its bytes.
fn kind_of(message: &Message) -> Option<MessageKind> {
    match message {
        Message::Error { error, .. } => Some(MessageKind::Error(error.code)),
        Message::Notification { method, params } if method == methods::CANCELLED => {
            params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value).map(MessageKind::Cancels)
        }
        _ => None,
    }
}

/// State shared by the session's tasks and every [`Peer`](super::Peer) handle.
pub(crate) struct Shared {
    pub(crate) config: SessionConfig,
    pub(super) outbox: Outbox,
    pub(crate) outgoing: Outgoing,
    pub(crate) incoming: InFlight,
    /// Fired once, when the session closes for any reason.
    pub(super) closed: CancellationToken,
    pub(super) close_reason: OnceLock<String>,
    pub(super) version: OnceLock<ProtocolVersion>,
    /// Counts the session as open (telemetry on) until it closes.
    open: std::sync::Mutex<Option<crate::telemetry::SessionCount>>,
    /// The transport's id of the session, if it has one (`mcp.session.id` on its spans).
    pub(crate) session_id: Option<crate::transport::SessionId>,
}

impl Shared {
    pub(super) fn new(config: SessionConfig, outbox: Outbox, session_id: Option<crate::transport::SessionId>) -> Self {
        Shared {
            incoming: InFlight::new(config.max_concurrent_requests, config.max_queued_requests),
            outgoing: Outgoing::default(),
            config,
            outbox,
            closed: CancellationToken::new(),
            close_reason: OnceLock::new(),
            version: OnceLock::new(),
            open: std::sync::Mutex::new(crate::telemetry::sessions_opened()),
            session_id,
        }
    }

    /// Sends one message (written now, or queued for the writer task).
    pub(crate) fn send(&self, message: &Message, route: Route) -> Result<()> {
        let queued = Queued { message: Outbound { bytes: Bytes::from(message.to_bytes()), route }, kind: kind_of(message) };
        self.outbox.send(queued).map_err(|refused| self.refused(refused))
    }

    /// Sends a routing hint or a message serialized elsewhere (a batch's answers).
    pub(super) fn send_outbound(&self, message: Outbound) {
        let _ = self.outbox.send(message.into()).map_err(|refused| self.refused(refused));
    }

    fn refused(&self, refused: Refused) -> Error {
        match refused {
            Refused::Unread { waiting, reading: false } => {
                self.close(format!("the peer reads nothing of what is written to it ({waiting} bytes wait for it)"))
            }
            Refused::Unread { waiting, reading: true } => {
                self.close(format!("the peer reads too slowly: {waiting} bytes wait for it"))
            }
            Refused::Closed => {}
        }
        self.closed_error()
    }

    pub(crate) fn send_error(&self, id: Option<RequestId>, error: ErrorObject) {
        let route = id.clone().map_or(Route::Unrelated, Route::Answers);
        let _ = self.send(&Message::Error { id, error }, route);
    }

    pub(crate) fn closed_error(&self) -> Error {
        let reason = self.close_reason.get().map(String::as_str).unwrap_or("the session is closed");
        Error::new(ErrorKind::Closed, format!("connection closed: {reason}"))
    }

    /// Closes the session: fails every pending request at once, cancels every in-flight
    /// handler, and tells the writer to finish. Only the first reason is kept.
    pub(crate) fn close(&self, reason: impl Into<String>) {
        if self.close_reason.set(reason.into()).is_ok() {
            tracing::debug!(reason = self.close_reason.get().unwrap().as_str(), "session closed");
        }
        self.closed.cancel();
        drop(self.open.lock().map(|mut open| open.take()));
        self.outgoing.fail_all();
        self.incoming.cancel_all();
    }
}

/// A response to send once a request's handler finishes.
pub(crate) struct Reply {
    pub(super) shared: Arc<Shared>,
    pub(super) message: Message,
}

impl Reply {
    /// Queues the response, routed as the answer to its request.
    pub(super) fn send(self) {
        let route = self.message.id().cloned().map_or(Route::Unrelated, Route::Answers);
        let _ = self.shared.send(&self.message, route);
    }
}
