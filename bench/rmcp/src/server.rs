//! The benchmark server written the way rmcp's documentation shows: a `#[tool_router]`
//! with `echo` and `slow`, served over stdio (`rmcp::transport::stdio`) or over Streamable
//! HTTP (`StreamableHttpService` nested in an axum router at `/mcp`).

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt as _;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio_util::sync::CancellationToken;

pub struct Options {
    mode: Mode,
    cancel_log: Option<PathBuf>,
}

enum Mode {
    Stdio,
    Http(u16),
}

impl Options {
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut mode = None;
        let mut cancel_log = None;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--stdio" => mode = Some(Mode::Stdio),
                "--http" => {
                    let port = args.next().ok_or("--http needs a PORT")?;
                    mode = Some(Mode::Http(port.parse().map_err(|_| format!("bad port {port:?}"))?));
                }
                "--cancel-log" => cancel_log = Some(PathBuf::from(args.next().ok_or("--cancel-log needs a PATH")?)),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(Options { mode: mode.ok_or("one of --stdio or --http PORT is required")?, cancel_log })
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Clone)]
pub struct Bench {
    tool_router: ToolRouter<Self>,
    cancel_log: Option<Arc<PathBuf>>,
}

impl Bench {
    fn new(cancel_log: Option<Arc<PathBuf>>) -> Self {
        Bench { tool_router: Self::tool_router(), cancel_log }
    }

    /// Appends the moment the handler saw its cancellation to the cancel log.
    fn log_cancellation(&self, at_ns: u64) {
        let Some(path) = &self.cancel_log else { return };
        let written = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.as_ref())
            .and_then(|mut f| f.write_all(format!("{at_ns}\n").as_bytes()));
        if let Err(e) = written {
            eprintln!("rmcp-bench serve: cannot append to {}: {e}", path.display());
        }
    }
}

#[tool_router]
impl Bench {
    #[tool(description = "Returns one text block whose text is exactly `text`.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Waits until the request is cancelled (or 60 s).")]
    async fn slow(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        tokio::select! {
            _ = context.ct.cancelled() => {
                let at = crate::monotonic_ns();
                self.log_cancellation(at);
                Ok(CallToolResult::success(vec![ContentBlock::text("cancelled")]))
            }
            _ = tokio::time::sleep(Duration::from_secs(60)) => {
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            }
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

pub fn run(opts: Options) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the tokio runtime: {e}"))?;
    let cancel_log = opts.cancel_log.map(Arc::new);
    match opts.mode {
        Mode::Stdio => runtime.block_on(serve_stdio(cancel_log)),
        Mode::Http(port) => runtime.block_on(serve_http(port, cancel_log)),
    }
}

async fn serve_stdio(cancel_log: Option<Arc<PathBuf>>) -> Result<(), String> {
    let service =
        Bench::new(cancel_log).serve(rmcp::transport::stdio()).await.map_err(|e| format!("stdio initialization failed: {e}"))?;
    service.waiting().await.map_err(|e| format!("stdio service failed: {e}"))?;
    Ok(())
}

async fn serve_http(port: u16, cancel_log: Option<Arc<PathBuf>>) -> Result<(), String> {
    let ct = CancellationToken::new();
    let service: StreamableHttpService<Bench, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(Bench::new(cancel_log.clone())),
        Default::default(),
        StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    eprintln!("rmcp-bench serve: Streamable HTTP on http://127.0.0.1:{port}/mcp");

    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| e.to_string())?;
    let stop = ct.clone();
    // TCP_NODELAY on every accepted connection (axum's `ListenerExt::tap_io`), as HTTP
    // servers usually set it: without it, a client that does not set it either stalls
    // ~40 ms per call on Nagle + delayed ACK.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("rmcp-bench serve: cannot set TCP_NODELAY: {e}");
        }
    });
    let server = axum::serve(listener, router).with_graceful_shutdown(async move { stop.cancelled().await });
    let mut server = tokio::spawn(async move { server.await });
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        ended = &mut server => return match ended {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("HTTP server failed: {e}")),
            Err(e) => Err(format!("HTTP server task failed: {e}")),
        },
    }
    // Ends every session (their streams close) and stops accepting; give open
    // connections a moment to finish, then leave regardless.
    ct.cancel();
    match tokio::time::timeout(Duration::from_secs(2), server).await {
        Ok(Ok(Ok(()))) | Err(_) => Ok(()),
        Ok(Ok(Err(e))) => Err(format!("HTTP server failed: {e}")),
        Ok(Err(e)) => Err(format!("HTTP server task failed: {e}")),
    }
}
