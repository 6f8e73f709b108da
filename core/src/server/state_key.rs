//! [`StateKey`]: the secret that seals the stateless era's `requestState`.
//!
//! Servers behind a load balancer must agree on it, whatever order they and their shared
//! store restart in: a round sealed on one node is continued on another. So a shared key
//! is a ring kept in one store record: the key every node seals with, and the keys still
//! accepted. A node makes the record only if it is absent (compare-and-swap), checks
//! before sealing that the store knows the key it seals with (putting it back if the store
//! lost it), and re-reads the record when a state fails to verify with every key it knows.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use bytes::Bytes;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::Sha256;

use crate::protocol::ErrorObject;
use crate::store::{SharedStore, StoreError};

/// How long a `requestState` stays valid.
pub const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The store record of the shared ring.
const RECORD: &str = "request-state-keys";
/// Keys a ring keeps: the sealing one and the last few others (a state lives 15 minutes).
const MAX_KEYS: usize = 8;
/// How often a node checks, before sealing, that the store still knows its key.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// How often a state that fails to verify may send a node back to the store: a client
/// sending forged states must not make each request a store round trip.
const REREAD_EVERY: Duration = Duration::from_millis(100);
/// Compare-and-swap attempts on the record before going on with the keys known here.
const ATTEMPTS: usize = 8;

type Key = [u8; 32];

/// The secret that seals `requestState`: random per server unless configured, or shared
/// by every node of a store ([`StateKey::shared`], what `ServerConfig::shared_through`
/// uses) so that any node accepts another's state.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), oxmcp::store::StoreError> {
/// use std::sync::Arc;
/// use oxmcp::server::StateKey;
/// let store: Arc<dyn oxmcp::store::SharedStore> = Arc::new(oxmcp::store::MemoryStore::default());
/// let (a, b) = (StateKey::shared(&store).await?, StateKey::shared(&store).await?);
/// # drop((a, b)); Ok(()) }
/// ```
#[derive(Clone)]
pub struct StateKey(Arc<Ring>);

struct Ring {
    keys: RwLock<Keys>,
    store: Option<Arc<dyn SharedStore>>,
    checked: Mutex<Option<Instant>>,
}

/// The key sealing new states and every key accepted (the sealing one first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Keys {
    #[serde(with = "b64")]
    sealing: Key,
    #[serde(with = "b64_list")]
    accepted: Vec<Key>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)") // never print the secret
    }
}

impl StateKey {
    /// A fresh random key.
    pub fn random() -> Self {
        Self::from_bytes(crate::store::random_secret())
    }

    /// A key from 32 secret bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self::ring(bytes, None)
    }

    /// The key every node sharing `store` seals with: the store's, or (when it has none)
    /// a new one put there for the others.
    pub async fn shared(store: &Arc<dyn SharedStore>) -> Result<Self, StoreError> {
        let key = Self::ring(crate::store::random_secret(), Some(store.clone()));
        key.agree().await?;
        Ok(key)
    }

    fn ring(sealing: Key, store: Option<Arc<dyn SharedStore>>) -> Self {
        let keys = Keys { sealing, accepted: vec![sealing] };
        StateKey(Arc::new(Ring { keys: RwLock::new(keys), store, checked: Mutex::new(None) }))
    }

    fn keys(&self) -> Keys {
        self.0.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Makes the store's ring and this node's one: the store's sealing key (ours when it
    /// has none), every key either knows. Done when the store holds the result.
    async fn agree(&self) -> Result<(), StoreError> {
        let Some(store) = &self.0.store else { return Ok(()) };
        for _ in 0..ATTEMPTS {
            let current = store.get_value(RECORD).await?;
            let stored: Option<Keys> = current.as_deref().and_then(|b| serde_json::from_slice(b).ok());
            let local = self.keys();
            let sealing = stored.as_ref().map_or(local.sealing, |s| s.sealing);
            let mut accepted = vec![sealing];
            for k in stored.iter().flat_map(|s| s.accepted.iter()).chain(&local.accepted) {
                if !accepted.contains(k) && accepted.len() < MAX_KEYS {
                    accepted.push(*k);
                }
            }
            let merged = Keys { sealing, accepted };
            let settled = stored.as_ref() == Some(&merged);
            if !settled {
                let encoded = Bytes::from(serde_json::to_vec(&merged).unwrap_or_default());
                if !store.swap_value(RECORD, current, encoded, None).await? {
                    continue; // another node changed it: merge with what it wrote
                }
            }
            *self.0.keys.write().unwrap_or_else(|e| e.into_inner()) = merged;
            return Ok(());
        }
        Err(StoreError(format!("{RECORD} kept changing under this node")))
    }

    /// Before sealing: makes sure (at most once a second) that the store knows the key
    /// this node seals with, so any node can open what it seals.
    pub(crate) async fn before_sealing(&self) {
        if !self.due(CHECK_EVERY) {
            return;
        }
        if let Err(e) = self.agree().await {
            tracing::warn!("the shared requestState key could not be checked: {e}");
        }
    }

    /// Whether the store was last consulted more than `every` ago (or never): then it is
    /// now, as far as the next caller knows. Never for a key no store shares.
    fn due(&self, every: Duration) -> bool {
        if self.0.store.is_none() {
            return false;
        }
        let mut checked = self.0.checked.lock().unwrap_or_else(|e| e.into_inner());
        if checked.is_some_and(|at| at.elapsed() < every) {
            return false;
        }
        *checked = Some(Instant::now());
        true
    }

    fn mac(key: &Key, payload: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
        mac.update(payload.as_bytes());
        mac
    }

    pub(crate) fn seal(&self, binding: &str, answers: &Map<String, Value>) -> String {
        let expires = (SystemTime::now() + STATE_TTL).duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let payload = URL_SAFE_NO_PAD.encode(json!({"b": binding, "a": answers, "x": expires}).to_string());
        let tag = URL_SAFE_NO_PAD.encode(Self::mac(&self.keys().sealing, &payload).finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// [`open`](Self::open), re-reading the shared ring once when no key known here
    /// verifies the state (another node may have sealed it with a key made while this
    /// one was cut off from the store).
    pub(crate) async fn open_shared(&self, state: &str, binding: &str) -> Result<Map<String, Value>, ErrorObject> {
        match self.open(state, binding) {
            Err(e) if e.message.contains(INTEGRITY) && self.due(REREAD_EVERY) => {
                if let Err(e) = self.agree().await {
                    tracing::warn!("the shared requestState key could not be read again: {e}");
                }
                self.open(state, binding)
            }
            other => other,
        }
    }

    /// The answers a `requestState` carries, if it is ours, untampered, for this request
    /// and not expired.
    pub(crate) fn open(&self, state: &str, binding: &str) -> Result<Map<String, Value>, ErrorObject> {
        let bad = |why: &str| ErrorObject::invalid_params(format!("invalid requestState: {why}"));
        let (payload, tag) = state.split_once('.').ok_or_else(|| bad("malformed"))?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| bad("malformed"))?;
        let keys = self.keys();
        if !keys.accepted.iter().any(|k| Self::mac(k, payload).verify_slice(&tag).is_ok()) {
            return Err(bad(INTEGRITY));
        }
        let body: Value =
            URL_SAFE_NO_PAD.decode(payload).ok().and_then(|b| serde_json::from_slice(&b).ok()).ok_or_else(|| bad("malformed"))?;
        if body["b"] != binding {
            return Err(bad("issued for a different request"));
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if body["x"].as_u64().is_none_or(|x| x < now) {
            return Err(bad("expired"));
        }
        Ok(body["a"].as_object().cloned().unwrap_or_default())
    }
}

const INTEGRITY: &str = "integrity check failed";

/// A key as base64 text in the store record.
mod b64 {
    use super::*;
    pub(super) fn serialize<S: serde::Serializer>(key: &Key, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&URL_SAFE_NO_PAD.encode(key))
    }
    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = URL_SAFE_NO_PAD.decode(text).map_err(serde::de::Error::custom)?;
        bytes.try_into().map_err(|_| serde::de::Error::custom("a key is 32 bytes"))
    }
}

mod b64_list {
    use super::*;
    pub(super) fn serialize<S: serde::Serializer>(keys: &[Key], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(keys.iter().map(|k| URL_SAFE_NO_PAD.encode(k)))
    }
    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Key>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts
            .into_iter()
            .map(|t| {
                let bytes = URL_SAFE_NO_PAD.decode(t).map_err(serde::de::Error::custom)?;
                bytes.try_into().map_err(|_| serde::de::Error::custom("a key is 32 bytes"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    #[test]
    fn request_state_is_sealed_bound_and_checked() {
        let key = StateKey::random();
        let answers: Map<String, Value> = serde_json::from_value(json!({"user": {"action": "accept"}})).unwrap();
        let state = key.seal("tools/call\nx", &answers);
        assert_eq!(key.open(&state, "tools/call\nx").unwrap(), answers);
        assert!(key.open(&state, "tools/call\ny").unwrap_err().message.contains("different request"));
        assert!(key.open(&format!("{state}-TAMPERED"), "tools/call\nx").unwrap_err().message.contains("integrity"));
        let (payload, tag) = state.split_once('.').unwrap();
        let forged = URL_SAFE_NO_PAD.encode(json!({"b": "tools/call\nx", "a": {"user": 1}, "x": u64::MAX}).to_string());
        assert!(key.open(&format!("{forged}.{tag}"), "tools/call\nx").is_err(), "a new payload under an old tag");
        assert!(StateKey::random().open(&state, "tools/call\nx").is_err(), "another server's key");
        assert_ne!(payload, "");
    }

    #[tokio::test]
    async fn nodes_agree_on_the_key_after_the_store_lost_it_whatever_restarts_first() {
        let store = Arc::new(MemoryStore::default());
        let shared: Arc<dyn SharedStore> = store.clone();
        let old = StateKey::shared(&shared).await.unwrap();
        let answers = Map::new();
        let binding = "tools/call\nx";
        // The store restarts empty, then a node restarts: it makes a new key.
        store.clear();
        let new = StateKey::shared(&shared).await.unwrap();
        // A round the old node seals (it checks the store first) opens on the new node...
        old.before_sealing().await;
        let sealed_old = old.seal(binding, &answers);
        assert_eq!(new.open_shared(&sealed_old, binding).await.unwrap(), answers);
        // ...and the other way round; and a third node started now takes either.
        let sealed_new = new.seal(binding, &answers);
        assert_eq!(old.open_shared(&sealed_new, binding).await.unwrap(), answers);
        let third = StateKey::shared(&shared).await.unwrap();
        for sealed in [&sealed_old, &sealed_new] {
            assert_eq!(third.open(sealed, binding).unwrap(), answers);
        }
        // A state no node sealed stays refused.
        let stranger = StateKey::random().seal(binding, &answers);
        assert!(new.open_shared(&stranger, binding).await.unwrap_err().message.contains("integrity"));
    }

    /// A store counting its value reads.
    struct Counting(MemoryStore, std::sync::atomic::AtomicUsize);

    impl SharedStore for Counting {
        fn put_session(
            &self,
            id: &str,
            record: Bytes,
            ttl: Duration,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<()>> {
            self.0.put_session(id, record, ttl)
        }
        fn get_session(
            &self,
            id: &str,
            ttl: Duration,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<Option<Bytes>>> {
            self.0.get_session(id, ttl)
        }
        fn delete_session(&self, id: &str) -> futures::future::BoxFuture<'_, crate::store::StoreResult<bool>> {
            self.0.delete_session(id)
        }
        fn append_many(
            &self,
            entries: Vec<(String, crate::store::LogEntry)>,
            ttl: Duration,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<Vec<u64>>> {
            self.0.append_many(entries, ttl)
        }
        fn read(
            &self,
            log: &str,
            after: u64,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<Option<crate::store::Entries>>> {
            self.0.read(log, after)
        }
        fn cursor(
            &self,
            log: &str,
            set: Option<u64>,
            ttl: Duration,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<u64>> {
            self.0.cursor(log, set, ttl)
        }
        fn publish(&self, message: Bytes) -> futures::future::BoxFuture<'_, crate::store::StoreResult<()>> {
            self.0.publish(message)
        }
        fn subscribe(&self) -> tokio::sync::broadcast::Receiver<crate::store::BusMessage> {
            self.0.subscribe()
        }
        fn get_value(&self, key: &str) -> futures::future::BoxFuture<'_, crate::store::StoreResult<Option<Bytes>>> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.0.get_value(key)
        }
        fn swap_value(
            &self,
            key: &str,
            expected: Option<Bytes>,
            new: Bytes,
            ttl: Option<Duration>,
        ) -> futures::future::BoxFuture<'_, crate::store::StoreResult<bool>> {
            self.0.swap_value(key, expected, new, ttl)
        }
    }

    #[tokio::test]
    async fn forged_states_do_not_each_cost_a_store_read() {
        let counting = Arc::new(Counting(MemoryStore::default(), Default::default()));
        let store: Arc<dyn SharedStore> = counting.clone();
        let key = StateKey::shared(&store).await.unwrap();
        let before = counting.1.load(std::sync::atomic::Ordering::SeqCst);
        let forged = StateKey::random().seal("tools/call\nx", &Map::new());
        for _ in 0..1000 {
            assert!(key.open_shared(&forged, "tools/call\nx").await.unwrap_err().message.contains("integrity"));
        }
        let reads = counting.1.load(std::sync::atomic::Ordering::SeqCst) - before;
        assert!((1..=3).contains(&reads), "{reads} store reads for 1,000 forged states");
    }
}
