//! The one error type of oxmcp, with a kind every binding maps exhaustively.

use std::fmt;

use crate::protocol::ErrorObject;

/// What went wrong, coarsely: each binding maps every kind to a host exception type.
///
/// Deliberately not `#[non_exhaustive]`: bindings match it exhaustively, so a new kind is
/// a compile error in every binding until it is mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The peer answered with a JSON-RPC error ([`Error::rpc`] holds code, message, data).
    Rpc,
    /// The request's local timeout elapsed (inactivity or hard maximum). Not a peer error.
    Timeout,
    /// The request was cancelled locally (token, abort, dropped future).
    Cancelled,
    /// The connection is closed; pending requests fail with this kind.
    Closed,
    /// Reading or writing the transport failed, or a process could not be started.
    Transport,
    /// The peer broke the protocol (unknown version, malformed result, ...).
    Protocol,
    /// The caller passed something unusable (bad arguments, unknown name, bad schema).
    InvalidInput,
    /// The peer did not declare the capability this call needs.
    CapabilityMissing,
    /// A handler failed (an exception in host code). A tool failing this way answers with
    /// an `isError` result; other handlers answer -32603.
    Handler,
}

/// An oxmcp error: a kind, a message, and the JSON-RPC error object when there is one.
///
/// Boxed inside, so a `Result<T, Error>` stays small on the hot path.
#[derive(Debug, Clone)]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone)]
struct Inner {
    kind: ErrorKind,
    message: String,
    rpc: Option<ErrorObject>,
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self(Box::new(Inner { kind, message: message.into(), rpc: None }))
    }
    /// The peer's JSON-RPC error.
    pub fn from_rpc(error: ErrorObject) -> Self {
        Self(Box::new(Inner { kind: ErrorKind::Rpc, message: error.message.clone(), rpc: Some(error) }))
    }
    /// An error of `kind` that, should a handler fail with it, answers the request with
    /// `error` (a missing client capability is CapabilityMissing to the handler in both
    /// eras, and -32021 on the wire in the stateless one).
    pub(crate) fn with_rpc(kind: ErrorKind, error: ErrorObject) -> Self {
        Self(Box::new(Inner { kind, message: error.message.clone(), rpc: Some(error) }))
    }
    /// A JSON-RPC error a handler wants to return as-is (e.g. -32602 with data).
    pub fn rpc_error(code: i64, message: impl Into<String>) -> Self {
        Self::from_rpc(ErrorObject::new(code, message))
    }
    /// -32602 for handlers: the parameters were invalid.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::from_rpc(ErrorObject::invalid_params(message))
    }
    /// A failure inside a handler; becomes -32603 on the wire with this message.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::from_rpc(ErrorObject::internal(message))
    }
    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }
    /// The message.
    pub fn message(&self) -> &str {
        &self.0.message
    }
    /// The JSON-RPC error object: the peer's, for [`ErrorKind::Rpc`], or the one a
    /// handler failing with this error answers with.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        self.0.rpc.as_ref()
    }
    /// The JSON-RPC code of [`Error::rpc`].
    pub fn code(&self) -> Option<i64> {
        self.0.rpc.as_ref().map(|e| e.code)
    }

    /// The error object sent to the peer when a handler fails with this error:
    /// JSON-RPC errors pass through, bad input becomes -32602, anything else -32603.
    pub fn to_error_object(&self) -> ErrorObject {
        match (&self.0.rpc, self.0.kind) {
            (Some(rpc), _) => rpc.clone(),
            (None, ErrorKind::InvalidInput) => ErrorObject::invalid_params(&self.0.message),
            (None, _) => ErrorObject::internal(&self.0.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.rpc {
            Some(rpc) if self.0.kind == ErrorKind::Rpc => write!(f, "{} (JSON-RPC error {})", self.0.message, rpc.code),
            _ => f.write_str(&self.0.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<ErrorObject> for Error {
    fn from(e: ErrorObject) -> Self {
        Error::from_rpc(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::new(ErrorKind::InvalidInput, format!("invalid JSON value: {e}"))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Transport, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codes;

    #[test]
    fn handler_errors_map_to_wire_codes() {
        assert_eq!(Error::invalid_params("x").to_error_object().code, codes::INVALID_PARAMS);
        assert_eq!(Error::new(ErrorKind::InvalidInput, "x").to_error_object().code, codes::INVALID_PARAMS);
        let internal = Error::internal("boom").to_error_object();
        assert_eq!((internal.code, internal.message.as_str()), (codes::INTERNAL_ERROR, "boom"));
        assert_eq!(Error::new(ErrorKind::Timeout, "t").to_error_object().code, codes::INTERNAL_ERROR);
        let e = Error::rpc_error(-32002, "missing");
        assert_eq!((e.kind(), e.code()), (ErrorKind::Rpc, Some(-32002)));
    }
}
