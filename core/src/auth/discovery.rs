//! Where an MCP client looks for metadata, and what it accepts.
//!
//! - Protected resource metadata (RFC 9728 §3.1): the path-aware well-known URL first
//!   (`/.well-known/oauth-protected-resource` inserted before the resource's path), then the
//!   root one; a `resource_metadata` URL from the 401's challenge comes before both.
//! - Authorization server metadata: for an issuer with a path, RFC 8414's path insertion,
//!   then OpenID Connect discovery with path insertion, then with the path appended; for an
//!   issuer without one, the two root URLs.
//! - The resource a client may use a token for: the server's canonical URL (lowercase
//!   scheme and host, no fragment) or a parent of it on a path-segment boundary.

use reqwest::Url;

use crate::error::{Error, ErrorKind, Result};

/// Checks that `url` is an http(s) URL with a host (an input error if not).
pub(crate) fn url_ok(what: &str, url: &str) -> Result<()> {
    parse(what, url).map(drop)
}

fn parse(what: &str, url: &str) -> Result<Url> {
    let u = Url::parse(url).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid {what} URL {url:?}: {e}")))?;
    if !matches!(u.scheme(), "https" | "http") || u.host_str().is_none() {
        return Err(Error::new(ErrorKind::InvalidInput, format!("the {what} URL {url:?} is not an http(s) URL with a host")));
    }
    Ok(u)
}

/// `origin` + `/.well-known/<name>` + the URL's path (nothing for a root path).
fn insert_well_known(u: &Url, name: &str) -> String {
    let path = u.path().trim_end_matches('/');
    format!("{}/.well-known/{name}{path}", u.origin().ascii_serialization())
}

/// The URLs to try, in order, for the protected resource metadata of the MCP server at
/// `server_url`; `from_challenge` (the 401's `resource_metadata`) comes first when given.
///
/// ```
/// let urls = oxmcp::auth::protected_resource_metadata_urls("https://mcp.example.com/public/mcp", None).unwrap();
/// assert_eq!(urls, [
///     "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
///     "https://mcp.example.com/.well-known/oauth-protected-resource",
/// ]);
/// ```
pub fn protected_resource_metadata_urls(server_url: &str, from_challenge: Option<&str>) -> Result<Vec<String>> {
    let u = parse("server", server_url)?;
    let mut urls = Vec::new();
    if let Some(m) = from_challenge {
        urls.push(parse("resource metadata", m)?.to_string());
    }
    for candidate in [
        insert_well_known(&u, "oauth-protected-resource"),
        insert_well_known(&u.join("/").unwrap_or(u.clone()), "oauth-protected-resource"),
    ] {
        if !urls.contains(&candidate) {
            urls.push(candidate);
        }
    }
    Ok(urls)
}

/// The URLs to try, in order, for the metadata of the authorization server `issuer`.
///
/// ```
/// let urls = oxmcp::auth::authorization_server_metadata_urls("https://auth.example.com/tenant1").unwrap();
/// assert_eq!(urls, [
///     "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
///     "https://auth.example.com/.well-known/openid-configuration/tenant1",
///     "https://auth.example.com/tenant1/.well-known/openid-configuration",
/// ]);
/// ```
pub fn authorization_server_metadata_urls(issuer: &str) -> Result<Vec<String>> {
    let u = parse("issuer", issuer)?;
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    Ok(if path.is_empty() {
        vec![format!("{origin}/.well-known/oauth-authorization-server"), format!("{origin}/.well-known/openid-configuration")]
    } else {
        vec![
            insert_well_known(&u, "oauth-authorization-server"),
            insert_well_known(&u, "openid-configuration"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// The canonical form of a server URL as a `resource` (RFC 8707): lowercase scheme and
/// host (the URL parser does both), the default port dropped, no fragment, no query, and
/// no trailing slash (the MCP specification's canonical form).
///
/// ```
/// assert_eq!(oxmcp::auth::canonical_resource("HTTPS://MCP.Example.com:443/mcp/#x").unwrap(), "https://mcp.example.com/mcp");
/// ```
pub fn canonical_resource(server_url: &str) -> Result<String> {
    let mut u = parse("server", server_url)?;
    u.set_fragment(None);
    u.set_query(None);
    let s = u.to_string();
    Ok(s.trim_end_matches('/').to_string())
}

/// Whether a token for `resource` (from the protected resource metadata) may be used with
/// the server at `server_url`: the same origin, and `resource`'s path is the server's path
/// or a parent of it on a segment boundary. A resource naming another server is refused.
///
/// ```
/// use oxmcp::auth::resource_allowed;
/// assert!(resource_allowed("https://mcp.example.com/mcp", "https://mcp.example.com/mcp").unwrap());
/// assert!(resource_allowed("https://mcp.example.com/", "https://mcp.example.com/mcp").unwrap());
/// assert!(!resource_allowed("https://mcp.example.com/mc", "https://mcp.example.com/mcp").unwrap());
/// assert!(!resource_allowed("https://evil.example.com/mcp", "https://mcp.example.com/mcp").unwrap());
/// ```
pub fn resource_allowed(resource: &str, server_url: &str) -> Result<bool> {
    let (r, s) = (parse("resource", &canonical_resource(resource)?)?, parse("server", &canonical_resource(server_url)?)?);
    if r.origin() != s.origin() {
        return Ok(false);
    }
    let (rp, sp) = (r.path().trim_end_matches('/'), s.path().trim_end_matches('/'));
    Ok(sp == rp || sp.strip_prefix(rp).is_some_and(|rest| rest.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_url_comes_first_and_root_servers_get_one_well_known_url() {
        let urls = protected_resource_metadata_urls("https://mcp.example.com", Some("https://mcp.example.com/prm")).unwrap();
        assert_eq!(urls, ["https://mcp.example.com/prm", "https://mcp.example.com/.well-known/oauth-protected-resource"]);
        let urls = authorization_server_metadata_urls("http://127.0.0.1:9000/").unwrap();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:9000/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9000/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn bad_urls_are_input_errors() {
        for bad in ["", "not a url", "file:///etc/passwd", "https://"] {
            assert_eq!(protected_resource_metadata_urls(bad, None).unwrap_err().kind(), ErrorKind::InvalidInput, "{bad}");
            assert!(authorization_server_metadata_urls(bad).is_err());
        }
        assert!(protected_resource_metadata_urls("https://a.example", Some("javascript:alert(1)")).is_err());
    }

    #[test]
    fn resources_on_another_port_or_scheme_are_refused() {
        assert!(!resource_allowed("http://mcp.example.com/mcp", "https://mcp.example.com/mcp").unwrap());
        assert!(!resource_allowed("https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp").unwrap());
        assert!(resource_allowed("https://MCP.example.com/mcp/", "https://mcp.example.com/mcp/tools").unwrap());
    }
}
