//! Streamable HTTP (2025-03-26 and later) on the one endpoint: POST carries the client's
//! messages and answers on a stream of its own, GET opens the standalone stream (or
//! resumes one after `Last-Event-ID`), DELETE ends the session.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::app::{App, HttpSession};
use super::cluster;
use super::guard;
use super::request::{accepts, check_origin, header_version, read_body, Posted};
use super::response::{error, json_response, sse_response, StreamBody};
use super::stateless_era;
use crate::protocol::{codes, methods, ProtocolVersion};
use crate::transport::http::headers;
use crate::transport::http::hub::{request_ids, Hub};
use crate::transport::http::sse;

pub(super) async fn post_mcp(State(app): State<Arc<App>>, h: HeaderMap, body: Body) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    let auth = match guard::authorize(&app, &h, "POST", &app.config.endpoint).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let json_type = h.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"));
    if !json_type {
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, codes::INVALID_REQUEST, "Content-Type must be application/json");
    }
    if !accepts(&h, "application/json") || !accepts(&h, "text/event-stream") {
        return error(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Accept must list application/json and text/event-stream",
        );
    }
    let version = header_version(&h);
    let bytes = match read_body(&app, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let version = match version {
        Ok(v) => v,
        Err(r) => {
            let requested = h.get(headers::PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).unwrap_or("");
            return stateless_era::unknown_version(requested, &bytes).unwrap_or(r);
        }
    };
    let posted = match Posted::parse(bytes) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Err(r) = guard::check_calls(&app, auth.as_ref(), &posted) {
        return r;
    }
    if stateless_era::applies(version, &posted) {
        return stateless_era::post(&app, &h, posted, auth).await;
    }
    let batch = posted.is_batch();
    let initializing = posted.messages().any(|m| m.method() == Some(methods::INITIALIZE));
    if initializing && posted.messages().count() > 1 {
        return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, "initialize must be sent on its own");
    }
    let ids = request_ids(posted.messages());

    if app.config.stateless {
        let (hub, transport) = Hub::new(None, false, auth.is_some(), app.config.max_queued_stream_bytes);
        let stateless = (!initializing).then(|| version.unwrap_or(ProtocolVersion::HTTP_DEFAULT));
        let session = app.backend.open(transport, stateless);
        if let Err(r) = guard::bind(&hub, auth) {
            return r;
        }
        if ids.is_empty() {
            hub.deliver_posted(&ids, &h, posted.into_inbound());
            return StatusCode::ACCEPTED.into_response();
        }
        let handle = hub.open_request_stream(&ids, app.config.json_response);
        hub.deliver_posted(&ids, &h, posted.into_inbound());
        let body = StreamBody::new(None, handle, hub, Some(session));
        return if app.config.json_response { json_response(body, batch, None).await } else { sse_response(body, None) };
    }

    let (session, new_id) = if initializing {
        if !app.make_room() {
            return error(StatusCode::SERVICE_UNAVAILABLE, codes::INTERNAL_ERROR, "too many sessions, all of them busy");
        }
        if let Some(node) = &app.node {
            match cluster::create(&app, node, auth.as_ref().map(guard::Authorized::owner)).await {
                Ok((session, id)) => (session, Some(id)),
                Err(r) => return r,
            }
        } else {
            let budget = app.config.max_queued_stream_bytes;
            let (hub, transport) = Hub::new(app.config.event_store.clone(), false, auth.is_some(), budget);
            let id = super::app::new_session_id();
            let session = Arc::new(HttpSession { session: app.backend.open(transport.named(&id), None), hub, replica: None });
            app.insert(&id, session.clone());
            (session, Some(id))
        }
    } else {
        // On a cluster node the lookup is a store call: in the trace of the request posted.
        let lookup = cluster::session_of(&app, &h);
        let found = match crate::telemetry::posted_by(posted.messages()) {
            Some(cx) => opentelemetry::trace::FutureExt::with_context(lookup, cx).await,
            None => lookup.await,
        };
        match found {
            Ok(s) => (s, None),
            Err(r) => return r,
        }
    };
    let hub = session.hub.clone();
    if let Err(r) = guard::bind(&hub, auth) {
        return r;
    }
    if ids.is_empty() {
        match (&app.node, session.replica.is_some()) {
            // Notifications and responses: the replica they concern may run elsewhere.
            (Some(node), true) => {
                let id = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()).unwrap_or_default();
                if let Err(r) = cluster::to_replicas(node, id, posted.into_inbound().into_bytes()).await {
                    return r;
                }
            }
            _ => hub.deliver_posted(&ids, &h, posted.into_inbound()),
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let handle = hub.open_request_stream(&ids, app.config.json_response);
    let polling = session.control().protocol_version().is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
    if polling && hub.resumable() && !app.config.json_response {
        hub.prime(handle.id, app.config.sse_retry_ms);
    }
    hub.deliver_posted(&ids, &h, posted.into_inbound());
    let body = StreamBody::new(None, handle, hub, None);
    if app.config.json_response {
        json_response(body, batch, new_id.as_deref()).await
    } else {
        sse_response(body, new_id.as_deref())
    }
}

pub(super) async fn get_mcp(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    if app.config.stateless || matches!(header_version(&h), Ok(Some(v)) if v.is_stateless()) {
        return error(StatusCode::METHOD_NOT_ALLOWED, codes::INVALID_REQUEST, "stateless server: no GET stream");
    }
    if !accepts(&h, "text/event-stream") {
        return error(StatusCode::NOT_ACCEPTABLE, codes::INVALID_REQUEST, "Accept must list text/event-stream");
    }
    if let Err(r) = header_version(&h) {
        return r;
    }
    let auth = match guard::authorize(&app, &h, "GET", &app.config.endpoint).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let session = match cluster::session_of(&app, &h).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let hub = session.hub.clone();
    if let Err(r) = guard::bind(&hub, auth) {
        return r;
    }
    hub.touch();
    let last = h.get(headers::LAST_EVENT_ID).and_then(|v| v.to_str().ok());
    let resume = match last.map(sse::parse_event_id) {
        Some(None) => return error(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, format!("malformed Last-Event-ID {last:?}")),
        Some(Some(at)) => Some(at),
        None => None,
    };
    if let (Some(node), Some(replica)) = (&app.node, &session.replica) {
        return match cluster::get_stream(node, &hub, replica, resume).await {
            Ok(Some(handle)) => sse_response(StreamBody::new(None, handle, hub, None), None),
            Ok(None) => error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "that stream can no longer be resumed"),
            Err(r) => r,
        };
    }
    if let Some((stream, seq)) = resume {
        return match hub.resume(stream, seq) {
            Some(handle) => sse_response(StreamBody::new(None, handle, hub, None), None),
            None => error(StatusCode::NOT_FOUND, codes::INVALID_REQUEST, "that stream can no longer be resumed"),
        };
    }
    let Some(handle) = hub.open_standalone() else {
        return error(StatusCode::CONFLICT, codes::INVALID_REQUEST, "a GET stream is already open for this session");
    };
    let polling = session.control().protocol_version().is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
    if polling && hub.resumable() {
        hub.prime(handle.id, app.config.sse_retry_ms);
    }
    sse_response(StreamBody::new(None, handle, hub, None), None)
}

pub(super) async fn delete_mcp(State(app): State<Arc<App>>, h: HeaderMap) -> Response {
    if let Err(r) = check_origin(&app.config, &h) {
        return r;
    }
    if app.config.stateless || matches!(header_version(&h), Ok(Some(v)) if v.is_stateless()) {
        return error(StatusCode::METHOD_NOT_ALLOWED, codes::INVALID_REQUEST, "stateless server: no sessions to delete");
    }
    let auth = match guard::authorize(&app, &h, "DELETE", &app.config.endpoint).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let session = match cluster::session_of(&app, &h).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Err(r) = guard::bind(&session.hub, auth) {
        return r;
    }
    let id = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    if let Some(node) = &app.node {
        if let Err(r) = cluster::end(node, &id, session.replica.as_ref()).await {
            return r;
        }
    }
    app.remove(&id);
    session.control().close("the client ended the session");
    StatusCode::OK.into_response()
}
