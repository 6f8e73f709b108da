//! Requests this side sent: id allocation, an entry in the pending map (`pending`),
//! timeouts, progress, cancel.
//!
//! Every request's entry is removed exactly once, by whichever comes first:
//! the response or error (reader task), the timeout or a local cancel (the caller's future,
//! which then sends `notifications/cancelled`), the caller dropping its future (the RAII
//! `PendingGuard`, which also sends the cancel), or the session closing
//! (`Outgoing::fail_all` in `pending`, which fails every caller at once with the close
//! reason).

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use super::pending::Progress;
use super::shared::Shared;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, Message, RequestId};
use crate::telemetry::{Operation, Outcome};
use crate::transport::Route;

/// A callback invoked for each progress notification of a request.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// A callback told a request's id just before it is sent.
pub type SentCallback = Arc<dyn Fn(&RequestId) + Send + Sync>;

/// Per-request options. Unset fields take the session's [`super::SessionConfig`].
///
/// ```
/// use std::time::Duration;
/// use oxmcp::session::RequestOptions;
/// let cancel = tokio_util::sync::CancellationToken::new();
/// let options = RequestOptions::default()
///     .timeout(Duration::from_secs(5))
///     .on_progress(|p| println!("{}/{:?}", p.progress, p.total))
///     .cancel_token(cancel.clone());
/// ```
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Inactivity timeout (restarted by progress when resetting is on).
    pub timeout: Option<Duration>,
    /// Hard maximum, whatever progress arrives.
    pub max_timeout: Option<Duration>,
    /// Whether progress restarts the inactivity timer.
    pub reset_timeout_on_progress: Option<bool>,
    /// Called for each progress notification.
    pub on_progress: Option<ProgressCallback>,
    /// Cancelling this token cancels the request (and notifies the peer).
    pub cancel: Option<CancellationToken>,
    /// The incoming request whose handler sends this one (server-to-client requests
    /// during a tool call), so stream transports deliver it with that request.
    pub during: Option<RequestId>,
    /// Told the request's id before the request is sent (a relay maps the ids a peer
    /// quotes back, such as a listen stream's subscription id, to its own requester's).
    pub on_sent: Option<SentCallback>,
    /// The caller's span, as W3C text (a host whose OpenTelemetry API is not Rust's): the
    /// request continues its trace. A Rust caller runs its future in its
    /// `opentelemetry::Context` instead (`FutureExt::with_context`).
    pub trace: Option<crate::telemetry::TraceContext>,
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("max_timeout", &self.max_timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel.is_some())
            .field("during", &self.during)
            .field("on_sent", &self.on_sent.is_some())
            .field("trace", &self.trace)
            .finish()
    }
}

impl RequestOptions {
    /// Sets the inactivity timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    /// Sets the hard maximum.
    pub fn max_timeout(mut self, max: Duration) -> Self {
        self.max_timeout = Some(max);
        self
    }
    /// Turns progress-resets-timeout on or off for this request.
    pub fn reset_timeout_on_progress(mut self, on: bool) -> Self {
        self.reset_timeout_on_progress = Some(on);
        self
    }
    /// Sets the progress callback.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }
    /// Sets the cancellation token.
    pub fn cancel_token(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
    /// Marks the request as sent by the handler of `request`.
    pub fn during(mut self, request: RequestId) -> Self {
        self.during = Some(request);
        self
    }

    /// Calls `f` with the request's id just before the request is sent.
    pub fn on_sent(mut self, f: impl Fn(&RequestId) + Send + Sync + 'static) -> Self {
        self.on_sent = Some(Arc::new(f));
        self
    }

    /// Makes the request continue the trace of the caller's span, given as W3C text.
    pub fn trace(mut self, trace: crate::telemetry::TraceContext) -> Self {
        self.trace = Some(trace);
        self
    }
}

/// Removes the pending entry if the caller's future ends any way other than a response,
/// and tells the peer the request is cancelled.
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: i64,
    armed: bool,
    route: Route,
}

impl PendingGuard<'_> {
    /// Ends the request locally. Returns false if a response won the race (the entry was
    /// already gone).
    fn cancel(&mut self, reason: &str) -> bool {
        self.armed = false;
        if self.shared.outgoing.remove(self.id).is_none() {
            return false;
        }
        if !self.shared.closed.is_cancelled() {
            let params = json!({ "requestId": self.id, "reason": reason });
            let _ = self
                .shared
                .send(&Message::Notification { method: methods::CANCELLED.into(), params: Some(params) }, self.route.clone());
        }
        true
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.cancel("the request was abandoned by the caller");
        }
    }
}

/// Attaches `id` as the progress token unless the caller set one. Returns whether it did:
/// only tokens the engine attached are routed back to this request (a caller's own token
/// may equal another request's id).
fn attach_progress_token(params: &mut Option<Value>, id: i64) -> bool {
    let params = params.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(obj) = params else { return false };
    let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else { return false };
    if meta.contains_key("progressToken") {
        return false;
    }
    meta.insert("progressToken".into(), Value::from(id));
    true
}

pub(crate) async fn request(shared: &Shared, method: &str, mut params: Option<Value>, options: RequestOptions) -> Result<Value> {
    if shared.closed.is_cancelled() {
        return Err(shared.closed_error());
    }
    let id = shared.outgoing.next_id.fetch_add(1, Ordering::Relaxed);
    tracing::Span::current().record("id", id);
    // The client span (telemetry on), written into `_meta` for the peer's server span.
    let caller = options.trace.as_ref();
    let Some(operation) = Operation::sending(method, &mut params, id, shared.version.get().copied(), caller) else {
        return exchange(shared, id, method, params, options).await;
    };
    operation.in_session(shared.session_id.as_ref());
    // In the client span's context: what the exchange waits on (a token refresh) nests under it.
    let cx = operation.context().clone();
    let answer = opentelemetry::trace::FutureExt::with_context(exchange(shared, id, method, params, options), cx).await;
    operation.end(match &answer {
        Ok(result) => Outcome::Result(result),
        Err(e) => match e.rpc() {
            Some(rpc) => Outcome::Error(rpc.code, &rpc.message),
            None if e.kind() == ErrorKind::Cancelled => Outcome::Cancelled,
            None => Outcome::Failed(e.kind().name(), e.message()),
        },
    });
    answer
}

/// Sends request `id` and waits for its end, however it comes.
async fn exchange(shared: &Shared, id: i64, method: &str, mut params: Option<Value>, options: RequestOptions) -> Result<Value> {
    let config = &shared.config;
    let timeout = options.timeout.unwrap_or(config.request_timeout);
    let max_timeout = options.max_timeout.unwrap_or(config.max_request_timeout).max(Duration::ZERO);
    let reset = options.reset_timeout_on_progress.unwrap_or(config.reset_timeout_on_progress);
    let wants_progress = (reset || options.on_progress.is_some()) && method != methods::PING && method != methods::INITIALIZE;

    let wants_progress = wants_progress && attach_progress_token(&mut params, id);
    let (progress_tx, mut progress_rx) = match wants_progress {
        true => {
            let (tx, rx) = mpsc::unbounded_channel();
            (Some(tx), Some(rx))
        }
        false => (None, None),
    };
    // The earlier of the inactivity deadline and the hard limit, on the session's alarm.
    let hard_deadline = Instant::now() + max_timeout;
    let next_deadline = || (Instant::now() + timeout).min(hard_deadline);
    let renew = reset.then_some((timeout, hard_deadline));
    let waits = shared.outgoing.insert(id, progress_tx, next_deadline(), renew);
    let (mut done_rx, mut rung) = (waits.done, waits.rung);
    let route = options.during.clone().map_or(Route::Unrelated, Route::During);
    let mut guard = PendingGuard { shared, id, armed: true, route: route.clone() };
    // The session may have closed between the check above and the insert: then
    // fail_all may have missed the entry, so check again now that it is in the map.
    if shared.closed.is_cancelled() {
        guard.armed = false;
        shared.outgoing.remove(id);
        return Err(shared.closed_error());
    }
    let message = Message::Request { id: RequestId::Number(id), method: method.to_owned(), params };
    if let (Some(f), Message::Request { id, .. }) = (&options.on_sent, &message) {
        f(id);
    }
    if shared.send(&message, route).is_err() {
        guard.armed = false;
        shared.outgoing.remove(id);
        return Err(shared.closed_error());
    }

    let ended = loop {
        tokio::select! {
            biased;
            outcome = &mut done_rx => {
                guard.armed = false;
                let Ok(answer) = outcome else { return Err(shared.closed_error()) };
                // Progress sent just before the response is already queued: deliver it first.
                if let (Some(rx), Some(callback)) = (progress_rx.as_mut(), &options.on_progress) {
                    while let Ok(update) = rx.try_recv() {
                        callback(update);
                    }
                }
                return answer;
            }
            Some(update) = next_progress(progress_rx.as_mut()) => {
                // The deadline moved when the progress arrived (`Outgoing::progress`).
                if let Some(callback) = &options.on_progress {
                    callback(update);
                }
            }
            Ok(()) = &mut rung => break timed_out(method, timeout, max_timeout, hard_deadline),
            _ = cancelled(options.cancel.as_ref()) => break Error::new(ErrorKind::Cancelled, format!("{method} was cancelled")),
        }
    };
    let reason = match ended.kind() {
        ErrorKind::Timeout => "timed out",
        _ => "cancelled by the caller",
    };
    if !guard.cancel(reason) {
        // The response arrived in the same instant: it wins over the local end.
        if let Ok(outcome) = done_rx.try_recv() {
            return outcome;
        }
        if shared.closed.is_cancelled() {
            return Err(shared.closed_error());
        }
    }
    Err(ended)
}

fn timed_out(method: &str, timeout: Duration, max_timeout: Duration, hard_deadline: Instant) -> Error {
    if Instant::now() >= hard_deadline {
        Error::new(ErrorKind::Timeout, format!("{method} exceeded its maximum time of {max_timeout:?}"))
    } else {
        Error::new(ErrorKind::Timeout, format!("{method} timed out after {timeout:?} without a response"))
    }
}

async fn next_progress(rx: Option<&mut mpsc::UnboundedReceiver<Progress>>) -> Option<Progress> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// Resolves when `token` fires; never without one (no token is allocated per request).
async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}
