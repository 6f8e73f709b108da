//! # oxmcp
//!
//! One Rust engine for the Model Context Protocol (MCP): the protocol types, a session
//! engine that correlates requests and responses (with timeouts, progress and
//! cancellation), stdio and in-memory transports, and the server and client roles on top.
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod drive;
pub mod error;
pub mod host;
pub mod os;
pub mod protocol;
mod random;
pub mod schema;
pub mod server;
pub mod session;
pub mod store;
pub mod telemetry;
pub mod transport;

pub use error::{Error, ErrorKind, Result};
