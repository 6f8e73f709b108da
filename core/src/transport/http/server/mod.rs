//! The Streamable HTTP server (one endpoint, default `/mcp`), with legacy HTTP+SSE
//! (`/sse` + `/message`) on the same listener, for the session-era protocol versions.
//!
//! Security defaults: binds where you tell it (use 127.0.0.1), accepts only `Host` and
//! `Origin` values naming localhost (DNS-rebinding protection; configurable), makes
//! session ids from a CSPRNG, and caps body size and session count.
//!
//! - `config`: [`HttpServerConfig`];
//! - `app`: the shared state and the table of sessions;
//! - `cluster`: sessions several nodes serve (a shared store), `replica` what a node
//!   keeps of one;
//! - `request`: what is checked and read of a request (origin, headers, the body,
//!   parsed once);
//! - `response`: error answers and response bodies read from the hub;
//! - `streamable`: POST, GET and DELETE on the endpoint;
//! - `stateless_era`: a 2026-07-28 POST, which stands alone;
//! - `legacy`: `/sse` and `/message`;
//! - `guard`: a protected server's metadata, token and scope checks.

// The handlers' helpers return `Result<_, Response>`: the error is the HTTP response to
// send, built only on the bad-input path, so its size does not matter.
#![allow(clippy::result_large_err)]

mod app;
mod cluster;
mod config;
mod guard;
mod legacy;
mod replica;
mod request;
mod response;
mod stateless_era;
mod streamable;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use tokio_util::sync::CancellationToken;

use super::listener;
use app::App;

pub use super::backend::{Backend, BackendSession, SessionControl};
pub use super::headers;
pub use config::HttpServerConfig;

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
    service: HttpService,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Binds and starts serving `backend`: an MCP server (`oxmcp::server::Server`), or
    /// any other [`Backend`].
    pub async fn bind(backend: impl Backend, config: HttpServerConfig) -> std::io::Result<HttpServer> {
        Self::bind_backend(Arc::new(backend), config).await
    }

    /// Binds and starts serving sessions of any [`Backend`].
    pub async fn bind_backend(backend: Arc<dyn Backend>, config: HttpServerConfig) -> std::io::Result<HttpServer> {
        // The address goes in the error: "address in use" alone does not say which.
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.bind)))?;
        Self::serve_listener(backend, listener, config)
    }

    /// Starts serving `backend` on a listener bound already (`config.bind` is not used):
    /// for a caller that needs the port before the server is configured, such as a
    /// protected server whose audience is its own URL.
    pub fn serve_listener(
        backend: Arc<dyn Backend>,
        listener: tokio::net::TcpListener,
        config: HttpServerConfig,
    ) -> std::io::Result<HttpServer> {
        let addr = listener.local_addr()?;
        let service = HttpService::new(backend, config);
        let app = &service.app;
        let limits = listener::Limits {
            max_connections: app.config.max_connections,
            header_read_timeout: app.config.header_read_timeout,
            write_stall_timeout: app.config.write_stall_timeout,
        };
        let task = tokio::spawn(listener::serve(listener, service.router.clone(), limits, service.stop.clone()));
        Ok(HttpServer { addr, service, task })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8000/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.service.app.config.endpoint)
    }

    /// Number of open sessions.
    pub fn session_count(&self) -> usize {
        self.service.session_count()
    }

    /// Stops accepting connections, lets in-flight requests finish within the grace
    /// period, then ends every stream and session.
    pub async fn shutdown(self) {
        self.service.shutdown().await;
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }

    /// Waits until the server stops.
    pub async fn wait(&mut self) {
        let _ = (&mut self.task).await;
    }
}

/// The HTTP server without a listener, for a host that owns the sockets (an ASGI server,
/// a web framework): it answers each request handed in exactly as [`HttpServer`] would.
///
/// ```
/// # #[tokio::main] async fn main() {
/// use oxmcp::transport::http::{HttpServerConfig, HttpService};
/// let server = oxmcp::server::Server::builder("demo", "1.0.0").build().unwrap();
/// let service = HttpService::new(std::sync::Arc::new(server), HttpServerConfig::default());
/// let request = http::Request::get("/health").header("host", "localhost").body(Default::default()).unwrap();
/// assert_eq!(service.handle(request).await.status(), 404);
/// service.shutdown().await;
/// # }
/// ```
pub struct HttpService {
    app: Arc<App>,
    router: Router,
    stop: CancellationToken,
}

impl HttpService {
    /// Serves `backend` with `config` (its `bind` is not used; its endpoint is the path
    /// the requests handed in must name). Call from within a tokio runtime: idle sessions
    /// are reaped in the background until [`shutdown`](Self::shutdown).
    pub fn new(backend: Arc<dyn Backend>, config: HttpServerConfig) -> HttpService {
        let app = Arc::new(App::new(backend, config));
        let endpoint = &app.config.endpoint;
        let mut router =
            Router::new().route(endpoint, post(streamable::post_mcp).get(streamable::get_mcp).delete(streamable::delete_mcp));
        if let Some(resource) = &app.config.auth {
            // The path-aware location RFC 9728 defines, and the root one older clients try.
            router = router.route(&resource.metadata_path(), get(guard::metadata));
            if resource.metadata_path() != "/.well-known/oauth-protected-resource" {
                router = router.route("/.well-known/oauth-protected-resource", get(guard::metadata));
            }
        }
        if app.config.legacy_sse {
            router = router.route("/sse", get(legacy::get_legacy_sse)).route("/message", post(legacy::post_legacy_message));
        }
        let router = router.with_state(app.clone());
        let stop = CancellationToken::new();
        tokio::spawn(app::reap_idle_sessions(Arc::downgrade(&app), stop.clone()));
        if let Some(node) = app.node.clone() {
            app.backend.share(node.store.clone());
            let weak = Arc::downgrade(&app);
            let heard = move |message: bytes::Bytes| {
                if let Some(app) = weak.upgrade() {
                    cluster::heard(&app, &message);
                }
            };
            tokio::spawn(node.hear(heard, stop.clone()));
        }
        HttpService { app, router, stop }
    }

    /// Answers one request. The response's body may be a stream that stays open (SSE):
    /// read it as it comes, and drop it when the client goes away.
    pub async fn handle(&self, request: http::Request<axum::body::Body>) -> http::Response<axum::body::Body> {
        use tower::ServiceExt;
        match self.router.clone().oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    /// Number of open sessions.
    pub fn session_count(&self) -> usize {
        self.app.session_count()
    }

    /// The largest request body it takes (413 beyond).
    pub fn max_body_bytes(&self) -> usize {
        self.app.config.max_body_bytes
    }

    /// Lets in-flight requests finish within the grace period, then ends every stream and
    /// session; requests handed in later still get answers (404 for a session it ended).
    pub async fn shutdown(&self) {
        self.stop.cancel();
        let deadline = Instant::now() + self.app.config.shutdown_grace;
        loop {
            if !self.app.busy() || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        for s in self.app.drain() {
            s.control().close("the server is shutting down");
        }
    }
}
