//! Who the client is at an authorization server, in the MCP specification's order of
//! preference: credentials registered beforehand, a client ID metadata document URL
//! (when the server supports them), then dynamic client registration (RFC 7591). And how
//! it proves it at the token endpoint: `client_secret_basic`, `client_secret_post`,
//! `private_key_jwt` (RFC 7523) or `none`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::{json, Value};

use super::discover::Discovered;
use super::fetch::{body, clean, denied, error_of};
use super::OAuthOptions;
use crate::auth::store::ClientRegistration;
use crate::error::{Error, ErrorKind, Result};

/// The method a client with (or without) a secret uses at a server that lists `supported`
/// (RFC 8414: `client_secret_basic` when the server lists nothing).
fn method_for(has_secret: bool, supported: Option<&[String]>) -> &'static str {
    if !has_secret {
        return "none";
    }
    let listed = |m: &str| supported.is_none_or(|s| s.iter().any(|x| x == m));
    if listed("client_secret_basic") {
        "client_secret_basic"
    } else if listed("client_secret_post") {
        "client_secret_post"
    } else {
        "client_secret_basic"
    }
}

/// The identity to use with the authorization server `d` found, registering one if need
/// be; `Ok((registration, true))` when it was just obtained by dynamic registration (the
/// caller keeps it).
pub(crate) async fn identify(
    http: &reqwest::Client,
    options: &OAuthOptions,
    d: &Discovered,
    kept: Option<&ClientRegistration>,
) -> Result<(ClientRegistration, bool)> {
    let supported = d.meta.token_endpoint_auth_methods_supported.as_deref();
    if let Some(id) = &options.client_id {
        let method = options.token_endpoint_auth_method.clone().unwrap_or_else(|| {
            if options.private_key_pem.is_some() {
                "private_key_jwt".into()
            } else {
                method_for(options.client_secret.is_some(), supported).into()
            }
        });
        let reg = ClientRegistration {
            client_id: id.clone(),
            client_secret: options.client_secret.clone(),
            token_endpoint_auth_method: Some(method),
        };
        return Ok((reg, false));
    }
    if let Some(reg) = kept {
        return Ok((reg.clone(), false));
    }
    if let (Some(url), Some(true)) = (&options.client_metadata_url, d.meta.client_id_metadata_document_supported) {
        let reg =
            ClientRegistration { client_id: url.clone(), client_secret: None, token_endpoint_auth_method: Some("none".into()) };
        return Ok((reg, false));
    }
    let Some(endpoint) = &d.meta.registration_endpoint else {
        return Err(denied(format!(
            "the authorization server {:?} offers no dynamic client registration and no client id is configured",
            d.issuer
        )));
    };
    register(http, options, endpoint, supported).await.map(|r| (r, true))
}

/// Dynamic client registration: a native application (SEP-837) that asks for refresh
/// tokens too (SEP-2207).
async fn register(
    http: &reqwest::Client,
    options: &OAuthOptions,
    endpoint: &str,
    supported: Option<&[String]>,
) -> Result<ClientRegistration> {
    // A public client when the server takes one; a secret otherwise.
    let asked = if supported.is_some_and(|s| s.iter().any(|m| m == "none")) { "none" } else { method_for(true, supported) };
    let metadata = json!({
        "client_name": options.client_name(),
        "redirect_uris": [options.redirect_uri()],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
        "application_type": "native",
    });
    let resp = http
        .post(endpoint)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json")
        .body(metadata.to_string())
        .send()
        .await
        .map_err(|e| Error::caused(ErrorKind::Transport, format!("client registration at {endpoint} failed: {e}"), e))?;
    let status = resp.status();
    let bytes = body("registration response", resp).await?;
    if !status.is_success() {
        return Err(denied(format!("the authorization server refused to register this client: {}", error_of(status, &bytes))));
    }
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::new(ErrorKind::Protocol, format!("invalid client registration response: {e}")))?;
    let client_id = v["client_id"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Error::new(ErrorKind::Protocol, "the client registration response has no client_id"))?;
    let secret = v["client_secret"].as_str().filter(|s| !s.is_empty()).map(str::to_string);
    let method = v["token_endpoint_auth_method"].as_str().map(clean).unwrap_or_else(|| {
        if secret.is_some() && asked == "none" {
            method_for(true, supported).into()
        } else {
            asked.into()
        }
    });
    Ok(ClientRegistration { client_id: client_id.to_string(), client_secret: secret, token_endpoint_auth_method: Some(method) })
}

/// Adds the client's authentication to a token request: a header, or form fields.
pub(crate) fn authenticate(
    req: reqwest::RequestBuilder,
    form: &mut Vec<(&'static str, String)>,
    client: &ClientRegistration,
    options: &OAuthOptions,
    issuer: &str,
) -> Result<reqwest::RequestBuilder> {
    let secret = || {
        client
            .client_secret
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "this client authentication method needs a client secret"))
    };
    Ok(match client.token_endpoint_auth_method.as_deref().unwrap_or("none") {
        "client_secret_basic" => {
            // RFC 6749 §2.3.1: both parts form-encoded before they are joined.
            let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", enc(&client.client_id), enc(&secret()?));
            req.header(AUTHORIZATION, format!("Basic {}", STANDARD.encode(pair)))
        }
        "client_secret_post" => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret()?));
            req
        }
        "private_key_jwt" => {
            let pem = options
                .private_key_pem
                .as_deref()
                .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "private_key_jwt needs a private key (PEM)"))?;
            let assertion = super::assertion::client_assertion(&client.client_id, issuer, pem, options.signing_alg.as_deref())?;
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into()));
            form.push(("client_assertion", assertion));
            req
        }
        _ => {
            form.push(("client_id", client.client_id.clone()));
            req
        }
    })
}
