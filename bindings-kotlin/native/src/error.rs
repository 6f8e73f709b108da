//! The one error that crosses to Kotlin, both ways: the core's stable error kind (its
//! number, [`oxmcp::ErrorKind::code`]), the JSON-RPC code and data when there are some, and
//! the message. Kotlin maps `kind` to its sealed `McpException` hierarchy; a handler's
//! exception comes back the same way.

use oxmcp::protocol::ErrorObject;
use oxmcp::{Error, ErrorKind};

/// An oxmcp error as uniffi carries it.
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum NativeError {
    /// Any failure: `kind` is the core's stable number, `code`/`data` the JSON-RPC error's.
    /// (`text`, not `message`: Kotlin's exceptions have a `message` of their own.)
    #[error("{text}")]
    Mcp { kind: u32, code: Option<i64>, text: String, data: Option<String> },
}

impl From<Error> for NativeError {
    fn from(e: Error) -> Self {
        let rpc = e.rpc();
        NativeError::Mcp {
            kind: e.kind().code(),
            code: rpc.map(|r| r.code),
            text: e.message().to_string(),
            data: rpc.and_then(|r| r.data.as_ref()).map(|d| d.to_string()),
        }
    }
}

impl From<NativeError> for Error {
    /// A handler's failure: with a JSON-RPC code it answers with that error, otherwise it
    /// is the kind it names (a handler failing is [`ErrorKind::Handler`] unless it says).
    fn from(e: NativeError) -> Self {
        let NativeError::Mcp { kind, code, text: message, data } = e;
        match code {
            Some(code) => {
                let mut obj = ErrorObject::new(code, message);
                obj.data = data.map(|d| serde_json::from_str(&d).unwrap_or(serde_json::Value::String(d)));
                Error::from_rpc(obj)
            }
            None => Error::new(ErrorKind::from_code(kind).unwrap_or(ErrorKind::Handler), message),
        }
    }
}

/// What uniffi reports when a Kotlin callback fails with something other than a
/// `NativeError` (a bug in the Kotlin layer, not the handler's own exception).
impl From<uniffi::UnexpectedUniFFICallbackError> for NativeError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        Error::new(ErrorKind::Handler, format!("the Kotlin callback failed: {}", e.reason)).into()
    }
}

/// `Result` with [`NativeError`].
pub type Result<T, E = NativeError> = std::result::Result<T, E>;
