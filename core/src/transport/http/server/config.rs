//! [`HttpServerConfig`]: where and how an [`HttpServer`](super::HttpServer) listens, and
//! its limits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::transport::http::sse::{EventStore, MemoryEventStore};

/// Settings of an [`HttpServer`](super::HttpServer).
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
    /// Accepted `Origin`s: whole (`https://app.example.com`: that scheme, host and port)
    /// or a host name (`localhost`: any scheme and port); `*` accepts all. Requests
    /// without an `Origin` (non-browser clients) are accepted. Default: localhost names.
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
    /// The bytes a session's SSE responses may hold queued for a client that reads them
    /// slower than the server writes: past it, the stream that received the message is
    /// cut (a resumable one can be resumed from its event store). A message with nothing
    /// queued before it always goes. Default 8 MiB.
    pub max_queued_stream_bytes: usize,
    /// Protects the endpoint with OAuth: every request needs an access token for this
    /// resource, and the metadata is served at its well-known URL. Default `None`.
    pub auth: Option<Arc<crate::auth::ProtectedResource>>,
    /// Shares sessions with every server node using the same store (see
    /// [`crate::store`]): a request of a session another node started is served here, its
    /// streams resume on any node, DELETE ends it everywhere. `event_store` is then not
    /// used. Give the MCP server the same store
    /// ([`ServerConfig::shared_through`](crate::server::ServerConfig::shared_through)) for
    /// its `requestState` key and tasks. Default `None`: sessions live in this process.
    pub store: Option<Arc<dyn crate::store::SharedStore>>,
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
            max_queued_stream_bytes: 8 << 20,
            auth: None,
            store: None,
        }
    }
}
