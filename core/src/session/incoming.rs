//! Requests the peer sent: each dispatched to the role under the concurrency limit, with
//! its entry in the in-flight map (`in_flight`) and its cancellation.
//!
//! Rules (from the MCP specification):
//! - each request is handled concurrently, under a configurable limit;
//! - `notifications/cancelled` fires the request's token and no response is sent;
//! - `initialize` cannot be cancelled;
//! - a cancel for an unknown or finished request is ignored.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::in_flight::Refused;
use super::peer::Peer;
use super::service::{IncomingRequest, Service};
use super::shared::{Reply, Shared};
use crate::protocol::{methods, ErrorObject, Message, RequestId};
use crate::telemetry::{Operation, Outcome};
use crate::transport::{Outbound, Route};

/// Removes the in-flight entry however the handler task ends (including a panic or an
/// aborted task).
struct InFlightGuard {
    shared: Arc<Shared>,
    id: RequestId,
    registered: bool,
}

impl InFlightGuard {
    fn finish(&mut self) {
        if std::mem::take(&mut self.registered) {
            self.shared.incoming.remove(&self.id);
        }
    }

    /// Tells the transport that no answer will follow (the request was cancelled).
    fn unanswered(&self) {
        self.shared.send_outbound(Outbound { bytes: Bytes::new(), route: Route::Unanswered(self.id.clone()) });
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Starts handling one request. Registration happens now, before the next message is
/// read, so a cancel that follows right behind the request is honoured.
pub(crate) fn dispatch(
    peer: &Peer,
    service: &Arc<dyn Service>,
    id: RequestId,
    method: String,
    params: Option<Value>,
) -> Option<BoxFuture<'static, Option<Reply>>> {
    let shared = peer.shared.clone();
    let stateless_era = peer.protocol_version().is_some_and(crate::protocol::ProtocolVersion::is_stateless)
        || crate::protocol::meta::is_stateless_request(params.as_ref());
    if method == methods::PING && !stateless_era {
        // Answered by the engine in both roles (the stateless era removed ping: the
        // service says so).
        let message = Message::Response { id, result: Value::Object(Default::default()) };
        return Some(Box::pin(async move { Some(Reply { shared, message }) }));
    }
    let cancel = shared.closed.child_token();
    let cancellable = method != methods::INITIALIZE;
    if cancellable {
        if let Err(why) = shared.incoming.register(&id, &cancel) {
            crate::telemetry::count_refused(match why {
                Refused::DuplicateId => "duplicate_id",
                Refused::Full => "busy",
            });
            let error = match why {
                Refused::DuplicateId => ErrorObject::invalid_request(format!("request id {id} is already in use")),
                Refused::Full => ErrorObject::internal(format!(
                    "the server is busy: {} requests are running or waiting; try again later",
                    shared.incoming.capacity
                )),
            };
            return Some(Box::pin(async move { Some(Reply { shared, message: Message::Error { id: Some(id), error } }) }));
        }
    }
    let guard = InFlightGuard { shared: shared.clone(), id: id.clone(), registered: cancellable };
    let span = tracing::debug_span!("mcp.request", method = method.as_str(), id = %id);
    // The server span (telemetry on): the handler runs in its context, so what it sends
    // and what a host's handler records are its children.
    let operation = Operation::handling(&method, params.as_ref(), &id, peer.protocol_version(), shared.session_id.as_ref());
    let request = IncomingRequest { id, method, params, cancel: cancel.clone(), peer: peer.clone() };
    let handler = service.handle_request(request);
    let handler = match &operation {
        Some(op) => Box::pin(opentelemetry::trace::FutureExt::with_context(handler, op.context().clone())),
        None => handler,
    };
    Some(Box::pin(run(guard, cancel, handler, operation).instrument(span)))
}

async fn run(
    mut guard: InFlightGuard,
    cancel: CancellationToken,
    handler: BoxFuture<'static, Result<Value, ErrorObject>>,
    operation: Option<Operation>,
) -> Option<Reply> {
    let started = Instant::now();
    let slots = guard.shared.incoming.slots.clone();
    let _slot = tokio::select! {
        biased;
        _ = cancel.cancelled() => {
            guard.finish();
            guard.unanswered();
            return None;
        }
        slot = slots.acquire_owned() => slot.ok()?,
    };
    let mut handler = AssertUnwindSafe(handler).catch_unwind();
    let outcome = tokio::select! {
        biased;
        _ = cancel.cancelled() => None,
        r = &mut handler => Some(r),
    };
    if outcome.is_none() {
        // Cancelled: the handler's token has fired. Give it a bounded time to notice and
        // clean up (release resources, log), then drop it wherever it is.
        let _ = tokio::time::timeout(guard.shared.config.cancelled_handler_grace, handler).await;
    }
    guard.finish();
    // Checked after leaving the map: from here on no cancel can reach this request.
    let Some(outcome) = outcome.filter(|_| !cancel.is_cancelled()) else {
        tracing::debug!(outcome = "cancelled", elapsed_us = started.elapsed().as_micros() as u64);
        guard.unanswered();
        return None;
    };
    let id = guard.id.clone();
    let message = match outcome {
        Ok(Ok(result)) => Message::Response { id, result },
        Ok(Err(error)) => Message::Error { id: Some(id), error },
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(panic = what.as_str(), "request handler panicked");
            Message::Error { id: Some(id), error: ErrorObject::internal(format!("handler panicked: {what}")) }
        }
    };
    if let Some(op) = operation {
        op.end(match &message {
            Message::Response { result, .. } => Outcome::Result(result),
            Message::Error { error, .. } => Outcome::Error(error.code, &error.message),
            _ => Outcome::Cancelled,
        });
    }
    let outcome = if matches!(message, Message::Response { .. }) { "ok" } else { "error" };
    tracing::debug!(outcome, elapsed_us = started.elapsed().as_micros() as u64);
    Some(Reply { shared: guard.shared.clone(), message })
}
