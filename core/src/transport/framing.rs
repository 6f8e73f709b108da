//! Newline-delimited JSON framing over any byte stream, with a size limit.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

use super::{RecvError, SendNow};

/// Reads newline-delimited messages; blank lines are skipped, a trailing `\r` is removed.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    line: BytesMut,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Wraps `reader`; lines longer than `max` bytes are discarded with
    /// [`RecvError::TooLarge`] instead of growing memory without bound.
    pub fn new(reader: R, max: usize) -> Self {
        Self { inner: BufReader::with_capacity(64 * 1024, reader), max, line: BytesMut::new() }
    }

    /// The stream read.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref()
    }

    /// The next non-empty line. `Ok(None)` at end of stream.
    pub async fn next_line(&mut self) -> io::Result<Option<Result<Bytes, RecvError>>> {
        let mut discarding = false;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                // EOF: a final line without newline still counts.
                let line = trim(self.line.split().freeze());
                if !line.is_empty() && !discarding {
                    return Ok(Some(Ok(line)));
                }
                return Ok(None);
            }
            let (chunk, found) = match memchr(buf) {
                Some(i) => (&buf[..i], Some(i)),
                None => (buf, None),
            };
            if !discarding {
                if self.line.len() + chunk.len() > self.max {
                    discarding = true;
                    // Give the memory back: a rejected line may have grown it to `max`.
                    self.line = BytesMut::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let used = found.map_or(chunk.len(), |i| i + 1);
            self.inner.consume(used);
            if found.is_some() {
                if discarding {
                    return Ok(Some(Err(RecvError::TooLarge { limit: self.max })));
                }
                let line = trim(self.line.split().freeze());
                if !line.is_empty() {
                    return Ok(Some(Ok(line)));
                }
            }
        }
    }
}

fn memchr(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

fn trim(mut line: Bytes) -> Bytes {
    while line.last().is_some_and(|b| b.is_ascii_whitespace()) {
        line.truncate(line.len() - 1);
    }
    line
}

/// The write buffer's size.
const BUFFER: usize = 64 * 1024;

/// Writes messages each followed by `\n`, buffered until `flush`.
pub struct LineWriter<W: AsyncWrite> {
    inner: BufWriter<W>,
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    /// Wraps `writer`.
    pub fn new(writer: W) -> Self {
        Self { inner: BufWriter::with_capacity(BUFFER, writer) }
    }
    /// Queues one message and its newline.
    pub async fn send(&mut self, message: &[u8]) -> io::Result<()> {
        self.inner.write_all(message).await?;
        self.inner.write_all(b"\n").await
    }
    /// Writes one message and its newline now, without waiting: straight to the stream
    /// when nothing is buffered and the stream takes it at once. What the stream takes only
    /// in part is buffered (a [`LineWriter::flush`] must follow). Messages that do not fit
    /// the buffer are left to [`LineWriter::send`].
    pub fn try_send_now(&mut self, message: &[u8]) -> SendNow {
        if !self.inner.buffer().is_empty() || message.len() >= BUFFER {
            return SendNow::NotNow;
        }
        // A no-op waker: if the stream is not writable this returns Pending, nothing is
        // written, and the writer task's own poll registers a real waker later.
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        let stream = Pin::new(self.inner.get_mut());
        let polled = if stream.is_write_vectored() {
            stream.poll_write_vectored(&mut cx, &[io::IoSlice::new(message), io::IoSlice::new(b"\n")])
        } else {
            stream.poll_write(&mut cx, &[message, b"\n"].concat())
        };
        let written = match polled {
            Poll::Ready(Ok(n)) => n,
            Poll::Ready(Err(_)) | Poll::Pending => return SendNow::NotNow, // the writer task meets it again
        };
        if written > message.len() {
            return SendNow::Written;
        }
        // The rest fits the empty buffer: BufWriter copies it without touching the stream.
        for rest in [&message[written..], b"\n"] {
            if !matches!(Pin::new(&mut self.inner).poll_write(&mut cx, rest), Poll::Ready(Ok(n)) if n == rest.len()) {
                unreachable!("an empty BufWriter takes less than its capacity without writing");
            }
        }
        SendNow::Buffered
    }
    /// Writes out everything queued.
    pub async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await
    }
    /// Flushes and shuts the stream down.
    pub async fn close(mut self) {
        let _ = self.inner.flush().await;
        let _ = self.inner.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn splits_lines_skips_blanks_and_bounds_size() {
        let input: &[u8] = b"{\"a\":1}\r\n\n{\"b\":2}\n0123456789abcdef\n{\"c\":3}";
        let mut r = LineReader::new(input, 10);
        assert_eq!(r.next_line().await.unwrap().unwrap().unwrap(), Bytes::from_static(b"{\"a\":1}"));
        assert_eq!(r.next_line().await.unwrap().unwrap().unwrap(), Bytes::from_static(b"{\"b\":2}"));
        assert_eq!(r.next_line().await.unwrap().unwrap(), Err(RecvError::TooLarge { limit: 10 }));
        assert_eq!(r.next_line().await.unwrap().unwrap().unwrap(), Bytes::from_static(b"{\"c\":3}"));
        assert!(r.next_line().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn long_line_across_many_reads_is_discarded_whole() {
        let mut big = vec![b'x'; 200_000];
        big.push(b'\n');
        big.extend_from_slice(b"ok\n");
        let mut r = LineReader::new(&big[..], 1000);
        assert!(matches!(r.next_line().await.unwrap().unwrap(), Err(RecvError::TooLarge { .. })));
        assert_eq!(r.next_line().await.unwrap().unwrap().unwrap(), Bytes::from_static(b"ok"));
    }

    #[tokio::test]
    async fn whitespace_before_the_end_is_no_line() {
        // Found by the line_framing fuzz target: a trailing " " came out as an empty line.
        for input in [&b" "[..], b"{\"a\":1}\n \r\t"] {
            let mut r = LineReader::new(input, 100);
            while let Some(line) = r.next_line().await.unwrap() {
                assert!(!line.unwrap().is_empty());
            }
        }
    }

    #[tokio::test]
    async fn a_rejected_line_gives_its_memory_back() {
        let max = 4 << 20;
        let mut big = vec![b'x'; 3 * max];
        big.push(b'\n');
        let mut r = LineReader::new(&big[..], max);
        assert!(matches!(r.next_line().await.unwrap().unwrap(), Err(RecvError::TooLarge { .. })));
        assert!(r.line.capacity() < 1 << 20, "the line buffer kept {} bytes", r.line.capacity());
    }
}
