//! A host handler's failure as an engine error: one rule for every host.
//!
//! With a JSON-RPC code the failure is that error exactly (a tool call's peer sees the code,
//! message and data); without one it is a handler failure (a tool answers `isError`, other
//! handlers -32603). Data that is not JSON is kept as a JSON string, so nothing the host
//! said is lost; empty data and `null` mean none.

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::protocol::ErrorObject;

/// The failure from its parts.
///
/// ```
/// use oxmcp::host::failure;
/// let e = failure::from_parts(Some(-32042), "no", Some("not json"));
/// assert_eq!(e.rpc().unwrap().data, Some(serde_json::json!("not json")));
/// assert_eq!(failure::from_parts(None, "boom", None).kind(), oxmcp::ErrorKind::Handler);
/// ```
pub fn from_parts(code: Option<i64>, message: impl Into<String>, data: Option<&str>) -> Error {
    let message = message.into();
    match code {
        Some(code) => {
            let mut obj = ErrorObject::new(code, message);
            obj.data = data
                .filter(|d| !d.trim().is_empty())
                .map(|d| serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.to_string())))
                .filter(|d| !d.is_null());
            Error::from_rpc(obj)
        }
        None => Error::new(ErrorKind::Handler, message),
    }
}

/// The failure from JSON text `{"code"?, "message"?, "data"?}` (a host that encodes its
/// exception once); text that is not such an object is a handler failure with that text.
///
/// ```
/// use oxmcp::host::failure;
/// let e = failure::from_json(r#"{"code": -32602, "message": "bad", "data": {"field": "x"}}"#);
/// assert_eq!(e.rpc().unwrap().code, -32602);
/// assert_eq!(failure::from_json("oops").message(), "oops");
/// ```
pub fn from_json(text: &str) -> Error {
    let Ok(Value::Object(v)) = serde_json::from_str::<Value>(text) else {
        let message = if text.trim().is_empty() { "the handler failed" } else { text };
        return Error::new(ErrorKind::Handler, message);
    };
    let message = v.get("message").and_then(Value::as_str).unwrap_or("the handler failed");
    let data = v.get("data").map(|d| d.to_string());
    from_parts(v.get("code").and_then(Value::as_i64), message, data.as_deref())
}
