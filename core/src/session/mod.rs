//! The engine: one [`Session`] per connection, whatever the transport and whatever the role.
//!
//! A session owns two maps and the tasks that keep them honest:
//!
//! - [`outgoing`]: requests this side sent. An id allocator and the **pending map**
//!   `id -> completion`. Every way a request can end (response, error, timeout, local
//!   cancel, dropped future, transport close) removes its entry exactly once, through an
//!   RAII guard.
//! - [`incoming`]: requests the peer sent. Dispatched concurrently under a limit, each with
//!   a cancellation token in the **in-flight map**; `notifications/cancelled` (or the
//!   transport's [`Inbound::Cancelled`](crate::transport::Inbound::Cancelled)) fires it.
//!
//! Invariant: after any mix of completions, errors, timeouts, cancels and disconnects both
//! maps are empty (see `tests/session_invariants.rs`).
//!
//! Roles (server, client) plug in as a [`Service`] that answers the peer's requests; they
//! send their own requests through the cloneable [`Peer`] handle.
//!
//! The modules, each using only those before it:
//! - `config`: [`SessionConfig`] and [`SessionStats`];
//! - `pending` and `in_flight`: the two maps;
//! - `shared`: the state the tasks and every [`Peer`] share, and the queue to the writer;
//! - [`outgoing`]: sending a request and waiting for its end;
//! - `peer`: the [`Peer`] handle;
//! - [`service`]: what a role plugs in;
//! - [`incoming`]: handing the peer's requests to the service;
//! - `reader` and `writer`: the two I/O loops;
//! - `lifecycle`: [`Session`], which starts the tasks and ends them;
//! - [`relay`]: two sessions joined to each other.

mod config;
pub mod fanout;
mod in_flight;
pub mod incoming;
mod lifecycle;
pub mod outgoing;
mod peer;
mod pending;
mod reader;
pub mod relay;
pub mod service;
mod shared;
mod writer;

pub use config::{SessionConfig, SessionStats};
pub use lifecycle::Session;
pub use outgoing::{Progress, ProgressCallback, RequestOptions, SentCallback};
pub use peer::Peer;
pub use service::{IncomingNotification, IncomingRequest, Service};
