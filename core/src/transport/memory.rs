//! An in-process transport pair: what one side sends, the other receives.

use std::io;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::{MessageReader, MessageWriter, Outbound, RecvError, Transport};

/// One end of an in-memory connection. Make both ends with [`MemoryTransport::pair`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use oxmcp::transport::{MemoryTransport, Transport, MessageReader, MessageWriter};
/// let (a, b) = MemoryTransport::pair();
/// let (_ra, mut wa) = a.split();
/// let (mut rb, _wb) = b.split();
/// wa.send(oxmcp::transport::Outbound { bytes: bytes::Bytes::from_static(b"{}"), route: Default::default() }).await.unwrap();
/// assert_eq!(&rb.recv().await.unwrap()[..], b"{}");
/// # }
/// ```
pub struct MemoryTransport {
    tx: mpsc::UnboundedSender<Bytes>,
    rx: mpsc::UnboundedReceiver<Bytes>,
}

impl MemoryTransport {
    /// Two connected ends.
    pub fn pair() -> (MemoryTransport, MemoryTransport) {
        let (tx_a, rx_b) = mpsc::unbounded_channel();
        let (tx_b, rx_a) = mpsc::unbounded_channel();
        (MemoryTransport { tx: tx_a, rx: rx_a }, MemoryTransport { tx: tx_b, rx: rx_b })
    }
}

/// Reading half of a [`MemoryTransport`].
pub struct MemoryReader(mpsc::UnboundedReceiver<Bytes>);
/// Writing half of a [`MemoryTransport`].
pub struct MemoryWriter(mpsc::UnboundedSender<Bytes>);

impl Transport for MemoryTransport {
    type Reader = MemoryReader;
    type Writer = MemoryWriter;
    fn split(self) -> (MemoryReader, MemoryWriter) {
        (MemoryReader(self.rx), MemoryWriter(self.tx))
    }
}

impl MessageReader for MemoryReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        self.0.recv().await.ok_or_else(|| RecvError::Closed("the in-memory peer closed the connection".into()))
    }
}

impl MessageWriter for MemoryWriter {
    async fn send(&mut self, message: Outbound) -> io::Result<()> {
        if message.bytes.is_empty() {
            return Ok(()); // a routing hint, not a message
        }
        self.0.send(message.bytes).map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "in-memory peer is gone"))
    }
    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    async fn close(self) {}
}
