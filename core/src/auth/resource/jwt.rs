//! JWT access tokens (RFC 9068 style): signed by one of the issuer's keys, from its
//! `iss`, for this server's audience, not expired (a small leeway for clock skew). The
//! keys come from the issuer's JWKS, found through its metadata, kept, and fetched again
//! when a token names a key id not yet seen (at most every few seconds: a flood of
//! made-up key ids does not become a flood of fetches). A fetch holds up only the tokens
//! waiting for a key it may bring: tokens of known keys verify meanwhile.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::{refused, AuthInfo};
use crate::auth::client::fetch::{get_document, http_client};
use crate::auth::discovery::authorization_server_metadata_urls;
use crate::auth::metadata::AuthorizationServerMetadata;
use crate::error::{Error, ErrorKind, Result};

/// How long after a fetch the keys are not fetched again for an unknown key id.
const REFETCH_AFTER: Duration = Duration::from_secs(10);

/// Checks JWT access tokens of one issuer for one audience.
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
    http: reqwest::Client,
    /// The keys last fetched (or given): read without waiting for a fetch.
    keys: RwLock<Option<Arc<JwkSet>>>,
    /// Held while fetching, with when the last fetch began: one fetch at a time.
    fetching: tokio::sync::Mutex<Option<Instant>>,
    jwks_uri: Mutex<Option<String>>,
}

impl JwtVerifier {
    /// A verifier for tokens of `issuer` whose audience is `audience` (the server's
    /// resource URL). The JWKS is found through the issuer's metadata on first use.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: Duration::from_secs(30),
            http: http_client(),
            keys: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(None),
            jwks_uri: Mutex::new(None),
        }
    }

    /// The same verifier with its JWKS at `uri` (no metadata lookup).
    pub fn with_jwks_uri(self, uri: impl Into<String>) -> Self {
        *self.jwks_uri.lock().unwrap_or_else(|e| e.into_inner()) = Some(uri.into());
        self
    }

    /// The same verifier with these keys (no JWKS fetched while they hold the token's
    /// key): for keys distributed by other means.
    pub fn with_keys(self, keys: JwkSet) -> Self {
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(keys));
        *self.fetching.try_lock().expect("nothing fetches before the verifier is built") = Some(Instant::now());
        self
    }

    async fn jwks_uri(&self) -> Result<String> {
        if let Some(u) = self.jwks_uri.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(u);
        }
        for url in authorization_server_metadata_urls(&self.issuer)? {
            if let Some(body) = get_document(&self.http, "authorization server metadata", &url, &[]).await? {
                let meta = AuthorizationServerMetadata::parse(&body, &self.issuer)?;
                let uri = meta.extra.get("jwks_uri").and_then(Value::as_str).ok_or_else(|| {
                    Error::new(ErrorKind::Protocol, format!("the issuer {:?} publishes no jwks_uri", self.issuer))
                })?;
                *self.jwks_uri.lock().unwrap_or_else(|e| e.into_inner()) = Some(uri.to_string());
                return Ok(uri.to_string());
            }
        }
        Err(Error::new(ErrorKind::Protocol, format!("the issuer {:?} publishes no metadata", self.issuer)))
    }

    /// The key for `kid` among the keys held now, if there.
    fn known_key(&self, kid: Option<&str>, alg: Algorithm) -> Option<Result<DecodingKey>> {
        let set = self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()?;
        let found = match kid {
            Some(k) => set.find(k),
            None => {
                set.keys.iter().find(|j| j.is_supported() && DecodingKey::from_jwk(j).is_ok_and(|_| family(j) == family_of(alg)))
            }
        }?;
        Some(DecodingKey::from_jwk(found).map_err(|e| refused(format!("the issuer's key is unusable: {e}"))))
    }

    /// The key for `kid` (any key of the algorithm's family when the token names none),
    /// fetching the issuer's keys when they do not hold it and were not fetched lately.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey> {
        if let Some(key) = self.known_key(kid, alg) {
            return key;
        }
        // Only tokens of unknown keys wait here, one fetch at a time.
        let mut fetched = self.fetching.lock().await;
        if let Some(key) = self.known_key(kid, alg) {
            return key; // a fetch that ended while this one waited brought it
        }
        if fetched.is_some_and(|t| t.elapsed() < REFETCH_AFTER) {
            return Err(refused("the token is signed by a key the issuer does not publish"));
        }
        // Counted before the fetch: a failing one is not tried again at once either.
        *fetched = Some(Instant::now());
        let uri = self.jwks_uri().await?;
        let body = get_document(&self.http, "JWKS", &uri, &[])
            .await?
            .ok_or_else(|| Error::new(ErrorKind::Protocol, format!("the JWKS at {uri} is missing")))?;
        let set: JwkSet =
            serde_json::from_slice(&body).map_err(|e| Error::new(ErrorKind::Protocol, format!("invalid JWKS at {uri}: {e}")))?;
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(set));
        self.known_key(kid, alg).unwrap_or_else(|| Err(refused("the token is signed by a key the issuer does not publish")))
    }

    /// Checks `token`; who it speaks for, or why it is refused.
    pub async fn verify(&self, token: &str) -> Result<AuthInfo> {
        let header = decode_header(token).map_err(|_| refused("the token is not a JWT"))?;
        if family_of(header.alg) == "oct" {
            return Err(refused("the token is not signed with the issuer's public key"));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut v = Validation::new(header.alg);
        v.set_issuer(&[&self.issuer]);
        let bare = self.audience.trim_end_matches('/');
        v.set_audience(&[bare.to_string(), format!("{bare}/")]);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        v.leeway = self.leeway.as_secs();
        v.validate_nbf = true;
        let data = decode::<Value>(token, &key, &v).map_err(|e| refused(describe(&e)))?;
        Ok(AuthInfo::from_claims(data.claims))
    }
}

/// What a refusal says (never the token).
fn describe(e: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind as K;
    match e.kind() {
        K::ExpiredSignature => "the token has expired".into(),
        K::ImmatureSignature => "the token is not valid yet".into(),
        K::InvalidAudience => "the token was issued for another audience".into(),
        K::InvalidIssuer => "the token comes from another issuer".into(),
        K::InvalidSignature | K::Base64(_) | K::InvalidEcdsaKey => "the token's signature does not verify".into(),
        K::MissingRequiredClaim(c) => format!("the token lacks the {c} claim"),
        _ => "the token is invalid".into(),
    }
}

fn family_of(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => "oct",
        Algorithm::ES256 | Algorithm::ES384 => "EC",
        Algorithm::EdDSA => "OKP",
        _ => "RSA",
    }
}

fn family(jwk: &jsonwebtoken::jwk::Jwk) -> &'static str {
    use jsonwebtoken::jwk::AlgorithmParameters as P;
    match jwk.algorithm {
        P::EllipticCurve(_) => "EC",
        P::RSA(_) => "RSA",
        P::OctetKey(_) => "oct",
        P::OctetKeyPair(_) => "OKP",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::ecdsa::signature::Signer;
    use p256::ecdsa::{Signature, SigningKey};
    use serde_json::json;

    const ISS: &str = "https://as.example.com";
    const AUD: &str = "http://127.0.0.1:9/mcp";

    fn key(seed: u8) -> (SigningKey, Value) {
        let key = SigningKey::from_slice(&[seed; 32]).unwrap();
        let p = key.verifying_key().to_encoded_point(false);
        let jwk = json!({"kty": "EC", "crv": "P-256", "alg": "ES256", "kid": format!("k{seed}"),
                         "x": URL_SAFE_NO_PAD.encode(p.x().unwrap()), "y": URL_SAFE_NO_PAD.encode(p.y().unwrap())});
        (key, jwk)
    }

    fn sign(key: &SigningKey, kid: &str, claims: Value) -> String {
        let header = json!({"alg": "ES256", "typ": "at+jwt", "kid": kid});
        let input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let sig: Signature = key.sign(input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.to_bytes()))
    }

    #[tokio::test]
    async fn only_a_live_token_of_the_issuer_for_this_audience_passes() {
        let (k1, jwk1) = key(1);
        let (k2, _) = key(2);
        let set: JwkSet = serde_json::from_value(json!({"keys": [jwk1]})).unwrap();
        let v = JwtVerifier::new(ISS, AUD).with_keys(set);
        let now = crate::auth::store::now_secs();
        let claims = |aud: &str, iss: &str, exp: u64| json!({"iss": iss, "aud": aud, "exp": exp, "sub": "u1", "client_id": "c1", "scope": "a b"});
        let good = sign(&k1, "k1", claims(AUD, ISS, now + 60));
        let info = v.verify(&good).await.unwrap();
        assert_eq!((info.subject.as_deref(), info.client_id.as_deref(), info.scopes.len()), (Some("u1"), Some("c1"), 2));
        // The audience with a trailing slash is the same resource.
        assert!(v.verify(&sign(&k1, "k1", claims(&format!("{AUD}/"), ISS, now + 60))).await.is_ok());
        let cases = [
            (sign(&k1, "k1", claims("http://127.0.0.1:9/other", ISS, now + 60)), "another audience"),
            (sign(&k1, "k1", claims(AUD, "https://evil.example.com", now + 60)), "another issuer"),
            (sign(&k1, "k1", claims(AUD, ISS, now - 120)), "expired"),
            (sign(&k2, "k1", claims(AUD, ISS, now + 60)), "signature"),
            (format!("{}x", &good[..good.len() - 1]), "signature"),
            (sign(&k1, "k1", json!({"iss": ISS, "aud": AUD, "sub": "u1"})), "exp"),
            ("not.a.jwt".to_string(), "not a JWT"),
        ];
        for (token, why) in cases {
            let e = v.verify(&token).await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unauthorized);
            assert!(e.message().contains(why), "{why}: {}", e.message());
        }
        // An HMAC token "signed" with a public value is refused before any key is used.
        let hs = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::HS256),
            &claims(AUD, ISS, now + 60),
            &jsonwebtoken::EncodingKey::from_secret(b"k1"),
        )
        .unwrap();
        assert!(v.verify(&hs).await.is_err());
    }

    #[tokio::test]
    async fn a_key_fetch_holds_up_no_token_of_a_known_key() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (k1, jwk1) = key(1);
        let (k3, jwk3) = key(3);
        // A JWKS endpoint whose second answer (the refetch) waits until released.
        let release = Arc::new(tokio::sync::Notify::new());
        let served = Arc::new(AtomicUsize::new(0));
        let app = {
            let (release, served) = (release.clone(), served.clone());
            axum::Router::new().route(
                "/jwks",
                axum::routing::get(move || {
                    let (release, served, jwk1, jwk3) = (release.clone(), served.clone(), jwk1.clone(), jwk3.clone());
                    async move {
                        let json = |v: Value| ([(axum::http::header::CONTENT_TYPE, "application/json")], v.to_string());
                        if served.fetch_add(1, Ordering::SeqCst) == 0 {
                            return json(json!({"keys": [jwk1]}));
                        }
                        release.notified().await;
                        json(json!({"keys": [jwk1, jwk3]}))
                    }
                }),
            )
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let v = Arc::new(JwtVerifier::new(ISS, AUD).with_jwks_uri(url));
        let now = crate::auth::store::now_secs();
        let claims = json!({"iss": ISS, "aud": AUD, "exp": now + 60, "sub": "u1"});
        let good = sign(&k1, "k1", claims.clone());
        v.verify(&good).await.unwrap(); // the first fetch
        *v.fetching.lock().await = None; // as if the last fetch were long ago
                                         // A token of a key not seen yet: its refetch hangs at the issuer...
        let rotated = sign(&k3, "k3", claims);
        let waiting = tokio::spawn({
            let v = v.clone();
            async move { v.verify(&rotated).await }
        });
        while served.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        // ...while tokens of the known key pass.
        for _ in 0..3 {
            let passed = tokio::time::timeout(Duration::from_secs(10), v.verify(&good)).await;
            assert!(passed.expect("not held up by the fetch").is_ok());
        }
        assert!(!waiting.is_finished());
        release.notify_one();
        assert_eq!(waiting.await.unwrap().unwrap().subject.as_deref(), Some("u1"), "the new key came with the fetch");
    }
}
