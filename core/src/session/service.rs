//! What a role (server or client) plugs into a session.

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::peer::Peer;
use crate::protocol::{ErrorObject, RequestId};

/// A request the peer sent, handed to the [`Service`].
#[derive(Debug)]
pub struct IncomingRequest {
    /// The peer's request id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params object, if any.
    pub params: Option<Value>,
    /// Fires when the peer cancels the request or the session closes. The engine also
    /// drops the handler's future then, so a handler need not watch it unless it runs
    /// work outside its future (threads, host-language tasks).
    pub cancel: CancellationToken,
    /// The session, for progress, logging and requests back to the peer.
    pub peer: Peer,
}

/// A notification the peer sent.
#[derive(Debug)]
pub struct IncomingNotification {
    /// The method.
    pub method: String,
    /// The params object, if any.
    pub params: Option<Value>,
    /// The session it arrived on.
    pub peer: Peer,
}

/// Answers the peer's requests and notifications. The server and client roles implement
/// it; `ping`, `notifications/cancelled` and `notifications/progress` bookkeeping is done
/// by the engine before the service sees anything.
pub trait Service: Send + Sync + 'static {
    /// Handles one request. Runs concurrently with other requests.
    fn handle_request(&self, request: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>>;

    /// Handles one notification. Notifications are delivered one at a time, in order.
    fn handle_notification(&self, notification: IncomingNotification) -> BoxFuture<'static, ()> {
        let _ = notification;
        Box::pin(async {})
    }

    /// Sees each notification on the reader task, in arrival order, before any later
    /// message is processed (so work it queues stays ordered before later responses).
    /// Must be quick and must not block. [`Service::handle_notification`] still follows.
    fn observe_notification(&self, method: &str, params: Option<&Value>) {
        let _ = (method, params);
    }

    /// Called once when the session has closed.
    fn on_closed(&self, peer: &Peer) {
        let _ = peer;
    }
}
