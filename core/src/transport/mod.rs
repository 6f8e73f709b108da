//! Transports move whole JSON-RPC messages (`Bytes` in, `Bytes` out).
//!
//! Framing (newline-delimited JSON, SSE events, HTTP bodies) stays in the transport;
//! request correlation stays in [`crate::session`]. A transport splits into a
//! [`MessageReader`] (driven by the session's reader task) and a [`MessageWriter`]
//! (driven by its writer task).
//!
//! Where a transport has to read messages anyway, it says what it learnt instead of
//! letting the session read them again, and where it acts on some messages, the session
//! tells it what they are instead of letting it parse them back: a reader may yield a
//! parsed frame or a typed "the peer can no longer receive this answer" signal
//! ([`Inbound`]); a writer may be told that a message is a cancel or an error
//! ([`MessageKind`]). Both default to plain bytes, so a simple transport is only bytes.
//!
//! - [`memory`]: an in-process pair, for tests and embedding.
//! - [`stdio`]: a server on this process's stdin/stdout.
//! - [`child`]: a client that spawns a server as a child process.

pub mod child;
pub mod framing;
pub mod host_loop;
pub mod http;
pub mod memory;
pub mod stdio;

use std::future::Future;
use std::io;

use bytes::Bytes;

use crate::protocol::jsonrpc::Incoming;
use crate::protocol::{methods, Message, RequestId};

pub use crate::os::sigpipe::block_sigpipe_on_this_thread;
pub use child::{ChildProcess, ChildStderr, ChildTransport};
pub use host_loop::{HostLoop, LoopFd};
pub use memory::MemoryTransport;
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

/// A session's id as its transport knows it, read when a span is made (`mcp.session.id`):
/// given once to a Streamable HTTP server's session; learnt by an HTTP client from the
/// server's answer to `initialize` (and replaced if the server forgets the session).
///
/// ```
/// let id = oxmcp::transport::SessionId::default();
/// assert_eq!(id.get(), None);
/// id.set(Some("4f1c".into()));
/// assert_eq!(id.clone().get().as_deref(), Some("4f1c"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SessionId(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl SessionId {
    /// A session's id given once.
    pub fn of(id: impl Into<String>) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Some(id.into()))))
    }

    /// The id now, if there is one.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets (or, `None`, forgets) the id, for every clone.
    pub fn set(&self, id: Option<String>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = id;
    }
}

/// What a reader yields: a message, or a signal about one.
#[derive(Debug)]
pub enum Inbound {
    /// One frame (a message or a batch) as it arrived, for the session to parse.
    Bytes(Bytes),
    /// A frame the transport parsed already, because it had to read it to route it (the
    /// HTTP server, the HTTP client's response streams): the session takes it as it is
    /// instead of parsing `bytes` again.
    Parsed {
        /// The parsed frame.
        frame: Incoming,
        /// The bytes it was parsed from.
        bytes: Bytes,
    },
    /// The peer can no longer receive the answer to this request (the HTTP response that
    /// was to carry it went away): the session cancels its handler, as it would for
    /// `notifications/cancelled`. The peer sent nothing.
    Cancelled {
        /// The peer's request.
        request: RequestId,
        /// Why, for logs.
        reason: String,
    },
    /// This side's request could not be delivered, for a reason the caller should see by
    /// its kind (the server refused the credentials: [`ErrorKind::Unauthorized`]). The
    /// request's caller gets `error`; the peer sent nothing.
    ///
    /// [`ErrorKind::Unauthorized`]: crate::ErrorKind::Unauthorized
    Failed {
        /// This side's request.
        request: RequestId,
        /// What its caller gets.
        error: Box<crate::Error>,
    },
}

impl Inbound {
    /// The bytes of a message, for readers that yield bytes only
    /// ([`MessageReader::recv`]): a cancel becomes the `notifications/cancelled` it
    /// stands for.
    pub fn into_bytes(self) -> Bytes {
        match self {
            Inbound::Bytes(bytes) | Inbound::Parsed { bytes, .. } => bytes,
            Inbound::Cancelled { request, reason } => {
                let params = serde_json::json!({"requestId": request, "reason": reason});
                let note = Message::Notification { method: methods::CANCELLED.into(), params: Some(params) };
                Bytes::from(note.to_bytes())
            }
            Inbound::Failed { request, error } => {
                let error =
                    crate::protocol::ErrorObject::new(crate::protocol::codes::INTERNAL_ERROR, error.message().to_string());
                Bytes::from(Message::Error { id: Some(request), error }.to_bytes())
            }
        }
    }
}

/// Reads whole messages.
pub trait MessageReader: Send + 'static {
    /// The next message, or why there is none.
    fn recv(&mut self) -> impl Future<Output = Result<Bytes, RecvError>> + Send;

    /// The next message or signal, or why there is none: what the session reads. By
    /// default the next message's bytes; a transport that parses messages to route them,
    /// or learns that the peer gave up on a request, says so (see [`Inbound`]).
    fn recv_inbound(&mut self) -> impl Future<Output = Result<Inbound, RecvError>> + Send {
        let next = self.recv();
        async move { next.await.map(Inbound::Bytes) }
    }

    /// Where the session's read loop runs: `None` (the default) for a task on the runtime;
    /// a host loop's home when the host's loop reads this transport ([`HostLoop`]).
    fn home(&self) -> Option<crate::drive::Home> {
        None
    }
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

/// What the session knows of an outgoing message beyond its bytes and [`Route`]. A
/// transport that acts on some messages learns it from
/// [`MessageWriter::send_kind`] instead of parsing the bytes back (HTTP: a cancel closes
/// a stateless-era request's response stream; an error answer picks the HTTP status).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageKind {
    /// `notifications/cancelled` for this request of the session's.
    Cancels(RequestId),
    /// An error response with this JSON-RPC error code.
    Error(i64),
}

/// What [`MessageWriter::try_send_now`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendNow {
    /// The whole message is written.
    Written,
    /// Part of it is written and the rest buffered: a [`MessageWriter::flush`] must follow.
    Buffered,
    /// Nothing was written: the transport would have to wait, or cannot write at once.
    NotNow,
}

/// Writes whole messages. `send` may buffer; the session calls `flush` once it has no
/// more queued messages, so bursts go out in one write.
pub trait MessageWriter: Send + 'static {
    /// Queues one message.
    fn send(&mut self, message: Outbound) -> impl Future<Output = io::Result<()>> + Send;
    /// Queues one message whose [`MessageKind`] the session knows. By default the same
    /// as [`MessageWriter::send`].
    fn send_kind(&mut self, message: Outbound, kind: MessageKind) -> impl Future<Output = io::Result<()>> + Send {
        let _ = kind;
        self.send(message)
    }
    /// Writes out everything queued.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;
    /// Writes one message from the calling thread, without waiting, if the transport can:
    /// the session calls it when nothing is queued ahead, so a message goes out without a
    /// hop to the writer task. By default [`SendNow::NotNow`] (the message is then queued
    /// as usual).
    fn try_send_now(&mut self, message: &Outbound) -> SendNow {
        let _ = message;
        SendNow::NotNow
    }
    /// Ends the outgoing direction (and, for a child process, stops the child).
    fn close(self) -> impl Future<Output = ()> + Send;
    /// The session's id, when the transport gives it one (see [`SessionId`]).
    fn session_id(&self) -> Option<SessionId> {
        None
    }
}
