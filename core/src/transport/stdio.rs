//! The server side of the stdio transport: newline-delimited JSON on stdin/stdout.
//! Logs belong on stderr; the session ends when stdin reaches EOF.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::framing::{LineReader, LineWriter};
use super::host_loop::{HostLoop, LoopFd};
use super::{MessageReader, MessageWriter, Outbound, RecvError, SendNow, Transport, DEFAULT_MAX_MESSAGE_SIZE};
use crate::drive::Home;
use crate::os::{self, pipe::Std};
use std::sync::Arc;

/// Newline-delimited JSON over a reader and a writer (by default stdin and stdout).
///
/// ```no_run
/// let transport = oxmcp::transport::StdioTransport::stdio();
/// ```
pub struct StdioTransport<R = StdinStream, W = StdoutStream> {
    reader: R,
    writer: W,
    max_message_size: usize,
    home: Option<Home>,
}

impl StdioTransport {
    /// This process's stdin and stdout.
    ///
    /// When they are pipes (as when a client spawned this process) they are read and
    /// written through the reactor, without a thread hop per message; otherwise (a
    /// terminal, a file) through tokio's blocking stdin/stdout. Must be called inside a
    /// tokio runtime.
    pub fn stdio() -> Self {
        Self::new(StdinStream::open(), StdoutStream::open())
    }

    /// This process's stdin and stdout, stdin read on a host's event loop (see
    /// [`HostLoop`]) when it is a pipe. Must be called inside a tokio runtime.
    pub fn stdio_on(host: Arc<dyn HostLoop>) -> Self {
        let stdin = match os::pipe::stdio_pipe(Std::In).map(|fd| LoopFd::new(fd, host)) {
            Some(Ok(fd)) => StdinStream::Loop(fd),
            _ => StdinStream::open(),
        };
        let mut transport = Self::new(stdin, StdoutStream::open());
        if let StdinStream::Loop(fd) = &transport.reader {
            transport.home = Some(fd.home());
        }
        transport
    }
}

/// This process's stdin: a non-blocking pipe when it is one, else tokio's stdin.
pub enum StdinStream {
    /// A pipe, driven by the reactor.
    Pipe(os::pipe::Receiver),
    /// Anything else, read on tokio's blocking pool.
    Blocking(tokio::io::Stdin),
    /// A pipe read on a host's event loop.
    Loop(LoopFd),
}

/// This process's stdout: a non-blocking pipe when it is one, else tokio's stdout.
pub enum StdoutStream {
    /// A pipe, driven by the reactor.
    Pipe(os::pipe::Sender),
    /// Anything else, written on tokio's blocking pool.
    Blocking(tokio::io::Stdout),
}

impl StdinStream {
    fn open() -> Self {
        match os::pipe::stdio_pipe(Std::In).map(os::pipe::receiver) {
            Some(Ok(pipe)) => StdinStream::Pipe(pipe),
            _ => StdinStream::Blocking(tokio::io::stdin()),
        }
    }
}

impl StdoutStream {
    fn open() -> Self {
        match os::pipe::stdio_pipe(Std::Out).map(os::pipe::sender) {
            Some(Ok(pipe)) => StdoutStream::Pipe(pipe),
            _ => StdoutStream::Blocking(tokio::io::stdout()),
        }
    }
}

impl AsyncRead for StdinStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            StdinStream::Pipe(p) => Pin::new(p).poll_read(cx, buf),
            StdinStream::Blocking(s) => Pin::new(s).poll_read(cx, buf),
            StdinStream::Loop(fd) => Pin::new(fd).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for StdoutStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            StdoutStream::Pipe(p) => Pin::new(p).poll_write(cx, data),
            StdoutStream::Blocking(s) => Pin::new(s).poll_write(cx, data),
        }
    }
    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            StdoutStream::Pipe(p) => Pin::new(p).poll_write_vectored(cx, bufs),
            StdoutStream::Blocking(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }
    fn is_write_vectored(&self) -> bool {
        match self {
            StdoutStream::Pipe(p) => p.is_write_vectored(),
            StdoutStream::Blocking(s) => s.is_write_vectored(),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            StdoutStream::Pipe(p) => Pin::new(p).poll_flush(cx),
            StdoutStream::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            StdoutStream::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            StdoutStream::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Any byte streams (pipes, sockets, in-memory duplexes).
    pub fn new(reader: R, writer: W) -> Self {
        Self { reader, writer, max_message_size: DEFAULT_MAX_MESSAGE_SIZE, home: None }
    }
    /// Sets the largest accepted incoming message (default 16 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

/// Reading half of a [`StdioTransport`].
pub struct StdioReader<R>(LineReader<R>, Option<Home>);
/// Writing half of a [`StdioTransport`].
pub struct StdioWriter<W: AsyncWrite>(LineWriter<W>);

impl<R, W> Transport for StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Reader = StdioReader<R>;
    type Writer = StdioWriter<W>;
    fn split(self) -> (Self::Reader, Self::Writer) {
        (StdioReader(LineReader::new(self.reader, self.max_message_size), self.home), StdioWriter(LineWriter::new(self.writer)))
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> MessageReader for StdioReader<R> {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        match self.0.next_line().await {
            Ok(Some(r)) => r,
            Ok(None) => Err(RecvError::Closed("end of input".into())),
            Err(e) => Err(RecvError::Closed(format!("read failed: {e}"))),
        }
    }
    fn home(&self) -> Option<Home> {
        self.1.clone()
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> MessageWriter for StdioWriter<W> {
    async fn send(&mut self, message: Outbound) -> io::Result<()> {
        if message.bytes.is_empty() {
            return Ok(()); // a routing hint, not a message
        }
        self.0.send(&message.bytes).await
    }
    async fn flush(&mut self) -> io::Result<()> {
        self.0.flush().await
    }
    fn try_send_now(&mut self, message: &Outbound) -> SendNow {
        if message.bytes.is_empty() {
            return SendNow::Written; // a routing hint, not a message
        }
        self.0.try_send_now(&message.bytes)
    }
    async fn close(self) {
        self.0.close().await
    }
}
