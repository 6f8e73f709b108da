//! The server role over HTTP: a [`Server`] is what an
//! [`HttpServer`](crate::transport::http::HttpServer) runs for each session. The role
//! implements the transport's trait; the transport never names the role.

use std::sync::Arc;

use serde_json::Value;

use super::context::ClientState;
use super::Server;
use crate::protocol::mirrored_headers::HeaderParam;
use crate::protocol::ProtocolVersion;
use crate::session::Peer;
use crate::transport::http::{Backend, BackendSession, HttpSessionTransport, SessionControl};

impl Backend for Server {
    fn open(&self, transport: HttpSessionTransport, stateless: Option<ProtocolVersion>) -> BackendSession {
        let shared = transport.shared();
        let from = super::FromHttp {
            auth: transport.auth(),
            headers: Some(transport.request_headers()),
            saver: shared.as_ref().map(|s| s.saver.clone()),
            readers: shared.as_ref().map(|s| s.readers.clone()),
        };
        let session = match stateless {
            Some(version) => self.serve_stateless_with(transport, version, from),
            None => self.serve_with(transport, from),
        };
        let peer = session.peer().clone();
        if let Some(shared) = shared {
            peer.number_requests_from(crate::transport::http::replica_request_ids());
            if let Some(state) = &shared.restored {
                if let Some(version) = session.client.restore(state) {
                    peer.set_protocol_version(version);
                }
            }
        }
        let control = ServerControl { peer, client: session.client.clone() };
        BackendSession::new(control, session)
    }

    fn tool_header_params(&self, name: &str) -> Option<Arc<[HeaderParam]>> {
        Server::tool_header_params(self, name)
    }

    fn share(&self, store: Arc<dyn crate::store::SharedStore>) {
        self.share_through(store);
    }

    fn heard(&self, message: &[u8]) {
        self.heard_change(message);
    }
}

/// A served session as the HTTP server steers it: the engine's peer, and the client state
/// another node may have changed.
struct ServerControl {
    peer: Peer,
    client: Arc<ClientState>,
}

impl SessionControl for ServerControl {
    fn is_closed(&self) -> bool {
        self.peer.is_closed()
    }
    fn in_flight_requests(&self) -> usize {
        SessionControl::in_flight_requests(&self.peer)
    }
    fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.protocol_version()
    }
    fn close(&self, reason: &str) {
        self.peer.close(reason)
    }
    fn apply_state(&self, state: &Value) {
        self.client.restore(state);
    }
}
