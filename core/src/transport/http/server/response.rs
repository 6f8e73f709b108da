//! What the server answers with: JSON-RPC errors with an HTTP status, and response bodies
//! read from a hub stream (SSE, or one JSON body).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::Stream;
use serde_json::json;

use crate::protocol::codes;
use crate::transport::http::backend::{BackendSession, SessionControl};
use crate::transport::http::hub::Hub;
use crate::transport::http::sse::StreamHandle;
use crate::transport::http::{headers, sse};

/// An HTTP error with a JSON-RPC error body (counted as a refused request: every refusal
/// of the HTTP layer answers through here).
pub(super) fn error(status: StatusCode, code: i64, message: impl Into<String>) -> Response {
    crate::telemetry::count_refused_http(status.as_u16());
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message.into()}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// An SSE (or JSON) response body read from a hub stream. Dropping it (the client went
/// away) tells the hub; in stateless mode it also owns, and so ends, the session.
pub(super) struct StreamBody {
    first: Option<Bytes>,
    pub(super) handle: StreamHandle,
    hub: Arc<Hub>,
    // Stateless mode: the request's own session, ended with the response.
    _owned: Option<BackendSession>,
    ends_session: Option<Arc<dyn SessionControl>>,
    /// The hub gives raw JSON messages (JSON mode) that this body frames as SSE events.
    frame_as_sse: bool,
}

impl StreamBody {
    pub(super) fn new(first: Option<Bytes>, handle: StreamHandle, hub: Arc<Hub>, owned: Option<BackendSession>) -> Self {
        Self { first, handle, hub, _owned: owned, ends_session: None, frame_as_sse: false }
    }

    /// Frames the hub's raw JSON messages as SSE events.
    pub(super) fn sse_framed(mut self) -> Self {
        self.frame_as_sse = true;
        self
    }

    /// Ends `session` when the body drops (legacy HTTP+SSE: the stream is the session).
    pub(super) fn ending_session(mut self, session: Arc<dyn SessionControl>) -> Self {
        self.ends_session = Some(session);
        self
    }
}

impl Stream for StreamBody {
    type Item = Result<Bytes, Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(first)));
        }
        if self.frame_as_sse {
            return self.handle.rx.poll_recv(cx).map(|m| m.map(|raw| Ok(sse::frame(None, Some("message"), &raw))));
        }
        match self.handle.rx.poll_recv(cx) {
            Poll::Ready(Some(frame)) => {
                // Whatever else is queued goes in the same write (e.g. a priming event and
                // the response right behind it), so the client wakes once.
                let Some(mut more) = self.handle.rx.try_recv() else {
                    return Poll::Ready(Some(Ok(frame)));
                };
                let mut joined = bytes::BytesMut::with_capacity(frame.len() + more.len());
                joined.extend_from_slice(&frame);
                loop {
                    joined.extend_from_slice(&more);
                    match self.handle.rx.try_recv() {
                        Some(next) => more = next,
                        None => break,
                    }
                }
                Poll::Ready(Some(Ok(joined.freeze())))
            }
            other => other.map(|m| m.map(Ok)),
        }
    }
}

impl Drop for StreamBody {
    fn drop(&mut self) {
        self.hub.stream_dropped(self.handle.id);
        if let Some(session) = &self.ends_session {
            session.close("the SSE stream closed");
        }
    }
}

/// An SSE response carrying `body`.
pub(super) fn sse_response(body: StreamBody, session_id: Option<&str>) -> Response {
    let mut r = Response::new(Body::from_stream(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Some(id) = session_id.and_then(|s| HeaderValue::from_str(s).ok()) {
        h.insert(headers::SESSION_ID, id);
    }
    r
}

/// Collects a JSON-response-mode stream: one response object, or an array for a batch.
pub(super) async fn json_response(mut body: StreamBody, batch: bool, session_id: Option<&str>) -> Response {
    let mut parts = Vec::new();
    while let Some(m) = body.handle.rx.recv().await {
        parts.push(m);
    }
    let bytes = if batch || parts.len() > 1 {
        let mut out = b"[".to_vec();
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(p);
        }
        out.push(b']');
        Bytes::from(out)
    } else {
        match parts.pop() {
            Some(p) => p,
            None => return error(StatusCode::INTERNAL_SERVER_ERROR, codes::INTERNAL_ERROR, "the request was cancelled"),
        }
    };
    let mut r = (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], bytes).into_response();
    if let Some(id) = session_id.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(headers::SESSION_ID, id);
    }
    r
}
