//! The host layer: what every language binding shares, so a binding only translates host
//! values to these calls and back.
//!
//! - [`StagedServer`]: a server whose tools, resources, prompts and completion are host
//!   functions (JSON in, JSON out), served over stdio or HTTP ([`HttpOptions`]).
//! - [`HostCalls`]: the table of host calls in flight. Each gets an id, its cancellation,
//!   and exactly one answer; cancelled calls get the session's grace period.
//! - [`client`]: connecting from [`ConnectOptions`], the host's answers to the server's
//!   sampling, elicitation and roots requests, and every client call by name.
//! - [`context`]: the context door: what a handler asks of its request, by name
//!   ([`context::call_now`], [`context::call`]), so a new capability adds no native entry
//!   point to any binding.
//! - [`result`]: what a tool handler's return value becomes (one rule for every host).
//! - [`failure`]: a host handler's failure (code, message, data) as an engine error.
//! - [`runtime`]: the tokio runtime a host runs all this on (stopped and joined on demand,
//!   rebuilt after `fork()`).
//!
//! Protocol rules (the completion cap, the default `maxTokens`, result shapes, which
//! definitions are valid) live here or below, never in a binding.

pub mod calls;
pub mod client;
pub mod context;
pub mod failure;
#[cfg(feature = "http")]
mod http_app;
#[cfg(feature = "http")]
mod http_listener;
mod listen;
pub mod result;
pub mod runtime;
mod staged;

pub use calls::{CallId, HostCalls, Outcome};
pub use client::{ClientHooks, ConnectOptions};
#[cfg(feature = "http")]
pub use http_app::HttpExchanges;
#[cfg(feature = "http")]
pub use http_listener::{HttpApp, HttpAuth, HttpBody, HttpOptions, HttpReply, IntrospectionOptions};
pub use staged::{HandlerKind, HostFn, StagedServer};
