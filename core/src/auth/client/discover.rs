//! Finding a protected server's authorization server: its protected resource metadata
//! (the challenge's URL, then the path-aware and root well-known URLs), then that
//! server's metadata (RFC 8414, then OpenID discovery). A server that publishes no
//! resource metadata is a 2025-03-26 server: its own origin is the authorization server,
//! with metadata at the origin's well-known URL or, failing that, the default endpoints.

use super::fetch::{denied, get_document};
use crate::auth::discovery::{authorization_server_metadata_urls, canonical_resource, protected_resource_metadata_urls};
use crate::auth::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use crate::error::{Error, ErrorKind, Result};

/// What discovery found for one server.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The `resource` parameter: exactly as the resource metadata published it, or the
    /// server's canonical URL when there is none.
    pub resource: String,
    /// The scopes the resource metadata lists.
    pub resource_scopes: Option<Vec<String>>,
    /// The resource metadata asks for DPoP-bound tokens (RFC 9728
    /// `dpop_bound_access_tokens_required`).
    pub resource_wants_dpop: bool,
    /// The authorization server's issuer.
    pub issuer: String,
    /// Its metadata (made of the default endpoints for a 2025-03-26 server without any).
    pub meta: AuthorizationServerMetadata,
}

impl Discovered {
    pub(crate) fn token_endpoint(&self) -> Result<&str> {
        self.meta
            .token_endpoint
            .as_deref()
            .ok_or_else(|| denied(format!("the authorization server {:?} has no token endpoint", self.issuer)))
    }
}

/// Runs discovery for the MCP server at `server_url`; `resource_metadata` is the URL a
/// 401's challenge named, if any.
pub(crate) async fn discover(http: &reqwest::Client, server_url: &str, resource_metadata: Option<&str>) -> Result<Discovered> {
    let mut prm = None;
    for url in protected_resource_metadata_urls(server_url, resource_metadata)? {
        if let Some(body) = get_document(http, "protected resource metadata", &url, &[]).await? {
            prm = Some(ProtectedResourceMetadata::parse(&body, server_url)?);
            break;
        }
    }
    let Some(prm) = prm else { return legacy(http, server_url).await };
    // The first authorization server listed; the specification leaves the choice to the
    // client and servers list their preferred one first.
    let issuer = prm.authorization_servers[0].clone();
    for url in authorization_server_metadata_urls(&issuer)? {
        if let Some(body) = get_document(http, "authorization server metadata", &url, &[]).await? {
            // A document whose issuer is not the one asked for is refused outright (its
            // endpoints must not be used), not skipped for the next URL.
            let meta = AuthorizationServerMetadata::parse(&body, &issuer)?;
            let resource_wants_dpop = prm.extra.get("dpop_bound_access_tokens_required") == Some(&serde_json::Value::Bool(true));
            return Ok(Discovered {
                resource: prm.resource,
                resource_scopes: prm.scopes_supported,
                resource_wants_dpop,
                issuer,
                meta,
            });
        }
    }
    Err(Error::new(ErrorKind::Protocol, format!("the authorization server {issuer:?} publishes no metadata")))
}

/// A 2025-03-26 server: the authorization server is at the server's origin.
async fn legacy(http: &reqwest::Client, server_url: &str) -> Result<Discovered> {
    let origin = reqwest::Url::parse(server_url)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid server URL {server_url:?}: {e}")))?
        .origin()
        .ascii_serialization();
    let resource = canonical_resource(server_url)?;
    let url = format!("{origin}/.well-known/oauth-authorization-server");
    // That revision's clients say which protocol version they speak when they ask.
    let headers = [("mcp-protocol-version", "2025-03-26")];
    let meta = match get_document(http, "authorization server metadata", &url, &headers).await? {
        // That revision has the server name its authorization server by this document
        // alone (it may sit elsewhere, e.g. under `/oauth`): its issuer is taken as is.
        Some(body) => {
            let issuer =
                serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| v["issuer"].as_str().map(str::to_string));
            AuthorizationServerMetadata::parse(&body, issuer.as_deref().unwrap_or(&origin))?
        }
        None => AuthorizationServerMetadata {
            issuer: origin.clone(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: Some(format!("{origin}/token")),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            grant_types_supported: None,
            token_endpoint_auth_methods_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            client_id_metadata_document_supported: None,
            authorization_response_iss_parameter_supported: None,
            extra: Default::default(),
        },
    };
    Ok(Discovered { resource, resource_scopes: None, resource_wants_dpop: false, issuer: meta.issuer.clone(), meta })
}
