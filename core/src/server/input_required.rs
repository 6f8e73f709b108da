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
//! [`STATE_TTL`](super::STATE_TTL): a client cannot forge or replay another request's answers, and the server
//! keeps nothing between rounds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};

use crate::protocol::{methods, ErrorObject, InputRequiredResult, RESULT_INPUT_REQUIRED};

use super::context::Questions;
use super::state_key::StateKey;

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
    pub(crate) async fn from_params(key: &StateKey, method: &str, params: Option<&Value>) -> Result<InputRound, ErrorObject> {
        let target = params.and_then(|p| p.get("name").or_else(|| p.get("uri"))).and_then(Value::as_str).unwrap_or("");
        let binding = format!("{method}\n{target}");
        let mut answers = match params.and_then(|p| p.get("requestState")).and_then(Value::as_str) {
            Some(state) => key.open_shared(state, &binding).await?,
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

/// A round takes a handler's questions in the stateless era: the context hands them on
/// through this trait, naming no round.
impl Questions for InputRound {
    fn ask<'a>(
        &'a self,
        key: Option<&'a str>,
        method: &'a str,
        params: Value,
        cancel: &'a CancellationToken,
    ) -> futures::future::BoxFuture<'a, Result<Value>> {
        Box::pin(InputRound::ask(self, key, method, params, cancel))
    }
}
