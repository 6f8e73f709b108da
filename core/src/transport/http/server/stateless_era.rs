//! Streamable HTTP in the stateless era (2026-07-28): every POST stands alone.
//!
//! - No sessions: each POST runs on a session of its own that ends with the response (a
//!   dropped response stream cancels the handler); GET and DELETE answer 405.
//! - The headers that mirror the body must be there and agree with it (SEP-2243):
//!   `MCP-Protocol-Version` and `Mcp-Method` always, `Mcp-Name` for tools/call,
//!   prompts/get and resources/read, `Mcp-Param-{Name}` for the tool arguments whose
//!   schema carries `x-mcp-header`. Otherwise HTTP 400 with -32020, carrying the
//!   request's id (see [`crate::protocol::mirrored_headers`]).
//! - The response is plain JSON when the first thing the server has to say is the answer
//!   (with the HTTP status the error calls for: 404 for -32601, 400 for -32020/-32021/
//!   -32022); it becomes an SSE stream when notifications (progress, logs) come first.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::app::App;
use super::request::Posted;
use super::response::{error, StreamBody};
use crate::protocol::{codes, meta, methods, mirrored_headers, ErrorObject, Message, ProtocolVersion, RequestId};
use crate::transport::http::hub::{First, Hub, RawStreamHandle};
use crate::transport::http::{headers, sse};

/// Whether a POST belongs to the stateless era: its version header says so, or (header
/// absent) its body's `_meta` does.
pub(super) fn applies(header_version: Option<ProtocolVersion>, posted: &Posted) -> bool {
    match header_version {
        Some(v) => v.is_stateless(),
        None => posted.messages().any(|m| match m {
            Message::Request { params, .. } | Message::Notification { params, .. } => meta::is_stateless_request(params.as_ref()),
            _ => false,
        }),
    }
}

fn error_with_id(status: StatusCode, id: &RequestId, e: ErrorObject) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": e});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// HTTP 400 with -32020 (HeaderMismatch), carrying the request's id (`null` for a
/// notification).
fn mismatch(id: Option<&RequestId>, what: String) -> Response {
    let e = ErrorObject::new(codes::HEADER_MISMATCH, format!("header mismatch: {what}"));
    let body = json!({"jsonrpc": "2.0", "id": id, "error": e});
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The one value of header `name` (`shown` in messages), trimmed (header values may carry
/// surrounding whitespace). A header sent twice is refused: readers taking the first
/// and the last copy would see different requests.
fn single<'a>(h: &'a HeaderMap, name: &str, shown: &str) -> Result<Option<&'a str>, String> {
    let mut values = h.get_all(name).iter();
    let Some(v) = values.next() else { return Ok(None) };
    if values.next().is_some() {
        return Err(format!("{shown} header appears more than once"));
    }
    // Anything outside visible ASCII, space and tab: the client should have used the
    // base64 sentinel.
    v.to_str().map(|v| Some(v.trim())).map_err(|_| format!("{shown} header has characters a header value cannot carry"))
}

/// The body value `Mcp-Name` mirrors: a tool's or prompt's name, a resource's URI.
/// `None` for other methods; `Some(None)` when the body lacks it.
fn named_value<'a>(method: &str, params: Option<&'a Value>) -> Option<Option<&'a str>> {
    let key = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => "name",
        methods::RESOURCES_READ => "uri",
        // The tasks extension: routes a task's requests to the node holding it.
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => "taskId",
        _ => return None,
    };
    Some(params.and_then(|p| p.get(key)).and_then(Value::as_str))
}

/// Checks the headers that mirror the body (SEP-2243): `MCP-Protocol-Version` and
/// `Mcp-Method` on every message, `Mcp-Name` on the requests that name something, and
/// `Mcp-Param-*` for the tool arguments whose schema carries `x-mcp-header`. Each must be
/// present when the body has the value and must agree with it; `Mcp-Name` and
/// `Mcp-Param-*` may carry the `=?base64?…?=` sentinel.
fn check_headers(app: &App, h: &HeaderMap, method: &str, params: Option<&Value>) -> Result<(), String> {
    let body_version = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(meta::PROTOCOL_VERSION)).and_then(Value::as_str);
    match (single(h, headers::PROTOCOL_VERSION, "MCP-Protocol-Version")?, body_version) {
        (Some(hv), Some(bv)) if hv != bv => {
            return Err(format!("MCP-Protocol-Version header {hv:?} differs from the body's {bv:?}"))
        }
        (None, _) => return Err("MCP-Protocol-Version header is missing".into()),
        _ => {}
    }
    match single(h, headers::METHOD, "Mcp-Method")? {
        None => return Err("Mcp-Method header is missing".into()),
        // Method names are plain ASCII: compared literally, and case-sensitively.
        Some(hm) if hm != method => return Err(format!("Mcp-Method header {hm:?} differs from the body's method {method:?}")),
        Some(_) => {}
    }
    if let Some(body_name) = named_value(method, params) {
        let header_name = single(h, headers::NAME, "Mcp-Name")?;
        match (header_name, body_name) {
            (None, None) => {}
            (None, Some(_)) => return Err(format!("Mcp-Name header is missing (required for {method})")),
            (Some(hn), None) => return Err(format!("Mcp-Name header {hn:?} names nothing the body has")),
            (Some(hn), Some(bn)) => {
                let decoded = mirrored_headers::decode(hn).map_err(|e| format!("Mcp-Name header: {}", e.0))?;
                if decoded != bn {
                    return Err(format!("Mcp-Name header {hn:?} differs from the body's {bn:?}"));
                }
            }
        }
    }
    if method == methods::TOOLS_CALL {
        let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        // An unknown tool has no annotations to check; the call itself reports it.
        let declared = tool.and_then(|t| app.backend.tool_header_params(t));
        let arguments = params.and_then(|p| p.get("arguments"));
        for param in declared.iter().flat_map(|d| d.iter()) {
            let shown = format!("Mcp-Param-{}", param.name);
            param.check(single(h, &param.header, &shown)?, arguments)?;
        }
    }
    Ok(())
}

/// A POST whose `MCP-Protocol-Version` header names a version oxmcp does not know: when
/// the body is a request, -32022 (HTTP 400) with its id and the versions oxmcp speaks.
pub(super) fn unknown_version(requested: &str, bytes: &[u8]) -> Option<Response> {
    match Message::parse_single(bytes) {
        Ok(Message::Request { id, .. }) => {
            Some(error_with_id(StatusCode::BAD_REQUEST, &id, meta::unsupported_version(requested)))
        }
        _ => None,
    }
}

/// The HTTP status an answer calls for in this era: `error` is its JSON-RPC error code,
/// if it is an error.
fn status_for(error: Option<i64>) -> StatusCode {
    match error {
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::HEADER_MISMATCH
            | codes::MISSING_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION
            | codes::INVALID_REQUEST
            | codes::INVALID_PARAMS
            | codes::PARSE_ERROR,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Serves one stateless-era POST.
pub(super) async fn post(app: &Arc<App>, h: &HeaderMap, posted: Posted, auth: Option<super::guard::Authorized>) -> Response {
    let Some(message) = posted.single() else {
        return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "a 2026-07-28 POST carries exactly one message");
    };
    let id = match message {
        Message::Request { id, method, params } => {
            if let Err(what) = check_headers(app, h, method, params.as_ref()) {
                return mismatch(Some(id), what);
            }
            id.clone()
        }
        Message::Notification { method, params } => {
            if let Err(what) = check_headers(app, h, method, params.as_ref()) {
                return mismatch(None, what);
            }
            // A notification needs no answer; the stateless era's cancellation is the
            // client closing its response stream, so there is nothing else to route it to.
            return StatusCode::ACCEPTED.into_response();
        }
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                codes::INVALID_REQUEST,
                "a 2026-07-28 POST carries a request or a notification",
            )
        }
    };
    let (hub, transport) = Hub::new(None, false, auth.is_some(), app.config.max_queued_stream_bytes);
    let session = app.backend.open(transport, Some(ProtocolVersion::STATELESS));
    if let Err(r) = super::guard::bind(&hub, auth) {
        return r;
    }
    let RawStreamHandle { mut handle, first: mut what } = hub.open_raw_request_stream(&id);
    hub.deliver_posted(std::slice::from_ref(&id), h, posted.into_inbound());
    let Some(first) = handle.rx.recv().await else {
        return error_with_id(
            StatusCode::INTERNAL_SERVER_ERROR,
            &id,
            ErrorObject::internal("the request ended without an answer"),
        );
    };
    // The hub said what the first message is before sending it: no need to read it.
    if let Ok(First::Answer(code)) = what.try_recv() {
        drop(session);
        return (status_for(code), [(header::CONTENT_TYPE, "application/json")], first).into_response();
    }
    // Notifications first: stream everything as SSE events, the answer last. The body
    // owns the request's session; a client that goes away cancels the handler.
    let framed = sse::frame(None, Some("message"), &first);
    let body = StreamBody::new(Some(framed), handle, hub, Some(session)).sse_framed();
    let mut r = Response::new(Body::from_stream(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}
