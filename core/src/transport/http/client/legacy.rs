//! Legacy HTTP+SSE (2024-11-05), the fallback when a server refuses the first POST: GET
//! the URL, POST every message to the endpoint its stream names, read every server
//! message from that stream.

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::inner::{Failure, Inner};
use crate::transport::http::sse::Parser;

impl Inner {
    /// Legacy HTTP+SSE: GET the URL, wait for the `endpoint` event, then keep reading the
    /// stream (it carries every server message) in the background.
    pub(super) async fn start_legacy(self: &Arc<Self>) -> Result<String, String> {
        let req = self.http.get(self.url.clone()).headers(self.config.headers.clone()).header(ACCEPT, "text/event-stream");
        let resp = self.send(req).await.map_err(|e| format!("HTTP+SSE fallback failed: {e}"))?;
        if !resp.status().is_success() {
            return Err(format!("the server refused Streamable HTTP and HTTP+SSE (GET: HTTP {})", resp.status()));
        }
        let mut body = resp.bytes_stream();
        let mut parser = Parser::default();
        let endpoint = loop {
            let Some(Ok(chunk)) = body.next().await else {
                return Err("the SSE stream ended before its endpoint event".into());
            };
            if let Some(ev) =
                parser.push(&chunk).map_err(|e| e.to_string())?.into_iter().find(|e| e.event.as_deref() == Some("endpoint"))
            {
                break ev.data;
            }
        };
        let base = reqwest::Url::parse(&self.config.url).map_err(|e| e.to_string())?;
        let endpoint = base.join(endpoint.trim()).map_err(|e| format!("bad endpoint event: {e}"))?;
        // The messages (and their credentials) go to the server that was asked, never to
        // another origin an endpoint event names.
        if endpoint.origin() != base.origin() {
            return Err(format!("the endpoint event names another origin ({})", endpoint.origin().ascii_serialization()));
        }
        let endpoint = endpoint.to_string();
        tracing::debug!(endpoint = endpoint.as_str(), "using legacy HTTP+SSE");
        self.state.lock().unwrap().legacy_endpoint = Some(endpoint.clone());
        let inner = self.clone();
        tokio::spawn(async move {
            loop {
                let chunk = tokio::select! {
                    c = body.next() => c,
                    _ = inner.closed.cancelled() => return,
                };
                let Some(Ok(chunk)) = chunk else { break };
                let events = match parser.push(&chunk) {
                    Ok(events) => events,
                    Err(e) => return inner.close(format!("the HTTP+SSE stream was dropped: {e}")),
                };
                for ev in events {
                    if ev.event.as_deref().unwrap_or("message") == "message" && !ev.data.is_empty() {
                        inner.deliver_unrelated(ev.data).await;
                    }
                }
            }
            inner.close("the server closed the HTTP+SSE stream".into());
        });
        Ok(endpoint)
    }

    /// POSTs one message to the legacy endpoint; the answer comes on the stream.
    pub(super) async fn post_legacy(&self, endpoint: &str, bytes: &Bytes) -> Result<(), Failure> {
        let req = self
            .http
            .post(endpoint)
            .headers(self.config.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(bytes.clone());
        match self.send(req).await {
            Ok(r) if r.status().is_success() => Ok(()),
            Ok(r) => Err(Failure::Fatal(format!("HTTP {} from the message endpoint", r.status()))),
            Err(e) => Err(e.failure("HTTP POST")),
        }
    }
}
