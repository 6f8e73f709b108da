//! Streamable HTTP (2025-03-26 and later) and legacy HTTP+SSE (2024-11-05), server and
//! client.
//!
//! - [`server`]: [`HttpServer`], one endpoint (default `/mcp`) plus `/sse` and `/message`;
//!   [`HttpService`], the same without a listener, for hosts that own the sockets.
//! - [`backend`]: what the server runs for each session ([`Backend`]) and how it steers
//!   it ([`SessionControl`]); roles and the engine implement them.
//! - [`client`]: [`HttpClientTransport`], Streamable HTTP with a legacy fallback.
//! - `hub`: routes one session's messages to the right HTTP response stream
//!   ([`HttpSessionTransport`]).
//! - `shared`: a node of a server whose sessions several nodes serve (event logs in the
//!   shared store, read back into SSE streams).
//! - [`sse`]: SSE framing, event ids and the [`EventStore`] that makes streams resumable.
//! - [`headers`]: the header names both sides use, and a request's headers as handlers see
//!   them (outside the `http` feature: a request context carries them whatever the
//!   transport; the rest of this module is the feature).

#[cfg(feature = "http")]
pub mod backend;
#[cfg(feature = "http")]
pub mod client;
pub mod headers;
#[cfg(feature = "http")]
mod hub;
#[cfg(feature = "http")]
mod listener;
#[cfg(feature = "http")]
pub mod server;
#[cfg(feature = "http")]
mod shared;
#[cfg(feature = "http")]
pub mod sse;
#[cfg(feature = "http")]
mod stream_queue;

#[cfg(feature = "http")]
pub use backend::{replica_request_ids, Backend, BackendSession, SessionControl};
#[cfg(feature = "http")]
pub use client::HttpClientTransport;
#[cfg(feature = "http")]
pub use hub::{HttpSessionTransport, HubReader, HubWriter, SharedSession};
#[cfg(feature = "http")]
pub use server::{HttpServer, HttpServerConfig, HttpService};
#[cfg(feature = "http")]
pub use sse::{EventStore, MemoryEventStore};
