//! Legacy HTTP+SSE (2024-11-05): `GET /sse` opens the stream that is the session, and
//! the client POSTs its messages to `/message?sessionId=...`.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::app::{App, HttpSession};
use super::guard;
use super::request::{check_origin, read_body, Posted};
use super::response::{error, sse_response, StreamBody};
use crate::protocol::codes;
use crate::transport::http::hub::Hub;
use crate::transport::http::sse;

#[derive(serde::Deserialize)]
pub(super) struct LegacyQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

/// Legacy HTTP+SSE: the stream announces where to POST (`endpoint` event), then carries
/// every message from the server.
pub(super) async fn get_legacy_sse(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    let auth = match guard::authorize(&app, &h, "GET", "/sse").await {
        Ok(a) => a,
        Err(r) => return r,
    };
    if !app.make_room() {
        return error(StatusCode::SERVICE_UNAVAILABLE, codes::INTERNAL_ERROR, "too many sessions, all of them busy");
    }
    let (hub, transport) = Hub::new(None, true, auth.is_some(), app.config.max_queued_stream_bytes);
    let handle = hub.open_standalone().expect("a new hub has no stream");
    let id = super::app::new_session_id();
    let session =
        Arc::new(HttpSession { session: app.backend.open(transport.named(&id), None), hub: hub.clone(), replica: None });
    let user = auth.as_ref().map(guard::Authorized::owner);
    if let Err(r) = guard::bind(&hub, auth) {
        return r;
    }
    // The legacy stream is the session: when it drops, the session ends.
    let control = session.control().clone();
    app.insert(&id, session);
    if let Some(node) = &app.node {
        // Other nodes take the client's POSTs and pass them here.
        if let Err(r) = super::cluster::announce_legacy(node, &id, user).await {
            app.remove(&id);
            control.close("the shared store is unavailable");
            return r;
        }
    }
    let endpoint = sse::frame(None, Some("endpoint"), format!("/message?sessionId={id}").as_bytes());
    sse_response(StreamBody::new(Some(endpoint), handle, hub, None).ending_session(control), None)
}

pub(super) async fn post_legacy_message(
    State(app): State<Arc<App>>,
    h: HeaderMap,
    q: Query<LegacyQuery>,
    body: Body,
) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    let auth = match guard::authorize(&app, &h, "POST", "/message").await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let Some(id) = q.session_id.clone() else {
        return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "missing sessionId");
    };
    let local = app.live(&id);
    let bytes = match read_body(&app, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let session = match (local, &app.node) {
        (Some(session), _) => session,
        // The stream, and so the session, is on another node: the bus takes the body there.
        (None, Some(node)) => {
            let user = auth.as_ref().map(guard::Authorized::owner);
            return match super::cluster::to_legacy(node, &id, bytes, user).await {
                Ok(()) => (StatusCode::ACCEPTED, "Accepted").into_response(),
                Err(r) => r,
            };
        }
        (None, None) => return error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "unknown session"),
    };
    let posted = match Posted::parse(bytes) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Err(r) = guard::check_calls(&app, auth.as_ref(), &posted) {
        return r;
    }
    if let Err(r) = guard::bind(&session.hub, auth) {
        return r;
    }
    let ids = crate::transport::http::hub::request_ids(posted.messages());
    session.hub.deliver_posted(&ids, &h, posted.into_inbound());
    (StatusCode::ACCEPTED, "Accepted").into_response()
}
