//! The HTTP client transport: Streamable HTTP, falling back to legacy HTTP+SSE, so one
//! URL reaches old and new servers.
//!
//! Each outgoing message is one POST (sent concurrently). A request's answer arrives as a
//! JSON body or an SSE stream; a stream that ends before the answer is resumed with `GET`
//! and `Last-Event-ID` after the server's `retry` delay. After initialization a standalone
//! GET stream carries server-initiated messages (if the server offers one; it is open
//! before the first request goes out). A 404 for the
//! session re-initializes once and retries; closing sends DELETE.
//!
//! A request whose `_meta` names the stateless era (2026-07-28) is a POST of its own: no
//! session, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers mirrored from
//! the body, the server's error answers (HTTP 4xx with a JSON-RPC error) delivered as
//! they are, and cancelling it closes its response stream, which is how that era cancels.
//!
//! By what they hold:
//! - `config`: [`HttpClientTransport`], the URL and settings;
//! - `inner`: what every POST and stream of a connection shares;
//! - `peek`: what the transport reads of messages (incoming ones are parsed once, and
//!   the session takes them as they are);
//! - `post`: which kind of POST carries a message, and what follows a failure;
//! - `streamable`, `stateless`, `legacy`: the three ways to POST;
//! - `stream`: a POST's SSE response stream, resumed when it ends early;
//! - `standalone`: the GET stream of server-initiated messages.

mod config;
mod inner;
mod legacy;
mod peek;
mod post;
mod standalone;
mod stateless;
mod stream;
mod streamable;

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::transport::{Inbound, MessageKind, MessageReader, MessageWriter, Outbound, RecvError, SessionId, Transport};
use inner::Inner;

pub use config::HttpClientTransport;

/// Reading half of an [`HttpClientTransport`].
pub struct HttpClientReader {
    rx: mpsc::UnboundedReceiver<inner::Delivery>,
    inner: Arc<Inner>,
}

/// Writing half of an [`HttpClientTransport`].
pub struct HttpClientWriter {
    inner: Arc<Inner>,
}

impl Transport for HttpClientTransport {
    type Reader = HttpClientReader;
    type Writer = HttpClientWriter;
    fn endpoint(&self) -> Option<String> {
        Some(self.url.clone())
    }
    fn split(self) -> (HttpClientReader, HttpClientWriter) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (inner, valid) = Inner::new(self, tx);
        let inner = Arc::new(inner);
        if let Err(reason) = valid {
            inner.close(reason);
        }
        (HttpClientReader { rx, inner: inner.clone() }, HttpClientWriter { inner })
    }
}

impl MessageReader for HttpClientReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        self.recv_inbound().await.map(Inbound::into_bytes)
    }

    /// Answers come parsed: the transport read them to tell when a request is answered.
    async fn recv_inbound(&mut self) -> Result<Inbound, RecvError> {
        tokio::select! {
            biased;
            // Taken: its share of the budget goes back (the permit drops), and reading the
            // responses goes on.
            m = self.rx.recv() => m.map(|(message, _share)| message).ok_or_else(|| RecvError::Closed("the HTTP transport closed".into())),
            _ = self.inner.closed.cancelled() => {
                let reason = self.inner.close_reason.lock().unwrap().clone();
                Err(RecvError::Closed(reason.unwrap_or_else(|| "the HTTP transport closed".into())))
            }
        }
    }
}

impl MessageWriter for HttpClientWriter {
    async fn send(&mut self, message: Outbound) -> std::io::Result<()> {
        if message.bytes.is_empty() || self.inner.closed.is_cancelled() {
            return Ok(());
        }
        let inner = self.inner.clone();
        if post::is_initialized_notification(&message.bytes) {
            // Inline: the standalone GET stream is up (or refused) before any request goes
            // out, so server messages not tied to a request have somewhere to arrive.
            post::post(inner, message.bytes).await;
        } else {
            tokio::spawn(post::post(inner, message.bytes));
        }
        Ok(())
    }
    async fn send_kind(&mut self, message: Outbound, kind: MessageKind) -> std::io::Result<()> {
        match kind {
            MessageKind::Cancels(request) => {
                if !message.bytes.is_empty() && !self.inner.closed.is_cancelled() {
                    tokio::spawn(post::post_cancel(self.inner.clone(), message.bytes, request));
                }
                Ok(())
            }
            _ => self.send(message).await,
        }
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    async fn close(self) {
        self.inner.shutdown().await;
    }
    fn session_id(&self) -> Option<SessionId> {
        Some(self.inner.session_id.clone())
    }
}
