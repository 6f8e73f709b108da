//! What the server checks and reads of an HTTP request: `Host` and `Origin` (DNS
//! rebinding), `Accept`, the protocol version header, and the body, parsed once.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;

use super::app::App;
use super::config::HttpServerConfig;
use super::response::error;
use crate::protocol::jsonrpc::Incoming;
use crate::protocol::{codes, Message, ProtocolVersion};
use crate::transport::http::headers;
use crate::transport::Inbound;

fn host_allowed(list: &[String], host: &str) -> bool {
    host_in(list.iter(), host)
}

fn host_in<'a>(mut list: impl Iterator<Item = &'a String>, host: &str) -> bool {
    // Strip the port: "[::1]:8080" -> "[::1]", "localhost:3000" -> "localhost".
    let name = if host.starts_with('[') {
        host.split_once(']').map_or(host.to_string(), |(h, _)| format!("{h}]"))
    } else {
        host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h).to_string()
    };
    list.any(|a| a == "*" || a.eq_ignore_ascii_case(&name))
}

/// DNS-rebinding protection: `Host` and `Origin` must name an allowed host.
pub(super) fn check_origin(config: &HttpServerConfig, h: &HeaderMap) -> Result<(), Response> {
    let host = h.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !host_allowed(&config.allowed_hosts, host) {
        return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, format!("host {host:?} is not allowed")));
    }
    if let Some(origin) = h.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !origin_allowed(&config.allowed_origins, origin) {
            return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, format!("origin {origin:?} is not allowed")));
        }
    }
    Ok(())
}

/// An `Origin` is allowed when the list has it whole (`https://app.example.com`, as the
/// official SDKs take origins: scheme and port must match) or names its host (`localhost`:
/// any scheme and port).
fn origin_allowed(list: &[String], origin: &str) -> bool {
    let whole = origin.trim_end_matches('/');
    if list.iter().any(|a| a.contains("://") && a.trim_end_matches('/').eq_ignore_ascii_case(whole)) {
        return true;
    }
    let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    host_in(list.iter().filter(|a| !a.contains("://")), authority)
}

/// Whether the `Accept` headers take `mime`.
pub(super) fn accepts(h: &HeaderMap, mime: &str) -> bool {
    h.get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .any(|v| v == mime || v == "*/*" || (v.ends_with("/*") && mime.starts_with(&v[..v.len() - 1])))
}

/// The `MCP-Protocol-Version` header: absent, a version oxmcp knows, or 400.
pub(super) fn header_version(h: &HeaderMap) -> Result<Option<ProtocolVersion>, Response> {
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

/// The body, within the size and time limits.
pub(super) async fn read_body(app: &App, body: Body) -> Result<Bytes, Response> {
    let limit = app.config.max_body_bytes;
    match tokio::time::timeout(app.config.body_read_timeout, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(error(StatusCode::PAYLOAD_TOO_LARGE, codes::INVALID_REQUEST, format!("body exceeds {limit} bytes"))),
        Err(_) => Err(error(StatusCode::REQUEST_TIMEOUT, codes::INVALID_REQUEST, "the request body did not arrive in time")),
    }
}

/// A POST body, parsed once: the handler reads its messages to route the POST, and the
/// session takes them as they are ([`Inbound::Parsed`]).
pub(super) struct Posted {
    /// A message, or a batch whose every element is one.
    frame: Incoming,
    bytes: Bytes,
}

impl Posted {
    /// Parses a body; a malformed message (alone or in a batch) is HTTP 400.
    pub(super) fn parse(bytes: Bytes) -> Result<Posted, Response> {
        let frame = Message::parse(&bytes).map_err(|rej| error(StatusCode::BAD_REQUEST, rej.error.code, rej.error.message))?;
        if let Incoming::Batch(items) = &frame {
            if let Some(Err(rej)) = items.iter().find(|r| r.is_err()) {
                return Err(error(StatusCode::BAD_REQUEST, rej.error.code, rej.error.message.clone()));
            }
        }
        Ok(Posted { frame, bytes })
    }

    /// The messages, in order.
    pub(super) fn messages(&self) -> impl Iterator<Item = &Message> {
        let (single, batch) = match &self.frame {
            Incoming::Single(m) => (Some(m), None),
            Incoming::Batch(items) => (None, Some(items.iter().filter_map(|r| r.as_ref().ok()))),
        };
        single.into_iter().chain(batch.into_iter().flatten())
    }

    /// The only message, unless the body holds more or fewer.
    pub(super) fn single(&self) -> Option<&Message> {
        let mut messages = self.messages();
        let first = messages.next();
        first.filter(|_| messages.next().is_none())
    }

    /// Whether the body is a JSON-RPC batch (answered with an array).
    pub(super) fn is_batch(&self) -> bool {
        matches!(self.frame, Incoming::Batch(_))
    }

    /// What the session reads.
    pub(super) fn into_inbound(self) -> Inbound {
        Inbound::Parsed { frame: self.frame, bytes: self.bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::origin_allowed;

    #[test]
    fn an_origin_is_allowed_whole_or_by_its_host() {
        let list = ["https://app.example.com".to_string(), "localhost".to_string()];
        // Whole origins, as the official SDKs' allowedOrigins take them: scheme and port count.
        assert!(origin_allowed(&list, "https://app.example.com"));
        assert!(origin_allowed(&list, "HTTPS://App.Example.com"));
        assert!(!origin_allowed(&list, "http://app.example.com"));
        assert!(!origin_allowed(&list, "https://app.example.com:8443"));
        assert!(!origin_allowed(&list, "https://evil.example"));
        // A host name: any scheme and port.
        assert!(origin_allowed(&list, "http://localhost:3000"));
        assert!(origin_allowed(&list, "https://localhost"));
        assert!(!origin_allowed(&[], "http://localhost"));
        assert!(origin_allowed(&["*".to_string()], "https://anything.example"));
    }
}
