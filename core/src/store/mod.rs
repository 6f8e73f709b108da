//! Shared state: what one server node keeps about a client that another node may need,
//! so that any number of nodes behind a plain round-robin balancer behave as one server.
//!
//! One trait, [`SharedStore`], in three parts:
//! - **session records**: an HTTP session's record (opaque bytes), kept alive by use and
//!   gone after an idle timeout or a DELETE;
//! - **event logs**: every SSE event of a session, so a stream is served (and resumed with
//!   `Last-Event-ID`) by whichever node the client reaches;
//! - **the bus**: one channel every node hears, for what must reach the node holding some
//!   state (a client's answer to a server request, a cancel, "log L grew").
//!
//! Two backends: [`MemoryStore`] (one process: the tests run several nodes in one
//! process on it) and [`RedisStore`] (the real one: records with TTLs, Redis Streams for
//! logs, pub/sub for the bus). A store that cannot be reached is a [`StoreError`], which
//! the HTTP server answers with 503 and a JSON-RPC error body; nothing waits on it for
//! longer than its timeouts.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::time::Duration;
//! use oxmcp::store::{LogEntry, MemoryStore, SharedStore};
//! let store = MemoryStore::default();
//! store.put_session("s1", b"record".to_vec().into(), Duration::from_secs(60)).await.unwrap();
//! assert_eq!(store.get_session("s1", Duration::from_secs(60)).await.unwrap().as_deref(), Some(&b"record"[..]));
//! let at = store.append("log", LogEntry::Message("{}".into()), Duration::from_secs(60)).await.unwrap();
//! let read = store.read("log", 0).await.unwrap().unwrap();
//! assert_eq!(read, vec![(at, LogEntry::Message("{}".into()))]);
//! # }
//! ```

mod memory;
#[cfg(feature = "http")]
mod redis;

use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use tokio::sync::broadcast;

pub use memory::MemoryStore;
#[cfg(feature = "http")]
pub use redis::RedisStore;

/// The shared store could not do what was asked (unreachable, timed out, refused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "shared state unavailable: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// What a store call returns.
pub type StoreResult<T> = Result<T, StoreError>;

/// Log entries with their positions, oldest first.
pub type Entries = Vec<(u64, LogEntry)>;

/// One entry of an event log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogEntry {
    /// A JSON-RPC message, unframed (the reader frames it with the entry's position).
    Message(Bytes),
    /// A priming event: an id and no data, so a client can resume before any message.
    Prime,
    /// The connection reading the log should end here, the log going on (2025-11-25
    /// polling): honoured only by a reader that was attached when it was written.
    Disconnect,
    /// The log is complete: a reader ends its response.
    End,
}

impl LogEntry {
    /// The entry as stored: a tag byte, then the message.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            LogEntry::Message(m) => {
                let mut v = Vec::with_capacity(m.len() + 1);
                v.push(b'm');
                v.extend_from_slice(m);
                v
            }
            LogEntry::Prime => b"p".to_vec(),
            LogEntry::Disconnect => b"d".to_vec(),
            LogEntry::End => b"e".to_vec(),
        }
    }

    /// Reads a stored entry back; `None` for bytes no writer made.
    pub fn decode(bytes: &[u8]) -> Option<LogEntry> {
        match bytes.split_first()? {
            (b'm', rest) => Some(LogEntry::Message(Bytes::copy_from_slice(rest))),
            (b'p', []) => Some(LogEntry::Prime),
            (b'd', []) => Some(LogEntry::Disconnect),
            (b'e', []) => Some(LogEntry::End),
            _ => None,
        }
    }
}

/// Where server nodes keep what they share. Every method is bounded in time: a store
/// that does not answer fails the call with a [`StoreError`].
pub trait SharedStore: Send + Sync + 'static {
    /// Stores (or replaces) session `id`'s record; it expires after `ttl` without use.
    fn put_session(&self, id: &str, record: Bytes, ttl: Duration) -> BoxFuture<'_, StoreResult<()>>;
    /// Session `id`'s record, its expiry pushed to `ttl` from now; `None` if it is gone.
    fn get_session(&self, id: &str, ttl: Duration) -> BoxFuture<'_, StoreResult<Option<Bytes>>>;
    /// Ends session `id` for every node; whether it existed.
    fn delete_session(&self, id: &str) -> BoxFuture<'_, StoreResult<bool>>;

    /// Appends each entry to its log, in order (a log is created on first use, and gone
    /// after `ttl` without appends), and tells every node's [`subscribe`](Self::subscribe)
    /// which logs grew; returns the entries' positions, each greater than every earlier
    /// one's in its log. One call for many entries: one round trip to the store.
    fn append_many(&self, entries: Vec<(String, LogEntry)>, ttl: Duration) -> BoxFuture<'_, StoreResult<Vec<u64>>>;

    /// [`append_many`](Self::append_many) of one entry: its position.
    fn append(&self, log: &str, entry: LogEntry, ttl: Duration) -> BoxFuture<'_, StoreResult<u64>> {
        let appended = self.append_many(vec![(log.to_string(), entry)], ttl);
        Box::pin(async move { appended.await?.first().copied().ok_or_else(|| StoreError("the store appended nothing".into())) })
    }
    /// The entries of `log` after position `after`, oldest first; `None` if the log does
    /// not exist, or no longer holds every entry after `after` (a replay would have a gap).
    fn read(&self, log: &str, after: u64) -> BoxFuture<'_, StoreResult<Option<Entries>>>;
    /// A position to remember for `log` (how far a reader got), or the one remembered.
    fn cursor(&self, log: &str, set: Option<u64>, ttl: Duration) -> BoxFuture<'_, StoreResult<u64>>;

    /// Sends `message` to every node (this one included).
    fn publish(&self, message: Bytes) -> BoxFuture<'_, StoreResult<()>>;
    /// What the bus carries from now on: published messages, and the names of logs that
    /// grew (as [`BusMessage::Grew`]).
    fn subscribe(&self) -> broadcast::Receiver<BusMessage>;

    /// The value record `key` holds (records of other kinds than sessions: tasks), if it
    /// exists and has not expired.
    fn get_value(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Bytes>>>;
    /// Sets record `key` to `new` if it holds `expected` now (`None`: if it does not
    /// exist), atomically for every node; whether it did. `ttl`: expire that long from
    /// now; `None` keeps the record's expiry (a new record then never expires).
    fn swap_value(
        &self,
        key: &str,
        expected: Option<Bytes>,
        new: Bytes,
        ttl: Option<Duration>,
    ) -> BoxFuture<'_, StoreResult<bool>>;
}

/// What a node hears on the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusMessage {
    /// Something a node published.
    Published(Bytes),
    /// A log grew.
    Grew(String),
    /// The bus was interrupted (the store went away and came back): messages may have been
    /// missed, so whoever waits on the bus should look again.
    Resumed,
}

/// Makes a store from a URL: `redis://host:port[/db]` (the Redis backend), or `memory:`
/// (this process only).
pub async fn connect(url: &str) -> StoreResult<std::sync::Arc<dyn SharedStore>> {
    if url == "memory:" {
        return Ok(std::sync::Arc::new(MemoryStore::default()));
    }
    #[cfg(feature = "http")]
    if url.starts_with("redis://") || url.starts_with("rediss://") {
        return Ok(std::sync::Arc::new(RedisStore::connect(url, "oxmcp").await?));
    }
    Err(StoreError(format!("unsupported store URL {url:?}: use redis://HOST:PORT")))
}

/// A random 32-byte secret.
pub(crate) fn random_secret() -> [u8; 32] {
    let mut key = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
    key
}

/// How a role keeps what it knows of a session's client (its negotiated version,
/// capabilities, log level, subscriptions) where every node finds it: the HTTP server
/// hands one to the role of each session it shares, and the role saves its state (as
/// JSON) before it answers the request that changed it.
#[derive(Clone)]
pub struct StateSaver(std::sync::Arc<dyn Fn(serde_json::Value) -> BoxFuture<'static, StoreResult<()>> + Send + Sync>);

impl StateSaver {
    /// A saver calling `save`.
    pub fn new(save: impl Fn(serde_json::Value) -> BoxFuture<'static, StoreResult<()>> + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(save))
    }

    /// Saves `state`; done when every node will see it.
    pub async fn save(&self, state: serde_json::Value) -> StoreResult<()> {
        (self.0)(state).await
    }
}

impl std::fmt::Debug for StateSaver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateSaver")
    }
}
