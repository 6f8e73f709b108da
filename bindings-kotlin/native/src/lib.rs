//! The oxmcp engine for Kotlin, through uniffi: what `bindings-kotlin/src/main/kotlin`
//! builds its `Server` and `Client` on. Everything here translates: JSON crosses as text,
//! handlers are Kotlin objects (uniffi callback interfaces, `suspend` where they wait), and
//! Rust `async fn`s become Kotlin `suspend fun`s. Cancellation is the dropping of a
//! future in both directions: a cancelled coroutine drops the engine call (which then tells
//! the peer), and a cancel from the peer drops the handler's foreign future (which cancels
//! its coroutine).
//!
//! - [`error`]: the one error type, carrying the core's stable error kind.
//! - [`runtime`]: the process's tokio runtime, and running engine futures on it.
//! - `calls`: running a Kotlin handler as one host call (its answer, its cancellation).
//! - [`server`]: `NativeServer` and the handler interface.
//! - [`context`]: a handler's request context.
//! - [`client`]: `NativeClient`, its request handler and progress listener.
//! - [`http_app`]: `NativeHttpApp`, the endpoint inside a web framework (Ktor).

uniffi::setup_scaffolding!("oxmcp");

mod calls;
pub mod client;
pub mod context;
pub mod error;
pub mod http_app;
pub mod runtime;
pub mod server;

pub use error::NativeError;

/// The engine's version (the workspace's).
#[uniffi::export]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

/// The core's error kinds, a `code name` line each: what the Kotlin side's tests compare
/// its `McpException` mapping with.
#[uniffi::export]
pub fn error_kinds() -> String {
    oxmcp::ErrorKind::table()
}
