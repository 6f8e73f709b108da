//! `oxmcp proxy`: connect a client on one transport to a server on another.
//!
//! - `--http ADDR -- COMMAND...`: expose a stdio server over Streamable HTTP; every HTTP
//!   session gets its own child process, stopped when the session ends. Stateless-era
//!   requests (2026-07-28) have no session: they share one child, started with the first
//!   and again if it exits, so the server keeps its state between them.
//! - `--stdio -- URL`: give a stdio-only host a remote HTTP server.
//!
//! Either side may be a URL or a command. Messages are relayed by the engine
//! ([`oxmcp::session::relay`]), so every MCP feature and version passes through.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use oxmcp::protocol::{ErrorObject, ProtocolVersion};
use oxmcp::session::fanout::Fanout;
use oxmcp::session::relay::Relay;
use oxmcp::session::{IncomingRequest, Service, Session, SessionConfig};
use oxmcp::transport::http::{Backend, BackendSession, HttpClientTransport, HttpSessionTransport};
use oxmcp::transport::{ChildProcess, StdioTransport, Transport};
use serde_json::Value;

/// The server a proxy connects its clients to.
#[derive(Clone, Debug)]
pub enum Target {
    /// A URL (Streamable HTTP or legacy HTTP+SSE), and the OAuth client that answers its
    /// challenges: the proxy authorizes as itself, never passing a client's token on.
    Url(String, Option<oxmcp::auth::OAuth>),
    /// A command started as a child process (stdio).
    Command(ChildProcess),
}

impl Target {
    /// A URL if `server` is one argument starting with http(s)://, else a command.
    pub fn parse(server: &[String]) -> Option<Target> {
        let (program, args) = server.split_first()?;
        if args.is_empty() && (program.starts_with("http://") || program.starts_with("https://")) {
            return Some(Target::Url(program.clone(), None));
        }
        Some(Target::Command(ChildProcess::new(program).args(args)))
    }
}

/// Relays `client_side` to a new connection to `target`; `Err` if the target's process
/// could not start (then `client_side` is handed back).
fn relay<T: Transport>(target: &Target, client_side: T) -> Result<Relay, (T, std::io::Error)> {
    let config = SessionConfig::default();
    match target {
        Target::Url(url, oauth) => {
            let mut transport = HttpClientTransport::new(url);
            if let Some(o) = oauth {
                transport = transport.oauth(o.clone());
            }
            Ok(Relay::start(client_side, transport, config))
        }
        Target::Command(cmd) => match cmd.spawn() {
            Ok(child) => Ok(Relay::start(client_side, child, config)),
            Err(e) => Err((client_side, e)),
        },
    }
}

/// Runs the proxy on this process's stdin/stdout until either side closes.
pub async fn stdio(target: Target) -> std::io::Result<()> {
    let relay = relay(&target, StdioTransport::stdio()).map_err(|(_, e)| e)?;
    relay.wait().await;
    relay.close().await;
    Ok(())
}

/// The HTTP side of `proxy --http`: one relay (and so one child process) per session, and
/// one child for every stateless-era request.
pub struct PerSessionTarget {
    target: Target,
    /// The child the stateless era's requests share, once one came.
    stateless: Mutex<Option<Arc<Fanout>>>,
}

impl PerSessionTarget {
    /// Relays to `target`.
    pub fn new(target: Target) -> Self {
        PerSessionTarget { target, stateless: Mutex::new(None) }
    }

    /// The shared child, started now if there is none (or it exited); the error that
    /// kept it from starting.
    fn shared_child(&self, cmd: &ChildProcess) -> std::io::Result<Arc<Fanout>> {
        let mut slot = self.stateless.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fanout) = slot.as_ref().filter(|f| !f.is_closed()) {
            return Ok(fanout.clone());
        }
        let fanout = Arc::new(Fanout::start(cmd.spawn()?, SessionConfig::default()));
        *slot = Some(fanout.clone());
        Ok(fanout)
    }
}

impl Backend for PerSessionTarget {
    fn open(&self, transport: HttpSessionTransport, stateless: Option<ProtocolVersion>) -> BackendSession {
        if let (Target::Command(cmd), true) = (&self.target, stateless.is_some_and(ProtocolVersion::is_stateless)) {
            return match self.shared_child(cmd) {
                Ok(fanout) => {
                    let session = fanout.attach(transport);
                    BackendSession::new(session.peer().clone(), (session, fanout))
                }
                Err(e) => failing(transport, e),
            };
        }
        // A session other proxy nodes serve too (`--redis`): see `proxy_shared`.
        match crate::proxy_shared::SharedSide::new(transport) {
            Ok(shared) => relay_session(&self.target, shared, true),
            Err(transport) => relay_session(&self.target, transport, false),
        }
    }
}

/// One HTTP session relayed to its own connection to `target`.
fn relay_session<T: Transport>(target: &Target, transport: T, shared: bool) -> BackendSession {
    match relay(target, transport) {
        Ok(relay) => {
            if shared {
                // The server's requests to the client, relayed by several nodes, keep
                // their ids apart.
                relay.a().number_requests_from(oxmcp::transport::http::replica_request_ids());
            }
            BackendSession::new(relay.a().clone(), relay)
        }
        Err((transport, e)) => failing(transport, e),
    }
}

/// A session that answers, with the reason the server could not start, instead of hanging.
fn failing<T: Transport>(transport: T, e: std::io::Error) -> BackendSession {
    let message = format!("the proxy could not start the server: {e}");
    tracing::error!("{message}");
    let session = Session::start(transport, Arc::new(Failing(message)), SessionConfig::default());
    BackendSession::new(session.peer().clone(), session)
}

/// Answers every request with the same error.
struct Failing(String);

impl Service for Failing {
    fn handle_request(&self, _req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let message = self.0.clone();
        Box::pin(async move { Err(ErrorObject::internal(message)) })
    }
}
