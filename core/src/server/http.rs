//! The server role over HTTP: a [`Server`] is what an
//! [`HttpServer`](crate::transport::http::HttpServer) runs for each session. The role
//! implements the transport's trait; the transport never names the role.

use std::sync::Arc;

use super::Server;
use crate::protocol::mirrored_headers::HeaderParam;
use crate::protocol::ProtocolVersion;
use crate::transport::http::{Backend, BackendSession, HttpSessionTransport};

impl Backend for Server {
    fn open(&self, transport: HttpSessionTransport, stateless: Option<ProtocolVersion>) -> BackendSession {
        let from = super::FromHttp { auth: transport.auth(), headers: Some(transport.request_headers()) };
        let session = match stateless {
            Some(version) => self.serve_stateless_with(transport, version, from),
            None => self.serve_with(transport, from),
        };
        BackendSession::new(session.peer().clone(), session)
    }

    fn tool_header_params(&self, name: &str) -> Option<Arc<[HeaderParam]>> {
        Server::tool_header_params(self, name)
    }
}
