//! Multi round-trip requests (2026-07-28, SEP-2322): in the stateless era a server cannot
//! send the client a request of its own, so a handler's `ctx.elicit()`, `ctx.create_message()`
//! and `ctx.list_roots()` become an `InputRequiredResult`, and the client answers by sending
//! the original request again with `inputResponses` (and the `requestState` it was given).
//!
//! oxmcp **re-runs** the handler on each retry: answers already given are returned at once
//! from the handler's asks, and the first ask without an answer ends the round. So a handler
//! must be safe to run again from the start until its last ask: do side effects after the
//! asks, or make them idempotent. Asks are matched to answers by key: the key given with
//! [`RequestContext::keyed`](super::RequestContext::keyed), else `elicitation-N`,
//! `sampling-N` or `roots-N` by the order of the asks (stable when the handler asks in the
//! same order each run). Asks started together (e.g. with `join!`) all go into one round.
//!
//! The answers gathered so far travel in `requestState`, sealed with HMAC-SHA256 under the
//! server's key, bound to the method and the tool/prompt name or resource URI, and valid for
//! [`STATE_TTL`]: a client cannot forge or replay another request's answers, and the server
//! keeps nothing between rounds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};

use crate::protocol::{methods, ErrorObject, InputRequiredResult, RESULT_INPUT_REQUIRED};

/// How long a `requestState` stays valid.
pub const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The secret that seals `requestState`: random per server unless configured (servers
/// behind a load balancer share one so any instance accepts another's state).
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)") // never print the secret
    }
}

impl StateKey {
    /// A fresh random key.
    pub fn random() -> Self {
        use rand::RngCore;
        let mut k = [0u8; 32];
        rand::rng().fill_bytes(&mut k); // ThreadRng: a CSPRNG seeded by the OS
        StateKey(k)
    }

    /// A key from 32 secret bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        StateKey(bytes)
    }

    fn mac(&self, payload: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(payload.as_bytes());
        mac
    }

    fn seal(&self, binding: &str, answers: &Map<String, Value>) -> String {
        let expires = (SystemTime::now() + STATE_TTL).duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let payload = URL_SAFE_NO_PAD.encode(json!({"b": binding, "a": answers, "x": expires}).to_string());
        let tag = URL_SAFE_NO_PAD.encode(self.mac(&payload).finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// The answers a `requestState` carries, if it is ours, untampered, for this request
    /// and not expired.
    fn open(&self, state: &str, binding: &str) -> Result<Map<String, Value>, ErrorObject> {
        let bad = |why: &str| ErrorObject::invalid_params(format!("invalid requestState: {why}"));
        let (payload, tag) = state.split_once('.').ok_or_else(|| bad("malformed"))?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| bad("malformed"))?;
        self.mac(payload).verify_slice(&tag).map_err(|_| bad("integrity check failed"))?;
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

/// One round of a multi round-trip request: the answers so far, and what the handler
/// asked that has no answer yet.
#[derive(Debug)]
pub(crate) struct InputRound {
    binding: String,
    answers: Map<String, Value>,
    missing: Mutex<Map<String, Value>>,
    asks: AtomicUsize,
    asked: Notify,
}

impl InputRound {
    /// Reads the retry's `requestState` (verified) and `inputResponses`, for a request of
    /// `method` on `params`.
    pub(crate) fn from_params(key: &StateKey, method: &str, params: Option<&Value>) -> Result<InputRound, ErrorObject> {
        let target = params.and_then(|p| p.get("name").or_else(|| p.get("uri"))).and_then(Value::as_str).unwrap_or("");
        let binding = format!("{method}\n{target}");
        let mut answers = match params.and_then(|p| p.get("requestState")).and_then(Value::as_str) {
            Some(state) => key.open(state, &binding)?,
            None => Map::new(),
        };
        if let Some(Value::Object(responses)) = params.and_then(|p| p.get("inputResponses")) {
            answers.extend(responses.clone());
        }
        Ok(InputRound { binding, answers, missing: Mutex::new(Map::new()), asks: AtomicUsize::new(0), asked: Notify::new() })
    }

    /// The answer to an ask. When there is none yet the round ends: the dispatcher answers
    /// with an `InputRequiredResult` and cancels the request, and this returns
    /// [`ErrorKind::Cancelled`] so the handler (and a host's task) unwinds.
    pub(crate) async fn ask(
        &self,
        key: Option<&str>,
        method: &str,
        params: Value,
        round_over: &CancellationToken,
    ) -> Result<Value> {
        let n = self.asks.fetch_add(1, Ordering::Relaxed) + 1;
        let key = key.map(str::to_owned).unwrap_or_else(|| {
            let kind = match method {
                methods::ELICITATION_CREATE => "elicitation",
                methods::SAMPLING_CREATE_MESSAGE => "sampling",
                _ => "roots",
            };
            format!("{kind}-{n}")
        });
        if let Some(answer) = self.answers.get(&key) {
            return Ok(answer.clone());
        }
        self.missing.lock().unwrap().insert(key, json!({"method": method, "params": params}));
        self.asked.notify_one();
        round_over.cancelled().await;
        Err(Error::new(ErrorKind::Cancelled, "the client's input is required first: this round ended"))
    }

    /// Resolves once the handler asked something the client has not answered.
    pub(crate) async fn input_needed(&self) {
        self.asked.notified().await
    }

    /// The result that ends this round.
    pub(crate) fn input_required(&self, key: &StateKey) -> InputRequiredResult {
        InputRequiredResult {
            result_type: RESULT_INPUT_REQUIRED.into(),
            input_requests: Some(std::mem::take(&mut *self.missing.lock().unwrap())),
            request_state: Some(key.seal(&self.binding, &self.answers)),
            meta: None,
            extra: Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
