//! What happens to each outgoing message: which kind of POST carries it (stateless era,
//! Streamable HTTP or legacy), what follows a failure (initializing again, falling back
//! to legacy HTTP+SSE, an error for the caller), and how a cancel goes out.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::inner::{Acknowledged, Failure, Inner};
use super::peek::Peek;
use crate::protocol::{methods, RequestId};

/// Sends one message the session wrote, in the trace of the span it names (telemetry on).
pub(super) async fn post(inner: Arc<Inner>, bytes: Bytes) {
    let peek = Peek::of(&bytes);
    match peek.trace() {
        Some(cx) => opentelemetry::trace::FutureExt::with_context(send(inner, bytes, peek), cx).await,
        None => send(inner, bytes, peek).await,
    }
}

async fn send(inner: Arc<Inner>, bytes: Bytes, peek: Peek) {
    if let Some(version) = peek.stateless_version() {
        let version = version.to_string();
        return inner.post_stateless(&bytes, &peek, &version).await;
    }
    post_in_session(inner, bytes, peek).await
}

/// Sends the `notifications/cancelled` the session wrote for `request` (it said so: the
/// bytes need no reading).
pub(super) async fn post_cancel(inner: Arc<Inner>, bytes: Bytes, request: RequestId) {
    if let Some(token) = inner.stateless_inflight.lock().unwrap().remove(&request) {
        // The stateless era cancels by closing the request's response stream.
        token.cancel();
        return;
    }
    let waiting = inner.unacknowledged.lock().unwrap().get(&request).cloned();
    if let Some(acknowledged) = waiting {
        // A server in JSON-response mode acknowledges only with the answer: wait a
        // little, not for the whole call (oxmcp servers also stop a request whose
        // cancel came first).
        let _ = tokio::time::timeout(Duration::from_secs(1), acknowledged.cancelled()).await;
    }
    post_in_session(inner, bytes, Peek::notification(methods::CANCELLED)).await
}

/// A session-era message: Streamable HTTP, or legacy HTTP+SSE once the server refused it.
async fn post_in_session(inner: Arc<Inner>, bytes: Bytes, peek: Peek) {
    // Marks this request acknowledged once its POST is answered (or failed), however
    // this function returns.
    let _acknowledged = match (peek.request_id(), &peek.method) {
        (Some(id), Some(_)) => Some(Acknowledged::track(&inner, id)),
        _ => None,
    };
    let initializing = peek.is(methods::INITIALIZE);
    if initializing {
        inner.state.lock().unwrap().initialize = Some(bytes.clone());
    }
    let legacy = inner.state.lock().unwrap().legacy_endpoint.clone();
    let outcome = match legacy {
        Some(endpoint) => inner.post_legacy(&endpoint, &bytes).await,
        None => inner.post_streamable(&bytes, &peek).await,
    };
    let outcome = match outcome {
        Err(Failure::SessionExpired) if !initializing && inner.reinitialize().await => inner.post_streamable(&bytes, &peek).await,
        Err(Failure::TryLegacy) if initializing => match inner.start_legacy().await {
            Ok(endpoint) => inner.post_legacy(&endpoint, &bytes).await,
            Err(e) => Err(Failure::Fatal(e)),
        },
        other => other,
    };
    match outcome {
        Ok(()) => {}
        Err(Failure::SessionExpired) => inner.fail(&peek, "the server no longer knows this session".into()),
        Err(Failure::TryLegacy) => inner.fail(&peek, "the server refused the request".into()),
        Err(Failure::Fatal(m)) => inner.fail(&peek, m),
        Err(Failure::Typed(e)) => inner.fail_with(&peek, e),
    }
    let legacy = inner.state.lock().unwrap().legacy_endpoint.is_some();
    if peek.is(methods::INITIALIZED) && !legacy && inner.config.open_get_stream {
        let (ready, connected) = tokio::sync::oneshot::channel();
        tokio::spawn(inner.clone().standalone_stream(Some(ready)));
        let _ = tokio::time::timeout(Duration::from_secs(5), connected).await;
    }
}

/// Whether an outgoing message is `notifications/initialized` (without parsing it all).
pub(super) fn is_initialized_notification(bytes: &[u8]) -> bool {
    let needle = methods::INITIALIZED.as_bytes();
    bytes.len() < 256 && bytes.windows(needle.len()).any(|w| w == needle)
}
