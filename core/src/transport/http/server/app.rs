//! The server's shared state: its backend, its settings and the table of HTTP sessions
//! (creation, lookup, eviction at the cap, expiry when idle).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use tokio_util::sync::CancellationToken;

use super::config::HttpServerConfig;
use super::response::error;
use crate::protocol::codes;
use crate::transport::http::backend::{Backend, BackendSession, SessionControl};
use crate::transport::http::headers;
use crate::transport::http::hub::Hub;
use crate::transport::http::shared::Node;

/// One HTTP session: its hub (the HTTP streams) and the session a backend runs on it.
pub(super) struct HttpSession {
    pub(super) hub: Arc<Hub>,
    pub(super) session: BackendSession,
    /// Set when other nodes serve the session too.
    pub(super) replica: Option<super::replica::Replica>,
}

impl HttpSession {
    pub(super) fn control(&self) -> &Arc<dyn SessionControl> {
        self.session.control()
    }
}

/// What every request handler shares.
pub(super) struct App {
    pub(super) backend: Arc<dyn Backend>,
    pub(super) config: HttpServerConfig,
    pub(super) sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// This node's view of the shared store, when sessions are shared.
    pub(super) node: Option<Arc<Node>>,
}

impl App {
    pub(super) fn new(backend: Arc<dyn Backend>, config: HttpServerConfig) -> Self {
        let node = config
            .store
            .clone()
            .map(|store| Node::new(store, config.session_idle_timeout, config.sse_retry_ms, config.max_queued_stream_bytes));
        App { backend, config, sessions: Mutex::new(HashMap::new()), node }
    }

    /// Number of open sessions.
    pub(super) fn session_count(&self) -> usize {
        self.sessions.lock().unwrap().len()
    }

    /// Registers a new session under `id` (made by [`new_session_id`] before the session
    /// opened, so that its transport names it).
    pub(super) fn insert(&self, id: &str, session: Arc<HttpSession>) {
        self.sessions.lock().unwrap().insert(id.to_owned(), session);
    }

    /// Makes room for one more session. At the cap, the least recently used session with
    /// no request in flight is closed (one without an open stream first): a client that
    /// opens sessions in a loop then cannot lock everyone else out for the idle timeout,
    /// and the evicted client gets 404 and starts a new session, as the specification has
    /// it. `false` when every session is busy.
    pub(super) fn make_room(&self) -> bool {
        let mut map = self.sessions.lock().unwrap();
        map.retain(|_, s| !s.control().is_closed());
        if map.len() < self.config.max_sessions {
            return true;
        }
        let victim = map
            .iter()
            .filter(|(_, s)| s.control().in_flight_requests() == 0)
            .min_by_key(|(_, s)| (s.hub.has_live_stream(), *s.hub.last_activity.lock().unwrap()))
            .map(|(id, _)| id.clone());
        let Some(evicted) = victim.and_then(|id| map.remove(&id)) else { return false };
        drop(map);
        tracing::debug!("session limit of {} reached: closing the least recently used idle session", self.config.max_sessions);
        evicted.control().close("the server reached its session limit and closed this idle session");
        true
    }

    /// The `Mcp-Session-Id` a request names (400 without one).
    pub(super) fn session_id(h: &HeaderMap) -> Result<&str, Response> {
        h.get(headers::SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "missing Mcp-Session-Id header"))
    }

    /// The session `id`, unless it is unknown or closed.
    pub(super) fn live(&self, id: &str) -> Option<Arc<HttpSession>> {
        match self.sessions.lock().unwrap().get(id) {
            Some(s) if !s.control().is_closed() => Some(s.clone()),
            _ => None,
        }
    }

    /// Forgets session `id` and returns it.
    pub(super) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.sessions.lock().unwrap().remove(id)
    }

    /// Whether some session has a request in flight.
    pub(super) fn busy(&self) -> bool {
        self.sessions.lock().unwrap().values().any(|s| s.control().in_flight_requests() > 0)
    }

    /// Forgets every session and returns them.
    pub(super) fn drain(&self) -> Vec<Arc<HttpSession>> {
        self.sessions.lock().unwrap().drain().map(|(_, s)| s).collect()
    }
}

pub(super) fn new_session_id() -> String {
    crate::random::random_id()
}

/// Closes sessions idle longer than the configured timeout (and forgets closed ones)
/// until the server stops.
pub(super) async fn reap_idle_sessions(app: Weak<App>, stop: CancellationToken) {
    loop {
        let Some(a) = app.upgrade() else { return };
        let every = (a.config.session_idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        let idle: Vec<(String, Arc<HttpSession>)> = {
            let mut map = a.sessions.lock().unwrap();
            map.retain(|_, s| !s.control().is_closed());
            map.iter()
                .filter(|(_, s)| {
                    s.hub.last_activity.lock().unwrap().elapsed() > a.config.session_idle_timeout
                        && s.control().in_flight_requests() == 0
                })
                .map(|(k, s)| (k.clone(), s.clone()))
                .collect()
        };
        for (id, s) in idle {
            tracing::debug!(session = id.as_str(), "closing idle session");
            a.sessions.lock().unwrap().remove(&id);
            s.control().close("the session expired");
        }
        drop(a);
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.cancelled() => return,
        }
    }
}
