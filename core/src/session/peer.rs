//! [`Peer`]: the cloneable handle through which a role talks to the other side.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{SessionConfig, SessionStats};
use super::outgoing::{self, RequestOptions};
use super::shared::Shared;
use crate::error::Result;
use crate::protocol::{methods, Message, ProtocolVersion, RequestId};
use crate::transport::{Outbound, Route};

/// A cloneable handle to a session: send requests and notifications to the peer.
#[derive(Clone)]
pub struct Peer {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("stats", &self.stats()).field("closed", &self.is_closed()).finish()
    }
}

impl Peer {
    /// Sends a request and waits for its result. See [`RequestOptions`] for timeouts,
    /// progress and cancellation. Dropping the returned future cancels the request
    /// (the peer receives `notifications/cancelled`).
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value> {
        use tracing::Instrument;
        let span = tracing::debug_span!("mcp.call", method, id = tracing::field::Empty);
        let started = std::time::Instant::now();
        let result = outgoing::request(&self.shared, method, params, options).instrument(span.clone()).await;
        if span.is_disabled() {
            return result;
        }
        let outcome = match &result {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("{:?}", e.kind()),
        };
        span.in_scope(|| tracing::debug!(outcome, elapsed_us = started.elapsed().as_micros() as u64));
        result
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<()> {
        self.notify_routed(method, params, Route::Unrelated)
    }

    /// Sends a notification that belongs to an incoming request (progress or a log
    /// message from its handler), so stream transports can deliver it with the request.
    pub fn notify_during(&self, method: &str, params: Option<Value>, request: &RequestId) -> Result<()> {
        self.notify_routed(method, params, Route::During(request.clone()))
    }

    /// Asks the transport to end the connection carrying `request` without ending the
    /// request (Streamable HTTP: the client resumes the stream with `Last-Event-ID`).
    /// Other transports ignore it.
    pub fn end_connection_of(&self, request: &RequestId) {
        self.shared.send_outbound(Outbound { bytes: Bytes::new(), route: Route::EndConnectionOf(request.clone()) });
    }

    fn notify_routed(&self, method: &str, params: Option<Value>, route: Route) -> Result<()> {
        if self.is_closed() {
            return Err(self.shared.closed_error());
        }
        self.shared.send(&Message::Notification { method: method.to_owned(), params }, route)
    }

    /// Sends `ping` and waits for the empty result.
    pub async fn ping(&self) -> Result<()> {
        self.request(methods::PING, None, RequestOptions::default()).await.map(drop)
    }

    /// Whether the session has closed.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.is_cancelled()
    }

    /// Resolves when the session closes.
    pub async fn closed(&self) {
        self.shared.closed.cancelled().await
    }

    /// Why the session closed, once it has.
    pub fn close_reason(&self) -> Option<String> {
        self.shared.close_reason.get().cloned()
    }

    /// Closes the session (pending requests fail, handlers are cancelled).
    pub fn close(&self, reason: &str) {
        self.shared.close(reason);
    }

    /// The sizes of the pending and in-flight maps.
    pub fn stats(&self) -> SessionStats {
        SessionStats { pending_requests: self.shared.outgoing.len(), in_flight_requests: self.shared.incoming.len() }
    }

    /// The negotiated protocol version, once known.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.shared.version.get().copied()
    }

    /// Numbers this side's next requests from `first` on: sessions that several server
    /// nodes serve at once (one client, a replica per node) keep their request ids apart.
    pub fn number_requests_from(&self, first: i64) {
        self.shared.outgoing.next_id.store(first, std::sync::atomic::Ordering::Relaxed);
    }

    /// Records the negotiated version (done once by the role that negotiates it).
    pub fn set_protocol_version(&self, version: ProtocolVersion) {
        let _ = self.shared.version.set(version);
    }

    /// The session's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.shared.config
    }

    /// A token that fires when the session closes.
    pub fn closed_token(&self) -> CancellationToken {
        self.shared.closed.clone()
    }
}

/// What an HTTP server needs of a session it serves: the engine implements the
/// transport's trait, so the transport never names the engine.
#[cfg(feature = "http")]
impl crate::transport::http::SessionControl for Peer {
    fn is_closed(&self) -> bool {
        Peer::is_closed(self)
    }
    fn in_flight_requests(&self) -> usize {
        self.shared.incoming.len()
    }
    fn protocol_version(&self) -> Option<ProtocolVersion> {
        Peer::protocol_version(self)
    }
    fn close(&self, reason: &str) {
        Peer::close(self, reason)
    }
}
