//! RFC 7662 token introspection: the server asks the authorization server whether an
//! opaque token is active, authenticating as a client of its own. An active token whose
//! `aud` is given must name this server.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;

use super::{refused, AuthInfo};
use crate::auth::client::fetch::{body, form, http_client};
use crate::error::{Error, ErrorKind, Result};

/// Checks tokens at an introspection endpoint.
pub struct Introspection {
    endpoint: String,
    client_id: String,
    client_secret: String,
    audience: String,
    http: reqwest::Client,
}

impl Introspection {
    /// Introspects at `endpoint` as `client_id`/`client_secret` (basic authentication);
    /// tokens must be for `audience` when the answer names one.
    pub fn new(
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        Self {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audience: audience.into(),
            http: http_client(),
        }
    }

    /// Asks about `token`.
    pub async fn verify(&self, token: &str) -> Result<AuthInfo> {
        // RFC 6749 §2.3.1: both parts form-encoded before they are joined.
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let basic = STANDARD.encode(format!("{}:{}", enc(&self.client_id), enc(&self.client_secret)));
        let resp = self
            .http
            .post(&self.endpoint)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .header(AUTHORIZATION, format!("Basic {basic}"))
            .body(form(&[("token", token), ("token_type_hint", "access_token")]))
            .send()
            .await
            .map_err(|e| Error::caused(ErrorKind::Transport, format!("token introspection failed: {e}"), e))?;
        let status = resp.status();
        let bytes = body("introspection answer", resp).await?;
        if !status.is_success() {
            return Err(Error::new(ErrorKind::Protocol, format!("token introspection answered HTTP {status}")));
        }
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|_| Error::new(ErrorKind::Protocol, "the introspection answer is not JSON"))?;
        if v["active"] != Value::Bool(true) {
            return Err(refused("the token is not active"));
        }
        if v["token_type"].as_str().is_some_and(|t| t.eq_ignore_ascii_case("refresh_token")) {
            return Err(refused("a refresh token is no access token"));
        }
        // The token must name this server: one without an audience could be for any API
        // of the same authorization server.
        let bare = self.audience.trim_end_matches('/');
        let for_us = |a: &Value| a.as_str().is_some_and(|s| s.trim_end_matches('/') == bare);
        let aud_ok = match &v["aud"] {
            Value::Array(list) => list.iter().any(for_us),
            one => for_us(one),
        };
        if !aud_ok {
            return Err(refused("the token was issued for another audience"));
        }
        Ok(AuthInfo::from_claims(v))
    }
}
