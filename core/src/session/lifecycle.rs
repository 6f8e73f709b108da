//! [`Session`]: starts the engine's tasks over a transport and ends them.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::config::SessionConfig;
use super::peer::Peer;
use super::service::Service;
use super::shared::Shared;
use super::{reader, writer};
use crate::transport::{MessageReader, Transport};

/// A running session: its reader, writer and notification tasks. Dropping it closes the
/// session; [`Session::close`] also waits until the transport is shut (a child process
/// has exited).
pub struct Session {
    peer: Peer,
    writer: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Session {
    /// Starts a session over `transport`, answering the peer's requests with `service`.
    /// Must be called inside a tokio runtime.
    ///
    /// The engine alone, without MCP roles: one side answers `add` requests.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
    /// use std::sync::Arc;
    /// use futures::future::BoxFuture;
    /// use oxmcp::protocol::ErrorObject;
    /// use oxmcp::session::{IncomingRequest, RequestOptions, Service, Session, SessionConfig};
    /// use oxmcp::transport::MemoryTransport;
    /// use serde_json::{json, Value};
    ///
    /// struct Adder;
    /// impl Service for Adder {
    ///     fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
    ///         Box::pin(async move {
    ///             let p = req.params.unwrap_or_default();
    ///             Ok(json!(p["a"].as_i64().unwrap_or(0) + p["b"].as_i64().unwrap_or(0)))
    ///         })
    ///     }
    /// }
    /// struct Nothing;
    /// impl Service for Nothing {
    ///     fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
    ///         Box::pin(async move { Err(ErrorObject::method_not_found(&req.method)) })
    ///     }
    /// }
    ///
    /// let (a, b) = MemoryTransport::pair();
    /// let _server = Session::start(a, Arc::new(Adder), SessionConfig::default());
    /// let client = Session::start(b, Arc::new(Nothing), SessionConfig::default());
    /// let sum = client.peer().request("add", Some(json!({"a": 2, "b": 3})), RequestOptions::default()).await?;
    /// assert_eq!(sum, json!(5));
    /// assert_eq!(client.peer().stats().pending_requests, 0);
    /// # Ok(()) }
    /// ```
    pub fn start<T: Transport>(transport: T, service: Arc<dyn Service>, config: SessionConfig) -> Session {
        let (reader, writer) = transport.split();
        let session_id = crate::transport::MessageWriter::session_id(&writer);
        let (outbox, desk, out_rx) = writer::Outbox::new(writer, config.max_queued_outbound_bytes);
        let shared = Arc::new(Shared::new(config, outbox, session_id));
        let peer = Peer { shared: shared.clone() };
        let writer = tokio::spawn(writer::write_loop(desk, out_rx, shared.clone()));
        let alarm = shared.clone();
        tokio::spawn(async move { alarm.outgoing.alarm_loop(alarm.closed.clone()).await });
        let (notes_tx, notes_rx) = reader::notification_queue(&shared.config);
        let home = reader.home();
        let notes = reader::notification_loop(notes_rx, service.clone(), peer.clone());
        let reads = reader::read_loop(reader, peer.clone(), service, notes_tx);
        match home {
            // A transport read on a host's loop is read by a task at home there (one
            // wake-up per message instead of a runtime thread's and then the loop's), its
            // notifications too (so they reach the host before a response read after
            // them). First polled there as well: the session is registered before any
            // message of it is handled.
            Some(home) => {
                crate::drive::spawn_on_home(home.clone(), notes);
                crate::drive::spawn_on_home(home, reads);
            }
            None => {
                tokio::spawn(notes);
                tokio::spawn(reads);
            }
        }
        Session { peer, writer: std::sync::Mutex::new(Some(writer)) }
    }

    /// The handle for sending requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Waits until the session closes (peer disconnect, error, or [`Peer::close`]).
    pub async fn wait(&self) {
        self.peer.closed().await
    }

    /// Closes the session and waits for the transport to shut down.
    pub async fn close(self) {
        self.shutdown().await
    }

    /// Like [`Session::close`], through a shared reference (for handles shared with a
    /// host language). Later calls return at once.
    pub async fn shutdown(&self) {
        self.peer.close("closed by this side");
        let writer = self.writer.lock().unwrap().take();
        if let Some(w) = writer {
            let _ = w.await;
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.writer.lock().map(|w| w.is_some()).unwrap_or(false) {
            self.peer.close("session dropped");
        }
    }
}
