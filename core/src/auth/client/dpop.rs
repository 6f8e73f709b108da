//! DPoP (RFC 9449): tokens bound to a key the client holds. Every token request and every
//! request to the server carries a proof, a JWT signed with that key (ES256, the key
//! generated per client and never leaving it) naming the request's method and URL, and,
//! for the server, a hash of the access token. Servers may require a nonce they hand out
//! (`use_dpop_nonce` with a `DPoP-Nonce` header): the request is sent again with it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use rand::RngCore;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::auth::pkce::random_token;
use crate::auth::store::now_secs;

/// The client's DPoP key.
pub(crate) struct DpopKey {
    key: SigningKey,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`), put in every proof's header.
    jwk: serde_json::Value,
}

impl DpopKey {
    /// A fresh P-256 key.
    pub(crate) fn generate() -> Self {
        let key = loop {
            // A random scalar; the rare value outside the curve's order is drawn again.
            let mut bytes = [0u8; 32];
            rand::rng().fill_bytes(&mut bytes);
            if let Ok(k) = SigningKey::from_slice(&bytes) {
                break k;
            }
        };
        Self::with(key)
    }

    /// The key whose private scalar [`DpopKey::secret`] gave; `None` for anything else.
    pub(crate) fn from_secret(secret: &str) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(secret).ok()?;
        SigningKey::from_slice(&bytes).ok().map(Self::with)
    }

    /// The private scalar (base64url): what a store keeps so tokens bound to this key
    /// stay usable in the next process.
    pub(crate) fn secret(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.to_bytes())
    }

    fn with(key: SigningKey) -> Self {
        let point = key.verifying_key().to_encoded_point(false);
        let (x, y) = (point.x().expect("an uncompressed point"), point.y().expect("an uncompressed point"));
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)});
        Self { key, jwk }
    }

    /// A proof for a `method` request to `url` (its query and fragment left out), with
    /// the server's `nonce` and, for a resource server, the `access_token` it carries.
    pub(crate) fn proof(&self, method: &str, url: &str, nonce: Option<&str>, access_token: Option<&str>) -> String {
        let htu = reqwest::Url::parse(url)
            .map(|mut u| {
                u.set_query(None);
                u.set_fragment(None);
                u.to_string()
            })
            .unwrap_or_else(|_| url.to_string());
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut claims = json!({"jti": random_token(), "htm": method, "htu": htu, "iat": now_secs()});
        if let Some(n) = nonce {
            claims["nonce"] = n.into();
        }
        if let Some(t) = access_token {
            claims["ath"] = URL_SAFE_NO_PAD.encode(Sha256::digest(t.as_bytes())).into();
        }
        let signing_input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature: Signature = self.key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;

    #[test]
    fn a_key_comes_back_from_its_secret_and_nothing_else_passes_for_one() {
        let key = DpopKey::generate();
        let again = DpopKey::from_secret(&key.secret()).unwrap();
        assert_eq!(again.jwk, key.jwk);
        assert!(DpopKey::from_secret("not base64!").is_none());
        assert!(DpopKey::from_secret(&URL_SAFE_NO_PAD.encode([0u8; 32])).is_none(), "zero is no key");
        assert!(DpopKey::from_secret(&URL_SAFE_NO_PAD.encode([1u8; 7])).is_none());
    }

    #[test]
    fn a_proof_verifies_with_the_key_in_its_header_and_names_its_request() {
        let key = DpopKey::generate();
        let token = "AT";
        let proof = key.proof("POST", "https://mcp.example.com/mcp?x=1#f", Some("n1"), Some(token));
        let parts: Vec<&str> = proof.split('.').collect();
        let header: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        let claims: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert!(header["jwk"].get("d").is_none(), "the private key stays out");
        assert_eq!((claims["htm"].as_str(), claims["htu"].as_str()), (Some("POST"), Some("https://mcp.example.com/mcp")));
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(token)));
        // Verified with the public key rebuilt from the header's JWK.
        let coord = |k: &str| URL_SAFE_NO_PAD.decode(header["jwk"][k].as_str().unwrap()).unwrap();
        let mut sec1 = vec![4u8];
        sec1.extend(coord("x"));
        sec1.extend(coord("y"));
        let public = VerifyingKey::from_sec1_bytes(&sec1).unwrap();
        let sig = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        public.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig).unwrap();
        // Two proofs never share an id.
        let again = key.proof("POST", "https://mcp.example.com/mcp", None, None);
        assert_ne!(again.split('.').nth(1), parts.get(1).copied());
    }
}
