//! Getting tokens: the authorization code grant with PKCE (the user authorizes in a
//! browser, the [`UserAgent`](super::UserAgent)), refreshing, and client credentials.
//! Every request names the resource (RFC 8707); the authorization response's `state` and
//! `iss` (RFC 9207) are checked before its code is used.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use super::discover::Discovered;
use super::dpop::DpopKey;
use super::fetch::{body, clean, denied, error_of, form};
use super::identity::authenticate;
use super::{AuthorizationRequest, OAuthOptions, UserAgent};
use crate::auth::pkce::{random_token, Pkce};
use crate::auth::store::{now_secs, ClientRegistration, Tokens};
use crate::error::{Error, ErrorKind, Result};

/// What every token request needs: the HTTP client, the options, and the DPoP key with
/// the authorization server's latest nonce.
pub(crate) struct Cx<'a> {
    pub(crate) http: &'a reqwest::Client,
    pub(crate) options: &'a OAuthOptions,
    pub(crate) dpop: std::sync::Arc<DpopKey>,
    pub(crate) as_nonce: &'a std::sync::Mutex<Option<String>>,
    /// The server challenged with the DPoP scheme.
    pub(crate) server_wants_dpop: bool,
}

impl Cx<'_> {
    /// The key when tokens from this authorization server are to be bound to it: the
    /// server asks for DPoP (its challenge's scheme, or its resource metadata) or the
    /// client was told to use it, and the authorization server offers it with ES256.
    /// A server that takes Bearer tokens only gets Bearer tokens.
    pub(crate) fn dpop_for(&self, d: &Discovered) -> Option<&DpopKey> {
        let offered = d.meta.extra.get("dpop_signing_alg_values_supported").and_then(Value::as_array);
        let es256 = offered.is_some_and(|algs| algs.iter().any(|a| a == "ES256"));
        let wanted = match self.options.dpop {
            Some(on) => on,
            None => self.server_wants_dpop || d.resource_wants_dpop,
        };
        (es256 && wanted).then_some(&*self.dpop)
    }
}

/// The most bytes of a token accepted: a larger one is the server's error, not a token.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Runs the authorization code grant: the user agent visits the authorization URL and
/// returns the URL the browser was sent back to.
pub(crate) async fn authorization_code(
    cx: &Cx<'_>,
    agent: &UserAgent,
    d: &Discovered,
    client: &ClientRegistration,
    scope: Option<&str>,
) -> Result<Tokens> {
    let options = cx.options;
    d.meta.check_pkce().map_err(|e| denied(e.message().to_string()))?;
    let endpoint = d
        .meta
        .authorization_endpoint
        .as_deref()
        .ok_or_else(|| denied(format!("the authorization server {:?} has no authorization endpoint", d.issuer)))?;
    let pkce = Pkce::new();
    let state = random_token();
    let redirect_uri = options.redirect_uri();
    let mut url = reqwest::Url::parse(endpoint)
        .map_err(|e| Error::new(ErrorKind::Protocol, format!("invalid authorization endpoint: {e}")))?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code");
        q.append_pair("client_id", &client.client_id);
        q.append_pair("redirect_uri", &redirect_uri);
        q.append_pair("code_challenge", pkce.challenge());
        q.append_pair("code_challenge_method", pkce.method());
        q.append_pair("state", &state);
        if let Some(s) = scope {
            q.append_pair("scope", s);
        }
        q.append_pair("resource", &d.resource);
    }
    let landed =
        agent(AuthorizationRequest { url: url.to_string(), redirect_uri: redirect_uri.clone(), state: state.clone() }).await?;
    let code = read_callback(&landed, &redirect_uri, &state, d)?;
    let pairs = vec![
        ("grant_type", "authorization_code".to_string()),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", pkce.verifier().to_string()),
        ("resource", d.resource.clone()),
    ];
    token_request(cx, d, client, &pairs, scope).await
}

/// Checks the URL the authorization server sent the browser back to and returns its code.
fn read_callback(landed: &str, redirect_uri: &str, state: &str, d: &Discovered) -> Result<String> {
    let url = reqwest::Url::parse(landed).map_err(|_| denied("the authorization response is not a URL"))?;
    let expected = reqwest::Url::parse(redirect_uri)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid redirect URI: {e}")))?;
    if url.origin() != expected.origin() || url.path() != expected.path() {
        return Err(denied("the authorization response went to another address than this client's redirect URI"));
    }
    let get = |k: &str| url.query_pairs().find(|(n, _)| n == k).map(|(_, v)| v.into_owned());
    if get("state").as_deref() != Some(state) {
        return Err(denied("the authorization response's state does not match the request (a forged or stale response)"));
    }
    if let Some(error) = get("error") {
        let why = get("error_description").map(|d| format!(": {}", clean(&d))).unwrap_or_default();
        return Err(denied(format!("the authorization server refused: {}{why}", clean(&error))));
    }
    // RFC 9207: an `iss` present must be exactly the issuer (no normalization), and one
    // the server promised must be present.
    match get("iss") {
        Some(iss) if iss != d.issuer => {
            return Err(denied(format!("the authorization response comes from {:?}, not from {:?}", clean(&iss), d.issuer)))
        }
        None if d.meta.authorization_response_iss_parameter_supported == Some(true) => {
            return Err(denied("the authorization response lacks the iss parameter its server promised"))
        }
        _ => {}
    }
    get("code").filter(|c| !c.is_empty()).ok_or_else(|| denied("the authorization response carries no code"))
}

/// Gets new tokens with a refresh token; the refresh token is kept when the server does
/// not send a new one.
pub(crate) async fn refresh(cx: &Cx<'_>, d: &Discovered, client: &ClientRegistration, old: &Tokens) -> Result<Tokens> {
    let refresh_token = old.refresh_token.clone().ok_or_else(|| denied("no refresh token"))?;
    let pairs = vec![
        ("grant_type", "refresh_token".to_string()),
        ("refresh_token", refresh_token.clone()),
        ("resource", d.resource.clone()),
    ];
    let mut tokens = token_request(cx, d, client, &pairs, old.scope.as_deref()).await?;
    tokens.refresh_token.get_or_insert(refresh_token);
    if tokens.scope.is_none() {
        tokens.scope = old.scope.clone();
    }
    Ok(tokens)
}

/// The client credentials grant (a machine, no user).
pub(crate) async fn client_credentials(
    cx: &Cx<'_>,
    d: &Discovered,
    client: &ClientRegistration,
    scope: Option<&str>,
) -> Result<Tokens> {
    let mut pairs = vec![("grant_type", "client_credentials".to_string()), ("resource", d.resource.clone())];
    if let Some(s) = scope {
        pairs.push(("scope", s.to_string()));
    }
    token_request(cx, d, client, &pairs, scope).await
}

/// The JWT bearer grant (RFC 7523 §2.1): `assertion` for an access token.
pub(crate) async fn jwt_bearer(
    cx: &Cx<'_>,
    d: &Discovered,
    client: &ClientRegistration,
    assertion: &str,
    scope: Option<&str>,
) -> Result<Tokens> {
    let mut pairs = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer".to_string()),
        ("assertion", assertion.to_string()),
        ("resource", d.resource.clone()),
    ];
    if let Some(s) = scope {
        pairs.push(("scope", s.to_string()));
    }
    token_request(cx, d, client, &pairs, scope).await
}

/// Enterprise-managed authorization's first step: the identity provider exchanges the
/// user's ID token for an identity assertion grant (an ID-JAG) for this resource at this
/// authorization server (RFC 8693 token exchange).
pub(crate) async fn identity_assertion(cx: &Cx<'_>, d: &Discovered, scope: Option<&str>) -> Result<String> {
    let (http, options) = (cx.http, cx.options);
    let missing = |what: &str| Error::new(ErrorKind::InvalidInput, format!("the enterprise_managed grant needs {what}"));
    let endpoint = options.idp_token_endpoint.as_deref().ok_or_else(|| missing("idp_token_endpoint"))?;
    let id_token = options.id_token.as_deref().ok_or_else(|| missing("id_token"))?;
    let idp_client = ClientRegistration {
        client_id: options.idp_client_id.clone().ok_or_else(|| missing("idp_client_id"))?,
        client_secret: options.idp_client_secret.clone(),
        token_endpoint_auth_method: Some(if options.idp_client_secret.is_some() { "client_secret_basic" } else { "none" }.into()),
    };
    let mut pairs = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange".to_string()),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag".to_string()),
        ("audience", d.issuer.clone()),
        ("resource", d.resource.clone()),
        ("subject_token", id_token.to_string()),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token".to_string()),
    ];
    if let Some(s) = scope {
        pairs.push(("scope", s.to_string()));
    }
    let req = http.post(endpoint).header(CONTENT_TYPE, "application/x-www-form-urlencoded").header(ACCEPT, "application/json");
    let req = authenticate(req, &mut pairs, &idp_client, options, endpoint)?;
    let v = post_form(req, endpoint, &pairs, "the identity provider").await?;
    v["access_token"].as_str().filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_BYTES).map(str::to_string).ok_or_else(|| {
        Error::new(ErrorKind::Protocol, "the identity provider's token exchange answer has no usable access_token")
    })
}

/// POSTs a form and reads the JSON answer; a refusal is the `who`'s error.
async fn post_form(req: reqwest::RequestBuilder, endpoint: &str, pairs: &[(&'static str, String)], who: &str) -> Result<Value> {
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let resp = req
        .body(form(&borrowed))
        .send()
        .await
        .map_err(|e| Error::caused(ErrorKind::Transport, format!("the token request to {endpoint} failed: {e}"), e))?;
    let status = resp.status();
    let bytes = body("token response", resp).await?;
    if !status.is_success() {
        return Err(denied(format!("{who} refused: {}", error_of(status, &bytes))));
    }
    serde_json::from_slice(&bytes).map_err(|_| Error::new(ErrorKind::Protocol, "invalid token response: not JSON"))
}

/// POSTs a token request and reads the tokens. `requested` is the scope asked for, kept
/// as the granted one when the server does not say. With DPoP the request carries a proof,
/// and is sent once more with the server's nonce when it asks for one.
async fn token_request(
    cx: &Cx<'_>,
    d: &Discovered,
    client: &ClientRegistration,
    pairs: &[(&'static str, String)],
    requested: Option<&str>,
) -> Result<Tokens> {
    let endpoint = d.token_endpoint()?;
    let dpop = cx.dpop_for(d);
    let mut asked_nonce = false;
    loop {
        let mut fields = pairs.to_vec();
        let mut req =
            cx.http.post(endpoint).header(CONTENT_TYPE, "application/x-www-form-urlencoded").header(ACCEPT, "application/json");
        req = authenticate(req, &mut fields, client, cx.options, &d.issuer)?;
        if let Some(key) = dpop {
            let nonce = cx.as_nonce.lock().unwrap_or_else(|e| e.into_inner()).clone();
            req = req.header("dpop", key.proof("POST", endpoint, nonce.as_deref(), None));
        }
        let borrowed: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = req
            .body(form(&borrowed))
            .send()
            .await
            .map_err(|e| Error::caused(ErrorKind::Transport, format!("the token request to {endpoint} failed: {e}"), e))?;
        let status = resp.status();
        let nonce = resp.headers().get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::to_string);
        let bytes = body("token response", resp).await?;
        if status.is_success() {
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|_| Error::new(ErrorKind::Protocol, "invalid token response: not JSON"))?;
            return read_tokens(&v, requested, dpop.is_some());
        }
        let error = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["error"].as_str().map(str::to_string));
        if let (Some(_), Some(n), Some("use_dpop_nonce"), false) = (dpop, nonce, error.as_deref(), asked_nonce) {
            *cx.as_nonce.lock().unwrap_or_else(|e| e.into_inner()) = Some(n);
            asked_nonce = true;
            continue;
        }
        return Err(denied(format!("the token endpoint refused: {}", error_of(status, &bytes))));
    }
}

/// Reads a token response (RFC 6749 §5.1).
fn read_tokens(v: &Value, requested: Option<&str>, dpop: bool) -> Result<Tokens> {
    let bad = |why: &str| Error::new(ErrorKind::Protocol, format!("invalid token response: {why}"));
    let access_token = v["access_token"].as_str().filter(|t| !t.is_empty()).ok_or_else(|| bad("no access_token"))?;
    if access_token.len() > MAX_TOKEN_BYTES {
        return Err(bad("the access token is too large"));
    }
    // A token goes into a header: one that cannot is refused here, not at every request.
    if reqwest::header::HeaderValue::from_str(&format!("Bearer {access_token}")).is_err() {
        return Err(bad("the access token has characters a header cannot carry"));
    }
    // A DPoP-bound token only when a proof went with the request.
    let token_type = match v["token_type"].as_str().unwrap_or("Bearer") {
        t if t.eq_ignore_ascii_case("bearer") => "Bearer",
        t if dpop && t.eq_ignore_ascii_case("dpop") => "DPoP",
        t => return Err(bad(&format!("token type {:?} is not {}", clean(t), if dpop { "DPoP" } else { "Bearer" }))),
    };
    let refresh_token = v["refresh_token"].as_str().filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_BYTES).map(str::to_string);
    Ok(Tokens {
        access_token: access_token.to_string(),
        token_type: token_type.into(),
        refresh_token,
        expires_at: v["expires_in"].as_u64().map(|s| now_secs().saturating_add(s)),
        scope: v["scope"].as_str().map(str::to_string).or_else(|| requested.map(str::to_string)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::metadata::AuthorizationServerMetadata;

    fn discovered(iss_supported: Option<bool>) -> Discovered {
        let meta: AuthorizationServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example.com",
            "authorization_response_iss_parameter_supported": iss_supported,
        }))
        .unwrap();
        Discovered {
            resource: "https://mcp.example.com/mcp".into(),
            resource_scopes: None,
            resource_wants_dpop: false,
            issuer: meta.issuer.clone(),
            meta,
        }
    }

    #[test]
    fn the_callback_is_checked_before_its_code_is_used() {
        let d = discovered(Some(true));
        let cb = "http://127.0.0.1:9/cb";
        let ok = "http://127.0.0.1:9/cb?code=C&state=S&iss=https%3A%2F%2Fas.example.com";
        assert_eq!(read_callback(ok, cb, "S", &d).unwrap(), "C");
        for (landed, why) in [
            ("http://127.0.0.1:9/cb?code=C&state=X&iss=https%3A%2F%2Fas.example.com", "state"),
            ("http://127.0.0.1:9/cb?code=C&state=S", "lacks the iss"),
            ("http://127.0.0.1:9/cb?code=C&state=S&iss=https%3A%2F%2Fas.example.com%2F", "not from"),
            ("http://127.0.0.1:9/cb?code=C&state=S&iss=https%3A%2F%2FAS.example.com", "not from"),
            ("http://evil.example.com/cb?code=C&state=S&iss=https%3A%2F%2Fas.example.com", "another address"),
            ("http://127.0.0.1:9/cb?error=access_denied&error_description=no%0d%0a&state=S", "refused: access_denied: no"),
        ] {
            let e = read_callback(landed, cb, "S", &d).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unauthorized);
            assert!(e.message().contains(why), "{landed}: {}", e.message());
            assert!(!e.message().contains("C&"), "{}", e.message());
        }
        // Without the promise, a missing iss is accepted; a wrong one never is.
        let d = discovered(None);
        assert_eq!(read_callback("http://127.0.0.1:9/cb?code=C&state=S", cb, "S", &d).unwrap(), "C");
        assert!(read_callback("http://127.0.0.1:9/cb?code=C&state=S&iss=https%3A%2F%2Fevil", cb, "S", &d).is_err());
    }

    #[test]
    fn token_responses_are_read_strictly() {
        let read = |b: &[u8], requested| read_tokens(&serde_json::from_slice(b).unwrap_or(Value::Null), requested, false);
        let t = read(br#"{"access_token":"A","token_type":"bearer","expires_in":60,"refresh_token":"R"}"#, Some("x")).unwrap();
        assert_eq!((t.access_token.as_str(), t.refresh_token.as_deref(), t.scope.as_deref()), ("A", Some("R"), Some("x")));
        assert!(t.expires_within(61) && !t.expires_within(0));
        let huge = format!(r#"{{"access_token":"{}"}}"#, "a".repeat(MAX_TOKEN_BYTES + 1));
        for bad in
            [&b"{}"[..], b"nope", br#"{"access_token":"A","token_type":"mac"}"#, br#"{"access_token":"A\nB"}"#, huge.as_bytes()]
        {
            let e = read(bad, None).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Protocol);
            assert!(!e.message().contains("aaaa"));
        }
    }
}
