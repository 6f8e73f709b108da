//! Server-Sent Events: framing, event ids that encode their stream, and the event store
//! that makes streams resumable (`Last-Event-ID`).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;

/// A stream's id; event ids are `"{stream}-{sequence}"`, so a `Last-Event-ID` names the
/// stream to resume and the position in it.
pub type StreamId = u64;

/// Builds an event id.
pub fn event_id(stream: StreamId, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Reads an event id back into its stream and sequence number.
pub fn parse_event_id(id: &str) -> Option<(StreamId, u64)> {
    let (stream, seq) = id.rsplit_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// One SSE event, framed: `id:`, optional `event:`, `data:` lines and a blank line.
pub fn frame(id: Option<&str>, event: Option<&str>, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(event) = event {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(event.as_bytes());
        out.push(b'\n');
    }
    // JSON never contains a raw newline, but a multi-line payload must still frame right.
    for line in data.split(|&b| b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    Bytes::from(out)
}

/// The priming event of 2025-11-25 polling: an id and empty data (and a `retry` hint), so
/// a client that loses the stream before any message can still resume it.
pub fn priming(id: &str, retry_ms: Option<u64>) -> Bytes {
    let mut s = format!("id: {id}\n");
    if let Some(ms) = retry_ms {
        s.push_str(&format!("retry: {ms}\n"));
    }
    s.push_str("data: \n\n");
    Bytes::from(s)
}

/// Keeps sent events so a client can resume a stream after a dropped connection.
pub trait EventStore: Send + Sync + 'static {
    /// Records an event of `stream` (the framed bytes as sent).
    fn append(&self, stream: StreamId, seq: u64, frame: Bytes);
    /// The events of `stream` after `seq`, oldest first; `None` if the store no longer
    /// knows the stream (or never did).
    fn after(&self, stream: StreamId, seq: u64) -> Option<Vec<Bytes>>;
    /// Forgets a stream (its session ended).
    fn forget(&self, stream: StreamId);
}

/// The default [`EventStore`]: in memory, bounded per stream and in the number of streams
/// (the oldest are dropped first).
pub struct MemoryEventStore {
    per_stream: usize,
    max_streams: usize,
    inner: Mutex<Streams>,
}

#[derive(Default)]
struct Streams {
    events: HashMap<StreamId, VecDeque<(u64, Bytes)>>,
    order: VecDeque<StreamId>,
}

impl MemoryEventStore {
    /// Keeps up to `per_stream` events for each of up to `max_streams` streams.
    pub fn new(per_stream: usize, max_streams: usize) -> Self {
        Self { per_stream: per_stream.max(1), max_streams: max_streams.max(1), inner: Mutex::default() }
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        Self::new(256, 4096)
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, stream: StreamId, seq: u64, frame: Bytes) {
        let mut s = self.inner.lock().unwrap();
        if !s.events.contains_key(&stream) {
            if s.order.len() == self.max_streams {
                if let Some(old) = s.order.pop_front() {
                    s.events.remove(&old);
                }
            }
            s.order.push_back(stream);
        }
        let q = s.events.entry(stream).or_default();
        if q.len() == self.per_stream {
            q.pop_front();
        }
        q.push_back((seq, frame));
    }

    fn after(&self, stream: StreamId, seq: u64) -> Option<Vec<Bytes>> {
        let s = self.inner.lock().unwrap();
        let q = s.events.get(&stream)?;
        // If the oldest kept event is beyond seq + 1, events were lost: the replay would
        // have a gap, so refuse it rather than pretend.
        if q.front().is_some_and(|(first, _)| *first > seq + 1) {
            return None;
        }
        Some(q.iter().filter(|(n, _)| *n > seq).map(|(_, f)| f.clone()).collect())
    }

    fn forget(&self, stream: StreamId) {
        let mut s = self.inner.lock().unwrap();
        s.events.remove(&stream);
        s.order.retain(|x| *x != stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_ids() {
        assert_eq!(&frame(Some("3-1"), Some("message"), b"{}")[..], b"id: 3-1\nevent: message\ndata: {}\n\n");
        assert_eq!(&frame(None, None, b"a\nb")[..], b"data: a\ndata: b\n\n");
        assert_eq!(parse_event_id(&event_id(42, 7)), Some((42, 7)));
        assert_eq!(parse_event_id("nonsense"), None);
        assert_eq!(&priming("1-0", Some(500))[..], b"id: 1-0\nretry: 500\ndata: \n\n");
    }

    #[test]
    fn store_replays_what_followed_on_that_stream_only() {
        let store = MemoryEventStore::new(3, 2);
        for seq in 1..=4 {
            store.append(1, seq, Bytes::from(format!("a{seq}")));
        }
        store.append(2, 1, Bytes::from("b1"));
        assert_eq!(store.after(1, 2).unwrap(), vec![Bytes::from("a3"), Bytes::from("a4")]);
        assert!(store.after(1, 0).is_none(), "event 1 was dropped: a replay from 0 would have a gap");
        assert_eq!(store.after(2, 0).unwrap(), vec![Bytes::from("b1")]);
        store.append(3, 1, Bytes::from("c1")); // evicts stream 1, the oldest
        assert!(store.after(1, 3).is_none());
        store.forget(2);
        assert!(store.after(2, 0).is_none());
    }
}
