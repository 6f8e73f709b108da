//! A node of a shared HTTP server (see [`crate::store`]): its event logs in the shared
//! store, written in order for each session and read back into SSE streams on whichever
//! node holds the client's connection.
//!
//! Every SSE event of a shared session goes to the log of its stream (`{owner}:{stream}`)
//! first; a connection, here or on another node, is a reader of that log ([`Node::tail`])
//! that the bus wakes when the log grows. So a client may resume any stream on any node
//! with `Last-Event-ID`, and a node that dies takes no event with it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, Notify};

use super::sse::{self, StreamHandle, StreamId};
use super::stream_queue::{queue, QueueSender, StreamBudget};
use crate::store::{BusMessage, LogEntry, SharedStore};

/// How often a reader looks at its log without being woken (a wake-up lost while the
/// store's bus reconnected costs at most this).
const POLL: Duration = Duration::from_secs(1);

/// This node's view of the shared store.
pub(crate) struct Node {
    pub(crate) store: Arc<dyn SharedStore>,
    /// How long a session and its logs live unused.
    pub(crate) ttl: Duration,
    /// The `retry` hint of priming events.
    retry_ms: Option<u64>,
    /// The readers of each log on this node, woken when it grows.
    readers: Mutex<HashMap<String, Vec<Weak<Notify>>>>,
    /// What one stream read here may hold queued (`HttpServerConfig::max_queued_stream_bytes`).
    pub(crate) stream_budget: usize,
}

/// The log of stream `stream` of the session whose random tag is `owner`.
pub(crate) fn log_name(owner: u64, stream: StreamId) -> String {
    format!("{owner}:{stream}")
}

/// One connection reading a session's standalone stream, counted while it lasts.
struct Reading(Arc<AtomicUsize>);

impl Reading {
    fn new(count: Arc<AtomicUsize>) -> Reading {
        count.fetch_add(1, Ordering::Relaxed);
        Reading(count)
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A reader's place in [`Node`]'s table of readers, given up when the reader ends.
struct Registered {
    node: Arc<Node>,
    log: String,
    bell: Arc<Notify>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut readers = self.node.readers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = readers.get_mut(&self.log) {
            // Its own bell goes, and any left by readers that never got to run.
            list.retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Arc::as_ptr(&self.bell)));
            if list.is_empty() {
                readers.remove(&self.log);
            }
        }
    }
}

/// One event for a log, and the connection of this node reading its stream, if any.
struct Write {
    stream: StreamId,
    log: String,
    entry: LogEntry,
    local: Option<QueueSender>,
}

/// Where a hub writes its events: one task per session keeps them in order, and passes
/// each to the local connection reading its stream once the log holds it (with its
/// position as the event id), so that a local reader needs no read of the log.
#[derive(Clone)]
pub(crate) struct LogWriter(mpsc::UnboundedSender<Write>);

impl LogWriter {
    pub(crate) fn write(&self, stream: StreamId, log: String, entry: LogEntry, local: Option<QueueSender>) {
        let _ = self.0.send(Write { stream, log, entry, local });
    }
}

/// An entry as an SSE frame at position `pos` of stream `stream` (`None` for the end).
fn frame(stream: StreamId, pos: u64, entry: &LogEntry, retry_ms: Option<u64>) -> Option<Bytes> {
    let id = sse::event_id(stream, pos);
    match entry {
        LogEntry::Message(m) => Some(sse::frame(Some(&id), Some("message"), m)),
        // A disconnect is a priming event: the client resumes after it, not before.
        LogEntry::Prime | LogEntry::Disconnect => Some(sse::priming(&id, retry_ms)),
        LogEntry::End => None,
    }
}

impl Node {
    /// `stream_budget`: the bytes a stream read from its log may hold queued for a client
    /// that does not read it (past them its connection ends; the client resumes).
    pub(crate) fn new(store: Arc<dyn SharedStore>, ttl: Duration, retry_ms: Option<u64>, stream_budget: usize) -> Arc<Node> {
        Arc::new(Node { store, ttl, retry_ms, readers: Mutex::default(), stream_budget })
    }

    /// Hears the bus until `stop`: wakes the readers of logs that grew, and hands what
    /// nodes published to `published`.
    pub(crate) async fn hear(
        self: Arc<Self>,
        published: impl Fn(Bytes) + Send + 'static,
        stop: tokio_util::sync::CancellationToken,
    ) {
        let mut bus = self.store.subscribe();
        loop {
            let heard = tokio::select! {
                h = bus.recv() => h,
                _ = stop.cancelled() => return,
            };
            match heard {
                Ok(BusMessage::Grew(log)) => self.wake(Some(&log)),
                Ok(BusMessage::Published(m)) => published(m),
                // Missed messages: every reader looks again.
                Ok(BusMessage::Resumed) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => self.wake(None),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    fn wake(&self, log: Option<&str>) {
        let mut readers = self.readers.lock().unwrap();
        let wake = |list: &mut Vec<Weak<Notify>>| {
            list.retain(|w| match w.upgrade() {
                Some(n) => {
                    n.notify_one();
                    true
                }
                None => false,
            })
        };
        match log {
            Some(log) => {
                if let Some(list) = readers.get_mut(log) {
                    wake(list);
                    if list.is_empty() {
                        readers.remove(log);
                    }
                }
            }
            None => readers.values_mut().for_each(wake),
        }
    }

    /// A writer for one session's logs.
    pub(crate) fn writer(self: &Arc<Self>) -> LogWriter {
        let (tx, mut rx) = mpsc::unbounded_channel::<Write>();
        let node = self.clone();
        tokio::spawn(async move {
            let mut batch = Vec::new();
            // What queued up while the last batch was written goes in one round trip.
            while rx.recv_many(&mut batch, 256).await > 0 {
                let writes: Vec<Write> = std::mem::take(&mut batch);
                let entries = writes.iter().map(|w| (w.log.clone(), w.entry.clone())).collect();
                let stored = node.store.append_many(entries, node.ttl).await;
                if let Err(e) = &stored {
                    // The client resumes from what reached the store; a reader polls.
                    tracing::warn!("{} SSE events were not stored: {e}", writes.len());
                }
                for (i, Write { stream, entry, local, .. }) in writes.into_iter().enumerate() {
                    // The end of a stream drops its local sender: the response ends.
                    let Some(tx) = local.filter(|_| entry != LogEntry::End) else { continue };
                    let framed = match &stored {
                        Ok(positions) => positions.get(i).and_then(|&pos| frame(stream, pos, &entry, node.retry_ms)),
                        // This connection still gets it, without an id to resume after.
                        Err(_) => match &entry {
                            LogEntry::Message(m) => Some(sse::frame(None, Some("message"), m)),
                            _ => None,
                        },
                    };
                    if let Some(f) = framed {
                        let _ = tx.send(f);
                    }
                }
            }
        });
        LogWriter(tx)
    }

    /// Whether log `log` can be read after `after` (it exists and has no gap there).
    pub(crate) async fn can_resume(&self, log: &str, after: u64) -> Result<bool, crate::store::StoreError> {
        Ok(self.store.read(log, after).await?.is_some())
    }

    /// Streams log `log` (stream `stream`'s events) from after position `after` as SSE
    /// frames, until its end, a disconnect written into it, or the connection going away.
    /// `standalone`: the session's standalone stream, whose readers on this node it counts
    /// while the connection lasts, and whose position reached it keeps as the log's cursor
    /// (a later GET starts there).
    pub(crate) fn tail(
        self: &Arc<Self>,
        stream: StreamId,
        log: String,
        after: u64,
        standalone: Option<Arc<AtomicUsize>>,
    ) -> StreamHandle {
        let (tx, rx) = queue(StreamBudget::new(self.stream_budget));
        let node = self.clone();
        let bell = Arc::new(Notify::new());
        self.readers.lock().unwrap().entry(log.clone()).or_default().push(Arc::downgrade(&bell));
        let remember = standalone.is_some();
        let reading = standalone.map(Reading::new);
        tokio::spawn(async move {
            let _reading = reading;
            // However the reader ends, its log's entry goes with it (a client opening and
            // dropping GETs would otherwise grow the table of readers for ever).
            let registered = Registered { node: node.clone(), log: log.clone(), bell };
            let mut at = after;
            loop {
                let read = node.store.read(&log, at).await;
                let entries = match read {
                    Ok(Some(entries)) => entries,
                    // Not written yet (a request stream before its first event).
                    Ok(None) if at == 0 => Vec::new(),
                    Ok(None) => return, // expired, or trimmed past us: the client starts over
                    Err(e) => {
                        tracing::debug!(log = log.as_str(), "reading an SSE log: {e}");
                        Vec::new()
                    }
                };
                let before = at;
                for (pos, entry) in entries {
                    at = pos;
                    let Some(frame) = frame(stream, pos, &entry, node.retry_ms) else { return };
                    // Read on only as fast as the client takes it.
                    tx.room().await;
                    if tx.push(frame).is_err() {
                        return;
                    }
                    if entry == LogEntry::Disconnect {
                        node.keep_cursor(remember, &log, at).await;
                        return;
                    }
                }
                if at != before {
                    node.keep_cursor(remember, &log, at).await;
                }
                tokio::select! {
                    _ = registered.bell.notified() => {}
                    _ = tokio::time::sleep(POLL) => {}
                    _ = tx.closed() => return,
                }
            }
        });
        StreamHandle { id: stream, rx }
    }

    async fn keep_cursor(&self, remember: bool, log: &str, at: u64) {
        if remember {
            if let Err(e) = self.store.cursor(log, Some(at), self.ttl).await {
                tracing::debug!(log, "keeping a stream's position: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reader_that_ends_leaves_nothing_in_the_table_of_readers() {
        let node = Node::new(Arc::new(crate::store::MemoryStore::default()), Duration::from_secs(60), None, 1 << 20);
        let handles: Vec<_> = (0..20).map(|i| node.tail(i, format!("log-{i}"), 0, None)).collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(node.readers.lock().unwrap().len(), 20);
        drop(handles); // the clients went away
        for _ in 0..100 {
            if node.readers.lock().unwrap().is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{} logs still listed after their readers ended", node.readers.lock().unwrap().len());
    }
}
