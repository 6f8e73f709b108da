//! The standalone GET stream: server-initiated messages not tied to a request,
//! reconnected (with `Last-Event-ID`) while the session lives.

use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::ACCEPT;
use reqwest::StatusCode;

use super::inner::{remember, Inner};
use crate::transport::http::headers;
use crate::transport::http::sse::Parser;

impl Inner {
    /// The standalone GET stream: server-initiated messages; reconnects while the session lives.
    /// `ready` is told once the first GET is answered (stream open, or refused).
    pub(super) async fn standalone_stream(self: Arc<Self>, mut ready: Option<tokio::sync::oneshot::Sender<()>>) {
        let mut last_id: Option<String> = None;
        let mut retry = self.config.default_retry;
        let mut failures = 0;
        while !self.closed.is_cancelled() {
            let mut req = self.common_headers(self.http.get(self.url.clone())).header(ACCEPT, "text/event-stream");
            if let Some(id) = &last_id {
                req = req.header(headers::LAST_EVENT_ID, id);
            }
            let resp = tokio::select! {
                r = self.send(req) => r,
                _ = self.closed.cancelled() => return,
            };
            if let Some(tx) = ready.take() {
                let _ = tx.send(());
            }
            match resp {
                Ok(r) if r.status().is_success() => {
                    failures = 0;
                    let mut parser = Parser::default();
                    let mut body = r.bytes_stream();
                    loop {
                        let chunk = tokio::select! {
                            c = body.next() => c,
                            _ = self.closed.cancelled() => return,
                        };
                        let Some(Ok(chunk)) = chunk else { break };
                        let events = match parser.push(&chunk) {
                            Ok(events) => events,
                            Err(e) => {
                                tracing::warn!("the standalone stream is dropped: {e}");
                                break;
                            }
                        };
                        for ev in events {
                            remember(&ev, &mut last_id, &mut retry);
                            if !ev.data.is_empty() {
                                self.deliver_unrelated(ev.data).await;
                            }
                        }
                    }
                }
                // The server offers no standalone stream (405), or the session is gone.
                Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED || r.status() == StatusCode::NOT_FOUND => return,
                Ok(r) if r.status().is_client_error() => {
                    // e.g. 409: another stream is open, or a stale Last-Event-ID: start over.
                    last_id = None;
                    failures += 1;
                }
                _ => failures += 1,
            }
            if failures > self.config.max_resume_attempts {
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(retry) => {}
                _ = self.closed.cancelled() => return,
            }
        }
    }
}
