//! Everything that is shaped by the MCP specification: the JSON-RPC envelope, error codes,
//! protocol versions and the rules that differ between them, method names and the typed
//! request, result and notification payloads.
//!
//! Era-specific rules live in [`version`]; the engine asks a [`ProtocolVersion`] what is
//! allowed instead of comparing version strings itself.

pub mod era;
pub mod error;
pub mod jsonrpc;
pub mod meta;
pub mod methods;
pub mod mirrored_headers;
pub mod types;
pub mod version;

pub use error::{codes, ErrorObject};
pub use jsonrpc::{Message, RequestId};
pub use types::*;
pub use version::ProtocolVersion;
