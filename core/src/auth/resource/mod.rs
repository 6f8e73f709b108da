//! The protected-server side of MCP authorization: what a server publishes about itself
//! (protected resource metadata, RFC 9728), how it checks the access token each request
//! carries (a JWT against its issuer's keys, RFC 7662 introspection, or the host's own
//! check), and how it refuses: 401 with a `WWW-Authenticate` challenge that tells the
//! client where to authorize, 403 `insufficient_scope` when the token lacks a scope.
//!
//! Tokens are never passed on, and a JWT or introspected token is accepted only when it
//! was issued for this server (its audience), so one a client got for another server is
//! refused. A host's own check ([`TokenVerifier::Custom`]) must make sure of that itself.
//!
//! - `jwt`: JWT access tokens checked against the issuer's JWKS (discovered, cached,
//!   fetched again for an unknown key id);
//! - `introspect`: asking the authorization server about an opaque token;
//! - `dpop`: proofs of possession for tokens bound to a client's key (RFC 9449).

mod dpop;
mod introspect;
mod jwt;

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use crate::error::{Error, ErrorKind, Result};

pub use introspect::Introspection;
pub use jwt::JwtVerifier;

pub use super::subject::{AuthInfo, SessionAuth};

/// A host's own token check: the token in, who it speaks for out (an error refuses it).
pub type VerifyFn = Arc<dyn Fn(String) -> BoxFuture<'static, Result<AuthInfo>> + Send + Sync>;

/// How a protected server checks access tokens.
#[derive(Clone)]
pub enum TokenVerifier {
    /// JWTs signed by the issuer's keys, for this server's audience.
    Jwt(Arc<JwtVerifier>),
    /// RFC 7662 introspection at the authorization server.
    Introspection(Arc<Introspection>),
    /// The host's own check.
    Custom(VerifyFn),
}

impl TokenVerifier {
    async fn verify(&self, token: &str) -> Result<AuthInfo> {
        match self {
            TokenVerifier::Jwt(v) => v.verify(token).await,
            TokenVerifier::Introspection(v) => v.verify(token).await,
            TokenVerifier::Custom(f) => f(token.to_string()).await,
        }
    }
}

/// A protected server's settings.
#[derive(Clone)]
pub struct ProtectedResource {
    /// The server's resource identifier: its MCP endpoint's URL, the audience tokens must
    /// name.
    pub resource: String,
    /// The issuers of the authorization servers clients go to.
    pub authorization_servers: Vec<String>,
    /// Scopes published in the metadata (default: the required ones and every tool's).
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
    /// Scopes a call of the named tool needs besides those.
    pub tool_scopes: HashMap<String, Vec<String>>,
    /// How tokens are checked.
    pub verifier: TokenVerifier,
    /// DPoP proof ids seen lately (shared by clones: one server).
    replays: Arc<dpop::Replays>,
}

/// What a request presents for authorization: its `Authorization` and `DPoP` headers,
/// its method, and the URLs it may have been sent to (for a DPoP proof's `htu`; none:
/// the resource's own URL).
#[derive(Debug, Clone, Copy, Default)]
pub struct Presented<'a> {
    /// The `Authorization` header's value.
    pub authorization: Option<&'a str>,
    /// The `DPoP` header's value (a proof).
    pub dpop: Option<&'a str>,
    /// The request's method.
    pub method: &'a str,
    /// The URLs the request may have been sent to, query and fragment left out.
    pub urls: &'a [String],
}

/// Why a request was refused: the status to answer, and its `WWW-Authenticate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// 401 (no valid token) or 403 (a scope is missing).
    pub status: u16,
    /// The challenge to send.
    pub www_authenticate: String,
    /// Why, for the response body (never the token).
    pub message: String,
}

impl ProtectedResource {
    /// JWT checking against `issuer`'s keys, for `resource` (the audience).
    pub fn jwt(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        let (resource, issuer) = (resource.into(), issuer.into());
        let verifier = TokenVerifier::Jwt(Arc::new(JwtVerifier::new(issuer.clone(), resource.clone())));
        Self::new(resource, vec![issuer], verifier)
    }

    /// A resource checked by `verifier`, whose clients authorize at `authorization_servers`.
    pub fn new(resource: impl Into<String>, authorization_servers: Vec<String>, verifier: TokenVerifier) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: None,
            required_scopes: Vec::new(),
            tool_scopes: HashMap::new(),
            verifier,
            replays: Arc::default(),
        }
    }

    /// The path the metadata is served at: RFC 9728's well-known prefix before the
    /// resource's path (`/.well-known/oauth-protected-resource/mcp`).
    pub fn metadata_path(&self) -> String {
        let path = reqwest::Url::parse(&self.resource).map(|u| u.path().trim_end_matches('/').to_string()).unwrap_or_default();
        format!("/.well-known/oauth-protected-resource{path}")
    }

    /// The metadata's URL.
    pub fn metadata_url(&self) -> String {
        let origin = reqwest::Url::parse(&self.resource).map(|u| u.origin().ascii_serialization()).unwrap_or_default();
        format!("{origin}{}", self.metadata_path())
    }

    /// The protected resource metadata document.
    pub fn metadata(&self) -> Value {
        let scopes = self.scopes_supported.clone().unwrap_or_else(|| {
            let mut all = self.required_scopes.clone();
            for s in self.tool_scopes.values().flatten() {
                if !all.contains(s) {
                    all.push(s.clone());
                }
            }
            all
        });
        let mut doc = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
            "dpop_signing_alg_values_supported": ["ES256"],
        });
        if !scopes.is_empty() {
            doc["scopes_supported"] = json!(scopes);
        }
        doc
    }

    fn challenge(&self, error: Option<(&str, &str)>, scope: &[String]) -> String {
        let mut c = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if !scope.is_empty() {
            c.push_str(&format!(", scope=\"{}\"", scope.join(" ")));
        }
        if let Some((code, description)) = error {
            c.push_str(&format!(", error=\"{code}\", error_description=\"{}\"", description.replace(['"', '\\'], "'")));
        }
        c
    }

    /// Checks a request's `Authorization` header value, a bearer token (one bound to a
    /// DPoP key is refused: see [`ProtectedResource::check_request`]): who the token
    /// speaks for, or the refusal to answer with.
    pub async fn check(&self, authorization: Option<&str>) -> std::result::Result<AuthInfo, Denial> {
        self.check_request(Presented { authorization, method: "POST", ..Default::default() }).await
    }

    /// Checks what a request presents: a `Bearer` token, or a `DPoP` token with the proof
    /// it is bound to (RFC 9449); who the token speaks for, or the refusal to answer with.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use oxmcp::auth::{AuthInfo, Presented, ProtectedResource, TokenVerifier, VerifyFn};
    /// let verify: VerifyFn = Arc::new(|_token| Box::pin(async {
    ///     Ok(AuthInfo { subject: Some("u1".into()), claims: serde_json::json!({"cnf": {"jkt": "abc"}}), ..Default::default() })
    /// }));
    /// let resource = ProtectedResource::new("http://127.0.0.1:8000/mcp", vec![], TokenVerifier::Custom(verify));
    /// // A token bound to a key, sent as a plain bearer token: refused.
    /// let stolen = Presented { authorization: Some("Bearer t"), method: "POST", ..Default::default() };
    /// assert_eq!(resource.check_request(stolen).await.unwrap_err().status, 401);
    /// # }
    /// ```
    pub async fn check_request(&self, presented: Presented<'_>) -> std::result::Result<AuthInfo, Denial> {
        let unauthorized = |error: Option<(&str, &str)>, message: String| Denial {
            status: 401,
            www_authenticate: self.challenge(error, &self.required_scopes),
            message,
        };
        let Some(value) = presented.authorization else {
            return Err(unauthorized(None, "this server needs an access token (see its protected resource metadata)".into()));
        };
        let (dpop, token) = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => (false, token.trim()),
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("dpop") && !token.trim().is_empty() => (true, token.trim()),
            _ => {
                return Err(Denial {
                    status: 400,
                    www_authenticate: self.challenge(Some(("invalid_request", "expected a Bearer token")), &self.required_scopes),
                    message: "expected a Bearer or DPoP token".into(),
                })
            }
        };
        if token.len() > crate::auth::client::MAX_TOKEN_BYTES {
            return Err(unauthorized(Some(("invalid_token", "the token is too large")), "the token is too large".into()));
        }
        let info = match self.verifier.verify(token).await {
            Ok(info) => info,
            Err(e) if e.kind() == ErrorKind::Unauthorized => {
                let why = ascii(e.message());
                return Err(unauthorized(Some(("invalid_token", &why)), format!("the access token was refused: {why}")));
            }
            // The check itself failed (the authorization server or its keys unreachable):
            // the token may well be good, so the client must not drop it; no detail of
            // this server's insides goes out.
            Err(e) => {
                tracing::warn!("checking an access token failed: {}", e.message());
                return Err(Denial {
                    status: 503,
                    www_authenticate: self.challenge(None, &self.required_scopes),
                    message: "the access token cannot be checked now; try again later".into(),
                });
            }
        };
        self.check_binding(&info, token, dpop, &presented)?;
        self.check_scopes(&info, &self.required_scopes)?;
        Ok(info)
    }

    /// A token bound to a key goes only with the `DPoP` scheme and a good proof; an
    /// unbound one only as a bearer token.
    fn check_binding(
        &self,
        info: &AuthInfo,
        token: &str,
        dpop: bool,
        presented: &Presented<'_>,
    ) -> std::result::Result<(), Denial> {
        let refuse = |scheme: &str, code: &str, why: &str| Denial {
            status: 401,
            www_authenticate: if scheme == "DPoP" {
                format!("DPoP algs=\"ES256\", error=\"{code}\", error_description=\"{}\"", why.replace(['"', '\\'], "'"))
            } else {
                self.challenge(Some((code, why)), &self.required_scopes)
            },
            message: format!("the access token was refused: {why}"),
        };
        match (dpop, dpop::bound_key(&info.claims)) {
            (false, None) => Ok(()),
            (false, Some(_)) => {
                Err(refuse("DPoP", "invalid_token", "this token is bound to a DPoP key: send it with a DPoP proof"))
            }
            (true, None) => {
                Err(refuse("Bearer", "invalid_token", "this token is not bound to a DPoP key: send it as a Bearer token"))
            }
            (true, Some(jkt)) => {
                let Some(proof) = presented.dpop else {
                    return Err(refuse("DPoP", "invalid_dpop_proof", "a DPoP proof is required"));
                };
                let own = dpop::htu_of(&self.resource).into_iter().collect::<Vec<_>>();
                let urls = if presented.urls.is_empty() { &own[..] } else { presented.urls };
                let expected = dpop::Expected { method: presented.method, urls, token, jkt };
                dpop::check(proof, &expected, &self.replays).map_err(|why| refuse("DPoP", "invalid_dpop_proof", &why))
            }
        }
    }

    /// Refuses with 403 when `info` lacks a scope of `needed`.
    pub fn check_scopes(&self, info: &AuthInfo, needed: &[String]) -> std::result::Result<(), Denial> {
        if info.has_scopes(needed) {
            return Ok(());
        }
        // The challenge names every scope needed, those held included, so a client that
        // asks for exactly these loses nothing it had.
        let mut scope: Vec<String> = info.scopes.clone();
        for n in needed {
            if !scope.contains(n) {
                scope.push(n.clone());
            }
        }
        let missing: Vec<&str> = needed.iter().filter(|n| !info.scopes.contains(n)).map(String::as_str).collect();
        let message = format!("the access token lacks the scope {}", missing.join(" "));
        Err(Denial { status: 403, www_authenticate: self.challenge(Some(("insufficient_scope", &message)), &scope), message })
    }

    /// The scopes a call of tool `name` needs besides the server's.
    pub fn tool_scopes(&self, name: &str) -> &[String] {
        self.tool_scopes.get(name).map_or(&[], Vec::as_slice)
    }
}

/// `s` as a header can carry it: printable ASCII only.
fn ascii(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).take(200).collect()
}

/// A peer's answer that does not make sense as a token check.
pub(crate) fn refused(why: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unauthorized, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource() -> ProtectedResource {
        let verify: VerifyFn = Arc::new(|token: String| {
            Box::pin(async move {
                match token.as_str() {
                    "good" => Ok(AuthInfo::from_claims(json!({"sub": "u1", "scope": "read"}))),
                    "unreachable" => Err(Error::new(ErrorKind::Transport, "cannot reach http://10.0.0.7/introspect")),
                    _ => Err(refused("unknown token: é")),
                }
            })
        });
        let mut r = ProtectedResource::new(
            "http://127.0.0.1:9/mcp",
            vec!["https://as.example.com".into()],
            TokenVerifier::Custom(verify),
        );
        r.required_scopes = vec!["read".into()];
        r.tool_scopes.insert("delete".into(), vec!["write".into()]);
        r
    }

    #[tokio::test]
    async fn refusals_carry_the_challenge_a_client_acts_on() {
        let r = resource();
        assert_eq!(r.metadata_url(), "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp");
        assert_eq!(r.metadata()["scopes_supported"], json!(["read", "write"]));
        let none = r.check(None).await.unwrap_err();
        assert_eq!(none.status, 401);
        assert_eq!(
            none.www_authenticate,
            "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\", scope=\"read\""
        );
        let bad = r.check(Some("Bearer nope")).await.unwrap_err();
        assert!(bad.www_authenticate.contains("error=\"invalid_token\""), "{}", bad.www_authenticate);
        assert!(bad.www_authenticate.is_ascii(), "a header value: {}", bad.www_authenticate);
        // A check that could not run is not the token's fault: 503, and nothing of this
        // server's insides goes out.
        let down = r.check(Some("Bearer unreachable")).await.unwrap_err();
        assert_eq!(down.status, 503);
        assert!(!down.message.contains("10.0.0.7") && !down.www_authenticate.contains("10.0.0.7"));
        assert_eq!(r.check(Some("Basic abc")).await.unwrap_err().status, 400);
        let huge = format!("Bearer {}", "a".repeat(100_000));
        assert!(!r.check(Some(&huge)).await.unwrap_err().message.contains("aaaa"));
        let info = r.check(Some("Bearer good")).await.unwrap();
        assert_eq!(info.subject.as_deref(), Some("u1"));
        let more = r.check_scopes(&info, r.tool_scopes("delete")).unwrap_err();
        assert_eq!(more.status, 403);
        assert!(more.www_authenticate.contains("scope=\"read write\"") && more.www_authenticate.contains("insufficient_scope"));
        // The challenge parses back into what the client reads.
        let c = crate::auth::Challenge::bearer(&more.www_authenticate).unwrap().unwrap();
        assert_eq!((c.scope.as_deref(), c.error.as_deref()), (Some("read write"), Some("insufficient_scope")));
    }

    #[test]
    fn a_session_stays_with_whoever_opened_it_even_a_token_that_names_nobody() {
        let who = |sub: Option<&str>| AuthInfo { subject: sub.map(str::to_string), ..Default::default() };
        let named = SessionAuth::default();
        assert!(named.bind(who(Some("ann")), "t1"));
        assert!(named.bind(who(Some("ann")), "t2"), "ann with a new token");
        assert!(!named.bind(who(Some("bob")), "t3"));
        let anonymous = SessionAuth::default();
        assert!(anonymous.bind(who(None), "t1"));
        assert!(!anonymous.bind(who(None), "t2"), "another token naming nobody is someone else");
        assert!(anonymous.bind(who(None), "t1"));
    }

    #[tokio::test]
    async fn a_dpop_bound_token_passes_only_with_a_fresh_proof_of_its_key() {
        use crate::auth::client::dpop::DpopKey;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine as _;
        let (key, other) = (DpopKey::generate(), DpopKey::generate());
        let url = "http://127.0.0.1:9/mcp";
        // The thumbprint of `key`, read from a proof's header as a server would.
        let header = key.proof("POST", url, None, None);
        let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header.split('.').next().unwrap()).unwrap()).unwrap();
        let jkt = dpop::thumbprint(header["jwk"]["x"].as_str().unwrap(), header["jwk"]["y"].as_str().unwrap());
        let verify: VerifyFn = Arc::new(move |token: String| {
            let jkt = jkt.clone();
            Box::pin(async move {
                match token.as_str() {
                    "bound" => Ok(AuthInfo::from_claims(json!({"sub": "u1", "cnf": {"jkt": jkt}}))),
                    "plain" => Ok(AuthInfo::from_claims(json!({"sub": "u1"}))),
                    _ => Err(refused("unknown")),
                }
            })
        });
        let r = ProtectedResource::new(url, vec![], TokenVerifier::Custom(verify));
        let urls = [url.to_string()];
        let present = |authorization: &'static str, dpop: Option<String>, method: &'static str| {
            let r = r.clone();
            let urls = urls.clone();
            async move {
                r.check_request(Presented { authorization: Some(authorization), dpop: dpop.as_deref(), method, urls: &urls })
                    .await
            }
        };
        // Replayed as a bearer token, a bound token is refused.
        let stolen = present("Bearer bound", None, "POST").await.unwrap_err();
        assert_eq!(stolen.status, 401);
        assert!(stolen.www_authenticate.starts_with("DPoP "), "{}", stolen.www_authenticate);
        assert!(present("DPoP bound", None, "POST").await.unwrap_err().www_authenticate.contains("invalid_dpop_proof"));
        // With a proof of its key for this request and token, it passes, once.
        let proof = key.proof("POST", url, None, Some("bound"));
        assert_eq!(present("DPoP bound", Some(proof.clone()), "POST").await.unwrap().subject.as_deref(), Some("u1"));
        let again = present("DPoP bound", Some(proof), "POST").await.unwrap_err();
        assert!(again.message.contains("used before"), "{}", again.message);
        // Another key, method, URL or token: refused, saying which.
        let cases = [
            (other.proof("POST", url, None, Some("bound")), "POST", "another key"),
            (key.proof("GET", url, None, Some("bound")), "POST", "another method"),
            (key.proof("POST", "http://127.0.0.1:9/other", None, Some("bound")), "POST", "another URL"),
            (key.proof("POST", url, None, Some("another")), "POST", "another access token"),
            ("a.b".to_string(), "POST", "not a JWT"),
        ];
        for (proof, method, why) in cases {
            let e = present("DPoP bound", Some(proof), method).await.unwrap_err();
            assert_eq!(e.status, 401);
            assert!(e.message.contains(why), "{why}: {}", e.message);
        }
        // The query of the URL is no part of it.
        assert!(present("DPoP bound", Some(key.proof("POST", &format!("{url}?x=1"), None, Some("bound"))), "POST").await.is_ok());
        // An unbound token goes as a bearer token, not as a DPoP one.
        assert!(present("Bearer plain", None, "POST").await.is_ok());
        assert!(present("DPoP plain", Some(key.proof("POST", url, None, Some("plain"))), "POST").await.is_err());
        assert_eq!(r.metadata()["dpop_signing_alg_values_supported"], json!(["ES256"]));
    }
}
