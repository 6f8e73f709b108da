//! Stateless-era requests (2026-07-28): each its own POST, no session, the headers that
//! mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), the
//! server's answer delivered whatever the HTTP status, and cancelling a request closes
//! its response stream.

use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::inner::{Failure, Inner};
use super::peek::{Peek, Received};
use crate::protocol::methods;
use crate::protocol::mirrored_headers::{self, ParamType};
use crate::transport::http::headers;

impl Inner {
    /// One stateless-era request: its own POST, headers mirrored from the body, the
    /// server's answer delivered whatever the HTTP status.
    pub(super) async fn post_stateless(&self, bytes: &Bytes, peek: &Peek, version: &str) {
        if peek.id.is_none() {
            return; // notifications: nothing to route
        }
        let key = peek.request_id();
        let cancel = CancellationToken::new();
        if let Some(key) = &key {
            self.stateless_inflight.lock().unwrap().insert(key.clone(), cancel.clone());
        }
        let mut req = self
            .http
            .post(self.url.clone())
            .headers(self.config.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header(headers::PROTOCOL_VERSION, version)
            .header(headers::METHOD, peek.method.as_deref().unwrap_or_default());
        if let Some(name) = peek.mirrored_name() {
            req = req.header(headers::NAME, mirrored_headers::encode(name).as_ref());
        }
        for (name, value) in self.param_headers(bytes, peek) {
            req = req.header(name, value);
        }
        let outcome = tokio::select! {
            r = self.send_stateless(req.body(bytes.clone()), peek) => r,
            _ = cancel.cancelled() => Ok(()),
        };
        if let Some(key) = &key {
            self.stateless_inflight.lock().unwrap().remove(key);
        }
        match outcome {
            Ok(()) => {}
            Err(Failure::Fatal(m)) => self.fail(peek, m),
            Err(Failure::Typed(e)) => self.fail_with(peek, e),
            Err(Failure::SessionExpired | Failure::TryLegacy) => self.fail(peek, "the server refused the request".into()),
        }
    }

    async fn send_stateless(&self, req: reqwest::RequestBuilder, peek: &Peek) -> Result<(), Failure> {
        let resp = match self.send(req).await {
            Ok(r) => r,
            Err(e) => return Err(e.failure("HTTP POST")),
        };
        let status = resp.status();
        let sse =
            resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/event-stream"));
        if status.is_success() && sse {
            return self.read_response_stream(resp, peek).await;
        }
        let body = super::inner::read_body(resp, crate::transport::DEFAULT_MAX_MESSAGE_SIZE).await.map_err(Failure::Fatal)?;
        // An error status still carries the request's JSON-RPC answer (-32601 with 404,
        // -32602 or -32020 with 400...): deliver it when it is for this request.
        let received = Received::parse(body);
        if received.answers(peek.id.as_ref()) {
            self.deliver(received, peek).await;
            return Ok(());
        }
        let body = received.bytes();
        let detail = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
        Err(Failure::refused(status, detail))
    }

    /// The `Mcp-Param-*` headers of a `tools/call` (a listed tool's annotated arguments).
    fn param_headers(&self, bytes: &[u8], peek: &Peek) -> Vec<(String, String)> {
        let Some(tool) = peek.mirrored_name().filter(|_| peek.is(methods::TOOLS_CALL)) else {
            return Vec::new();
        };
        let Some(params) = self.tool_header_params.lock().unwrap().get(tool).cloned() else { return Vec::new() };
        // Only for a tool with annotations: read the arguments the peek skipped.
        let Ok(message) = serde_json::from_slice::<Value>(bytes) else { return Vec::new() };
        let arguments = message.get("params").and_then(|p| p.get("arguments"));
        params
            .iter()
            .filter_map(|p| {
                let value = match (p.ty, p.argument(arguments)?) {
                    (ParamType::String, Value::String(s)) => mirrored_headers::encode(s).into_owned(),
                    (ParamType::Integer, Value::Number(n)) => n.to_string(),
                    (ParamType::Boolean, Value::Bool(b)) => b.to_string(),
                    _ => return None, // not of its declared type: the server judges the body
                };
                Some((format!("Mcp-Param-{}", p.name), value))
            })
            .collect()
    }
}
