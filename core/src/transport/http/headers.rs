//! The HTTP header names MCP uses, for the server and the client alike, and the headers
//! of a session's requests as the server hands them to handlers.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::protocol::RequestId;

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

/// One request's HTTP headers: lower-case names, a header sent twice joined with `, `.
/// `Authorization` is left out: the verified token's facts are the handler's
/// (`RequestContext::auth`), the token itself is not for passing on.
pub type Headers = BTreeMap<String, String>;

/// The headers of a session's requests by request id, from their POST until the server
/// takes them for the request's handler.
#[derive(Clone, Default)]
pub struct RequestHeaders(Arc<Mutex<HashMap<RequestId, Arc<Headers>>>>);

#[cfg(feature = "http")]
/// Requests of one session whose headers wait at once, at most: a client sending more
/// without their handlers starting gets no headers for the rest.
const MAX_WAITING: usize = 1024;

impl RequestHeaders {
    /// Keeps `headers` for the requests `ids`.
    #[cfg(feature = "http")]
    pub(crate) fn put(&self, ids: &[RequestId], headers: &http::HeaderMap) {
        if ids.is_empty() {
            return;
        }
        let mut plain = Headers::new();
        for (name, value) in headers {
            if name == http::header::AUTHORIZATION {
                continue;
            }
            let Ok(value) = value.to_str() else { continue };
            plain
                .entry(name.as_str().to_string())
                .and_modify(|v| *v = format!("{v}, {value}"))
                .or_insert_with(|| value.to_string());
        }
        let plain = Arc::new(plain);
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for id in ids {
            if waiting.len() < MAX_WAITING {
                waiting.insert(id.clone(), plain.clone());
            }
        }
    }

    #[cfg(feature = "http")]
    /// Drops what still waits for the requests `ids` (answered without a handler).
    pub(crate) fn forget(&self, ids: &[RequestId]) {
        if ids.is_empty() {
            return;
        }
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for id in ids {
            waiting.remove(id);
        }
    }

    /// The headers of request `id`, handed over once.
    pub fn take(&self, id: &RequestId) -> Option<Arc<Headers>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(id)
    }
}
