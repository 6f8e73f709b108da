//! The engine: one [`Session`] per connection, whatever the transport and whatever the role.
//!
//! A session owns two maps and the tasks that keep them honest:
//!
//! - [`outgoing`]: requests this side sent. An id allocator and the **pending map**
//!   `id -> completion`. Every way a request can end (response, error, timeout, local
//!   cancel, dropped future, transport close) removes its entry exactly once, through an
//!   RAII guard.
//! - [`incoming`]: requests the peer sent. Dispatched concurrently under a limit, each with
//!   a cancellation token in the **in-flight map**; `notifications/cancelled` fires it.
//!
//! Invariant: after any mix of completions, errors, timeouts, cancels and disconnects both
//! maps are empty (see `tests/session_invariants.rs`).
//!
//! Roles (server, client) plug in as a [`Service`] that answers the peer's requests; they
//! send their own requests through the cloneable [`Peer`] handle.

pub mod incoming;
pub mod outgoing;
pub mod relay;
pub mod service;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::jsonrpc::{Incoming as Frame, Rejected};
use crate::protocol::{methods, ErrorObject, Message, ProtocolVersion, RequestId};
use crate::transport::{MessageReader, MessageWriter, Outbound, RecvError, Route, Transport};

pub use outgoing::{Progress, ProgressCallback, RequestOptions};
pub use service::{IncomingNotification, IncomingRequest, Service};

/// Limits and timeouts of a session. All have defaults; all can be changed.
///
/// ```
/// use std::time::Duration;
/// let config = oxmcp::session::SessionConfig {
///     request_timeout: Duration::from_secs(30),
///     ..Default::default()
/// };
/// ```
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Incoming requests handled at once; more wait (still cancellable) for a slot.
    pub max_concurrent_requests: usize,
    /// Incoming requests that may wait for a slot; beyond them a request is answered at
    /// once with an error saying the server is busy (memory stays bounded).
    pub max_queued_requests: usize,
    /// Outgoing requests fail with [`ErrorKind::Timeout`] after this long without a
    /// response (or, with `reset_timeout_on_progress`, without progress).
    pub request_timeout: Duration,
    /// Outgoing requests always fail after this long, whatever progress arrives.
    pub max_request_timeout: Duration,
    /// Progress notifications for a request restart its inactivity timer. When on, the
    /// engine attaches a progress token to every request that has none.
    pub reset_timeout_on_progress: bool,
    /// How long a cancelled handler may keep running to observe its token and clean up
    /// before its future is dropped. Its result is discarded either way.
    pub cancelled_handler_grace: Duration,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            max_concurrent_requests: 256,
            max_queued_requests: 4096,
            request_timeout: Duration::from_secs(60),
            max_request_timeout: Duration::from_secs(30 * 60),
            reset_timeout_on_progress: true,
            cancelled_handler_grace: Duration::from_secs(2),
        }
    }
}

/// Counts that show whether anything leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionStats {
    /// Entries in the pending map (requests we sent, not yet ended).
    pub pending_requests: usize,
    /// Entries in the in-flight map (requests we received, not yet answered).
    pub in_flight_requests: usize,
}

/// State shared by the session's tasks and every [`Peer`] handle.
pub(crate) struct Shared {
    pub(crate) config: SessionConfig,
    out: mpsc::UnboundedSender<Outbound>,
    pub(crate) outgoing: outgoing::Outgoing,
    pub(crate) incoming: incoming::InFlight,
    /// Fired once, when the session closes for any reason.
    closed: CancellationToken,
    close_reason: OnceLock<String>,
    version: OnceLock<ProtocolVersion>,
}

impl Shared {
    /// Queues one serialized message for the writer task.
    pub(crate) fn send(&self, message: &Message, route: Route) -> Result<()> {
        self.out.send(Outbound { bytes: Bytes::from(message.to_bytes()), route }).map_err(|_| self.closed_error())
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
        self.outgoing.fail_all();
        self.incoming.cancel_all();
    }
}

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
        let _ = self.shared.out.send(Outbound { bytes: Bytes::new(), route: Route::EndConnectionOf(request.clone()) });
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

/// A running session: its reader, writer and notification tasks. Dropping it closes the
/// session; [`Session::close`] also waits until the transport is shut (a child process
/// has exited).
pub struct Session {
    peer: Peer,
    writer: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Session {
    /// Starts a session over `transport`, answering the peer's requests with `service`.
    /// Must be called inside a tokio runtime.
    ///
    /// The engine alone, without MCP roles: one side answers `add` requests.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
    /// use std::sync::Arc;
    /// use futures::future::BoxFuture;
    /// use oxmcp::protocol::ErrorObject;
    /// use oxmcp::session::{IncomingRequest, RequestOptions, Service, Session, SessionConfig};
    /// use oxmcp::transport::MemoryTransport;
    /// use serde_json::{json, Value};
    ///
    /// struct Adder;
    /// impl Service for Adder {
    ///     fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
    ///         Box::pin(async move {
    ///             let p = req.params.unwrap_or_default();
    ///             Ok(json!(p["a"].as_i64().unwrap_or(0) + p["b"].as_i64().unwrap_or(0)))
    ///         })
    ///     }
    /// }
    /// struct Nothing;
    /// impl Service for Nothing {
    ///     fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
    ///         Box::pin(async move { Err(ErrorObject::method_not_found(&req.method)) })
    ///     }
    /// }
    ///
    /// let (a, b) = MemoryTransport::pair();
    /// let _server = Session::start(a, Arc::new(Adder), SessionConfig::default());
    /// let client = Session::start(b, Arc::new(Nothing), SessionConfig::default());
    /// let sum = client.peer().request("add", Some(json!({"a": 2, "b": 3})), RequestOptions::default()).await?;
    /// assert_eq!(sum, json!(5));
    /// assert_eq!(client.peer().stats().pending_requests, 0);
    /// # Ok(()) }
    /// ```
    pub fn start<T: Transport>(transport: T, service: Arc<dyn Service>, config: SessionConfig) -> Session {
        let (reader, writer) = transport.split();
        let (out, out_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            incoming: incoming::InFlight::new(config.max_concurrent_requests, config.max_queued_requests),
            outgoing: outgoing::Outgoing::default(),
            config,
            out,
            closed: CancellationToken::new(),
            close_reason: OnceLock::new(),
            version: OnceLock::new(),
        });
        let peer = Peer { shared: shared.clone() };
        let writer = tokio::spawn(write_loop(writer, out_rx, shared.clone()));
        let (notes_tx, notes_rx) = mpsc::unbounded_channel();
        tokio::spawn(notification_loop(notes_rx, service.clone(), peer.clone()));
        tokio::spawn(read_loop(reader, peer.clone(), service, notes_tx));
        Session { peer, writer: std::sync::Mutex::new(Some(writer)) }
    }

    /// The handle for sending requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Waits until the session closes (peer disconnect, error, or [`Peer::close`]).
    pub async fn wait(&self) {
        self.peer.closed().await
    }

    /// Closes the session and waits for the transport to shut down.
    pub async fn close(self) {
        self.shutdown().await
    }

    /// Like [`Session::close`], through a shared reference (for handles shared with a
    /// host language). Later calls return at once.
    pub async fn shutdown(&self) {
        self.peer.close("closed by this side");
        let writer = self.writer.lock().unwrap().take();
        if let Some(w) = writer {
            let _ = w.await;
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.writer.lock().map(|w| w.is_some()).unwrap_or(false) {
            self.peer.close("session dropped");
        }
    }
}

/// Whether a message goes out in a write of its own, never sharing it with what follows:
/// a handler's notifications (progress, logs). Peers that run notification handlers later
/// than response handlers for messages that arrive together (the official TypeScript SDK,
/// typescript-sdk #2580) would otherwise drop a request's final progress, which comes
/// right before its response; that response also waits a millisecond, so the two reach
/// the peer in separate reads. Only calls whose handler notifies just before returning
/// pay it.
fn writes_alone(message: &Outbound) -> bool {
    matches!(message.route, Route::During(_))
}

fn during_of(message: &Outbound) -> Option<RequestId> {
    match &message.route {
        Route::During(id) => Some(id.clone()),
        _ => None,
    }
}

/// Writes queued messages, flushing once per burst, until the session closes; then
/// writes what is still queued (final responses, cancellation notices) and closes the
/// transport.
async fn write_loop<W: MessageWriter>(mut writer: W, mut rx: mpsc::UnboundedReceiver<Outbound>, shared: Arc<Shared>) {
    const BURST: usize = 512;
    let closed = shared.closed.clone();
    let mut last_alone: Option<RequestId> = None;
    loop {
        let first = tokio::select! {
            biased;
            m = rx.recv() => m,
            _ = closed.cancelled() => None,
        };
        let Some(first) = first else { break };
        if let (Some(during), Route::Answers(id)) = (&last_alone, &first.route) {
            if during == id {
                // The answer right behind its request's last notification: give the peer a
                // moment to read that notification on its own (see `writes_alone`).
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        let mut alone = writes_alone(&first);
        last_alone = if alone { during_of(&first) } else { None };
        let mut result = writer.send(first).await;
        for _ in 0..BURST {
            if result.is_err() || alone {
                break;
            }
            match rx.try_recv() {
                Ok(m) => {
                    alone = writes_alone(&m);
                    last_alone = if alone { during_of(&m) } else { None };
                    result = writer.send(m).await;
                }
                Err(_) => break,
            }
        }
        if let Err(e) = match result {
            Ok(()) => writer.flush().await,
            Err(e) => Err(e),
        } {
            // A failed write usually means the peer is gone; its read side then knows
            // more (a child's exit status and stderr). Let that reason win if it comes soon.
            let _ = tokio::time::timeout(Duration::from_secs(5), closed.cancelled()).await;
            shared.close(format!("writing to the transport failed: {e}"));
            break;
        }
    }
    while let Ok(m) = rx.try_recv() {
        if writer.send(m).await.is_err() {
            break;
        }
    }
    let _ = writer.flush().await;
    writer.close().await;
}

/// Reads frames and routes them until the transport ends or the session closes.
async fn read_loop<R: MessageReader>(
    mut reader: R,
    peer: Peer,
    service: Arc<dyn Service>,
    notes: mpsc::UnboundedSender<IncomingNotification>,
) {
    let shared = peer.shared.clone();
    loop {
        let frame = tokio::select! {
            biased;
            _ = shared.closed.cancelled() => break,
            f = reader.recv() => f,
        };
        match frame {
            Ok(bytes) => route_frame(&peer, &service, &notes, &bytes),
            Err(RecvError::TooLarge { limit }) => {
                shared.send_error(None, ErrorObject::invalid_request(format!("message exceeds the size limit of {limit} bytes")))
            }
            Err(RecvError::Closed(reason)) => {
                shared.close(reason);
                break;
            }
        }
    }
}

fn route_frame(peer: &Peer, service: &Arc<dyn Service>, notes: &mpsc::UnboundedSender<IncomingNotification>, bytes: &[u8]) {
    let shared = &peer.shared;
    match Message::parse(bytes) {
        Err(Rejected { id, error }) => shared.send_error(id, error),
        Ok(Frame::Single(message)) => {
            if let Some(mut reply) = route_message(peer, service, notes, message) {
                // Poll once here: a handler that needs no I/O (ping, a list, an echo) is
                // answered without a task or a thread hop. One that would wait is handed
                // to its own task, which polls it again with a real waker.
                let waker = futures::task::noop_waker();
                match reply.as_mut().poll(&mut std::task::Context::from_waker(&waker)) {
                    std::task::Poll::Ready(r) => send_reply(r),
                    std::task::Poll::Pending => {
                        tokio::spawn(async move { send_reply(reply.await) });
                    }
                }
            }
        }
        Ok(Frame::Batch(items)) => {
            let allowed = peer.protocol_version().is_some_and(ProtocolVersion::supports_batches);
            if !allowed {
                let version = peer.protocol_version().map_or("this session".to_string(), |v| v.to_string());
                shared.send_error(None, ErrorObject::invalid_request(format!("JSON-RPC batches are not supported in {version}")));
                return;
            }
            let mut replies = Vec::new();
            let mut immediate = Vec::new();
            for item in items {
                match item {
                    Err(Rejected { id, error }) => immediate.push(Message::Error { id, error }),
                    Ok(m) if m.method() == Some(methods::INITIALIZE) => immediate.push(Message::Error {
                        id: m.id().cloned(),
                        error: ErrorObject::invalid_request("initialize must not be part of a batch"),
                    }),
                    Ok(m) => replies.extend(route_message(peer, service, notes, m)),
                }
            }
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut out: Vec<Message> = immediate;
                for r in futures::future::join_all(replies).await.into_iter().flatten() {
                    out.push(r.message);
                }
                if !out.is_empty() {
                    // A batch of requests is answered with one array of responses.
                    let ids = out.iter().filter_map(|m| m.id().cloned()).collect();
                    let body = serde_json::to_vec(&out).expect("responses serialize");
                    let _ = shared.out.send(Outbound { bytes: Bytes::from(body), route: Route::AnswersBatch(ids) });
                }
            });
        }
    }
}

fn send_reply(reply: Option<Reply>) {
    if let Some(m) = reply {
        let route = m.message.id().cloned().map_or(Route::Unrelated, Route::Answers);
        let _ = m.shared.send(&m.message, route);
    }
}

/// A response to send once a request's handler finishes.
pub(crate) struct Reply {
    shared: Arc<Shared>,
    message: Message,
}

/// Routes one message. Requests return the future of their reply; everything else is
/// handled here and now, in arrival order.
fn route_message(
    peer: &Peer,
    service: &Arc<dyn Service>,
    notes: &mpsc::UnboundedSender<IncomingNotification>,
    message: Message,
) -> Option<futures::future::BoxFuture<'static, Option<Reply>>> {
    let shared = &peer.shared;
    match message {
        Message::Request { id, method, params } => incoming::dispatch(peer, service, id, method, params),
        Message::Response { id, result } => {
            shared.outgoing.complete(&id, Ok(result));
            None
        }
        Message::Error { id: Some(id), error } => {
            shared.outgoing.complete(&id, Err(error));
            None
        }
        Message::Error { id: None, error } => {
            tracing::warn!(code = error.code, message = error.message.as_str(), "peer reported an error without an id");
            None
        }
        Message::Notification { method, params } => {
            match method.as_str() {
                methods::CANCELLED => shared.incoming.cancel_from_peer(params.as_ref()),
                methods::PROGRESS => shared.outgoing.progress(params.as_ref()),
                _ => {}
            }
            service.observe_notification(&method, params.as_ref());
            // Progress and cancellation are also offered to the role (e.g. for callbacks).
            let _ = notes.send(IncomingNotification { method, params, peer: peer.clone() });
            None
        }
    }
}

/// Delivers notifications to the service one at a time, in order, off the reader task (a
/// slow callback must not stop responses from being read).
async fn notification_loop(mut rx: mpsc::UnboundedReceiver<IncomingNotification>, service: Arc<dyn Service>, peer: Peer) {
    let closed = peer.closed_token();
    loop {
        let note = tokio::select! {
            biased;
            n = rx.recv() => n,
            _ = closed.cancelled() => None,
        };
        let Some(note) = note else { break };
        service.handle_notification(note).await;
    }
    service.on_closed(&peer);
}
