//! The OAuth client's own HTTP requests: documents read with a size bound, forms posted,
//! and an authorization server's error answer (`error`, `error_description`) made into a
//! clear error that never carries a token.

use reqwest::header::ACCEPT;
use serde_json::Value;

use crate::auth::metadata::MAX_METADATA_BYTES;
use crate::error::{Error, ErrorKind, Result};

/// An authorization failure the user should see (kind [`ErrorKind::Unauthorized`]).
pub(crate) fn denied(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unauthorized, message)
}

/// The client every authorization request goes through: redirects are never followed
/// (an authorization server's redirect is the user agent's business, and following one
/// elsewhere could carry a code or a token to another host).
pub(crate) fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap_or_default()
}

/// Reads a response body, refusing one larger than `MAX_METADATA_BYTES`.
pub(crate) async fn body(what: &str, mut resp: reqwest::Response) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(chunk) =
        resp.chunk().await.map_err(|e| Error::caused(ErrorKind::Transport, format!("reading the {what} failed: {e}"), e))?
    {
        if out.len() + chunk.len() > MAX_METADATA_BYTES {
            return Err(Error::new(ErrorKind::Protocol, format!("the {what} is larger than {MAX_METADATA_BYTES} bytes")));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// GETs a JSON document: `Ok(None)` when the server has none there (any 4xx), the body on
/// 200, an error otherwise.
pub(crate) async fn get_document(
    http: &reqwest::Client,
    what: &str,
    url: &str,
    headers: &[(&str, &str)],
) -> Result<Option<Vec<u8>>> {
    let mut req = http.get(url).header(ACCEPT, "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| Error::caused(ErrorKind::Transport, format!("fetching the {what} at {url} failed: {e}"), e))?;
    let status = resp.status();
    if status.is_client_error() {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(Error::new(ErrorKind::Protocol, format!("fetching the {what} at {url} answered HTTP {status}")));
    }
    body(what, resp).await.map(Some)
}

/// `application/x-www-form-urlencoded` of `pairs`.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// What an authorization server's error answer says, for a message (RFC 6749 §5.2):
/// `error: description`, the status when the body says nothing usable.
pub(crate) fn error_of(status: reqwest::StatusCode, body: &[u8]) -> String {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let code = v["error"].as_str().map(clean);
    let desc = v["error_description"].as_str().map(clean);
    match (code, desc) {
        (Some(c), Some(d)) => format!("{c}: {d}"),
        (Some(c), None) => c,
        _ => format!("HTTP {status}"),
    }
}

/// A peer's text, shortened and stripped of control characters, fit for a message.
pub(crate) fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(200).collect()
}
