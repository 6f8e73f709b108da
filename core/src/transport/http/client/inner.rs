//! The state every POST and stream of one connection shares, and what they all do with
//! what arrives: hand it to the session, or answer a failed request with an error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::config::HttpClientTransport;
use super::peek::{Peek, Received};
use crate::auth::{Refusal, Retry};
use crate::protocol::mirrored_headers::{self, HeaderParam};
use crate::protocol::{methods, Message, RequestId};
use crate::transport::http::headers;
use crate::transport::http::sse::Event;
use crate::transport::{Inbound, SessionId};

/// What the connection learnt of the server.
#[derive(Default)]
pub(super) struct State {
    pub(super) version: Option<String>,
    pub(super) legacy_endpoint: Option<String>,
    pub(super) initialize: Option<Bytes>,
    pub(super) reinitialized: bool,
}

/// Bytes of messages read and not yet taken by the session: past them, reading the HTTP
/// responses waits, so a server writing faster than the client handles what it sends is
/// held back by TCP instead of filling this process (the session's own budget for
/// notifications then holds back this one).
pub(super) const INBOUND_BUDGET: usize = 4 << 20;

/// The most an error response's body is read for its detail.
const DETAIL_LIMIT: usize = 64 * 1024;

/// A message for the session, with its share of [`INBOUND_BUDGET`] (given back as the
/// session takes it).
pub(super) type Delivery = (Inbound, Option<OwnedSemaphorePermit>);

pub(super) struct Inner {
    pub(super) http: reqwest::Client,
    /// The endpoint, parsed once (not per request).
    pub(super) url: reqwest::Url,
    pub(super) config: HttpClientTransport,
    pub(super) inbound: mpsc::UnboundedSender<Delivery>,
    /// What is left of [`INBOUND_BUDGET`].
    room: Arc<Semaphore>,
    pub(super) state: Mutex<State>,
    /// The `Mcp-Session-Id` the server gave (also what the session's spans name).
    pub(super) session_id: SessionId,
    /// Stateless-era requests in flight: cancelling one closes its POST.
    pub(super) stateless_inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Session-era requests whose POST the server has not acknowledged yet; each token
    /// fires once it has. A request and the `notifications/cancelled` for it go out on
    /// separate connections, and a cancel that overtook its request would be ignored by
    /// the server (unknown id) while the request ran on.
    pub(super) unacknowledged: Mutex<HashMap<RequestId, CancellationToken>>,
    /// The `x-mcp-header` annotations of listed tools, by tool name: a call mirrors those
    /// arguments into `Mcp-Param-*` headers (stateless era).
    pub(super) tool_header_params: Mutex<HashMap<String, Vec<HeaderParam>>>,
    pub(super) closed: CancellationToken,
    pub(super) close_reason: Mutex<Option<String>>,
}

/// Why a message did not get through.
pub(super) enum Failure {
    /// 404 for our session: re-initialize and retry.
    SessionExpired,
    /// The first POST was refused: maybe a legacy HTTP+SSE server.
    TryLegacy,
    /// Give up on this message.
    Fatal(String),
    /// The caller gets this error as it is: authorization failed
    /// ([`crate::ErrorKind::Unauthorized`]), the server cannot be reached
    /// ([`crate::ErrorKind::Transport`]).
    Typed(crate::Error),
}

impl Failure {
    /// A request the server answered with an error status: 401 and 403 are the caller's
    /// authorization problem ([`crate::ErrorKind::Unauthorized`]), the rest give up.
    pub(super) fn refused(status: reqwest::StatusCode, detail: String) -> Failure {
        let message = format!("HTTP {status}: {detail}");
        match status.as_u16() {
            401 | 403 => Failure::Typed(crate::Error::new(crate::ErrorKind::Unauthorized, message)),
            _ => Failure::Fatal(message),
        }
    }
}

/// Why a request got no HTTP answer to read.
pub(super) enum SendError {
    /// The request did not get through.
    Http(reqwest::Error),
    /// The server wants credentials this client could not obtain.
    Denied(crate::Error),
}

impl SendError {
    /// The failure of a message whose `what` failed this way.
    pub(super) fn failure(self, what: &str) -> Failure {
        match self {
            SendError::Http(e) if e.is_connect() => {
                let message = format!("cannot reach the server: {e}");
                Failure::Typed(crate::Error::caused(crate::ErrorKind::Transport, message, e))
            }
            SendError::Http(e) => Failure::Fatal(format!("{what} failed: {e}")),
            SendError::Denied(e) => Failure::Typed(e),
        }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Http(e) => e.fmt(f),
            SendError::Denied(e) => f.write_str(e.message()),
        }
    }
}

/// Fires a request's acknowledgement token when its POST is over, answered or not.
pub(super) struct Acknowledged {
    inner: Arc<Inner>,
    id: RequestId,
    token: CancellationToken,
}

impl Acknowledged {
    /// Marks request `id` unacknowledged until the returned guard drops.
    pub(super) fn track(inner: &Arc<Inner>, id: RequestId) -> Acknowledged {
        let token = CancellationToken::new();
        inner.unacknowledged.lock().unwrap().insert(id.clone(), token.clone());
        Acknowledged { inner: inner.clone(), id, token }
    }
}

impl Drop for Acknowledged {
    fn drop(&mut self) {
        self.inner.unacknowledged.lock().unwrap().remove(&self.id);
        self.token.cancel();
    }
}

impl Inner {
    pub(super) fn new(config: HttpClientTransport, inbound: mpsc::UnboundedSender<Delivery>) -> (Inner, Result<(), String>) {
        let http = reqwest::Client::builder().tcp_nodelay(true).build().unwrap_or_default();
        let parsed = reqwest::Url::parse(&config.url);
        // Never used when the URL is bad: the transport is closed before any request.
        let url = parsed.clone().unwrap_or_else(|_| reqwest::Url::parse("http://127.0.0.1/").expect("a valid URL"));
        let valid = parsed.map(drop).map_err(|e| format!("invalid URL {:?}: {e}", config.url));
        let inner = Inner {
            http,
            url,
            config,
            inbound,
            room: Arc::new(Semaphore::new(INBOUND_BUDGET)),
            state: Mutex::default(),
            session_id: SessionId::default(),
            stateless_inflight: Mutex::default(),
            tool_header_params: Mutex::default(),
            unacknowledged: Mutex::default(),
            closed: CancellationToken::new(),
            close_reason: Mutex::new(None),
        };
        (inner, valid)
    }

    pub(super) fn close(&self, reason: String) {
        self.close_reason.lock().unwrap().get_or_insert(reason);
        self.closed.cancel();
    }

    /// Ends the session (DELETE) and closes.
    pub(super) async fn shutdown(&self) {
        let (sid, legacy) = (self.session_id.get(), self.state.lock().unwrap().legacy_endpoint.is_some());
        if let (Some(sid), false) = (sid, legacy) {
            let req = self.http.delete(self.url.clone()).headers(self.config.headers.clone()).header(headers::SESSION_ID, sid);
            let _ = tokio::time::timeout(Duration::from_secs(2), self.send(req)).await;
        }
        self.close("closed by this side".into());
    }

    /// Sends a request; with OAuth configured, with the access token, and again after
    /// the server's 401 or 403 once new credentials are in place.
    pub(super) async fn send(&self, req: reqwest::RequestBuilder) -> Result<reqwest::Response, SendError> {
        let Some(oauth) = &self.config.oauth else { return req.send().await.map_err(SendError::Http) };
        let (mut step_ups, mut unauthorized) = (0, 0);
        loop {
            // Every body here is bytes in memory, so the request can always be copied.
            let mut attempt = req.try_clone().expect("a request with a body in memory");
            // A DPoP proof names the request's method; the builder tells it only when built.
            let method = match oauth.binds_tokens() {
                true => req.try_clone().and_then(|r| r.build().ok()).map(|r| r.method().to_string()).unwrap_or_default(),
                false => String::new(),
            };
            let auth = oauth.authorization(&method, &self.config.url).await.map_err(SendError::Denied)?;
            if let Some(a) = &auth {
                // Replacing (not adding to) an Authorization header given by hand.
                let mut h = reqwest::header::HeaderMap::new();
                if let Ok(v) = reqwest::header::HeaderValue::from_str(&a.header) {
                    h.insert(reqwest::header::AUTHORIZATION, v);
                }
                if let Some(Ok(v)) = a.dpop.as_deref().map(reqwest::header::HeaderValue::from_str) {
                    h.insert("dpop", v);
                }
                attempt = attempt.headers(h);
            }
            let resp = attempt.send().await.map_err(SendError::Http)?;
            let status = resp.status().as_u16();
            if status != 401 && status != 403 {
                return Ok(resp);
            }
            if status == 401 && unauthorized == 2 {
                return Err(SendError::Denied(crate::Error::new(
                    crate::ErrorKind::Unauthorized,
                    "the server refused the credentials this client obtained for it",
                )));
            }
            let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok());
            let refusal = Refusal { status, www_authenticate: header("www-authenticate"), dpop_nonce: header("dpop-nonce") };
            tracing::debug!(status, challenge = refusal.www_authenticate, "the server refused the request's credentials");
            let generation = auth.map(|a| a.generation);
            match oauth.refused(&self.config.url, generation, refusal, step_ups).await.map_err(SendError::Denied)? {
                Retry::Again if status == 403 => step_ups += 1,
                Retry::Again => unauthorized += 1,
                Retry::GiveUp => return Ok(resp),
            }
        }
    }

    /// Answers a failed request with `error` as it is (its kind says what happened).
    pub(super) fn fail_with(&self, peek: &Peek, error: crate::Error) {
        tracing::debug!(method = peek.method.as_deref().unwrap_or("?"), "{}", error.message());
        if let Some(request) = peek.request_id() {
            let _ = self.inbound.send((Inbound::Failed { request, error: Box::new(error) }, None));
        }
    }

    /// The headers every request of the session carries.
    pub(super) fn common_headers(&self, mut req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        req = req.headers(self.config.headers.clone());
        if let Some(sid) = self.session_id.get() {
            req = req.header(headers::SESSION_ID, sid);
        }
        let s = self.state.lock().unwrap();
        if let Some(v) = &s.version {
            req = req.header(headers::PROTOCOL_VERSION, v);
        }
        req
    }

    /// Hands one message that arrived for the request `peek` describes to the session;
    /// remembers the negotiated version and the tools' header annotations.
    pub(super) async fn deliver(&self, received: Received, peek: &Peek) {
        if peek.is(methods::INITIALIZE) {
            if let Some(Message::Response { result, .. }) = received.message() {
                if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                    self.state.lock().unwrap().version = Some(v.to_string());
                }
            }
        }
        if peek.is(methods::TOOLS_LIST) {
            self.remember_header_params(&received);
        }
        let size = received.bytes().len();
        self.hand_over(received.into_inbound(), size).await;
    }

    /// Hands one message not tied to a request (the GET or legacy stream) to the session.
    pub(super) async fn deliver_unrelated(&self, data: String) {
        let size = data.len();
        self.hand_over(Inbound::Bytes(Bytes::from(data)), size).await;
    }

    /// Waits for room in the budget (while the session has not taken what came before),
    /// then hands `message` over. A message larger than the budget waits for all of it.
    async fn hand_over(&self, message: Inbound, size: usize) {
        let share = size.clamp(1, INBOUND_BUDGET) as u32;
        let permit = tokio::select! {
            p = self.room.clone().acquire_many_owned(share) => p.ok(),
            _ = self.closed.cancelled() => return,
        };
        let _ = self.inbound.send((message, permit));
    }

    /// Keeps the `x-mcp-header` annotations of a `tools/list` page's tools.
    fn remember_header_params(&self, received: &Received) {
        let needle = mirrored_headers::X_MCP_HEADER.as_bytes();
        if !received.bytes().windows(needle.len()).any(|w| w == needle) {
            return; // the common case: no annotations, nothing to read
        }
        let Some(Message::Response { result, .. }) = received.message() else { return };
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

    /// Reports a failed message: a request gets an error response, so its caller is
    /// answered instead of waiting for a timeout (and decides what the user sees: a 405
    /// to an era probe is expected, not worth a warning).
    pub(super) fn fail(&self, peek: &Peek, message: String) {
        tracing::debug!(method = peek.method.as_deref().unwrap_or("?"), "{message}");
        if let Some(id) = &peek.id {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": crate::protocol::codes::INTERNAL_ERROR, "message": message}});
            let _ = self.inbound.send((Inbound::Bytes(Bytes::from(error.to_string())), None));
        }
    }
}

/// Reads a whole response body of at most `limit` bytes (a server's endless body is
/// refused as soon as it passes, never gathered).
pub(super) async fn read_body(resp: reqwest::Response, limit: usize) -> Result<Bytes, String> {
    if let Some(n) = resp.content_length().filter(|&n| n > limit as u64) {
        return Err(format!("the response body of {n} bytes is larger than the {limit} taken"));
    }
    let mut body = resp.bytes_stream();
    let mut out = BytesMut::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| format!("reading the response failed: {e}"))?;
        if out.len() + chunk.len() > limit {
            return Err(format!("the response body passed the {limit} bytes taken"));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out.freeze())
}

/// The start of an error response's body, for its detail (what follows is not read).
pub(super) async fn read_detail(resp: reqwest::Response) -> String {
    let mut body = resp.bytes_stream();
    let mut out = Vec::new();
    while let Some(Ok(chunk)) = body.next().await {
        out.extend_from_slice(&chunk[..chunk.len().min(DETAIL_LIMIT - out.len())]);
        if out.len() >= DETAIL_LIMIT {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Keeps what an SSE event says about resuming: its id, and the `retry` delay.
pub(super) fn remember(ev: &Event, last_id: &mut Option<String>, retry: &mut Duration) {
    if let Some(id) = &ev.id {
        *last_id = Some(id.clone());
    }
    if let Some(ms) = ev.retry {
        *retry = Duration::from_millis(ms);
    }
}
