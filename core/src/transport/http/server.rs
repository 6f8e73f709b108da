//! The Streamable HTTP server (one endpoint, default `/mcp`), with legacy HTTP+SSE
//! (`/sse` + `/message`) on the same listener, for the session-era protocol versions.
//!
//! Security defaults: binds where you tell it (use 127.0.0.1), accepts only `Host` and
//! `Origin` values naming localhost (DNS-rebinding protection; configurable), makes
//! session ids from a CSPRNG, and caps body size and session count.

// The handlers' helpers return `Result<_, Response>`: the error is the HTTP response to
// send, built only on the bad-input path, so its size does not matter.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use bytes::Bytes;
use futures::Stream;
use rand::RngCore;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::hub::{request_ids, HttpSessionTransport, Hub, StreamHandle};
use super::listener;
use super::sse::{self, EventStore, MemoryEventStore};
use super::stateless_era;
use crate::protocol::jsonrpc::Incoming;
use crate::protocol::mirrored_headers::HeaderParam;
use crate::protocol::{codes, methods, Message, ProtocolVersion};
use crate::server::Server;
use crate::session::Peer;

/// Header names.
pub mod headers {
    /// The session id header.
    pub const SESSION_ID: &str = "mcp-session-id";
    /// The negotiated protocol version header.
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// SSE resumption header.
    pub const LAST_EVENT_ID: &str = "last-event-id";
    /// 2026-07-28: the request's method, mirrored from the body.
    pub const METHOD: &str = "mcp-method";
    /// 2026-07-28: the tool or prompt name, or resource URI, mirrored from the body.
    pub const NAME: &str = "mcp-name";
    /// 2026-07-28: the prefix of the headers that mirror `x-mcp-header` tool arguments.
    pub const PARAM_PREFIX: &str = crate::protocol::mirrored_headers::PARAM_HEADER_PREFIX;
}

/// Settings of an [`HttpServer`].
#[derive(Clone)]
pub struct HttpServerConfig {
    /// Where to listen. Default `127.0.0.1:0` (a free port on loopback).
    pub bind: SocketAddr,
    /// The Streamable HTTP endpoint path. Default `/mcp`.
    pub endpoint: String,
    /// Answer requests with one JSON body instead of an SSE stream.
    pub json_response: bool,
    /// No sessions: every POST is independent (no server-to-client requests).
    pub stateless: bool,
    /// Sessions idle this long are closed. Default 30 minutes.
    pub session_idle_timeout: Duration,
    /// At most this many sessions at once (more get 503). Default 1,000.
    pub max_sessions: usize,
    /// Largest accepted request body. Default 16 MiB.
    pub max_body_bytes: usize,
    /// Accepted `Host` names (any port); `*` accepts all. Default: localhost names.
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` hosts (any scheme and port); `*` accepts all. Requests without
    /// an `Origin` (non-browser clients) are accepted. Default: localhost names.
    pub allowed_origins: Vec<String>,
    /// Keeps SSE events for resumption; `None` makes streams non-resumable (then a
    /// dropped stream cancels its requests). Default: a bounded in-memory store.
    pub event_store: Option<Arc<dyn EventStore>>,
    /// The `retry` hint (ms) sent in priming events (2025-11-25 polling).
    pub sse_retry_ms: Option<u64>,
    /// Serve legacy HTTP+SSE (2024-11-05) at `/sse` and `/message`. Default true.
    pub legacy_sse: bool,
    /// On shutdown, how long in-flight requests may take to finish. Default 5 s.
    pub shutdown_grace: Duration,
    /// At most this many open connections; more are closed at once. Default 512 (under
    /// the common limit of 1,024 open files).
    pub max_connections: usize,
    /// A request's headers must arrive within this; it also ends keep-alive connections
    /// idle this long between requests. Default 10 s.
    pub header_read_timeout: Duration,
    /// A request's body must arrive within this (else 408). Default 30 s.
    pub body_read_timeout: Duration,
    /// A response the client leaves unread this long ends its connection. Default 30 s.
    pub write_stall_timeout: Duration,
}

impl Default for HttpServerConfig {
    fn default() -> Self {
        let local = vec!["localhost".to_string(), "127.0.0.1".to_string(), "[::1]".to_string()];
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            endpoint: "/mcp".into(),
            json_response: false,
            stateless: false,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 1000,
            max_body_bytes: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            allowed_hosts: local.clone(),
            allowed_origins: local,
            event_store: Some(Arc::new(MemoryEventStore::default())),
            sse_retry_ms: Some(1000),
            legacy_sse: true,
            shutdown_grace: Duration::from_secs(5),
            max_connections: 512,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(30),
        }
    }
}

/// What an [`HttpServer`] runs for each session: an MCP [`Server`], or anything else that
/// can drive a session over an [`HttpSessionTransport`] (e.g. a relay to a child process).
pub trait Backend: Send + Sync + 'static {
    /// Starts a session. `stateless` is the version to assume when the session serves one
    /// stateless request that no `initialize` preceded.
    fn open(&self, transport: HttpSessionTransport, stateless: Option<ProtocolVersion>) -> BackendSession;

    /// The `x-mcp-header` annotations of tool `name`, if the backend knows the tool: a
    /// 2026-07-28 `tools/call`'s `Mcp-Param-*` headers are checked against them before the
    /// call runs. Default `None` (a relay does not know the tools it forwards to): then
    /// only `Mcp-Method` and `Mcp-Name` are checked.
    fn tool_header_params(&self, _name: &str) -> Option<Arc<[HeaderParam]>> {
        None
    }
}

/// A session a [`Backend`] started: its engine handle, and whatever keeps it alive
/// (dropped when the HTTP session ends).
pub struct BackendSession {
    peer: Peer,
    _owner: Box<dyn Send + Sync>,
}

impl BackendSession {
    /// A session whose lifetime `owner` holds.
    pub fn new(peer: Peer, owner: impl Send + Sync + 'static) -> Self {
        Self { peer, _owner: Box::new(owner) }
    }
}

impl Backend for Server {
    fn open(&self, transport: HttpSessionTransport, stateless: Option<ProtocolVersion>) -> BackendSession {
        let session = match stateless {
            Some(version) => self.serve_stateless(transport, version),
            None => self.serve(transport),
        };
        BackendSession::new(session.peer().clone(), session)
    }

    fn tool_header_params(&self, name: &str) -> Option<Arc<[HeaderParam]>> {
        Server::tool_header_params(self, name)
    }
}

struct HttpSession {
    hub: Arc<Hub>,
    session: BackendSession,
}

impl HttpSession {
    fn peer(&self) -> &Peer {
        &self.session.peer
    }
}

pub(super) struct App {
    pub(super) backend: Arc<dyn Backend>,
    pub(super) config: HttpServerConfig,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
}

/// A running HTTP server.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> std::io::Result<()> {
/// use oxmcp::transport::http::{HttpServer, HttpServerConfig};
/// let server = oxmcp::server::Server::builder("demo", "1.0.0").build().unwrap();
/// let http = HttpServer::bind(server, HttpServerConfig::default()).await?;
/// println!("listening on {}", http.url());
/// http.shutdown().await;
/// # Ok(()) }
/// ```
pub struct HttpServer {
    addr: SocketAddr,
    endpoint: String,
    app: Arc<App>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Binds and starts serving `server`.
    pub async fn bind(server: Server, config: HttpServerConfig) -> std::io::Result<HttpServer> {
        Self::bind_backend(Arc::new(server), config).await
    }

    /// Binds and starts serving sessions of any [`Backend`].
    pub async fn bind_backend(backend: Arc<dyn Backend>, config: HttpServerConfig) -> std::io::Result<HttpServer> {
        let listener = tokio::net::TcpListener::bind(config.bind).await?;
        let addr = listener.local_addr()?;
        let endpoint = config.endpoint.clone();
        let app = Arc::new(App { backend, config, sessions: Mutex::new(HashMap::new()) });
        let mut router = Router::new().route(&endpoint, post(post_mcp).get(get_mcp).delete(delete_mcp));
        if app.config.legacy_sse {
            router = router.route("/sse", get(get_legacy_sse)).route("/message", post(post_legacy_message));
        }
        let router = router.with_state(app.clone());
        let stop = CancellationToken::new();
        let limits = listener::Limits {
            max_connections: app.config.max_connections,
            header_read_timeout: app.config.header_read_timeout,
            write_stall_timeout: app.config.write_stall_timeout,
        };
        let task = tokio::spawn(listener::serve(listener, router, limits, stop.clone()));
        tokio::spawn(reap_idle_sessions(Arc::downgrade(&app), stop.clone()));
        Ok(HttpServer { addr, endpoint, app, stop, task })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8000/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.endpoint)
    }

    /// Number of open sessions.
    pub fn session_count(&self) -> usize {
        self.app.sessions.lock().unwrap().len()
    }

    /// Stops accepting connections, lets in-flight requests finish within the grace
    /// period, then ends every stream and session.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let deadline = Instant::now() + self.app.config.shutdown_grace;
        loop {
            let busy = self.app.sessions.lock().unwrap().values().any(|s| s.peer().stats().in_flight_requests > 0);
            if !busy || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let sessions: Vec<_> = self.app.sessions.lock().unwrap().drain().map(|(_, s)| s).collect();
        for s in sessions {
            s.peer().close("the server is shutting down");
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }

    /// Waits until the server stops.
    pub async fn wait(&mut self) {
        let _ = (&mut self.task).await;
    }
}

async fn reap_idle_sessions(app: std::sync::Weak<App>, stop: CancellationToken) {
    loop {
        let Some(a) = app.upgrade() else { return };
        let every = (a.config.session_idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        let idle: Vec<(String, Arc<HttpSession>)> = {
            let mut map = a.sessions.lock().unwrap();
            map.retain(|_, s| !s.peer().is_closed());
            map.iter()
                .filter(|(_, s)| {
                    s.hub.last_activity.lock().unwrap().elapsed() > a.config.session_idle_timeout
                        && s.peer().stats().in_flight_requests == 0
                })
                .map(|(k, s)| (k.clone(), s.clone()))
                .collect()
        };
        for (id, s) in idle {
            tracing::debug!(session = id.as_str(), "closing idle session");
            a.sessions.lock().unwrap().remove(&id);
            s.peer().close("the session expired");
        }
        drop(a);
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// An HTTP error with a JSON-RPC error body.
pub(super) fn error(status: StatusCode, code: i64, message: impl Into<String>) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message.into()}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn host_allowed(list: &[String], host: &str) -> bool {
    // Strip the port: "[::1]:8080" -> "[::1]", "localhost:3000" -> "localhost".
    let name = if host.starts_with('[') {
        host.split_once(']').map_or(host.to_string(), |(h, _)| format!("{h}]"))
    } else {
        host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h).to_string()
    };
    list.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(&name))
}

/// DNS-rebinding protection: `Host` and `Origin` must name an allowed host.
fn check_origin(config: &HttpServerConfig, h: &HeaderMap) -> Result<(), Response> {
    let host = h.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !host_allowed(&config.allowed_hosts, host) {
        return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, format!("host {host:?} is not allowed")));
    }
    if let Some(origin) = h.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
        if !host_allowed(&config.allowed_origins, authority) {
            return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, format!("origin {origin:?} is not allowed")));
        }
    }
    Ok(())
}

fn accepts(h: &HeaderMap, mime: &str) -> bool {
    h.get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .any(|v| v == mime || v == "*/*" || (v.ends_with("/*") && mime.starts_with(&v[..v.len() - 1])))
}

fn header_version(h: &HeaderMap) -> Result<Option<ProtocolVersion>, Response> {
    match h.get(headers::PROTOCOL_VERSION) {
        None => Ok(None),
        Some(v) => {
            let s = v.to_str().unwrap_or("");
            ProtocolVersion::parse(s).map(Some).ok_or_else(|| {
                error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, format!("unsupported MCP-Protocol-Version: {s:?}"))
            })
        }
    }
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes); // ThreadRng is a CSPRNG (ChaCha, OS-seeded)
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes room for one more session. At the cap, the least recently used session with no
/// request in flight is closed (one without an open stream first): a client that opens
/// sessions in a loop then cannot lock everyone else out for the idle timeout, and the
/// evicted client gets 404 and starts a new session, as the specification has it.
/// `false` when every session is busy.
fn make_room(app: &App) -> bool {
    let mut map = app.sessions.lock().unwrap();
    map.retain(|_, s| !s.peer().is_closed());
    if map.len() < app.config.max_sessions {
        return true;
    }
    let victim = map
        .iter()
        .filter(|(_, s)| s.peer().stats().in_flight_requests == 0)
        .min_by_key(|(_, s)| (s.hub.has_live_stream(), *s.hub.last_activity.lock().unwrap()))
        .map(|(id, _)| id.clone());
    let Some(evicted) = victim.and_then(|id| map.remove(&id)) else { return false };
    drop(map);
    tracing::debug!("session limit of {} reached: closing the least recently used idle session", app.config.max_sessions);
    evicted.peer().close("the server reached its session limit and closed this idle session");
    true
}

fn session_of(app: &App, h: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return Err(error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "missing Mcp-Session-Id header"));
    };
    match app.sessions.lock().unwrap().get(id) {
        Some(s) if !s.peer().is_closed() => Ok(s.clone()),
        _ => Err(error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown or expired session")),
    }
}

async fn read_body(app: &App, body: Body) -> Result<Bytes, Response> {
    let limit = app.config.max_body_bytes;
    match tokio::time::timeout(app.config.body_read_timeout, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(error(StatusCode::PAYLOAD_TOO_LARGE, codes::INVALID_REQUEST, format!("body exceeds {limit} bytes"))),
        Err(_) => Err(error(StatusCode::REQUEST_TIMEOUT, codes::INVALID_REQUEST, "the request body did not arrive in time")),
    }
}

fn parse_body(bytes: &[u8]) -> Result<Vec<Message>, Response> {
    match Message::parse(bytes) {
        Ok(Incoming::Single(m)) => Ok(vec![m]),
        Ok(Incoming::Batch(items)) => items
            .into_iter()
            .map(|r| r.map_err(|rej| error(StatusCode::BAD_REQUEST, rej.error.code, rej.error.message)))
            .collect(),
        Err(rej) => Err(error(StatusCode::BAD_REQUEST, rej.error.code, rej.error.message)),
    }
}

/// An SSE (or JSON) response body read from a hub stream. Dropping it (the client went
/// away) tells the hub; in stateless mode it also owns, and so ends, the session.
pub(super) struct StreamBody {
    first: Option<Bytes>,
    handle: StreamHandle,
    hub: Arc<Hub>,
    // Stateless mode: the request's own session, ended with the response.
    _owned: Option<BackendSession>,
    ends_session: Option<crate::session::Peer>,
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
                let mut more = match self.handle.rx.try_recv() {
                    Ok(next) => next,
                    Err(_) => return Poll::Ready(Some(Ok(frame))),
                };
                let mut joined = bytes::BytesMut::with_capacity(frame.len() + more.len());
                joined.extend_from_slice(&frame);
                loop {
                    joined.extend_from_slice(&more);
                    match self.handle.rx.try_recv() {
                        Ok(next) => more = next,
                        Err(_) => break,
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
        if let Some(peer) = &self.ends_session {
            peer.close("the SSE stream closed");
        }
    }
}

fn sse_response(body: StreamBody, session_id: Option<&str>) -> Response {
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
async fn json_response(mut body: StreamBody, batch: bool, session_id: Option<&str>) -> Response {
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

async fn post_mcp(State(app): State<Arc<App>>, h: HeaderMap, body: Body) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    let json_type = h.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"));
    if !json_type {
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, codes::INVALID_REQUEST, "Content-Type must be application/json");
    }
    if !accepts(&h, "application/json") || !accepts(&h, "text/event-stream") {
        return error(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Accept must list application/json and text/event-stream",
        );
    }
    let version = header_version(&h);
    let bytes = match read_body(&app, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let version = match version {
        Ok(v) => v,
        Err(r) => {
            let requested = h.get(headers::PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).unwrap_or("");
            return stateless_era::unknown_version(requested, &bytes).unwrap_or(r);
        }
    };
    let messages = match parse_body(&bytes) {
        Ok(m) => m,
        Err(r) => return r,
    };
    if stateless_era::applies(version, &messages) {
        return stateless_era::post(&app, &h, bytes, messages).await;
    }
    let batch = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let initializing = messages.iter().any(|m| m.method() == Some(methods::INITIALIZE));
    if initializing && messages.len() > 1 {
        return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "initialize must be sent on its own");
    }
    let ids = request_ids(&messages);

    if app.config.stateless {
        let (hub, transport) = Hub::new(None, false);
        let stateless = (!initializing).then(|| version.unwrap_or(ProtocolVersion::HTTP_DEFAULT));
        let session = app.backend.open(transport, stateless);
        if ids.is_empty() {
            hub.deliver_inbound(bytes);
            return StatusCode::ACCEPTED.into_response();
        }
        let handle = hub.open_request_stream(&ids, app.config.json_response);
        hub.deliver_inbound(bytes);
        let body = StreamBody::new(None, handle, hub, Some(session));
        return if app.config.json_response { json_response(body, batch, None).await } else { sse_response(body, None) };
    }

    let (session, new_id) = if initializing {
        if !make_room(&app) {
            return error(StatusCode::SERVICE_UNAVAILABLE, codes::INTERNAL_ERROR, "too many sessions, all of them busy");
        }
        let (hub, transport) = Hub::new(app.config.event_store.clone(), false);
        let session = Arc::new(HttpSession { session: app.backend.open(transport, None), hub });
        let id = new_session_id();
        app.sessions.lock().unwrap().insert(id.clone(), session.clone());
        (session, Some(id))
    } else {
        match session_of(&app, &h) {
            Ok(s) => (s, None),
            Err(r) => return r,
        }
    };
    let hub = session.hub.clone();
    if ids.is_empty() {
        hub.deliver_inbound(bytes);
        return StatusCode::ACCEPTED.into_response();
    }
    let handle = hub.open_request_stream(&ids, app.config.json_response);
    let polling = session.peer().protocol_version().is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
    if polling && hub.resumable() && !app.config.json_response {
        hub.prime(handle.id, app.config.sse_retry_ms);
    }
    hub.deliver_inbound(bytes);
    let body = StreamBody::new(None, handle, hub, None);
    if app.config.json_response {
        json_response(body, batch, new_id.as_deref()).await
    } else {
        sse_response(body, new_id.as_deref())
    }
}

async fn get_mcp(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    if app.config.stateless || matches!(header_version(&h), Ok(Some(v)) if v.is_stateless()) {
        return error(StatusCode::METHOD_NOT_ALLOWED, codes::INVALID_REQUEST, "stateless server: no GET stream");
    }
    if !accepts(&h, "text/event-stream") {
        return error(StatusCode::NOT_ACCEPTABLE, codes::INVALID_REQUEST, "Accept must list text/event-stream");
    }
    if let Err(r) = header_version(&h) {
        return r;
    }
    let session = match session_of(&app, &h) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let hub = session.hub.clone();
    hub.touch();
    if let Some(last) = h.get(headers::LAST_EVENT_ID).and_then(|v| v.to_str().ok()) {
        let Some((stream, seq)) = sse::parse_event_id(last) else {
            return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, format!("malformed Last-Event-ID {last:?}"));
        };
        return match hub.resume(stream, seq) {
            Some(handle) => sse_response(StreamBody::new(None, handle, hub, None), None),
            None => error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "that stream can no longer be resumed"),
        };
    }
    let Some(handle) = hub.open_standalone() else {
        return error(StatusCode::CONFLICT, codes::INVALID_REQUEST, "a GET stream is already open for this session");
    };
    let polling = session.peer().protocol_version().is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
    if polling && hub.resumable() {
        hub.prime(handle.id, app.config.sse_retry_ms);
    }
    sse_response(StreamBody::new(None, handle, hub, None), None)
}

async fn delete_mcp(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    if app.config.stateless || matches!(header_version(&h), Ok(Some(v)) if v.is_stateless()) {
        return error(StatusCode::METHOD_NOT_ALLOWED, codes::INVALID_REQUEST, "stateless server: no sessions to delete");
    }
    let session = match session_of(&app, &h) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let id = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    app.sessions.lock().unwrap().remove(&id);
    session.peer().close("the client ended the session");
    StatusCode::OK.into_response()
}

#[derive(serde::Deserialize)]
struct LegacyQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

/// Legacy HTTP+SSE: the stream announces where to POST (`endpoint` event), then carries
/// every message from the server.
async fn get_legacy_sse(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    if !make_room(&app) {
        return error(StatusCode::SERVICE_UNAVAILABLE, codes::INTERNAL_ERROR, "too many sessions, all of them busy");
    }
    let (hub, transport) = Hub::new(None, true);
    let handle = hub.open_standalone().expect("a new hub has no stream");
    let session = Arc::new(HttpSession { session: app.backend.open(transport, None), hub: hub.clone() });
    let id = new_session_id();
    app.sessions.lock().unwrap().insert(id.clone(), session);
    let endpoint = sse::frame(None, Some("endpoint"), format!("/message?sessionId={id}").as_bytes());
    // The legacy stream is the session: when it drops, the session ends.
    let peer = app.sessions.lock().unwrap().get(&id).map(|s| s.peer().clone());
    let mut body = StreamBody::new(Some(endpoint), handle, hub, None);
    body.ends_session = peer;
    sse_response(body, None)
}

async fn post_legacy_message(State(app): State<Arc<App>>, h: HeaderMap, q: Query<LegacyQuery>, body: Body) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    let Some(id) = q.session_id.clone() else {
        return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "missing sessionId");
    };
    let session = match app.sessions.lock().unwrap().get(&id) {
        Some(s) if !s.peer().is_closed() => s.clone(),
        _ => return error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown session"),
    };
    let bytes = match read_body(&app, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    if let Err(r) = parse_body(&bytes) {
        return r;
    }
    session.hub.deliver_inbound(bytes);
    (StatusCode::ACCEPTED, "Accepted").into_response()
}
