//! The one error taxonomy crossing into JavaScript: an engine error travels as JSON
//! `{"kind", "code", "message", "data"}` (in an event, or as a rejected Promise's message
//! with the [`PREFIX`]), and the JS layer builds the matching `McpError` subclass. Errors
//! a JS handler throws come back as `{"code", "message", "data"}`.

use oxmcp::protocol::ErrorObject;
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};

/// Marks a rejected Promise's message as an encoded engine error.
pub const PREFIX: &str = "\u{1}oxmcp:";

/// The JS class name for each kind. A new kind does not compile until it is mapped here.
fn class_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Rpc => "McpError",
        ErrorKind::Timeout => "RequestTimeoutError",
        ErrorKind::Cancelled => "RequestCancelledError",
        ErrorKind::Closed => "ConnectionClosedError",
        ErrorKind::Transport => "TransportError",
        ErrorKind::Protocol => "ProtocolError",
        ErrorKind::InvalidInput => "InvalidInputError",
        ErrorKind::CapabilityMissing => "CapabilityMissingError",
        ErrorKind::Handler => "HandlerError",
    }
}

/// An engine error as JSON text for the JS layer.
pub fn encode(e: &Error) -> String {
    let rpc = e.rpc();
    json!({
        "kind": class_name(e.kind()),
        "code": e.code(),
        "message": e.message(),
        "data": rpc.and_then(|r| r.data.clone()),
    })
    .to_string()
}

/// An engine error as a rejected Promise's error.
pub fn to_napi(e: Error) -> napi::Error {
    napi::Error::new(napi::Status::GenericFailure, format!("{PREFIX}{}", encode(&e)))
}

/// Bad input from JavaScript.
pub fn invalid(message: impl Into<String>) -> napi::Error {
    to_napi(Error::new(ErrorKind::InvalidInput, message))
}

/// What a JS handler threw (`{"code"?, "message", "data"?}`) as an engine error: with a
/// code it is that JSON-RPC error exactly; without, a handler failure.
pub fn from_js(text: &str) -> Error {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let message = v.get("message").and_then(Value::as_str).unwrap_or("the handler failed").to_string();
    match v.get("code").and_then(Value::as_i64) {
        Some(code) => {
            let mut obj = ErrorObject::new(code, message);
            obj.data = v.get("data").filter(|d| !d.is_null()).cloned();
            Error::from_rpc(obj)
        }
        None => Error::new(ErrorKind::Handler, message),
    }
}
