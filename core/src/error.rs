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
    /// Authorization failed: the server refused the credentials and no new ones could be
    /// obtained (the authorization server said no, the user did not consent, a check on
    /// its answers failed).
    Unauthorized,
}

impl ErrorKind {
    /// Every kind, in the order of its [`code`](ErrorKind::code).
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Rpc,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::Closed,
        ErrorKind::Transport,
        ErrorKind::Protocol,
        ErrorKind::InvalidInput,
        ErrorKind::CapabilityMissing,
        ErrorKind::Handler,
        ErrorKind::Unauthorized,
    ];

    /// The kind's stable number, what crosses a host boundary (the C ABI's status values,
    /// Java's and C#'s error kinds): never an enum position. A number is never reused.
    ///
    /// ```
    /// use oxmcp::ErrorKind;
    /// assert_eq!(ErrorKind::Closed.code(), 4);
    /// assert_eq!(ErrorKind::from_code(4), Some(ErrorKind::Closed));
    /// assert_eq!(ErrorKind::from_name("invalid_input"), Some(ErrorKind::InvalidInput));
    /// ```
    pub const fn code(self) -> u32 {
        match self {
            ErrorKind::Rpc => 1,
            ErrorKind::Timeout => 2,
            ErrorKind::Cancelled => 3,
            ErrorKind::Closed => 4,
            ErrorKind::Transport => 5,
            ErrorKind::Protocol => 6,
            ErrorKind::InvalidInput => 7,
            ErrorKind::CapabilityMissing => 8,
            ErrorKind::Handler => 9,
            // 10 is the C ABI's status for a bug inside oxmcp: never a kind's number.
            ErrorKind::Unauthorized => 11,
        }
    }

    /// The kind's stable name (`snake_case`), for hosts that map by name.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Rpc => "rpc",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Closed => "closed",
            ErrorKind::Transport => "transport",
            ErrorKind::Protocol => "protocol",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::CapabilityMissing => "capability_missing",
            ErrorKind::Handler => "handler",
            ErrorKind::Unauthorized => "unauthorized",
        }
    }

    /// The kind with this [`code`](ErrorKind::code).
    pub fn from_code(code: u32) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The kind with this [`name`](ErrorKind::name).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// `code name` lines for every kind: what each binding's tests compare its own
    /// mapping with.
    pub fn table() -> String {
        Self::ALL.iter().map(|k| format!("{} {}\n", k.code(), k.name())).collect()
    }
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
    /// Why, when a lower layer said (an I/O error, an HTTP client's, a JSON parser's):
    /// [`std::error::Error::source`] gives it back.
    source: Option<Cause>,
}

/// A kept cause: shared, so an [`Error`] stays cheap to clone.
type Cause = std::sync::Arc<dyn std::error::Error + Send + Sync>;

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self(Box::new(Inner { kind, message: message.into(), rpc: None, source: None }))
    }

    /// An error of `kind` with a message, keeping `cause` as its
    /// [`source`](std::error::Error::source).
    ///
    /// ```
    /// use std::error::Error as _;
    /// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
    /// let e = oxmcp::Error::caused(oxmcp::ErrorKind::Transport, "cannot reach the server", io);
    /// assert_eq!(e.source().unwrap().to_string(), "refused");
    /// ```
    pub fn caused(kind: ErrorKind, message: impl Into<String>, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Box::new(Inner { kind, message: message.into(), rpc: None, source: Some(std::sync::Arc::new(cause)) }))
    }
    /// The peer's JSON-RPC error.
    pub fn from_rpc(error: ErrorObject) -> Self {
        Self(Box::new(Inner { kind: ErrorKind::Rpc, message: error.message.clone(), rpc: Some(error), source: None }))
    }
    /// An error of `kind` that, should a handler fail with it, answers the request with
    /// `error` (a missing client capability is CapabilityMissing to the handler in both
    /// eras, and -32021 on the wire in the stateless one).
    pub(crate) fn with_rpc(kind: ErrorKind, error: ErrorObject) -> Self {
        Self(Box::new(Inner { kind, message: error.message.clone(), rpc: Some(error), source: None }))
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
    /// The message followed by each cause it does not already say, from the outermost in:
    /// what a host shows, since a host sees text, not [`source`](std::error::Error::source)
    /// (a refused connection's message names the URL; its causes say the OS refused it).
    ///
    /// ```
    /// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused (os error 111)");
    /// let e = oxmcp::Error::caused(oxmcp::ErrorKind::Transport, "cannot reach http://h/mcp", io);
    /// assert_eq!(e.detail(), "cannot reach http://h/mcp: refused (os error 111)");
    /// // A cause the message already quotes is not said twice.
    /// let io = std::io::Error::other("pipe gone");
    /// assert_eq!(oxmcp::Error::caused(oxmcp::ErrorKind::Transport, "write failed: pipe gone", io).detail(), "write failed: pipe gone");
    /// ```
    pub fn detail(&self) -> String {
        let mut text = self.0.message.clone();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            let said = c.to_string();
            if !said.is_empty() && !text.contains(&said) {
                text.push_str(": ");
                text.push_str(&said);
            }
            cause = c.source();
        }
        text
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source.as_deref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl From<ErrorObject> for Error {
    fn from(e: ErrorObject) -> Self {
        Error::from_rpc(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        let message = format!("invalid JSON value: {e}");
        Error::caused(ErrorKind::InvalidInput, message, e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::caused(ErrorKind::Transport, e.to_string(), e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codes;

    #[test]
    fn kinds_have_distinct_stable_codes_and_names() {
        let codes: std::collections::HashSet<u32> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        let names: std::collections::HashSet<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!((codes.len(), names.len()), (ErrorKind::ALL.len(), ErrorKind::ALL.len()));
        for k in ErrorKind::ALL {
            assert_eq!((ErrorKind::from_code(k.code()), ErrorKind::from_name(k.name())), (Some(k), Some(k)));
            // Exhaustive: a new kind fails to compile here until it is listed in ALL.
            match k {
                ErrorKind::Rpc
                | ErrorKind::Timeout
                | ErrorKind::Cancelled
                | ErrorKind::Closed
                | ErrorKind::Transport
                | ErrorKind::Protocol
                | ErrorKind::InvalidInput
                | ErrorKind::CapabilityMissing
                | ErrorKind::Handler
                | ErrorKind::Unauthorized => {}
            }
        }
        assert_eq!(ErrorKind::table().lines().next(), Some("1 rpc"));
    }

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
