//! The one error that crosses to Kotlin, both ways: the core's stable error kind (its
//! number, [`oxmcp::ErrorKind::code`]), the JSON-RPC code and data when there are some, and
//! the message. Kotlin maps `kind` to its sealed `McpException` hierarchy; a handler's
//! exception comes back the same way and becomes an engine error by the core's one rule for
//! every host (its code, message and data count, not its kind).

use oxmcp::host::failure;
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
            text: e.detail(),
            data: rpc.and_then(|r| r.data.as_ref()).map(|d| d.to_string()),
        }
    }
}

impl From<NativeError> for Error {
    /// A handler's failure, by the core's one rule for every host
    /// ([`failure::from_parts`]): with a JSON-RPC code it answers with that error (data that
    /// is not JSON kept as a string), otherwise it is a handler failure.
    fn from(e: NativeError) -> Self {
        let NativeError::Mcp { code, text, data, .. } = e;
        failure::from_parts(code, text, data.as_deref())
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
