//! A staged server's HTTP side (the `http` feature): the options every host passes the same
//! way, its listener, and the services handed to hosts that own the sockets.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

pub use super::http_app::{HttpApp, HttpBody, HttpReply};
use crate::error::{Error, ErrorKind, Result};
use crate::server::Server;
use crate::transport::http::{HttpServer, HttpServerConfig, HttpService};

/// How to serve HTTP, as hosts pass it (JSON, camelCase keys, all optional):
/// `{"host": "127.0.0.1", "port": 0, "path": "/mcp", "stateless": false,
/// "jsonResponse": false, "allowedHosts": [...], "allowedOrigins": [...], "maxSessions": n,
/// "redis": "redis://HOST:PORT"}`.
///
/// ```
/// let o = oxmcp::host::HttpOptions::from_json(r#"{"port": 8080, "stateless": true}"#).unwrap();
/// assert_eq!((o.host.as_str(), o.port, o.path.as_str(), o.stateless), ("127.0.0.1", 8080, "/mcp", true));
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HttpOptions {
    /// A name (`localhost`) or an address; the first address it resolves to is bound.
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// The MCP endpoint's path.
    pub path: String,
    /// Every POST stands alone (no sessions, no server-to-client requests).
    pub stateless: bool,
    /// Answer each POST with one JSON body instead of an SSE stream.
    pub json_response: bool,
    /// `Host` header values accepted (the defaults guard against DNS rebinding).
    pub allowed_hosts: Option<Vec<String>>,
    /// `Origin` header values accepted.
    pub allowed_origins: Option<Vec<String>>,
    /// The most sessions kept at once.
    pub max_sessions: Option<usize>,
    /// Protects the endpoint with OAuth (see [`HttpAuth`]).
    pub auth: Option<HttpAuth>,
    /// Shares sessions, streams, tasks and the `requestState` key with every server node
    /// using this store (`redis://HOST:PORT`), so that nodes behind a load balancer act as
    /// one server (see [`crate::store`]).
    pub redis: Option<String>,
}

/// A protected endpoint, as hosts pass it: `{"issuer": URL, "audience": URL, "scopes":
/// [...], "toolScopes": {"tool": [...]}}`, or with `"introspection": {"endpoint",
/// "clientId", "clientSecret"}` for opaque tokens. JWTs are checked against the issuer's
/// keys (its JWKS, found through its metadata) for `audience`, which defaults to the
/// endpoint's own URL.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HttpAuth {
    /// The authorization server clients go to, and the tokens' issuer.
    pub issuer: String,
    /// The resource tokens must be for (default: `http://HOST:PORT/PATH`).
    pub audience: Option<String>,
    /// Scopes every request needs.
    pub scopes: Vec<String>,
    /// Scopes a call of the named tool needs besides those.
    pub tool_scopes: std::collections::HashMap<String, Vec<String>>,
    /// Opaque tokens: ask the authorization server (RFC 7662).
    pub introspection: Option<IntrospectionOptions>,
}

/// Where and as whom a server introspects tokens.
#[derive(Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct IntrospectionOptions {
    /// The introspection endpoint.
    pub endpoint: String,
    /// The server's client id there.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
}

impl std::fmt::Debug for IntrospectionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionOptions")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl HttpAuth {
    /// The resource at `url`; `verify` is the host's own token check, if it has one.
    fn resource(self, url: String, verify: Option<crate::auth::VerifyFn>) -> crate::auth::ProtectedResource {
        use crate::auth::{Introspection, ProtectedResource, TokenVerifier};
        let audience = self.audience.unwrap_or(url);
        let mut r = match (verify, self.introspection) {
            (Some(f), _) => ProtectedResource::new(audience, vec![self.issuer], TokenVerifier::Custom(f)),
            (None, Some(i)) => {
                let v = Introspection::new(i.endpoint, i.client_id, i.client_secret, audience.clone());
                ProtectedResource::new(audience, vec![self.issuer], TokenVerifier::Introspection(Arc::new(v)))
            }
            (None, None) => ProtectedResource::jwt(audience, self.issuer),
        };
        r.required_scopes = self.scopes;
        r.tool_scopes = self.tool_scopes;
        r
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 0,
            path: "/mcp".into(),
            stateless: false,
            json_response: false,
            allowed_hosts: None,
            allowed_origins: None,
            max_sessions: None,
            auth: None,
            redis: None,
        }
    }
}

impl HttpOptions {
    /// Reads options from JSON text (an empty text means the defaults).
    pub fn from_json(text: &str) -> Result<Self> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid HTTP options: {e}")))
    }

    /// Options binding `address` (`"host:port"`, `"[::1]:0"`).
    pub fn at(address: &str) -> Result<Self> {
        let (host, port) = address
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h.trim_start_matches('[').trim_end_matches(']'), p.parse().ok()?)))
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("{address:?} is not host:port")))?;
        Ok(Self { host: host.to_string(), port, ..Self::default() })
    }

    /// The server's configuration, and its listener when it had to be bound already.
    async fn config(
        self,
        verify: Option<crate::auth::VerifyFn>,
        store: Option<Arc<dyn crate::store::SharedStore>>,
    ) -> Result<(HttpServerConfig, Option<tokio::net::TcpListener>)> {
        let host = self.host.clone();
        let mut bind = tokio::net::lookup_host((host.as_str(), self.port))
            .await
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("cannot resolve {host:?}: {e}")))?
            .next()
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("host {host:?} resolves to no address")))?;
        if bind.ip().is_unspecified() && self.auth.as_ref().is_some_and(|a| a.audience.is_none()) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a protected server on a wildcard address needs its audience (the URL clients use)",
            ));
        }
        let mut listener = None;
        if bind.port() == 0 && self.auth.as_ref().is_some_and(|a| a.audience.is_none()) {
            // The audience is the endpoint's URL, so its port must be known before the
            // server is configured: the socket it serves on is bound now (binding a probe
            // and binding again later would leave the port to whoever takes it between).
            let bound = tokio::net::TcpListener::bind(bind)
                .await
                .map_err(|e| Error::caused(ErrorKind::Transport, format!("cannot listen on {bind}: {e}"), e))?;
            bind = bound.local_addr().map_err(|e| Error::caused(ErrorKind::Transport, e.to_string(), e))?;
            listener = Some(bound);
        }
        let url = format!("http://{bind}{}", self.path);
        Ok((HttpServerConfig { bind, store, ..self.service_config(url, verify) }, listener))
    }

    /// Options for a host that owns the sockets (see [`HttpApp`]): nothing is bound, so a
    /// protected endpoint names its audience itself, and legacy HTTP+SSE is off (its
    /// `endpoint` event names an absolute path, which mounting under a prefix breaks).
    fn app_config(self, verify: Option<crate::auth::VerifyFn>) -> Result<HttpServerConfig> {
        if self.redis.is_some() {
            return Err(Error::new(ErrorKind::InvalidInput, "redis applies to a server that listens itself (start_http)"));
        }
        let url = match &self.auth {
            Some(HttpAuth { audience: Some(a), .. }) => a.clone(),
            Some(_) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    "a protected server inside another web server needs its audience (the URL clients use)",
                ))
            }
            None => String::new(),
        };
        Ok(HttpServerConfig { legacy_sse: false, ..self.service_config(url, verify) })
    }

    /// What does not depend on where the server listens; `url` is the endpoint's.
    fn service_config(self, url: String, verify: Option<crate::auth::VerifyFn>) -> HttpServerConfig {
        let mut config = HttpServerConfig {
            endpoint: self.path,
            stateless: self.stateless,
            json_response: self.json_response,
            ..Default::default()
        };
        if let Some(h) = self.allowed_hosts {
            config.allowed_hosts = h;
        }
        if let Some(o) = self.allowed_origins {
            config.allowed_origins = o;
        }
        if let Some(n) = self.max_sessions {
            config.max_sessions = n;
        }
        if let Some(auth) = self.auth {
            config.auth = Some(Arc::new(auth.resource(url, verify)));
        }
        config
    }
}

#[derive(Default)]
pub(crate) struct HttpListeners {
    http: tokio::sync::Mutex<Option<HttpServer>>,
    /// The HTTP listener's address, readable without waiting.
    http_addr: Mutex<Option<SocketAddr>>,
    /// The services handed to hosts that own the sockets, shut down by `close`.
    apps: Mutex<Vec<std::sync::Weak<HttpService>>>,
}

impl HttpListeners {
    pub(crate) async fn start_http(
        &self,
        server: Server,
        options: HttpOptions,
        verify: Option<crate::auth::VerifyFn>,
        store: Option<Arc<dyn crate::store::SharedStore>>,
    ) -> Result<String> {
        let (config, listener) = options.config(verify, store).await?;
        // The error names the address already.
        let http = match listener {
            Some(listener) => HttpServer::serve_listener(Arc::new(server), listener, config),
            None => HttpServer::bind(server, config).await,
        }
        .map_err(|e| Error::caused(ErrorKind::Transport, e.to_string(), e))?;
        let url = http.url();
        *self.http_addr.lock().unwrap_or_else(|e| e.into_inner()) = Some(http.local_addr());
        let old = self.http.lock().await.replace(http);
        if let Some(old) = old {
            old.shutdown().await;
        }
        Ok(url)
    }

    pub(crate) fn http_addr(&self) -> Option<SocketAddr> {
        *self.http_addr.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) async fn stop_http(&self) {
        let http = self.http.lock().await.take();
        *self.http_addr.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Some(http) = http {
            http.shutdown().await;
        }
    }

    /// A service answering requests a host hands in; `close` shuts it down too.
    pub(crate) fn http_app(
        &self,
        server: Server,
        options: HttpOptions,
        verify: Option<crate::auth::VerifyFn>,
    ) -> Result<HttpApp> {
        let config = options.app_config(verify)?;
        let service = Arc::new(HttpService::new(Arc::new(server), config));
        let mut apps = self.apps.lock().unwrap_or_else(|e| e.into_inner());
        apps.retain(|a| a.strong_count() > 0);
        apps.push(Arc::downgrade(&service));
        Ok(HttpApp { service })
    }

    /// Shuts down the services handed to hosts.
    pub(crate) async fn close_apps(&self) {
        let apps = std::mem::take(&mut *self.apps.lock().unwrap_or_else(|e| e.into_inner()));
        for app in apps.iter().filter_map(|a| a.upgrade()) {
            app.shutdown().await;
        }
    }
}
