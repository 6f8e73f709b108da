//! A POST's SSE response stream: read until the request is answered, resumed with GET and
//! `Last-Event-ID` after the server's `retry` delay when it ends early.

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::ACCEPT;

use super::inner::{remember, Failure, Inner};
use super::peek::{Peek, Received};
use crate::transport::http::headers;
use crate::transport::http::sse::Parser;

impl Inner {
    /// Reads a POST's SSE stream until the request is answered, resuming a stream that
    /// ends early with GET + Last-Event-ID after the server's retry delay.
    pub(super) async fn read_response_stream(&self, resp: reqwest::Response, peek: &Peek) -> Result<(), Failure> {
        let mut last_id: Option<String> = None;
        let mut retry = self.config.default_retry;
        let mut answered = peek.id.is_none();
        let mut resp = resp;
        let mut attempts = 0;
        loop {
            let mut parser = Parser::default();
            let mut body = resp.bytes_stream();
            loop {
                let chunk = tokio::select! {
                    c = body.next() => c,
                    _ = self.closed.cancelled() => return Ok(()),
                };
                let Some(Ok(chunk)) = chunk else { break };
                let events = parser.push(&chunk).map_err(|e| Failure::Fatal(e.to_string()))?;
                for ev in events {
                    remember(&ev, &mut last_id, &mut retry);
                    if ev.data.is_empty() {
                        continue; // a priming event
                    }
                    let received = Received::parse(Bytes::from(ev.data));
                    answered = answered || received.answers(peek.id.as_ref());
                    self.deliver(received, peek).await;
                }
            }
            if answered || self.closed.is_cancelled() {
                return Ok(());
            }
            let Some(resume_from) = last_id.clone() else {
                return Err(Failure::Fatal("the response stream ended before the response, and cannot be resumed".into()));
            };
            attempts += 1;
            if attempts > self.config.max_resume_attempts {
                return Err(Failure::Fatal(format!("gave up resuming the response stream after {attempts} attempts")));
            }
            tokio::select! {
                _ = tokio::time::sleep(retry) => {}
                _ = self.closed.cancelled() => return Ok(()),
            }
            let req = self
                .common_headers(self.http.get(self.url.clone()))
                .header(ACCEPT, "text/event-stream")
                .header(headers::LAST_EVENT_ID, &resume_from);
            resp = match self.send(req).await {
                Ok(r) if r.status().is_success() => r,
                Ok(r) => return Err(Failure::Fatal(format!("resuming the response stream failed: HTTP {}", r.status()))),
                Err(e) => return Err(Failure::Fatal(format!("resuming the response stream failed: {e}"))),
            };
        }
    }
}
