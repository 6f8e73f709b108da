//! Transports move whole JSON-RPC messages (`Bytes` in, `Bytes` out).
//!
//! Framing (newline-delimited JSON, SSE events, HTTP bodies) stays in the transport;
//! request correlation stays in [`crate::session`]. A transport splits into a
//! [`MessageReader`] (driven by the session's reader task) and a [`MessageWriter`]
//! (driven by its writer task).
//!
//! - [`memory`]: an in-process pair, for tests and embedding.
//! - [`stdio`]: a server on this process's stdin/stdout.
//! - [`child`]: a client that spawns a server as a child process.

pub mod child;
pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod memory;
mod sigpipe;
pub mod stdio;

use std::future::Future;
use std::io;

use bytes::Bytes;

use crate::protocol::RequestId;

pub use child::{ChildProcess, ChildTransport};
pub use memory::MemoryTransport;
pub use sigpipe::block_sigpipe_on_this_thread;
pub use stdio::StdioTransport;

/// Default limit on one incoming message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// Why a read did not yield a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecvError {
    /// A message was larger than the limit; it was discarded and the stream goes on.
    TooLarge {
        /// The configured limit in bytes.
        limit: usize,
    },
    /// The stream ended; the reason is what a user should see (e.g. a child's exit
    /// status and the tail of its stderr).
    Closed(String),
}

/// A bidirectional message transport.
pub trait Transport: Send + 'static {
    /// The reading half.
    type Reader: MessageReader;
    /// The writing half.
    type Writer: MessageWriter;
    /// Splits into the two halves the session drives from separate tasks.
    fn split(self) -> (Self::Reader, Self::Writer);

    /// Names the server at the other end, when the transport can (an HTTP URL, a command
    /// line): what a client remembers a server's protocol era by.
    fn endpoint(&self) -> Option<String> {
        None
    }
}

/// Reads whole messages.
pub trait MessageReader: Send + 'static {
    /// The next message, or why there is none.
    fn recv(&mut self) -> impl Future<Output = Result<Bytes, RecvError>> + Send;
}

/// Which incoming request an outgoing message belongs to. Stream transports ignore it;
/// Streamable HTTP uses it to put a response, and the progress, logs and requests a
/// handler sends while it runs, on the stream of the POST that carried the request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Route {
    /// Not tied to a request (e.g. list-changed notifications, pings).
    #[default]
    Unrelated,
    /// Sent by the handler of this request while it runs.
    During(RequestId),
    /// The response to this request: its last message.
    Answers(RequestId),
    /// The array answering a JSON-RPC batch of these requests.
    AnswersBatch(Vec<RequestId>),
    /// No message (empty bytes): asks the transport to end the connection carrying this
    /// request without ending the request; an HTTP client resumes with `Last-Event-ID`
    /// (2025-11-25 SSE polling). Other transports ignore it.
    EndConnectionOf(RequestId),
    /// No message (empty bytes): this request was cancelled and no answer will follow, so
    /// a stream waiting for it ends (an HTTP response would otherwise stay open forever,
    /// holding its connection). Other transports ignore it.
    Unanswered(RequestId),
}

/// One serialized message and its [`Route`].
#[derive(Debug, Clone)]
pub struct Outbound {
    /// The JSON-RPC message (or batch array), without framing. Empty for a routing hint
    /// ([`Route::EndConnectionOf`], [`Route::Unanswered`]), which writers without streams
    /// skip.
    pub bytes: Bytes,
    /// Where it belongs.
    pub route: Route,
}

/// Writes whole messages. `send` may buffer; the session calls `flush` once it has no
/// more queued messages, so bursts go out in one write.
pub trait MessageWriter: Send + 'static {
    /// Queues one message.
    fn send(&mut self, message: Outbound) -> impl Future<Output = io::Result<()>> + Send;
    /// Writes out everything queued.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;
    /// Ends the outgoing direction (and, for a child process, stops the child).
    fn close(self) -> impl Future<Output = ()> + Send;
}
