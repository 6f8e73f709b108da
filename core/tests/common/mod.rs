//! What several integration tests share: a peer that speaks raw JSON-RPC messages.

use std::time::Duration;

use bytes::Bytes;
use oxmcp::transport::{MessageReader, MessageWriter, Outbound};
use serde_json::Value;

/// The client side of a transport, sending and reading raw messages.
pub struct Raw<R, W> {
    pub rx: R,
    pub tx: W,
}

impl<R: MessageReader, W: MessageWriter> Raw<R, W> {
    /// Sends `message` and reads the next message that comes back.
    pub async fn ask(&mut self, message: Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    /// Sends `message`.
    pub async fn send(&mut self, message: Value) {
        self.tx.send(Outbound { bytes: Bytes::from(message.to_string()), route: Default::default() }).await.unwrap();
        self.tx.flush().await.unwrap();
    }

    /// The next message (within 5 s).
    pub async fn next(&mut self) -> Value {
        let bytes = tokio::time::timeout(Duration::from_secs(5), self.rx.recv()).await.expect("a message").expect("open");
        serde_json::from_slice(&bytes).unwrap()
    }
}
