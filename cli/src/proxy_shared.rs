//! `oxmcp proxy --http ADDR --redis URL`: a proxy node of several behind a load balancer.
//!
//! Each node relays a session to a server connection of its own (a child process, or a
//! connection to the URL). The node that relays `initialize` saves its params with the
//! session's shared record before the client gets the answer; a node taking the session
//! on replays that `initialize` (and `notifications/initialized`) to its own server
//! connection first, and keeps the answer from the client, who had it already.

use std::collections::VecDeque;
use std::io;

use bytes::Bytes;
use oxmcp::store::StateSaver;
use oxmcp::transport::http::{HttpSessionTransport, HubReader, HubWriter};
use oxmcp::transport::{Inbound, MessageKind, MessageReader, MessageWriter, Outbound, RecvError, Route, Transport};
use serde_json::{json, Value};

/// The id of an `initialize` this node replays to its server (never a client's: clients
/// number their requests, or use ids of their own making that this does not collide with).
const REPLAYED: &str = "oxmcp-proxy-replayed-initialize";

/// A client-side session transport of a shared proxy: notes the client's `initialize`
/// and saves it with its answer, or replays the saved one first.
pub struct SharedSide {
    reader: HubReader,
    writer: HubWriter,
    saver: StateSaver,
    replay: VecDeque<Inbound>,
}

impl SharedSide {
    /// Wraps `transport`, a session that other nodes serve too.
    pub fn new(transport: HttpSessionTransport) -> Result<SharedSide, HttpSessionTransport> {
        let Some(shared) = transport.shared() else { return Err(transport) };
        let mut replay = VecDeque::new();
        if let Some(params) = shared.restored.as_ref().and_then(|s| s.get("initialize")) {
            let request = json!({"jsonrpc": "2.0", "id": REPLAYED, "method": "initialize", "params": params});
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            replay.push_back(Inbound::Bytes(Bytes::from(request.to_string())));
            replay.push_back(Inbound::Bytes(Bytes::from(initialized.to_string())));
        }
        let (reader, writer) = transport.split();
        Ok(SharedSide { reader, writer, saver: shared.saver, replay })
    }
}

impl Transport for SharedSide {
    type Reader = SharedReader;
    type Writer = SharedWriter;
    fn split(self) -> (SharedReader, SharedWriter) {
        let noted = std::sync::Arc::new(std::sync::Mutex::new(None));
        (
            SharedReader { inner: self.reader, replay: self.replay, noted: noted.clone() },
            SharedWriter { inner: self.writer, saver: self.saver, noted },
        )
    }
}

/// The client's `initialize` (its id and params), until its answer goes out.
type Noted = std::sync::Arc<std::sync::Mutex<Option<(Value, Value)>>>;

pub struct SharedReader {
    inner: HubReader,
    replay: VecDeque<Inbound>,
    noted: Noted,
}

pub struct SharedWriter {
    inner: HubWriter,
    saver: StateSaver,
    noted: Noted,
}

impl MessageReader for SharedReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        self.recv_inbound().await.map(Inbound::into_bytes)
    }

    async fn recv_inbound(&mut self) -> Result<Inbound, RecvError> {
        if let Some(replayed) = self.replay.pop_front() {
            return Ok(replayed);
        }
        let inbound = self.inner.recv_inbound().await?;
        if let Inbound::Parsed { bytes, .. } | Inbound::Bytes(bytes) = &inbound {
            if let Ok(m) = serde_json::from_slice::<Value>(bytes) {
                if m["method"] == "initialize" && m.get("id").is_some() {
                    *self.noted.lock().unwrap() = Some((m["id"].clone(), m["params"].clone()));
                }
            }
        }
        Ok(inbound)
    }
}

impl SharedWriter {
    /// Whether `message` is to reach the client: the answer to a replayed `initialize` is
    /// not. The answer to the client's own `initialize` goes once its params are saved.
    async fn pass(&mut self, message: &Outbound) -> io::Result<bool> {
        let Route::Answers(id) = &message.route else { return Ok(true) };
        if serde_json::to_value(id).ok() == Some(json!(REPLAYED)) {
            return Ok(false);
        }
        let noted = {
            let mut noted = self.noted.lock().unwrap();
            match noted.as_ref() {
                Some((noted_id, _)) if serde_json::to_value(id).ok().as_ref() == Some(noted_id) => noted.take(),
                _ => None,
            }
        };
        if let Some((_, params)) = noted {
            // Before the client learns its session exists: the next request may reach any
            // node. Unsaved, the session still works through this node alone.
            if let Err(e) = self.saver.save(json!({ "initialize": params })).await {
                tracing::warn!("the session's initialize was not shared with the other nodes: {e}");
            }
        }
        Ok(true)
    }
}

impl MessageWriter for SharedWriter {
    async fn send(&mut self, message: Outbound) -> io::Result<()> {
        if self.pass(&message).await? {
            self.inner.send(message).await?;
        }
        Ok(())
    }

    async fn send_kind(&mut self, message: Outbound, kind: MessageKind) -> io::Result<()> {
        if self.pass(&message).await? {
            self.inner.send_kind(message, kind).await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await
    }

    async fn close(self) {
        self.inner.close().await
    }
}
