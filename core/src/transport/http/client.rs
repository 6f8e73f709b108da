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

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::server::headers;
use super::sse::{Event, Parser};
use crate::protocol::methods;
use crate::protocol::mirrored_headers::{self, HeaderParam, ParamType};
use crate::transport::{MessageReader, MessageWriter, Outbound, RecvError, Transport};

/// Connects to an MCP server by URL.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// use oxmcp::client::Client;
/// use oxmcp::transport::http::HttpClientTransport;
/// let transport = HttpClientTransport::new("http://127.0.0.1:8000/mcp").bearer_token("secret");
/// let client = Client::builder("me", "1.0.0").connect(transport).await?;
/// println!("{:?}", client.server_info());
/// client.close().await;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct HttpClientTransport {
    url: String,
    headers: HeaderMap,
    max_resume_attempts: u32,
    default_retry: Duration,
    open_get_stream: bool,
}

impl HttpClientTransport {
    /// A transport for the server at `url` (the Streamable HTTP endpoint, or a legacy
    /// SSE URL).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: HeaderMap::new(),
            max_resume_attempts: 5,
            default_retry: Duration::from_secs(1),
            open_get_stream: true,
        }
    }
    /// Adds a header sent with every request (ignored if name or value is invalid).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            self.headers.insert(n, v);
        }
        self
    }
    /// Sends `Authorization: Bearer <token>`.
    pub fn bearer_token(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }
    /// Whether to open the standalone GET stream after initialization (default true).
    pub fn open_get_stream(mut self, on: bool) -> Self {
        self.open_get_stream = on;
        self
    }
    /// How many times a broken response stream is resumed (default 5).
    pub fn max_resume_attempts(mut self, n: u32) -> Self {
        self.max_resume_attempts = n;
        self
    }
}

/// Reading half of an [`HttpClientTransport`].
pub struct HttpClientReader {
    rx: mpsc::UnboundedReceiver<Bytes>,
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
        let http = reqwest::Client::builder().tcp_nodelay(true).build().unwrap_or_default();
        let parsed = reqwest::Url::parse(&self.url);
        // Never used when the URL is bad: the transport is closed below before any request.
        let url = parsed.clone().unwrap_or_else(|_| reqwest::Url::parse("http://127.0.0.1/").expect("a valid URL"));
        let inner = Arc::new(Inner {
            http,
            url,
            config: self,
            inbound: tx,
            state: Mutex::default(),
            stateless_inflight: Mutex::default(),
            tool_header_params: Mutex::default(),
            unacknowledged: Mutex::default(),
            closed: CancellationToken::new(),
            close_reason: Mutex::new(None),
        });
        if let Err(e) = parsed {
            inner.close(format!("invalid URL {:?}: {e}", inner.config.url));
        }
        (HttpClientReader { rx, inner: inner.clone() }, HttpClientWriter { inner })
    }
}

impl MessageReader for HttpClientReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        tokio::select! {
            biased;
            m = self.rx.recv() => m.ok_or_else(|| RecvError::Closed("the HTTP transport closed".into())),
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
        if is_initialized_notification(&message.bytes) {
            // Inline: the standalone GET stream is up (or refused) before any request goes
            // out, so server messages not tied to a request have somewhere to arrive.
            inner.post(message.bytes).await;
        } else {
            tokio::spawn(async move { inner.post(message.bytes).await });
        }
        Ok(())
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    async fn close(self) {
        self.inner.shutdown().await;
    }
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    version: Option<String>,
    legacy_endpoint: Option<String>,
    initialize: Option<Bytes>,
    reinitialized: bool,
}

struct Inner {
    http: reqwest::Client,
    /// The endpoint, parsed once (not per request).
    url: reqwest::Url,
    config: HttpClientTransport,
    inbound: mpsc::UnboundedSender<Bytes>,
    state: Mutex<State>,
    /// Stateless-era requests in flight, by id (JSON text): cancelling one closes its POST.
    stateless_inflight: Mutex<std::collections::HashMap<String, CancellationToken>>,
    /// Session-era requests whose POST the server has not acknowledged yet, by id (JSON
    /// text); each token fires once it has. A request and the `notifications/cancelled`
    /// for it go out on separate connections, and a cancel that overtook its request would
    /// be ignored by the server (unknown id) while the request ran on.
    unacknowledged: Mutex<std::collections::HashMap<String, CancellationToken>>,
    /// The `x-mcp-header` annotations of listed tools, by tool name: a call mirrors those
    /// arguments into `Mcp-Param-*` headers (stateless era).
    tool_header_params: Mutex<std::collections::HashMap<String, Vec<HeaderParam>>>,
    closed: CancellationToken,
    close_reason: Mutex<Option<String>>,
}

/// Fires a request's acknowledgement token when its POST is over, answered or not.
struct Acknowledged {
    inner: Arc<Inner>,
    key: String,
    token: CancellationToken,
}

impl Drop for Acknowledged {
    fn drop(&mut self) {
        self.inner.unacknowledged.lock().unwrap().remove(&self.key);
        self.token.cancel();
    }
}

/// The parts of an outgoing message the transport needs.
#[derive(Deserialize, Default)]
struct Peek {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<PeekParams>,
}

#[derive(Deserialize, Default)]
struct PeekParams {
    /// A tool's or prompt's name (Value: other methods may use the key differently).
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
    /// `notifications/cancelled`: the request it cancels.
    #[serde(default, rename = "requestId")]
    request_id: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<PeekMeta>,
}

#[derive(Deserialize, Default)]
struct PeekMeta {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<String>,
}

impl Peek {
    /// The protocol version a stateless-era request names in its `_meta`.
    fn stateless_version(&self) -> Option<&str> {
        self.params.as_ref()?.meta.as_ref()?.version.as_deref()
    }

    /// What `Mcp-Name` mirrors: `params.name` of tools/call and prompts/get, `params.uri`
    /// of resources/read.
    fn mirrored_name(&self) -> Option<&str> {
        let p = self.params.as_ref()?;
        match self.method.as_deref()? {
            methods::TOOLS_CALL | methods::PROMPTS_GET => p.name.as_ref()?.as_str(),
            methods::RESOURCES_READ => p.uri.as_ref()?.as_str(),
            _ => None,
        }
    }
}

/// The parts of an incoming message the transport needs.
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    result: Option<Value>,
}

enum Failure {
    /// 404 for our session: re-initialize and retry.
    SessionExpired,
    /// The first POST was refused: maybe a legacy HTTP+SSE server.
    TryLegacy,
    /// Give up on this message.
    Fatal(String),
}

impl Inner {
    fn close(&self, reason: String) {
        self.close_reason.lock().unwrap().get_or_insert(reason);
        self.closed.cancel();
    }

    async fn shutdown(&self) {
        let (sid, legacy) = {
            let s = self.state.lock().unwrap();
            (s.session_id.clone(), s.legacy_endpoint.is_some())
        };
        if let (Some(sid), false) = (sid, legacy) {
            let req = self.http.delete(self.url.clone()).headers(self.config.headers.clone()).header(headers::SESSION_ID, sid);
            let _ = tokio::time::timeout(Duration::from_secs(2), req.send()).await;
        }
        self.close("closed by this side".into());
    }

    fn common_headers(&self, mut req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        req = req.headers(self.config.headers.clone());
        let s = self.state.lock().unwrap();
        if let Some(sid) = &s.session_id {
            req = req.header(headers::SESSION_ID, sid);
        }
        if let Some(v) = &s.version {
            req = req.header(headers::PROTOCOL_VERSION, v);
        }
        req
    }

    /// Hands one incoming message to the session; remembers the negotiated version.
    fn deliver(&self, data: Bytes, peek: &Peek) {
        if peek.method.as_deref() == Some(methods::INITIALIZE) {
            if let Ok(Answer { result: Some(r), .. }) = serde_json::from_slice::<Answer>(&data) {
                if let Some(v) = r.get("protocolVersion").and_then(Value::as_str) {
                    self.state.lock().unwrap().version = Some(v.to_string());
                }
            }
        }
        if peek.method.as_deref() == Some(methods::TOOLS_LIST) {
            self.remember_header_params(&data);
        }
        let _ = self.inbound.send(data);
    }

    /// Keeps the `x-mcp-header` annotations of a `tools/list` page's tools.
    fn remember_header_params(&self, data: &[u8]) {
        let needle = mirrored_headers::X_MCP_HEADER.as_bytes();
        if !data.windows(needle.len()).any(|w| w == needle) {
            return; // the common case: no annotations, nothing to parse
        }
        let Ok(Answer { result: Some(result), .. }) = serde_json::from_slice::<Answer>(data) else { return };
        let mut known = self.tool_header_params.lock().unwrap();
        for tool in result["tools"].as_array().into_iter().flatten() {
            let (Some(name), Some(schema)) = (tool["name"].as_str(), tool.get("inputSchema")) else { continue };
            match mirrored_headers::header_params(schema) {
                Ok(params) if !params.is_empty() => {
                    known.insert(name.to_string(), params);
                }
                Ok(_) => {}
                Err(why) => tracing::warn!(tool = name, "the tool's x-mcp-header annotations are invalid: {why}"),
            }
        }
    }

    /// The `Mcp-Param-*` headers of a `tools/call` (a listed tool's annotated arguments).
    fn param_headers(&self, bytes: &[u8], peek: &Peek) -> Vec<(String, String)> {
        let Some(tool) = peek.mirrored_name().filter(|_| peek.method.as_deref() == Some(methods::TOOLS_CALL)) else {
            return Vec::new();
        };
        let Some(params) = self.tool_header_params.lock().unwrap().get(tool).cloned() else { return Vec::new() };
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

    /// Reports a failed message: a request gets an error response, so its caller is
    /// answered instead of waiting for a timeout (and decides what the user sees: a 405
    /// to an era probe is expected, not worth a warning).
    fn fail(&self, peek: &Peek, message: String) {
        tracing::debug!(method = peek.method.as_deref().unwrap_or("?"), "{message}");
        if let Some(id) = &peek.id {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": crate::protocol::codes::INTERNAL_ERROR, "message": message}});
            let _ = self.inbound.send(Bytes::from(error.to_string()));
        }
    }

    async fn post(self: Arc<Self>, bytes: Bytes) {
        let peek: Peek = serde_json::from_slice(&bytes).unwrap_or_default();
        if let Some(version) = peek.stateless_version() {
            let version = version.to_string();
            return self.post_stateless(&bytes, &peek, &version).await;
        }
        if peek.method.as_deref() == Some(methods::CANCELLED) {
            let cancelled = peek.params.as_ref().and_then(|p| p.request_id.as_ref()).map(Value::to_string);
            if let Some(token) = cancelled.as_ref().and_then(|id| self.stateless_inflight.lock().unwrap().remove(id)) {
                // The stateless era cancels by closing the request's response stream.
                token.cancel();
                return;
            }
            let waiting = cancelled.and_then(|id| self.unacknowledged.lock().unwrap().get(&id).cloned());
            if let Some(acknowledged) = waiting {
                // A server in JSON-response mode acknowledges only with the answer: wait a
                // little, not for the whole call (oxmcp servers also stop a request whose
                // cancel came first).
                let _ = tokio::time::timeout(Duration::from_secs(1), acknowledged.cancelled()).await;
            }
        }
        // Marks this request acknowledged once its POST is answered (or failed), however
        // this function returns.
        let _acknowledged = match (&peek.id, &peek.method) {
            (Some(id), Some(_)) => {
                let key = id.to_string();
                let token = CancellationToken::new();
                self.unacknowledged.lock().unwrap().insert(key.clone(), token.clone());
                Some(Acknowledged { inner: self.clone(), key, token })
            }
            _ => None,
        };
        let initializing = peek.method.as_deref() == Some(methods::INITIALIZE);
        if initializing {
            self.state.lock().unwrap().initialize = Some(bytes.clone());
        }
        let legacy = self.state.lock().unwrap().legacy_endpoint.clone();
        let outcome = match legacy {
            Some(endpoint) => self.post_legacy(&endpoint, &bytes).await,
            None => self.post_streamable(&bytes, &peek).await,
        };
        let outcome = match outcome {
            Err(Failure::SessionExpired) if !initializing && self.reinitialize().await => {
                self.post_streamable(&bytes, &peek).await
            }
            Err(Failure::TryLegacy) if initializing => match self.start_legacy().await {
                Ok(endpoint) => self.post_legacy(&endpoint, &bytes).await,
                Err(e) => Err(Failure::Fatal(e)),
            },
            other => other,
        };
        match outcome {
            Ok(()) => {}
            Err(Failure::SessionExpired) => self.fail(&peek, "the server no longer knows this session".into()),
            Err(Failure::TryLegacy) => self.fail(&peek, "the server refused the request".into()),
            Err(Failure::Fatal(m)) => self.fail(&peek, m),
        }
        let legacy = self.state.lock().unwrap().legacy_endpoint.is_some();
        if peek.method.as_deref() == Some(methods::INITIALIZED) && !legacy && self.config.open_get_stream {
            let (ready, connected) = tokio::sync::oneshot::channel();
            tokio::spawn(self.clone().standalone_stream(Some(ready)));
            let _ = tokio::time::timeout(Duration::from_secs(5), connected).await;
        }
    }

    async fn post_streamable(&self, bytes: &Bytes, peek: &Peek) -> Result<(), Failure> {
        let initializing = peek.method.as_deref() == Some(methods::INITIALIZE);
        let req = self
            .common_headers(self.http.post(self.url.clone()))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(bytes.clone());
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) if e.is_connect() => {
                let reason = format!("cannot reach {}: {e}", self.config.url);
                self.close(reason.clone());
                return Err(Failure::Fatal(reason));
            }
            Err(e) => return Err(Failure::Fatal(format!("HTTP POST failed: {e}"))),
        };
        if let Some(id) = &peek.id {
            // The server has the request now: a cancel for it may follow.
            if let Some(token) = self.unacknowledged.lock().unwrap().remove(&id.to_string()) {
                token.cancel();
            }
        }
        let status = resp.status();
        if initializing && status.is_success() {
            if let Some(sid) = resp.headers().get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) {
                self.state.lock().unwrap().session_id = Some(sid.to_string());
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
                    let body = resp.bytes().await.map_err(|e| Failure::Fatal(format!("reading the response failed: {e}")))?;
                    if !body.is_empty() {
                        self.deliver(body, peek);
                    }
                    Ok(())
                }
            }
            StatusCode::NOT_FOUND if !initializing && self.state.lock().unwrap().session_id.is_some() => {
                Err(Failure::SessionExpired)
            }
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED if initializing => {
                Err(Failure::TryLegacy)
            }
            s => {
                let body = resp.text().await.unwrap_or_default();
                let detail = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
                    .unwrap_or(body);
                Err(Failure::Fatal(format!("HTTP {s}: {detail}")))
            }
        }
    }

    /// One stateless-era request: its own POST, headers mirrored from the body, the
    /// server's answer delivered whatever the HTTP status.
    async fn post_stateless(&self, bytes: &Bytes, peek: &Peek, version: &str) {
        let Some(id) = peek.id.as_ref() else { return }; // notifications: nothing to route
        let key = id.to_string();
        let cancel = CancellationToken::new();
        self.stateless_inflight.lock().unwrap().insert(key.clone(), cancel.clone());
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
        self.stateless_inflight.lock().unwrap().remove(&key);
        if let Err(f) = outcome {
            let message = match f {
                Failure::Fatal(m) => m,
                Failure::SessionExpired | Failure::TryLegacy => "the server refused the request".into(),
            };
            self.fail(peek, message);
        }
    }

    async fn send_stateless(&self, req: reqwest::RequestBuilder, peek: &Peek) -> Result<(), Failure> {
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => return Err(Failure::Fatal(format!("HTTP POST failed: {e}"))),
        };
        let status = resp.status();
        let sse =
            resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/event-stream"));
        if status.is_success() && sse {
            return self.read_response_stream(resp, peek).await;
        }
        let body = resp.bytes().await.map_err(|e| Failure::Fatal(format!("reading the response failed: {e}")))?;
        // An error status still carries the request's JSON-RPC answer (-32601 with 404,
        // -32602 or -32020 with 400...): deliver it when it is for this request.
        let answers_it = serde_json::from_slice::<Answer>(&body).is_ok_and(|a| a.id.is_some() && a.id == peek.id);
        if answers_it {
            self.deliver(body, peek);
            return Ok(());
        }
        let detail = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
        Err(Failure::Fatal(format!("HTTP {status}: {detail}")))
    }

    /// Reads a POST's SSE stream until the request is answered, resuming a stream that
    /// ends early with GET + Last-Event-ID after the server's retry delay.
    async fn read_response_stream(&self, resp: reqwest::Response, peek: &Peek) -> Result<(), Failure> {
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
                for ev in parser.push(&chunk) {
                    remember(&ev, &mut last_id, &mut retry);
                    if ev.data.is_empty() {
                        continue; // a priming event
                    }
                    if !answered {
                        answered = serde_json::from_str::<Answer>(&ev.data)
                            .is_ok_and(|a| a.method.is_none() && a.id.as_ref() == peek.id.as_ref());
                    }
                    self.deliver(Bytes::from(ev.data), peek);
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
            resp = match req.send().await {
                Ok(r) if r.status().is_success() => r,
                Ok(r) => return Err(Failure::Fatal(format!("resuming the response stream failed: HTTP {}", r.status()))),
                Err(e) => return Err(Failure::Fatal(format!("resuming the response stream failed: {e}"))),
            };
        }
    }

    /// The standalone GET stream: server-initiated messages; reconnects while the session lives.
    /// `ready` is told once the first GET is answered (stream open, or refused).
    async fn standalone_stream(self: Arc<Self>, mut ready: Option<tokio::sync::oneshot::Sender<()>>) {
        let mut last_id: Option<String> = None;
        let mut retry = self.config.default_retry;
        let mut failures = 0;
        while !self.closed.is_cancelled() {
            let mut req = self.common_headers(self.http.get(self.url.clone())).header(ACCEPT, "text/event-stream");
            if let Some(id) = &last_id {
                req = req.header(headers::LAST_EVENT_ID, id);
            }
            let resp = tokio::select! {
                r = req.send() => r,
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
                        for ev in parser.push(&chunk) {
                            remember(&ev, &mut last_id, &mut retry);
                            if !ev.data.is_empty() {
                                let _ = self.inbound.send(Bytes::from(ev.data));
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

    /// The session expired: initialize again (once) without bothering the session above.
    async fn reinitialize(&self) -> bool {
        let init = {
            let mut s = self.state.lock().unwrap();
            if s.reinitialized {
                return false;
            }
            s.reinitialized = true;
            s.session_id = None;
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
        let Ok(resp) = req.send().await else { return false };
        if !resp.status().is_success() {
            return false;
        }
        let Some(sid) = resp.headers().get(headers::SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_string) else {
            return false;
        };
        // The answer is for the session above, which already has one: read and drop it.
        let _ = resp.bytes().await;
        self.state.lock().unwrap().session_id = Some(sid);
        let note = Bytes::from(json!({"jsonrpc": "2.0", "method": methods::INITIALIZED}).to_string());
        let req = self
            .common_headers(self.http.post(self.url.clone()))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(note);
        req.send().await.is_ok_and(|r| r.status().is_success())
    }

    /// Legacy HTTP+SSE: GET the URL, wait for the `endpoint` event, then keep reading the
    /// stream (it carries every server message) in the background.
    async fn start_legacy(self: &Arc<Self>) -> Result<String, String> {
        let req = self.http.get(self.url.clone()).headers(self.config.headers.clone()).header(ACCEPT, "text/event-stream");
        let resp = req.send().await.map_err(|e| format!("HTTP+SSE fallback failed: {e}"))?;
        if !resp.status().is_success() {
            return Err(format!("the server refused Streamable HTTP and HTTP+SSE (GET: HTTP {})", resp.status()));
        }
        let mut body = resp.bytes_stream();
        let mut parser = Parser::default();
        let endpoint = loop {
            let Some(Ok(chunk)) = body.next().await else {
                return Err("the SSE stream ended before its endpoint event".into());
            };
            if let Some(ev) = parser.push(&chunk).into_iter().find(|e| e.event.as_deref() == Some("endpoint")) {
                break ev.data;
            }
        };
        let base = reqwest::Url::parse(&self.config.url).map_err(|e| e.to_string())?;
        let endpoint = base.join(endpoint.trim()).map_err(|e| format!("bad endpoint event: {e}"))?.to_string();
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
                for ev in parser.push(&chunk) {
                    if ev.event.as_deref().unwrap_or("message") == "message" && !ev.data.is_empty() {
                        let _ = inner.inbound.send(Bytes::from(ev.data));
                    }
                }
            }
            inner.close("the server closed the HTTP+SSE stream".into());
        });
        Ok(endpoint)
    }

    async fn post_legacy(&self, endpoint: &str, bytes: &Bytes) -> Result<(), Failure> {
        let req = self
            .http
            .post(endpoint)
            .headers(self.config.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(bytes.clone());
        match req.send().await {
            Ok(r) if r.status().is_success() => Ok(()),
            Ok(r) => Err(Failure::Fatal(format!("HTTP {} from the message endpoint", r.status()))),
            Err(e) => Err(Failure::Fatal(format!("HTTP POST failed: {e}"))),
        }
    }
}

/// Whether an outgoing message is `notifications/initialized` (without parsing it all).
fn is_initialized_notification(bytes: &[u8]) -> bool {
    let needle = methods::INITIALIZED.as_bytes();
    bytes.len() < 256 && bytes.windows(needle.len()).any(|w| w == needle)
}

fn remember(ev: &Event, last_id: &mut Option<String>, retry: &mut Duration) {
    if let Some(id) = &ev.id {
        *last_id = Some(id.clone());
    }
    if let Some(ms) = ev.retry {
        *retry = Duration::from_millis(ms);
    }
}
