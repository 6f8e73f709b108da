//! A relay joins two sessions: every request one peer sends is re-sent to the other (with
//! its own id, timeouts and cancellation), and the answer comes back; notifications pass
//! through. It reads only what ties a message to a request (progress tokens, a listen
//! stream's subscription id, `initialize`'s version), so it relays every era and feature.
//!
//! Used by `oxmcp proxy` (stdio <-> Streamable HTTP). Closing either side closes both.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use futures::future::BoxFuture;
use serde_json::Value;

use super::config::SessionConfig;
use super::lifecycle::Session;
use super::outgoing::RequestOptions;
use super::peer::Peer;
use super::service::{IncomingNotification, IncomingRequest, Service};
use crate::protocol::{meta, methods, ErrorObject, RequestId};
use crate::transport::Transport;

/// Two sessions relayed to each other. Dropping it closes both.
pub struct Relay {
    a: Session,
    b: Session,
}

impl Relay {
    /// Starts relaying between `a` and `b`.
    pub fn start<A: Transport, B: Transport>(a: A, b: B, config: SessionConfig) -> Relay {
        let (tokens, listens) = (Arc::default(), Arc::default());
        let (asked_by_a, asked_by_b): (InFlight, InFlight) = (Arc::default(), Arc::default());
        let to_b = Arc::new(Forward {
            other: OnceLock::new(),
            tokens: Arc::clone(&tokens),
            listens: Arc::clone(&listens),
            relaying: Arc::clone(&asked_by_a),
            other_asked: Arc::clone(&asked_by_b),
        });
        let to_a = Arc::new(Forward { other: OnceLock::new(), tokens, listens, relaying: asked_by_b, other_asked: asked_by_a });
        // B first, so A's first request (often waiting in its transport already) finds B.
        // B's peer speaks only after A's client initializes, by then A is connected too.
        let sb = Session::start(b, to_a.clone(), config.clone());
        let _ = to_b.other.set(sb.peer().clone());
        let sa = Session::start(a, to_b.clone(), config);
        let _ = to_a.other.set(sa.peer().clone());
        Relay { a: sa, b: sb }
    }

    /// The first side.
    pub fn a(&self) -> &Peer {
        self.a.peer()
    }

    /// The second side.
    pub fn b(&self) -> &Peer {
        self.b.peer()
    }

    /// Waits until either side closes.
    pub async fn wait(&self) {
        tokio::select! {
            _ = self.a.wait() => {}
            _ = self.b.wait() => {}
        }
    }

    /// Closes both sides and waits for their transports to shut.
    pub async fn close(self) {
        let Relay { a, b } = self;
        tokio::join!(a.close(), b.close());
    }
}

/// The requests of one side being relayed to the other (their ids on that side).
type InFlight = Arc<Mutex<HashSet<RequestId>>>;

/// A request in its side's [`InFlight`] set while it is relayed (dropped with the relaying
/// future, too).
struct Relaying(InFlight, RequestId);

impl Relaying {
    fn start(set: InFlight, id: RequestId) -> Relaying {
        set.lock().unwrap().insert(id.clone());
        Relaying(set, id)
    }
}

impl Drop for Relaying {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.1);
    }
}

/// Answers one side's requests by asking the other side.
struct Forward {
    other: OnceLock<Peer>,
    /// Progress tokens of relayed requests -> the request on the side that sent it, so
    /// progress travels with its request (e.g. on its Streamable HTTP stream).
    tokens: Arc<Mutex<HashMap<String, RequestId>>>,
    /// Relayed `subscriptions/listen` requests: the id they were re-sent with -> the
    /// requester's. The stream's notifications quote the first as their subscription id;
    /// they go back on the requester's stream, quoting the second.
    listens: Arc<Mutex<HashMap<RequestId, RequestId>>>,
    /// This side's requests being relayed now.
    relaying: InFlight,
    /// The other side's requests being relayed now: a log message this side sends while
    /// exactly one is in flight goes with it.
    other_asked: InFlight,
}

fn token_key(params: Option<&Value>) -> Option<String> {
    params?.get("_meta")?.get("progressToken").map(Value::to_string)
}

impl Forward {
    /// For a notification of a relayed listen stream: rewrites its subscription id to the
    /// requester's and returns the requester's listen request.
    fn requester_of_listen(&self, params: Option<&mut Value>) -> Option<RequestId> {
        let quoted = params?.get_mut("_meta")?.get_mut(meta::SUBSCRIPTION_ID)?;
        let sent_as: RequestId = serde_json::from_value(quoted.clone()).ok()?;
        let requester = self.listens.lock().unwrap().get(&sent_as).cloned()?;
        *quoted = serde_json::to_value(&requester).ok()?;
        Some(requester)
    }

    /// The other side's only request being relayed now, if it has exactly one.
    fn sole_request_of_other(&self) -> Option<RequestId> {
        let asked = self.other_asked.lock().unwrap();
        if asked.len() == 1 {
            asked.iter().next().cloned()
        } else {
            None
        }
    }
}

impl Service for Forward {
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let other = self.other.get().cloned();
        let tokens = self.tokens.clone();
        let listens = self.listens.clone();
        let relaying = self.relaying.clone();
        Box::pin(async move {
            let Some(other) = other else {
                return Err(ErrorObject::internal("the relay is not connected yet"));
            };
            // No inactivity timeout of our own: the requester keeps its timeouts, and its
            // cancel (req.cancel) travels on as a cancel of the relayed request.
            let mut options = RequestOptions::default()
                .timeout(other.config().max_request_timeout)
                .reset_timeout_on_progress(false)
                .cancel_token(req.cancel.clone());
            let sent_as = Arc::new(Mutex::new(None));
            if req.method == methods::SUBSCRIPTIONS_LISTEN {
                let (listens, requester, sent_as) = (listens.clone(), req.id.clone(), sent_as.clone());
                options = options.on_sent(move |id| {
                    listens.lock().unwrap().insert(id.clone(), requester.clone());
                    *sent_as.lock().unwrap() = Some(id.clone());
                });
            }
            let token = token_key(req.params.as_ref());
            if let Some(t) = &token {
                tokens.lock().unwrap().insert(t.clone(), req.id.clone());
            }
            let in_flight = Relaying::start(relaying, req.id.clone());
            let result = other.request(&req.method, req.params, options).await;
            drop(in_flight);
            if let Some(t) = &token {
                tokens.lock().unwrap().remove(t);
            }
            if let Some(id) = sent_as.lock().unwrap().take() {
                listens.lock().unwrap().remove(&id);
            }
            if req.method == methods::INITIALIZE {
                if let Some(v) = result
                    .as_ref()
                    .ok()
                    .and_then(|r| r["protocolVersion"].as_str())
                    .and_then(crate::protocol::ProtocolVersion::parse)
                {
                    other.set_protocol_version(v);
                    req.peer.set_protocol_version(v);
                }
            }
            result.map_err(|e| e.to_error_object())
        })
    }

    /// Forwarded here, in arrival order, so a request's last progress cannot fall
    /// behind its response.
    fn observe_notification(&self, method: &str, params: Option<&Value>) {
        // A cancel names this side's request id; the engine already turned it into a
        // cancel of the relayed request, so it must not pass through as is.
        if method == methods::CANCELLED {
            return;
        }
        let Some(other) = self.other.get() else { return };
        let mut params = params.cloned();
        let during = match method {
            methods::PROGRESS => params
                .as_ref()
                .and_then(|p| p.get("progressToken"))
                .and_then(|t| self.tokens.lock().unwrap().get(&t.to_string()).cloned()),
            // A log message names no request; a handler's goes with its request, as the
            // server sent it (a stateless-era request has no other stream to bring it back
            // on). Other notifications keep their own way (listen streams, the GET stream).
            methods::LOGGING_MESSAGE => self.sole_request_of_other(),
            _ => self.requester_of_listen(params.as_mut()),
        };
        let _ = match during {
            Some(id) => other.notify_during(method, params, &id),
            None => other.notify(method, params),
        };
    }

    fn handle_notification(&self, _note: IncomingNotification) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    fn on_closed(&self, _peer: &Peer) {
        if let Some(other) = self.other.get() {
            other.close("the other side of the relay closed");
        }
    }
}
