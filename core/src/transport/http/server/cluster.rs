//! Sessions several nodes serve (the server has a shared store): each session's record in
//! the store, the replica a node runs of a session it did not start, the client's
//! messages that must reach every replica, and the end of a session everywhere.
//!
//! - A POST carrying requests runs them on the node it reached, on that node's replica of
//!   the session (made from the record on first use).
//! - A POST carrying only notifications and responses (a cancel, the answer to a
//!   server-to-client request) goes on the bus to every replica: the one whose handler
//!   waits for it takes it, the others ignore what they never sent (each replica numbers
//!   its requests in a range of its own).
//! - Legacy HTTP+SSE: the stream is the session, held by one node; a POST reaching another
//!   node goes there on the bus.
//! - A GET reads the session's logs (see [`crate::transport::http::shared`]), here or
//!   wherever the client lands next.

use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;

use super::app::{new_session_id, App, HttpSession};
use super::replica::{Record, Replica};
use super::response::error;
use crate::protocol::codes;
use crate::store::{LogEntry, StateSaver, StoreError};
use crate::transport::http::hub::Hub;
use crate::transport::http::hub::SharedSession;
use crate::transport::http::shared::Node;
use crate::transport::Inbound;

/// Bus messages: a client's message for every replica of a session, and a session's end.
const TO_REPLICAS: &[u8] = b"in:";
const ENDED: &[u8] = b"end:";
/// A session's state changed (its record was saved): replicas that serve no request of it
/// meanwhile (one holding its standalone stream) take it on too.
const CHANGED: &[u8] = b"state:";

/// 503 with a JSON-RPC error body: the shared store is down.
pub(super) fn unavailable(e: StoreError) -> Response {
    tracing::warn!("{e}");
    error(StatusCode::SERVICE_UNAVAILABLE, codes::INTERNAL_ERROR, e.to_string())
}

fn saver(node: &Arc<Node>, id: &str, mine: &Arc<Mutex<Record>>) -> StateSaver {
    let (node, id, mine) = (node.clone(), id.to_string(), mine.clone());
    StateSaver::new(move |state| {
        let (node, id, mine) = (node.clone(), id.clone(), mine.clone());
        let record = {
            let mut mine = mine.lock().unwrap();
            mine.state = Some(state);
            mine.clone()
        };
        Box::pin(async move {
            let bytes = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
            node.store.put_session(&id, bytes.clone(), node.ttl).await?;
            // Saved already: a replica that misses this still finds it at its next request.
            if let Err(e) = node.store.publish(Bytes::from([CHANGED, id.as_bytes(), b"\n", &bytes].concat())).await {
                tracing::debug!("a session's change was not announced: {e}");
            }
            Ok(())
        })
    })
}

/// The live session a request's `Mcp-Session-Id` names: this process's, or for a shared
/// session, this node's replica of it, made if need be.
pub(super) async fn session_of(app: &Arc<App>, h: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
    let id = App::session_id(h)?;
    match &app.node {
        Some(node) => find(app, node, id).await,
        None => app.live(id).ok_or_else(|| error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown or expired session")),
    }
}

/// Starts a session (an `initialize` reached this node): its record goes to the store
/// before the request runs.
pub(super) async fn create(
    app: &Arc<App>,
    node: &Arc<Node>,
    user: Option<String>,
) -> Result<(Arc<HttpSession>, String), Response> {
    let id = new_session_id();
    let record = Record { owner: rand::random(), standalone: rand::random::<u64>() >> 1, state: None, user };
    let bytes = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
    node.store.put_session(&id, bytes, node.ttl).await.map_err(unavailable)?;
    let session = replica(app, node, &id, record, app.config.auth.is_some());
    app.sessions.lock().unwrap().insert(id.clone(), session.clone());
    Ok((session, id))
}

fn replica(app: &Arc<App>, node: &Arc<Node>, id: &str, record: Record, protected: bool) -> Arc<HttpSession> {
    let (owner, standalone, restored, user) = (record.owner, record.standalone, record.state.clone(), record.user.clone());
    let mine = Arc::new(Mutex::new(record));
    let shared = SharedSession { saver: saver(node, id, &mine), restored, readers: Default::default() };
    let budget = app.config.max_queued_stream_bytes;
    let (hub, transport) = Hub::new_shared(node.clone(), owner, standalone, protected, shared, budget);
    if let (Some(slot), Some(user)) = (&hub.auth, user) {
        slot.owned_by(user);
    }
    let session = app.backend.open(transport.named(id), None);
    Arc::new(HttpSession { hub, session, replica: Some(Replica { record: mine }) })
}

/// The session `id` names, as this node runs it: its record is read (which keeps it
/// alive), and this node's replica made or brought up to date. 404 when the session is
/// gone, 503 when the store is down.
pub(super) async fn find(app: &Arc<App>, node: &Arc<Node>, id: &str) -> Result<Arc<HttpSession>, Response> {
    let gone = || error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown or expired session");
    let found = node.store.get_session(id, node.ttl).await.map_err(unavailable)?;
    let Some(record) = found.and_then(|b| serde_json::from_slice::<Record>(&b).ok()) else {
        if let Some(local) = app.remove(id) {
            local.control().close("the session ended on another node");
        }
        return Err(gone());
    };
    if let Some(local) = app.live(id) {
        if let Some(replica) = &local.replica {
            replica.take_on(local.control(), record);
        }
        return Ok(local);
    }
    let made = replica(app, node, id, record, app.config.auth.is_some());
    let mut sessions = app.sessions.lock().unwrap();
    // Another request of the session may have made one meanwhile: keep the first.
    match sessions.get(id) {
        Some(existing) if !existing.control().is_closed() => {
            let existing = existing.clone();
            drop(sessions);
            made.control().close("a replica already runs here");
            Ok(existing)
        }
        _ => {
            sessions.insert(id.to_string(), made.clone());
            Ok(made)
        }
    }
}

/// Offers a client's notifications and responses to every replica of session `id`.
pub(super) async fn to_replicas(node: &Node, id: &str, body: Bytes) -> Result<(), Response> {
    let message = [TO_REPLICAS, id.as_bytes(), b"\n", &body].concat();
    node.store.publish(Bytes::from(message)).await.map_err(unavailable)
}

/// Legacy HTTP+SSE: session `id`'s stream is held here; other nodes learn that it exists,
/// and whose it is (`user`, on a protected server).
pub(super) async fn announce_legacy(node: &Node, id: &str, user: Option<String>) -> Result<(), Response> {
    let record = Bytes::from(user.unwrap_or_default());
    node.store.put_session(&legacy_key(id), record, node.ttl).await.map_err(unavailable)
}

fn legacy_key(id: &str) -> String {
    format!("legacy-{id}")
}

/// Legacy HTTP+SSE: a POST of `user` for session `id`, whose stream another node holds.
pub(super) async fn to_legacy(node: &Node, id: &str, body: Bytes, user: Option<String>) -> Result<(), Response> {
    let Some(owner) = node.store.get_session(&legacy_key(id), node.ttl).await.map_err(unavailable)? else {
        return Err(error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown session"));
    };
    if owner.as_ref() != user.unwrap_or_default().as_bytes() {
        return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, "this session belongs to another user"));
    }
    // Checked as the holder would: a body that does not parse is refused here.
    super::request::Posted::parse(body.clone())?;
    to_replicas(node, id, body).await
}

/// Ends session `id` on every node: its record goes, a GET reading its standalone stream
/// ends, and every replica closes.
pub(super) async fn end(node: &Node, id: &str, replica: Option<&Replica>) -> Result<(), Response> {
    node.store.delete_session(id).await.map_err(unavailable)?;
    if let Some(replica) = replica {
        let (_, log) = replica.standalone_log();
        node.store.append(&log, LogEntry::End, node.ttl).await.map_err(unavailable)?;
    }
    node.store.publish(Bytes::from([ENDED, id.as_bytes()].concat())).await.map_err(unavailable)
}

/// What this node does with what another node published.
pub(super) fn heard(app: &App, message: &[u8]) {
    if let Some(rest) = message.strip_prefix(TO_REPLICAS) {
        let Some(split) = rest.iter().position(|&b| b == b'\n') else { return };
        let id = String::from_utf8_lossy(&rest[..split]);
        if let Some(local) = app.live(&id) {
            local.hub.deliver(Inbound::Bytes(Bytes::copy_from_slice(&rest[split + 1..])));
        }
    } else if let Some(rest) = message.strip_prefix(CHANGED) {
        let Some(split) = rest.iter().position(|&b| b == b'\n') else { return };
        let id = String::from_utf8_lossy(&rest[..split]);
        let (Some(local), Ok(record)) = (app.live(&id), serde_json::from_slice::<Record>(&rest[split + 1..])) else { return };
        if let Some(replica) = &local.replica {
            replica.take_on(local.control(), record);
        }
    } else if let Some(id) = message.strip_prefix(ENDED) {
        if let Some(local) = app.remove(&String::from_utf8_lossy(id)) {
            local.control().close("the client ended the session");
        }
    } else {
        app.backend.heard(message);
    }
}

/// A GET on a shared session: resumes stream `resume` (`Some((stream, after))`) from the
/// session's logs, or reads the standalone stream from where its last reader stopped.
pub(super) async fn get_stream(
    node: &Arc<Node>,
    hub: &Hub,
    replica: &Replica,
    resume: Option<(u64, u64)>,
) -> Result<Option<crate::transport::http::sse::StreamHandle>, Response> {
    match resume {
        Some((stream, after)) => {
            let log = hub.log_of(stream);
            if !node.can_resume(&log, after).await.map_err(unavailable)? {
                return Ok(None);
            }
            Ok(Some(node.tail(stream, log, after, None)))
        }
        None => {
            let (stream, log) = replica.standalone_log();
            let from = node.store.cursor(&log, None, node.ttl).await.map_err(unavailable)?;
            // Counted while the connection lasts: see `SharedSession::readers`.
            let readers = hub.shared.as_ref().map(|s| s.session.readers.clone());
            Ok(Some(node.tail(stream, log, from, readers)))
        }
    }
}
