//! A protected server's gate (see [`crate::auth::resource`]): its protected resource
//! metadata, the token every request to the endpoint must carry, the scopes a tool call
//! needs, and a session kept to the subject whose token opened it.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::app::App;
use super::request::Posted;
use super::response::error;
use crate::auth::{AuthInfo, Denial};
use crate::protocol::{codes, methods, Message};
use crate::transport::http::hub::Hub;

/// `GET /.well-known/oauth-protected-resource[/path]`: the metadata (no token needed).
pub(super) async fn metadata(State(app): State<Arc<App>>) -> Response {
    match &app.config.auth {
        Some(r) => ([(header::CONTENT_TYPE, "application/json")], r.metadata().to_string()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn refuse(d: Denial) -> Response {
    let status = StatusCode::from_u16(d.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let mut r = error(status, codes::INVALID_REQUEST, d.message);
    if let Ok(v) = HeaderValue::from_str(&d.www_authenticate) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// The request's verified token: `Ok(None)` on an unprotected server, the refusal to
/// send when the token is missing or not good enough. `method` and `path`: the request's,
/// which a DPoP proof must name (at the resource's URL, or at the `Host` it was sent to).
pub(super) async fn authorize(app: &App, h: &HeaderMap, method: &str, path: &str) -> Result<Option<Authorized>, Response> {
    let Some(resource) = &app.config.auth else { return Ok(None) };
    let value = h.get(header::AUTHORIZATION).map(|v| v.to_str().unwrap_or("?"));
    let dpop = h.get("dpop").map(|v| v.to_str().unwrap_or("?"));
    let mut urls = Vec::new();
    if let Ok(mut own) = reqwest::Url::parse(&resource.resource) {
        own.set_path(path);
        urls.push(own.to_string());
    }
    if let Some(host) = h.get(header::HOST).and_then(|v| v.to_str().ok()) {
        urls.push(format!("http://{host}{path}"));
    }
    let presented = crate::auth::Presented { authorization: value, dpop, method, urls: &urls };
    let info = resource.check_request(presented).await.map_err(refuse)?;
    let token = value.and_then(|v| v.split_once(' ')).map(|(_, t)| t.trim().to_string()).unwrap_or_default();
    Ok(Some(Authorized { info, token }))
}

/// A request's verified token: who it speaks for, and the token (the session's owner
/// when it names nobody).
pub(super) struct Authorized {
    info: AuthInfo,
    token: String,
}

/// The scopes the tool calls of a POST need beyond the server's.
pub(super) fn check_calls(app: &App, auth: Option<&Authorized>, posted: &Posted) -> Result<(), Response> {
    let (Some(resource), Some(Authorized { info: auth, .. })) = (&app.config.auth, auth) else { return Ok(()) };
    for m in posted.messages() {
        if let Message::Request { method, params, .. } = m {
            if method == methods::TOOLS_CALL {
                let name = params.as_ref().and_then(|p| p.get("name")).and_then(|n| n.as_str()).unwrap_or_default();
                resource.check_scopes(auth, resource.tool_scopes(name)).map_err(refuse)?;
            }
        }
    }
    Ok(())
}

impl Authorized {
    /// Who the token speaks for, as a session's owner.
    pub(super) fn owner(&self) -> String {
        crate::auth::SessionAuth::owner(&self.info, &self.token)
    }
}

/// Records who the request speaks for on its session; another subject's token cannot use
/// the session.
pub(super) fn bind(hub: &Hub, auth: Option<Authorized>) -> Result<(), Response> {
    if let (Some(slot), Some(Authorized { info, token })) = (&hub.auth, auth) {
        if !slot.bind(info, &token) {
            return Err(error(StatusCode::FORBIDDEN, codes::INVALID_REQUEST, "this session belongs to another user"));
        }
    }
    Ok(())
}
