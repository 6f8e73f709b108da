//! PKCE (RFC 7636) with the S256 method, the only one the MCP authorization specification
//! allows, and the `state` value that ties a redirect to its request.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A code verifier and its S256 challenge. The verifier is a secret: it goes to the token
/// endpoint only, and its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkce {
    verifier: String,
    challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce").field("challenge", &self.challenge).finish_non_exhaustive()
    }
}

/// 32 random bytes as base64url: 43 characters, 256 bits.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

impl Pkce {
    /// A fresh verifier (32 random bytes, base64url: 43 characters) and its challenge.
    pub fn new() -> Self {
        Self::from_verifier(random_token())
    }

    /// The pair for a given verifier (RFC 7636 §4.2: `BASE64URL(SHA256(verifier))`).
    ///
    /// ```
    /// // RFC 7636, appendix B.
    /// let p = oxmcp::auth::Pkce::from_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    /// assert_eq!(p.challenge(), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    /// ```
    pub fn from_verifier(verifier: impl Into<String>) -> Self {
        let verifier = verifier.into();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Self { verifier, challenge }
    }

    /// The `code_challenge` for the authorization request.
    pub fn challenge(&self) -> &str {
        &self.challenge
    }

    /// The `code_challenge_method`: always `S256`.
    pub fn method(&self) -> &'static str {
        "S256"
    }

    /// The `code_verifier` for the token request.
    pub fn verifier(&self) -> &str {
        &self.verifier
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_verifiers_are_long_unreserved_and_unique() {
        let (a, b) = (Pkce::new(), Pkce::new());
        assert_ne!(a.verifier(), b.verifier());
        assert_eq!(a.verifier().len(), 43);
        assert!(a.verifier().chars().all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c)));
        assert_eq!(Pkce::from_verifier(a.verifier()).challenge(), a.challenge());
        assert!(!format!("{a:?}").contains(a.verifier()), "Debug must not show the verifier");
    }
}
