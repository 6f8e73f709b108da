//! Session-era Streamable HTTP: a message's POST (with the session's headers) and what
//! its response says, and initializing again when the server forgot the session.

use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::inner::{Failure, Inner, SendError};
use super::peek::{Peek, Received};
use crate::protocol::methods;
use crate::transport::http::headers;

impl Inner {
    /// POSTs one message to the endpoint and delivers what answers it.
    pub(super) async fn post_streamable(&self, bytes: &Bytes, peek: &Peek) -> Result<(), Failure> {
        let initializing = peek.is(methods::INITIALIZE);
        let req = self
            .common_headers(self.http.post(self.url.clone()))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(bytes.clone());
        let resp = match self.send(req).await {
            Ok(r) => r,
            Err(SendError::Http(e)) if e.is_connect() => {
                // The cause is kept: the reqwest error names the URL, its causes the OS's reason.
                let error =
                    crate::Error::caused(crate::ErrorKind::Transport, format!("cannot reach {}: {e}", self.config.url), e);
                self.close(error.detail());
                return Err(Failure::Typed(error));
            }
            Err(e) => return Err(e.failure("HTTP POST")),
        };
        if let Some(id) = peek.request_id() {
            // The server has the request now: a cancel for it may follow.
            if let Some(token) = self.unacknowledged.lock().unwrap().remove(&id) {
                token.cancel();
            }
        }
        let status = resp.status();
        if initializing && status.is_success() {
            if let Some(sid) = resp.headers().get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) {
                self.session_id.set(Some(sid.to_string()));
            }
        }
        match status {
            StatusCode::ACCEPTED | StatusCode::NO_CONTENT => Ok(()),
            s if s.is_success() => {
                let sse = resp
                    .headers()
                    .get(CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                if sse {
                    self.read_response_stream(resp, peek).await
                } else {
                    let limit = crate::transport::DEFAULT_MAX_MESSAGE_SIZE;
                    let body = super::inner::read_body(resp, limit).await.map_err(Failure::Fatal)?;
                    if !body.is_empty() {
                        self.deliver(Received::parse(body), peek).await;
                    }
                    Ok(())
                }
            }
            StatusCode::NOT_FOUND if !initializing && self.session_id.get().is_some() => Err(Failure::SessionExpired),
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED if initializing => {
                Err(Failure::TryLegacy)
            }
            s => {
                let body = super::inner::read_detail(resp).await;
                let detail = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
                    .unwrap_or(body);
                Err(Failure::refused(s, detail))
            }
        }
    }

    /// The session expired: initialize again (once) without bothering the session above.
    pub(super) async fn reinitialize(&self) -> bool {
        let init = {
            let mut s = self.state.lock().unwrap();
            if s.reinitialized {
                return false;
            }
            s.reinitialized = true;
            self.session_id.set(None);
            s.initialize.clone()
        };
        let Some(init) = init else { return false };
        tracing::info!("the server forgot the session: initializing again");
        let req = self
            .http
            .post(self.url.clone())
            .headers(self.config.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(init);
        let Ok(resp) = self.send(req).await else { return false };
        if !resp.status().is_success() {
            return false;
        }
        let Some(sid) = resp.headers().get(headers::SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_string) else {
            return false;
        };
        // The answer is for the session above, which already has one: read and drop it.
        let _ = super::inner::read_detail(resp).await;
        self.session_id.set(Some(sid));
        let note = Bytes::from(json!({"jsonrpc": "2.0", "method": methods::INITIALIZED}).to_string());
        let req = self
            .common_headers(self.http.post(self.url.clone()))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(note);
        self.send(req).await.is_ok_and(|r| r.status().is_success())
    }
}
