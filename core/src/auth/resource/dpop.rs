//! DPoP on the protected side (RFC 9449): a token bound to a key (`cnf.jkt`, the key's
//! RFC 7638 thumbprint) is accepted only with the `DPoP` scheme and a proof signed by
//! that key for this very request: its method (`htm`) and URL (`htu`), recent (`iat`
//! within [`WINDOW`]), never seen before (`jti`), and naming the token (`ath`). A bound
//! token presented as a plain bearer token is refused, so a stolen one cannot be replayed.
//!
//! Proofs are ES256 (P-256), what oxmcp's client and most clients make.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// How far a proof's `iat` may be from now, either way.
pub const WINDOW: Duration = Duration::from_secs(300);
/// Proof ids remembered (each for [`WINDOW`] twice over); past this the oldest go first.
const REMEMBERED: usize = 65_536;

/// What a proof must name: the request it came with, and the token it goes with.
pub(crate) struct Expected<'a> {
    pub(crate) method: &'a str,
    /// The URLs the request may have been sent to (query and fragment left out).
    pub(crate) urls: &'a [String],
    pub(crate) token: &'a str,
    /// The thumbprint the token is bound to.
    pub(crate) jkt: &'a str,
}

/// Proof ids seen lately: a proof is good for one request.
#[derive(Default)]
pub(crate) struct Replays {
    seen: Mutex<Seen>,
}

/// The ids, and the order they came in (the oldest are forgotten first).
#[derive(Default)]
struct Seen {
    ids: HashMap<String, Instant>,
    order: VecDeque<(Instant, String)>,
}

impl Replays {
    /// Records `jti`; `false` if it was seen within the window.
    fn first_use(&self, jti: &str) -> bool {
        let now = Instant::now();
        let mut guard = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let Seen { ids, order } = &mut *guard;
        while order.front().is_some_and(|(at, _)| now.duration_since(*at) > 2 * WINDOW) || order.len() >= REMEMBERED {
            if let Some((_, old)) = order.pop_front() {
                ids.remove(&old);
            }
        }
        if ids.contains_key(jti) {
            return false;
        }
        ids.insert(jti.to_string(), now);
        order.push_back((now, jti.to_string()));
        true
    }
}

/// The RFC 7638 thumbprint of a P-256 public key (`x`, `y` base64url).
pub(crate) fn thumbprint(x: &str, y: &str) -> String {
    // The required members in lexicographic order, no whitespace.
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// The `cnf.jkt` a token's claims bind it to, if any.
pub(crate) fn bound_key(claims: &Value) -> Option<&str> {
    claims.get("cnf")?.get("jkt")?.as_str()
}

/// `url` without its query and fragment, as `htu` names it.
pub(crate) fn htu_of(url: &str) -> Option<String> {
    let mut u = reqwest::Url::parse(url).ok()?;
    u.set_query(None);
    u.set_fragment(None);
    Some(u.to_string())
}

/// Checks `proof` against what it must name; why not, if it fails.
pub(crate) fn check(proof: &str, expected: &Expected<'_>, replays: &Replays) -> Result<(), String> {
    let parts: Vec<&str> = proof.split('.').collect();
    let [header, claims, signature] = parts[..] else { return Err("the DPoP proof is not a JWT".into()) };
    let json = |part: &str| -> Result<Value, String> {
        let bytes = URL_SAFE_NO_PAD.decode(part).map_err(|_| "the DPoP proof is not a JWT".to_string())?;
        serde_json::from_slice(&bytes).map_err(|_| "the DPoP proof is not a JWT".to_string())
    };
    let (head, body) = (json(header)?, json(claims)?);
    if head["typ"] != "dpop+jwt" || head["alg"] != "ES256" {
        return Err("the DPoP proof must be a dpop+jwt signed with ES256".into());
    }
    let jwk = &head["jwk"];
    if jwk.get("d").is_some() {
        return Err("the DPoP proof's key must be public".into());
    }
    let (Some(x), Some(y)) = (jwk["x"].as_str(), jwk["y"].as_str()) else {
        return Err("the DPoP proof names no P-256 key".into());
    };
    if jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
        return Err("the DPoP proof names no P-256 key".into());
    }
    let coordinate = |c: &str| URL_SAFE_NO_PAD.decode(c).ok().filter(|b| b.len() == 32);
    let (Some(xb), Some(yb)) = (coordinate(x), coordinate(y)) else {
        return Err("the DPoP proof's key is malformed".into());
    };
    let key = VerifyingKey::from_sec1_bytes(&[&[4u8][..], &xb, &yb].concat())
        .map_err(|_| "the DPoP proof's key is not on P-256".to_string())?;
    let sig = URL_SAFE_NO_PAD
        .decode(signature)
        .ok()
        .and_then(|s| Signature::from_slice(&s).ok())
        .ok_or_else(|| "the DPoP proof's signature is malformed".to_string())?;
    key.verify(format!("{header}.{claims}").as_bytes(), &sig).map_err(|_| "the DPoP proof's signature does not verify")?;
    if thumbprint(x, y) != expected.jkt {
        return Err("the DPoP proof is signed by another key than the token is bound to".into());
    }
    if body["htm"] != expected.method {
        return Err(format!("the DPoP proof is for another method than {}", expected.method));
    }
    let htu = body["htu"].as_str().and_then(htu_of);
    if !htu.as_ref().is_some_and(|h| expected.urls.contains(h)) {
        return Err("the DPoP proof is for another URL".into());
    }
    let now = crate::auth::store::now_secs() as i64;
    let iat = body["iat"].as_i64().ok_or("the DPoP proof has no iat")?;
    if (now - iat).unsigned_abs() > WINDOW.as_secs() {
        return Err("the DPoP proof is too old or from the future".into());
    }
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(expected.token.as_bytes()));
    if body["ath"] != ath.as_str() {
        return Err("the DPoP proof is for another access token".into());
    }
    let jti = body["jti"].as_str().filter(|j| !j.is_empty() && j.len() <= 256).ok_or("the DPoP proof has no jti")?;
    if !replays.first_use(jti) {
        return Err("the DPoP proof was used before".into());
    }
    Ok(())
}
