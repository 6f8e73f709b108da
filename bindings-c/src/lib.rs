//! # oxmcp C ABI
//!
//! `liboxmcp.so` / `liboxmcp.a`: the oxmcp engine for C and for hosts that call C (C# via
//! P/Invoke). The header `include/oxmcp.h` is generated from this crate by cbindgen.
//!
//! The shape, module by module:
//! - [`error`]: `OxmcpStatus` returned by every fallible function, `OxmcpError` (status,
//!   message, JSON-RPC code and data) readable through `oxmcp_last_error()`;
//! - [`runtime`]: `OxmcpRuntime`, the threads everything runs on, with an explicit shutdown,
//!   and where callbacks run (its threads, or queued for the host's: `deliver`);
//! - [`request`]: `OxmcpRequest`, the handle that cancels an asynchronous operation;
//! - [`callback`]: the callback types and their exactly-once / not-after-free rules;
//! - [`server`]: `OxmcpServer` (host callbacks as tools, resources, prompts);
//! - [`incoming`]: `OxmcpIncoming`, a request the host completes later from any thread (a
//!   server handler's call, or the server's sampling, elicitation or roots request to a
//!   client);
//! - [`client`]: `OxmcpClient` over stdio or Streamable HTTP.
//!
//! JSON crosses the boundary as UTF-8 pointer + length; the engine does all parsing,
//! validation, correlation, cancellation and transport work. No panic crosses the boundary.
#![deny(missing_docs)]
#![allow(clippy::missing_safety_doc)] // each function's `# Safety` section is in its doc comment

pub mod callback;
pub mod client;
mod deliver;
pub mod error;
pub mod incoming;
pub mod request;
pub mod runtime;
pub mod server;

/// The library's version (NUL-terminated, static), e.g. `"0.1.0"`.
#[no_mangle]
pub extern "C" fn oxmcp_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
