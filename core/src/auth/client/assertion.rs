//! `private_key_jwt` (RFC 7523 §2.2): the client proves who it is with a short-lived JWT
//! signed by its private key, whose audience is the authorization server's issuer.

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;

use crate::auth::pkce::random_token;
use crate::auth::store::now_secs;
use crate::error::{Error, ErrorKind, Result};

/// A client assertion for `client_id` at the authorization server `issuer`, signed with
/// `pem` (PKCS#8) by `alg` (`ES256` unless given; `ES384`, `RS256`... as the key allows).
pub(crate) fn client_assertion(client_id: &str, issuer: &str, pem: &str, alg: Option<&str>) -> Result<String> {
    let bad = |why: String| Error::new(ErrorKind::InvalidInput, why);
    let alg: Algorithm = alg.unwrap_or("ES256").parse().map_err(|_| bad(format!("unknown signing algorithm {alg:?}")))?;
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| bad(format!("the private key is not a {alg:?} key in PEM: {e}")))?;
    let now = now_secs();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "jti": random_token(),
        "iat": now,
        "exp": now + 300,
    });
    encode(&Header::new(alg), &claims, &key).map_err(|e| bad(format!("signing the client assertion failed: {e}")))
}
