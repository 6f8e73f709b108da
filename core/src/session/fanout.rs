//! A fan-out relay: many short sessions relayed to one long one. Each front session's
//! requests are re-sent to the shared back session (with ids of its own, and the front's
//! timeouts and cancellation); what the back sends during a request goes to the front that
//! made it. `oxmcp proxy --http` gives it the stateless era's POSTs, each a session of one
//! request, so that a stdio server behind the proxy is started once, not once per request.
//!
//! What the back sends is routed by what names its request: progress by its token, a
//! `subscriptions/listen` stream's notifications by their subscription id, and a log
//! message (which names no request) to the only call in flight, listen streams aside. With
//! several calls in flight a log message cannot be told apart and is dropped (a stdio
//! server gives no other way to know whose it is).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::config::SessionConfig;
use super::lifecycle::Session;
use super::outgoing::RequestOptions;
use super::peer::Peer;
use super::service::{IncomingNotification, IncomingRequest, Service};
use crate::protocol::{meta, methods, ErrorObject, RequestId};
use crate::transport::Transport;

/// Where a relayed request came from: its front session and its id there.
type Origin = (Peer, RequestId);

/// What the back sends during requests, and where it goes.
#[derive(Default)]
struct Routes {
    /// Progress tokens of relayed requests.
    tokens: Mutex<HashMap<String, Origin>>,
    /// Relayed `subscriptions/listen` requests, by the id they were re-sent with.
    listens: Mutex<HashMap<RequestId, Origin>>,
    /// Calls in flight (not listen streams), by a number of their own.
    calls: Mutex<HashMap<u64, Origin>>,
    next: AtomicU64,
}

impl Routes {
    fn sole_call(&self) -> Option<Origin> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        (calls.len() == 1).then(|| calls.values().next().cloned()).flatten()
    }
}

/// One back session that front sessions attach to. Dropping it closes the back session.
pub struct Fanout {
    back: Session,
    routes: Arc<Routes>,
    config: SessionConfig,
}

impl Fanout {
    /// Starts the back session over `back`.
    pub fn start<B: Transport>(back: B, config: SessionConfig) -> Fanout {
        let routes = Arc::new(Routes::default());
        let back = Session::start(back, Arc::new(Back(routes.clone())), config.clone());
        Fanout { back, routes, config }
    }

    /// Whether the back session has ended (its process exited, say).
    pub fn is_closed(&self) -> bool {
        self.back.peer().is_closed()
    }

    /// Relays a front session over `front` to the back one; the front ends when dropped.
    pub fn attach<A: Transport>(&self, front: A) -> Session {
        let service = Front { back: self.back.peer().clone(), routes: self.routes.clone() };
        Session::start(front, Arc::new(service), self.config.clone())
    }
}

/// A front session's requests, re-sent to the back.
struct Front {
    back: Peer,
    routes: Arc<Routes>,
}

/// An entry of a route table, removed with the relaying future however it ends.
struct Entry<K: std::hash::Hash + Eq + Clone>(Arc<Routes>, K, fn(&Routes) -> &Mutex<HashMap<K, Origin>>);

impl<K: std::hash::Hash + Eq + Clone> Drop for Entry<K> {
    fn drop(&mut self) {
        (self.2)(&self.0).lock().unwrap_or_else(|e| e.into_inner()).remove(&self.1);
    }
}

fn file<K: std::hash::Hash + Eq + Clone>(
    routes: &Arc<Routes>,
    key: K,
    origin: Origin,
    table: fn(&Routes) -> &Mutex<HashMap<K, Origin>>,
) -> Entry<K> {
    table(routes).lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), origin);
    Entry(routes.clone(), key, table)
}

impl Service for Front {
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let (back, routes) = (self.back.clone(), self.routes.clone());
        Box::pin(async move {
            let origin: Origin = (req.peer.clone(), req.id.clone());
            let mut options = RequestOptions::default()
                .timeout(back.config().max_request_timeout)
                .reset_timeout_on_progress(false)
                .cancel_token(req.cancel.clone());
            let listen_entry = Arc::new(Mutex::new(None));
            let mut _call = None;
            if req.method == methods::SUBSCRIPTIONS_LISTEN {
                let (routes, origin, slot) = (routes.clone(), origin.clone(), listen_entry.clone());
                options = options.on_sent(move |id| {
                    *slot.lock().unwrap() = Some(file(&routes, id.clone(), origin.clone(), |r| &r.listens));
                });
            } else {
                let n = routes.next.fetch_add(1, Ordering::Relaxed);
                _call = Some(file(&routes, n, origin.clone(), |r| &r.calls));
            }
            let token = req.params.as_ref().and_then(|p| p.get("_meta")?.get("progressToken")).map(Value::to_string);
            let _token = token.map(|t| file(&routes, t, origin, |r| &r.tokens));
            let result = back.request(&req.method, req.params, options).await;
            drop(listen_entry.lock().unwrap().take());
            result.map_err(|e| e.to_error_object())
        })
    }

    /// A cancel names the front's id: the engine already cancelled the relayed request.
    /// Anything else the client says goes on.
    fn observe_notification(&self, method: &str, params: Option<&Value>) {
        if method != methods::CANCELLED {
            let _ = self.back.notify(method, params.cloned());
        }
    }

    fn handle_notification(&self, _note: IncomingNotification) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// What the back session sends, routed to the front it concerns.
struct Back(Arc<Routes>);

impl Service for Back {
    /// A request of the server's goes to the client of the only call in flight (the
    /// stateless era has none: its questions come back as results).
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let asked = self.0.sole_call();
        Box::pin(async move {
            let Some((front, _)) = asked else {
                return Err(ErrorObject::internal("no single client to ask: the proxy relays this server to several"));
            };
            let options = RequestOptions::default().cancel_token(req.cancel.clone());
            front.request(&req.method, req.params, options).await.map_err(|e| e.to_error_object())
        })
    }

    fn observe_notification(&self, method: &str, params: Option<&Value>) {
        if method == methods::CANCELLED {
            return;
        }
        let mut params = params.cloned();
        let to = match method {
            methods::PROGRESS => params
                .as_ref()
                .and_then(|p| p.get("progressToken"))
                .and_then(|t| self.0.tokens.lock().unwrap_or_else(|e| e.into_inner()).get(&t.to_string()).cloned()),
            methods::LOGGING_MESSAGE => self.0.sole_call(),
            _ => {
                // A listen stream's notification quotes the id it was re-sent with: the
                // front's own id goes in its place.
                let quoted = params.as_mut().and_then(|p| p.get_mut("_meta")?.get_mut(meta::SUBSCRIPTION_ID));
                quoted.and_then(|q| {
                    let sent_as: RequestId = serde_json::from_value(q.clone()).ok()?;
                    let origin = self.0.listens.lock().unwrap_or_else(|e| e.into_inner()).get(&sent_as).cloned()?;
                    *q = serde_json::to_value(&origin.1).ok()?;
                    Some(origin)
                })
            }
        };
        match to {
            Some((front, id)) => {
                let _ = front.notify_during(method, params, &id);
            }
            None => tracing::debug!(method, "a notification of the server no client can be told apart for: dropped"),
        }
    }

    fn handle_notification(&self, _note: IncomingNotification) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}
