//! [`MemoryStore`]: the shared store of one process. Several HTTP servers in one process
//! (the tests' nodes) share state through it exactly as nodes share a Redis server.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use tokio::sync::broadcast;

use super::{BusMessage, Entries, LogEntry, SharedStore, StoreResult};

/// Entries kept per log; older ones go (a reader asking for them gets `None`).
const LOG_LIMIT: usize = 1024;

/// A [`SharedStore`] in this process's memory, bounded per log.
pub struct MemoryStore {
    state: Mutex<State>,
    bus: broadcast::Sender<BusMessage>,
}

#[derive(Default)]
struct State {
    sessions: HashMap<String, (Bytes, Instant)>,
    logs: HashMap<String, Log>,
    cursors: HashMap<String, u64>,
    values: HashMap<String, (Bytes, Option<Instant>)>,
}

struct Log {
    entries: VecDeque<(u64, LogEntry)>,
    next: u64,
    expires: Instant,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self { state: Mutex::default(), bus: broadcast::channel(4096).0 }
    }
}

impl State {
    /// Forgets what expired (on each call: there is no timer).
    fn expire(&mut self, now: Instant) {
        self.sessions.retain(|_, (_, until)| *until > now);
        self.logs.retain(|_, l| l.expires > now);
        self.values.retain(|_, (_, until)| until.is_none_or(|u| u > now));
    }
}

fn ready<T: Send + 'static>(v: T) -> BoxFuture<'static, T> {
    Box::pin(std::future::ready(v))
}

impl MemoryStore {
    /// Forgets everything it holds, as a Redis server restarted without persistence does
    /// (the bus stays: its subscribers hear what is published from now on).
    pub fn clear(&self) {
        *self.state.lock().unwrap() = State::default();
    }
}

impl SharedStore for MemoryStore {
    fn put_session(&self, id: &str, record: Bytes, ttl: Duration) -> BoxFuture<'_, StoreResult<()>> {
        let mut s = self.state.lock().unwrap();
        s.sessions.insert(id.to_string(), (record, Instant::now() + ttl));
        ready(Ok(()))
    }

    fn get_session(&self, id: &str, ttl: Duration) -> BoxFuture<'_, StoreResult<Option<Bytes>>> {
        let now = Instant::now();
        let mut s = self.state.lock().unwrap();
        s.expire(now);
        let found = s.sessions.get_mut(id).map(|(record, until)| {
            *until = now + ttl;
            record.clone()
        });
        ready(Ok(found))
    }

    fn delete_session(&self, id: &str) -> BoxFuture<'_, StoreResult<bool>> {
        let existed = self.state.lock().unwrap().sessions.remove(id).is_some();
        ready(Ok(existed))
    }

    fn append_many(&self, entries: Vec<(String, LogEntry)>, ttl: Duration) -> BoxFuture<'_, StoreResult<Vec<u64>>> {
        let now = Instant::now();
        let mut positions = Vec::with_capacity(entries.len());
        let mut grew: Vec<String> = Vec::new();
        {
            let mut s = self.state.lock().unwrap();
            s.expire(now);
            for (log, entry) in entries {
                let l = s.logs.entry(log.clone()).or_insert_with(|| Log { entries: VecDeque::new(), next: 1, expires: now });
                let at = l.next;
                l.next += 1;
                l.expires = now + ttl;
                l.entries.push_back((at, entry));
                if l.entries.len() > LOG_LIMIT {
                    l.entries.pop_front();
                }
                positions.push(at);
                if !grew.contains(&log) {
                    grew.push(log);
                }
            }
        }
        for log in grew {
            let _ = self.bus.send(BusMessage::Grew(log));
        }
        ready(Ok(positions))
    }

    fn read(&self, log: &str, after: u64) -> BoxFuture<'_, StoreResult<Option<Entries>>> {
        let mut s = self.state.lock().unwrap();
        s.expire(Instant::now());
        let out = s.logs.get(log).and_then(|l| {
            // The oldest kept entry must directly follow `after` (or precede it).
            let gap = l.entries.front().is_some_and(|(first, _)| *first > after + 1);
            (!gap).then(|| l.entries.iter().filter(|(at, _)| *at > after).cloned().collect())
        });
        ready(Ok(out))
    }

    fn cursor(&self, log: &str, set: Option<u64>, _ttl: Duration) -> BoxFuture<'_, StoreResult<u64>> {
        let mut s = self.state.lock().unwrap();
        let at = match set {
            Some(at) => *s.cursors.entry(log.to_string()).and_modify(|c| *c = (*c).max(at)).or_insert(at),
            None => s.cursors.get(log).copied().unwrap_or(0),
        };
        ready(Ok(at))
    }

    fn publish(&self, message: Bytes) -> BoxFuture<'_, StoreResult<()>> {
        let _ = self.bus.send(BusMessage::Published(message));
        ready(Ok(()))
    }

    fn subscribe(&self) -> broadcast::Receiver<BusMessage> {
        self.bus.subscribe()
    }

    fn get_value(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Bytes>>> {
        let mut s = self.state.lock().unwrap();
        s.expire(Instant::now());
        ready(Ok(s.values.get(key).map(|(v, _)| v.clone())))
    }

    fn swap_value(
        &self,
        key: &str,
        expected: Option<Bytes>,
        new: Bytes,
        ttl: Option<Duration>,
    ) -> BoxFuture<'_, StoreResult<bool>> {
        let now = Instant::now();
        let mut s = self.state.lock().unwrap();
        s.expire(now);
        let current = s.values.get(key);
        if current.map(|(v, _)| v) != expected.as_ref() {
            return ready(Ok(false));
        }
        let until = match ttl {
            Some(ttl) => Some(now + ttl),
            None => current.and_then(|(_, until)| *until),
        };
        s.values.insert(key.to_string(), (new, until));
        ready(Ok(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn logs_replay_after_a_position_and_refuse_a_gap() {
        let store = MemoryStore::default();
        let ttl = Duration::from_secs(60);
        let mut bus = store.subscribe();
        let mut at = Vec::new();
        for i in 0..(LOG_LIMIT + 2) {
            at.push(store.append("l", LogEntry::Message(Bytes::from(i.to_string())), ttl).await.unwrap());
        }
        assert_eq!(bus.recv().await.unwrap(), BusMessage::Grew("l".into()));
        assert!(store.read("l", 0).await.unwrap().is_none(), "the first two entries are gone");
        let tail = store.read("l", at[LOG_LIMIT]).await.unwrap().unwrap();
        assert_eq!(tail, vec![(at[LOG_LIMIT + 1], LogEntry::Message(Bytes::from((LOG_LIMIT + 1).to_string())))]);
        assert!(store.read("other", 0).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn sessions_expire() {
        let store = MemoryStore::default();
        store.put_session("a", Bytes::from("r"), Duration::from_millis(30)).await.unwrap();
        assert!(store.get_session("a", Duration::from_millis(30)).await.unwrap().is_some());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(store.get_session("a", Duration::from_secs(1)).await.unwrap().is_none());
        assert_eq!(store.cursor("c", Some(5), Duration::from_secs(1)).await.unwrap(), 5);
        assert_eq!(store.cursor("c", Some(3), Duration::from_secs(1)).await.unwrap(), 5, "a cursor never goes back");
    }

    #[test]
    fn entries_round_trip_and_junk_is_refused() {
        for e in [LogEntry::Message(Bytes::from("{}")), LogEntry::Prime, LogEntry::Disconnect, LogEntry::End] {
            assert_eq!(LogEntry::decode(&e.encode()), Some(e));
        }
        assert_eq!(LogEntry::decode(b""), None);
        assert_eq!(LogEntry::decode(b"px"), None);
        assert_eq!(LogEntry::decode(b"?"), None);
    }
}
