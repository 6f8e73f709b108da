//! Streamable HTTP (2025-03-26 and later) and legacy HTTP+SSE (2024-11-05), server and
//! client.
//!
//! - [`server`]: [`HttpServer`], one endpoint (default `/mcp`) plus `/sse` and `/message`.
//! - [`client`]: [`HttpClientTransport`], Streamable HTTP with a legacy fallback.
//! - `hub`: routes one session's messages to the right HTTP response stream
//!   ([`HttpSessionTransport`]).
//! - [`sse`]: SSE framing, event ids and the [`EventStore`] that makes streams resumable.

pub mod client;
mod hub;
mod listener;
pub mod server;
pub mod sse;
mod stateless_era;

pub use client::HttpClientTransport;
pub use hub::{HttpSessionTransport, HubReader, HubWriter};
pub use server::{Backend, BackendSession, HttpServer, HttpServerConfig};
pub use sse::{EventStore, MemoryEventStore};
