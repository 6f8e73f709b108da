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
//! - [`headers`]: the header names both sides use.

pub mod backend;
pub mod client;
pub mod headers;
mod hub;
mod listener;
pub mod server;
mod shared;
pub mod sse;
mod stream_queue;

pub use backend::{replica_request_ids, Backend, BackendSession, SessionControl};
pub use client::HttpClientTransport;
pub use hub::{HttpSessionTransport, HubReader, HubWriter, SharedSession};
pub use server::{HttpServer, HttpServerConfig, HttpService};
pub use sse::{EventStore, MemoryEventStore};
