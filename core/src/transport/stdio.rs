//! The server side of the stdio transport: newline-delimited JSON on stdin/stdout.
//! Logs belong on stderr; the session ends when stdin reaches EOF.

use std::io;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};

use super::framing::{LineReader, LineWriter};
use super::{MessageReader, MessageWriter, Outbound, RecvError, Transport, DEFAULT_MAX_MESSAGE_SIZE};

/// Newline-delimited JSON over a reader and a writer (by default stdin and stdout).
///
/// ```no_run
/// let transport = oxmcp::transport::StdioTransport::stdio();
/// ```
pub struct StdioTransport<R = tokio::io::Stdin, W = tokio::io::Stdout> {
    reader: R,
    writer: W,
    max_message_size: usize,
}

impl StdioTransport {
    /// This process's stdin and stdout.
    pub fn stdio() -> Self {
        Self::new(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Any byte streams (pipes, sockets, in-memory duplexes).
    pub fn new(reader: R, writer: W) -> Self {
        Self { reader, writer, max_message_size: DEFAULT_MAX_MESSAGE_SIZE }
    }
    /// Sets the largest accepted incoming message (default 16 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

/// Reading half of a [`StdioTransport`].
pub struct StdioReader<R>(LineReader<R>);
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
        (
            StdioReader(LineReader::new(self.reader, self.max_message_size)),
            StdioWriter(LineWriter::new(self.writer)),
        )
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
    async fn close(self) {
        self.0.close().await
    }
}
