//! Server-Sent Events: framing, event ids that encode their stream, and the event store
//! that makes streams resumable (`Last-Event-ID`).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;

/// A stream's id; event ids are `"{stream}-{sequence}"`, so a `Last-Event-ID` names the
/// stream to resume and the position in it. Stream ids are random (a client cannot guess
/// another's), and the store files every stream under the session that owns it, so a
/// `Last-Event-ID` only ever reaches the asking session's own streams.
pub type StreamId = u64;

/// Where a stream's events are kept: the owning session's random tag and the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamKey {
    /// A random tag of the session that owns the stream (not its `Mcp-Session-Id`).
    pub owner: u64,
    /// The stream.
    pub stream: StreamId,
}

/// What a POST or GET handler reads its response body from.
pub(crate) struct StreamHandle {
    pub(crate) id: StreamId,
    pub(crate) rx: super::stream_queue::QueueReceiver,
}

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
    // Sized for the whole event (a JSON payload is one `data:` line), so it is never
    // copied to grow: an id of two 19-digit numbers did not fit a flat margin, and every
    // frame was allocated twice, the stored ones at twice their size.
    let head = id.map_or(0, |i| i.len() + 5) + event.map_or(0, |e| e.len() + 8);
    let mut out = Vec::with_capacity(head + data.len() + 16);
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

/// One parsed SSE event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Event {
    /// The `id:` field, if any.
    pub id: Option<String>,
    /// The `event:` field (`message` when absent).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The `retry:` field in milliseconds, if any.
    pub retry: Option<u64>,
}

/// An incremental SSE parser: feed it bytes as they arrive, get whole events out. Each
/// byte is scanned once, however the stream is cut into chunks, and an event that grows
/// past the limit without ending is refused rather than kept growing.
#[derive(Debug)]
pub struct Parser {
    buf: Vec<u8>,
    /// Where the search for the next blank line resumes (what precedes it holds none).
    scanned: usize,
    limit: usize,
}

impl Default for Parser {
    /// A parser taking events up to the largest message a transport takes (16 MiB), plus
    /// room for their fields.
    fn default() -> Self {
        Parser::with_limit(crate::transport::DEFAULT_MAX_MESSAGE_SIZE + 64 * 1024)
    }
}

/// An SSE event grew past the parser's limit without ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventTooLarge(pub usize);

impl std::fmt::Display for EventTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an SSE event passed {} bytes without ending", self.0)
    }
}

impl std::error::Error for EventTooLarge {}

impl Parser {
    /// A parser refusing events longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Parser { buf: Vec::new(), scanned: 0, limit }
    }

    /// Adds bytes; returns the events they completed, or refuses an event that passed the
    /// limit (the stream should then be dropped: what follows cannot be trusted).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Event>, EventTooLarge> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        let mut from = self.scanned;
        // An event ends at a blank line: "\n\n", "\r\n\r\n" (or mixed).
        while let Some((end, skip)) = find_blank_line(&self.buf[start..], from) {
            if let Some(ev) = parse_block(&self.buf[start..start + end]) {
                events.push(ev);
            }
            start += end + skip;
            from = 0;
        }
        self.buf.drain(..start);
        // A blank line may begin in the last two bytes and end in the next chunk.
        self.scanned = self.buf.len().saturating_sub(2);
        if self.buf.len() > self.limit {
            return Err(EventTooLarge(self.limit));
        }
        Ok(events)
    }
}

/// One event's lines; `None` for a block of comments only.
fn parse_block(block: &[u8]) -> Option<Event> {
    let text = String::from_utf8_lossy(block);
    let mut ev = Event::default();
    let mut data: Vec<&str> = Vec::new();
    let mut any = false;
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() || line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        any = true;
        match field {
            "id" => ev.id = Some(value.to_string()),
            "event" => ev.event = Some(value.to_string()),
            "data" => data.push(value),
            "retry" => ev.retry = value.parse().ok(),
            _ => {}
        }
    }
    any.then(|| Event { data: data.join("\n"), ..ev })
}

/// The first blank line in `buf` at or after `from`: where it starts, and its length.
fn find_blank_line(buf: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i + 1 < buf.len() {
        if buf[i] == b'\n' {
            if buf[i + 1] == b'\n' {
                return Some((i, 2));
            }
            if buf[i + 1] == b'\r' && buf.get(i + 2) == Some(&b'\n') {
                return Some((i, 3));
            }
        }
        i += 1;
    }
    None
}

/// Keeps sent events so a client can resume a stream after a dropped connection.
///
/// A stream is only ever looked up under the key of the session asking, so an
/// implementation must never answer for a key it was not given in `append`.
pub trait EventStore: Send + Sync + 'static {
    /// Records an event of a stream (the framed bytes as sent).
    fn append(&self, key: StreamKey, seq: u64, frame: Bytes);
    /// The events of the stream after `seq`, oldest first; `None` if the store no longer
    /// knows the stream (or never did).
    fn after(&self, key: StreamKey, seq: u64) -> Option<Vec<Bytes>>;
    /// Forgets every stream of a session (it ended).
    fn forget_owner(&self, owner: u64);
}

/// The default [`EventStore`]: in memory, bounded per stream, in the number of streams and
/// in bytes (the oldest streams are dropped first).
pub struct MemoryEventStore {
    per_stream: usize,
    max_streams: usize,
    max_bytes: usize,
    inner: Mutex<Streams>,
}

#[derive(Default)]
struct Streams {
    events: HashMap<StreamKey, VecDeque<(u64, Bytes)>>,
    order: VecDeque<StreamKey>,
    bytes: usize,
}

impl Streams {
    fn drop_stream(&mut self, stream: StreamKey) {
        if let Some(q) = self.events.remove(&stream) {
            self.bytes -= q.iter().map(|(_, f)| f.len()).sum::<usize>();
        }
    }
}

impl MemoryEventStore {
    /// Keeps up to `per_stream` events for each of up to `max_streams` streams, and at most
    /// `max_bytes` in all.
    pub fn new(per_stream: usize, max_streams: usize, max_bytes: usize) -> Self {
        Self { per_stream: per_stream.max(1), max_streams: max_streams.max(1), max_bytes, inner: Mutex::default() }
    }
}

impl Default for MemoryEventStore {
    /// 256 events per stream, 4,096 streams, 32 MiB.
    fn default() -> Self {
        Self::new(256, 4096, 32 << 20)
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, stream: StreamKey, seq: u64, frame: Bytes) {
        let mut s = self.inner.lock().unwrap();
        if !s.events.contains_key(&stream) {
            s.order.push_back(stream);
        }
        s.bytes += frame.len();
        let per_stream = self.per_stream;
        let q = s.events.entry(stream).or_default();
        q.push_back((seq, frame));
        let dropped = if q.len() > per_stream { q.pop_front().map_or(0, |(_, f)| f.len()) } else { 0 };
        s.bytes -= dropped;
        // Over a bound: forget whole streams, oldest first (never the one just written).
        while (s.order.len() > self.max_streams || s.bytes > self.max_bytes) && s.order.front() != Some(&stream) {
            if let Some(old) = s.order.pop_front() {
                s.drop_stream(old);
            }
        }
    }

    fn after(&self, stream: StreamKey, seq: u64) -> Option<Vec<Bytes>> {
        let s = self.inner.lock().unwrap();
        let q = s.events.get(&stream)?;
        // If the oldest kept event is beyond seq + 1, events were lost: the replay would
        // have a gap, so refuse it rather than pretend.
        if q.front().is_some_and(|(first, _)| *first > seq + 1) {
            return None;
        }
        Some(q.iter().filter(|(n, _)| *n > seq).map(|(_, f)| f.clone()).collect())
    }

    fn forget_owner(&self, owner: u64) {
        let mut s = self.inner.lock().unwrap();
        let gone: Vec<StreamKey> = s.events.keys().filter(|k| k.owner == owner).copied().collect();
        for key in gone {
            s.drop_stream(key);
        }
        s.order.retain(|k| k.owner != owner);
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
    fn parser_handles_split_chunks_crlf_and_comments() {
        let mut p = Parser::default();
        assert!(p.push(b"id: 1-1\nevent: mess").unwrap().is_empty());
        let evs = p.push(b"age\ndata: {\"a\":1}\n\n: keepalive\n\nid: 1-2\r\nretry: 500\r\ndata: \r\n\r\ndata: x").unwrap();
        assert_eq!(evs.len(), 2, "{evs:?}");
        assert_eq!(
            (evs[0].id.as_deref(), evs[0].event.as_deref(), evs[0].data.as_str()),
            (Some("1-1"), Some("message"), "{\"a\":1}")
        );
        assert_eq!((evs[1].id.as_deref(), evs[1].retry, evs[1].data.as_str()), (Some("1-2"), Some(500), ""));
        assert_eq!(p.push(b"\n\n").unwrap()[0].data, "x");
        // A blank line split across chunks, byte by byte.
        let mut p = Parser::default();
        let mut got = Vec::new();
        for b in b"data: a\r\n\r\ndata: b\n\n" {
            got.extend(p.push(&[*b]).unwrap());
        }
        assert_eq!(got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn an_event_that_never_ends_is_refused_at_the_limit() {
        let mut p = Parser::with_limit(1000);
        for _ in 0..9 {
            assert!(p.push(&[b'x'; 100]).unwrap().is_empty());
        }
        assert_eq!(p.push(&[b'x'; 200]).unwrap_err(), EventTooLarge(1000));
        // Events that end stay within the limit however many pass.
        let mut p = Parser::with_limit(1000);
        for _ in 0..100 {
            assert_eq!(p.push(&[b"data: ".as_slice(), &[b'y'; 500], b"\n\n"].concat()).unwrap().len(), 1);
        }
    }

    fn key(stream: StreamId) -> StreamKey {
        StreamKey { owner: 9, stream }
    }

    #[test]
    fn store_is_bounded_in_bytes() {
        let store = MemoryEventStore::new(100, 100, 25);
        store.append(key(1), 1, Bytes::from(vec![b'a'; 10]));
        store.append(key(2), 1, Bytes::from(vec![b'b'; 10]));
        store.append(key(3), 1, Bytes::from(vec![b'c'; 10]));
        assert!(store.after(key(1), 0).is_none(), "the oldest stream went to stay under 25 bytes");
        assert_eq!(store.after(key(3), 0).unwrap().len(), 1);
        assert_eq!(store.inner.lock().unwrap().bytes, 20);
    }

    #[test]
    fn store_replays_what_followed_on_that_stream_only() {
        let store = MemoryEventStore::new(3, 2, usize::MAX);
        for seq in 1..=4 {
            store.append(key(1), seq, Bytes::from(format!("a{seq}")));
        }
        store.append(key(2), 1, Bytes::from("b1"));
        assert_eq!(store.after(key(1), 2).unwrap(), vec![Bytes::from("a3"), Bytes::from("a4")]);
        assert!(store.after(key(1), 0).is_none(), "event 1 was dropped: a replay from 0 would have a gap");
        assert_eq!(store.after(key(2), 0).unwrap(), vec![Bytes::from("b1")]);
        store.append(key(3), 1, Bytes::from("c1")); // evicts stream 1, the oldest
        assert!(store.after(key(1), 3).is_none());
        store.forget_owner(9);
        assert!(store.after(key(2), 0).is_none());
        assert_eq!(store.inner.lock().unwrap().bytes, 0);
    }

    #[test]
    fn a_stream_is_found_only_under_its_owner() {
        let store = MemoryEventStore::default();
        let mine = StreamKey { owner: 1, stream: 77 };
        store.append(mine, 1, Bytes::from("secret"));
        assert!(store.after(StreamKey { owner: 2, stream: 77 }, 0).is_none());
        store.forget_owner(2);
        assert_eq!(store.after(mine, 0).unwrap(), vec![Bytes::from("secret")]);
    }
}
