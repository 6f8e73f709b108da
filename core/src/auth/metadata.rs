//! The metadata documents a client discovers, read and checked: protected resource
//! metadata (RFC 9728) and authorization server metadata (RFC 8414, or OpenID Connect
//! discovery, which has the same members for what MCP uses). Fields beyond these are kept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::discovery::{resource_allowed, url_ok};

/// A URL inside a peer's document: a bad one is the peer's protocol error. An
/// authorization server's endpoints carry secrets, codes and tokens: HTTPS, or plain HTTP
/// on the loopback interface only (OAuth 2.1 §1.5).
fn peer_url(what: &str, url: &str) -> Result<()> {
    url_ok(what, url).map_err(|e| Error::new(ErrorKind::Protocol, e.message().to_string()))?;
    let u = reqwest::Url::parse(url).map_err(|e| Error::new(ErrorKind::Protocol, e.to_string()))?;
    let loopback = match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if u.scheme() != "https" && !loopback {
        return Err(Error::new(ErrorKind::Protocol, format!("the {what} URL {url:?} is not HTTPS")));
    }
    Ok(())
}
use crate::error::{Error, ErrorKind, Result};

/// The most bytes of a metadata document read: a larger one is refused.
pub const MAX_METADATA_BYTES: usize = 256 * 1024;

fn bad(what: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Protocol, format!("invalid {what}: {why}"))
}

fn read<T: for<'de> Deserialize<'de>>(what: &str, body: &[u8]) -> Result<T> {
    if body.len() > MAX_METADATA_BYTES {
        return Err(bad(what, format!("larger than {MAX_METADATA_BYTES} bytes")));
    }
    serde_json::from_slice(body).map_err(|e| bad(what, e))
}

/// Protected resource metadata (RFC 9728 §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource's identifier: the URL tokens are for.
    pub resource: String,
    /// Issuers of the authorization servers that grant tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Everything else the document says.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ProtectedResourceMetadata {
    /// Reads the document fetched for the MCP server at `server_url`, and refuses one that
    /// names another resource (a token for it must not go to this server) or no
    /// authorization server.
    ///
    /// ```
    /// use oxmcp::auth::ProtectedResourceMetadata;
    /// let doc = br#"{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"]}"#;
    /// let m = ProtectedResourceMetadata::parse(doc, "https://mcp.example.com/mcp").unwrap();
    /// assert_eq!(m.authorization_servers, ["https://auth.example.com"]);
    /// assert!(ProtectedResourceMetadata::parse(doc, "https://other.example.com/mcp").is_err());
    /// ```
    pub fn parse(body: &[u8], server_url: &str) -> Result<Self> {
        let m: Self = read("protected resource metadata", body)?;
        let allowed = resource_allowed(&m.resource, server_url)
            .map_err(|e| Error::new(ErrorKind::Protocol, format!("invalid protected resource metadata: {}", e.message())))?;
        if !allowed {
            return Err(bad(
                "protected resource metadata",
                format!("it is for {:?}, not for the server at {server_url:?}", m.resource),
            ));
        }
        if m.authorization_servers.is_empty() {
            return Err(bad("protected resource metadata", "it names no authorization server"));
        }
        for issuer in &m.authorization_servers {
            peer_url("authorization server", issuer)?;
        }
        Ok(m)
    }
}

/// Authorization server metadata (RFC 8414 §2; OpenID Connect discovery shares these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer: must be the one the metadata was fetched for.
    pub issuer: String,
    /// Where the user authorizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens become access tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes the server grants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Grant types, e.g. `authorization_code`, `refresh_token`, `client_credentials`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// `client_secret_basic`, `client_secret_post`, `none`, `private_key_jwt`...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// PKCE methods; MCP clients refuse a server that does not list `S256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether a client may use a URL to its metadata document as its client id (CIMD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether the authorization response carries `iss` (RFC 9207).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Everything else the document says.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthorizationServerMetadata {
    /// Reads the document fetched for `issuer`: its `issuer` must be exactly that one
    /// (RFC 8414 §3.3), and its endpoints http(s) URLs.
    ///
    /// ```
    /// use oxmcp::auth::AuthorizationServerMetadata;
    /// let doc = br#"{"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize",
    ///               "token_endpoint": "https://auth.example.com/token", "code_challenge_methods_supported": ["S256"]}"#;
    /// let m = AuthorizationServerMetadata::parse(doc, "https://auth.example.com").unwrap();
    /// assert!(m.check_pkce().is_ok());
    /// assert!(AuthorizationServerMetadata::parse(doc, "https://evil.example.com").is_err());
    /// ```
    pub fn parse(body: &[u8], issuer: &str) -> Result<Self> {
        let m: Self = read("authorization server metadata", body)?;
        if m.issuer != issuer {
            return Err(bad("authorization server metadata", format!("its issuer {:?} is not {issuer:?}", m.issuer)));
        }
        for (what, url) in [
            ("authorization endpoint", &m.authorization_endpoint),
            ("token endpoint", &m.token_endpoint),
            ("registration endpoint", &m.registration_endpoint),
        ] {
            if let Some(u) = url {
                peer_url(what, u)?;
            }
        }
        Ok(m)
    }

    /// Whether the server says it supports PKCE with S256; the MCP authorization
    /// specification has clients refuse to go on otherwise.
    pub fn check_pkce(&self) -> Result<()> {
        match &self.code_challenge_methods_supported {
            Some(methods) if methods.iter().any(|m| m == "S256") => Ok(()),
            _ => Err(Error::new(
                ErrorKind::Protocol,
                format!("the authorization server {:?} does not list PKCE S256 in code_challenge_methods_supported", self.issuer),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_members_are_kept() {
        let m = ProtectedResourceMetadata::parse(
            br#"{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://as.example.com"], "scopes_supported": ["a", "b"], "x": 1}"#,
            "https://mcp.example.com/mcp",
        )
        .unwrap();
        assert_eq!(m.scopes_supported.as_deref(), Some(&["a".to_string(), "b".to_string()][..]));
        assert_eq!(m.extra["x"], 1);
    }

    #[test]
    fn malformed_oversized_and_misdirected_documents_are_refused() {
        let server = "https://mcp.example.com/mcp";
        for doc in [
            &b"not json"[..],
            br#"{"authorization_servers": ["https://as.example.com"]}"#,
            br#"{"resource": "https://mcp.example.com/mcp"}"#,
            br#"{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["ftp://as"]}"#,
            br#"{"resource": "https://mcp.example.com/other", "authorization_servers": ["https://as.example.com"]}"#,
        ] {
            let e = ProtectedResourceMetadata::parse(doc, server).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Protocol, "{}: {e}", String::from_utf8_lossy(doc));
        }
        let huge = format!(
            r#"{{"resource": "{server}", "authorization_servers": ["https://as.example.com"], "pad": "{}"}}"#,
            "x".repeat(MAX_METADATA_BYTES)
        );
        assert!(ProtectedResourceMetadata::parse(huge.as_bytes(), server).is_err());
        let asm = br#"{"issuer": "https://as.example.com", "token_endpoint": "javascript:alert(1)"}"#;
        assert!(AuthorizationServerMetadata::parse(asm, "https://as.example.com").is_err());
        let no_pkce =
            AuthorizationServerMetadata::parse(br#"{"issuer": "https://as.example.com"}"#, "https://as.example.com").unwrap();
        assert!(no_pkce.check_pkce().is_err());
        // An authorization server's endpoints in clear text, off the loopback interface.
        let clear = br#"{"issuer": "https://as.example.com", "token_endpoint": "http://as.example.com/token"}"#;
        assert!(AuthorizationServerMetadata::parse(clear, "https://as.example.com").unwrap_err().message().contains("HTTPS"));
        let local = br#"{"issuer": "http://127.0.0.1:9", "token_endpoint": "http://127.0.0.1:9/token"}"#;
        assert!(AuthorizationServerMetadata::parse(local, "http://127.0.0.1:9").is_ok());
    }
}
