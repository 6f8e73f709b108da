//! What an [`HttpServer`](super::HttpServer) serves: a [`Backend`] opens a session for
//! each HTTP session (or stateless request), and the transport steers it through
//! [`SessionControl`]. The engine and the roles implement these traits; the transport
//! never names them.

use std::sync::Arc;

use super::hub::HttpSessionTransport;
use crate::protocol::mirrored_headers::HeaderParam;
use crate::protocol::ProtocolVersion;

/// What an [`HttpServer`](super::HttpServer) runs for each session: an MCP server
/// (`oxmcp::server::Server` implements it), or anything else that can drive a session
/// over an [`HttpSessionTransport`] (e.g. a relay to a child process).
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

    /// The server shares its sessions through `store` (called once, as it starts): what
    /// every node must hear (a list change, a resource update) the backend publishes on
    /// the store's bus, and hears back in [`Backend::heard`], on every node. Default:
    /// nothing.
    fn share(&self, _store: Arc<dyn crate::store::SharedStore>) {}

    /// A message some node's backend published on the shared store's bus.
    fn heard(&self, _message: &[u8]) {}
}

/// What the HTTP server needs of a session it runs: whether it lives, whether it is busy,
/// its protocol version, and a way to end it. The engine's `oxmcp::session::Peer`
/// implements it.
pub trait SessionControl: Send + Sync + 'static {
    /// Whether the session has closed.
    fn is_closed(&self) -> bool;
    /// How many of the client's requests are being handled.
    fn in_flight_requests(&self) -> usize;
    /// The negotiated protocol version, once known.
    fn protocol_version(&self) -> Option<ProtocolVersion>;
    /// Ends the session.
    fn close(&self, reason: &str);
    /// Takes on the state another node saved for this session (see
    /// [`SharedSession`](super::SharedSession)).
    /// Default: nothing (a backend whose sessions no other node serves).
    fn apply_state(&self, _state: &serde_json::Value) {}
}

/// Where a node's replica of a shared session starts numbering its requests to the
/// client: every node serving the client numbers them in a range of its own (2^20 ids
/// each, from a random start below 2^51: JavaScript clients read ids as doubles), so the
/// client's answers can be offered to every node and only the asker takes them.
pub fn replica_request_ids() -> i64 {
    ((rand::random::<u32>() as i64) & 0x7fff_ffff) << 20
}

/// A session a [`Backend`] started: its control handle, and whatever keeps it alive
/// (dropped when the HTTP session ends).
pub struct BackendSession {
    control: Arc<dyn SessionControl>,
    _owner: Box<dyn Send + Sync>,
}

impl BackendSession {
    /// A session steered through `control` (the engine's `Peer`) whose lifetime `owner`
    /// holds.
    pub fn new(control: impl SessionControl, owner: impl Send + Sync + 'static) -> Self {
        Self { control: Arc::new(control), _owner: Box::new(owner) }
    }

    /// The session's control handle.
    pub(crate) fn control(&self) -> &Arc<dyn SessionControl> {
        &self.control
    }
}
