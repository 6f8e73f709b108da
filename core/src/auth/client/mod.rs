//! The OAuth 2.1 client of the MCP authorization specification (2025-11-25 and
//! 2026-07-28, with the 2025-03-26 fallbacks): an [`OAuth`] given to an HTTP client
//! transport answers the server's 401 and 403 challenges by itself.
//!
//! On a 401 it discovers the server's authorization server (`discover`), finds or makes
//! the client's identity there (`identify`), gets tokens (`grant`: the authorization code
//! grant through a [`UserAgent`], or client credentials), keeps them in a
//! [`CredentialStore`] and the request is sent again. Tokens are refreshed before they
//! expire and after a 401; a 403 `insufficient_scope` asks for the union of the scopes
//! held and the ones challenged, a bounded number of times.
//!
//! By what they hold:
//! - `fetch`: the client's own HTTP requests and how their failures read;
//! - `discover`: resource and authorization server metadata;
//! - `identity`: pre-registered, metadata-document and dynamically registered clients,
//!   and client authentication at the token endpoint;
//! - `assertion`: `private_key_jwt` assertions;
//! - `grant`: the grants, the authorization response's checks and token responses;
//! - `dpop`: DPoP proofs, for servers that bind tokens to the client's key;
//! - `loopback`: the user agent of programs on the user's machine (a browser, and a
//!   redirect listener on 127.0.0.1).

mod assertion;
mod discover;
pub(crate) mod dpop;
pub(crate) mod fetch;
mod grant;
mod identity;
mod loopback;

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::Deserialize;

use self::discover::Discovered;
use self::fetch::denied;
use crate::auth::challenge::{BearerChallenge, Challenge};
use crate::auth::discovery::canonical_resource;
use crate::auth::store::{CredentialStore, Credentials, MemoryStore, Tokens};
use crate::error::{Error, ErrorKind, Result};

pub use grant::MAX_TOKEN_BYTES;
pub use loopback::Loopback;

/// How the client gets its tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// A user authorizes in a browser (the default).
    #[default]
    AuthorizationCode,
    /// The client acts for itself with its own credentials (`client_id` and a secret or a
    /// private key).
    ClientCredentials,
    /// The client presents a JWT it was given (`assertion`: a workload identity token
    /// from its platform) for an access token (RFC 7523).
    JwtBearer,
    /// Enterprise-managed authorization: the user's ID token from the enterprise's
    /// identity provider (`id_token`) becomes an identity assertion grant there (token
    /// exchange, RFC 8693), which the authorization server takes as a JWT bearer grant.
    EnterpriseManaged,
}

/// What an OAuth client is configured with; every field may be left out. Deserializes
/// from the JSON the host bindings pass.
#[derive(Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct OAuthOptions {
    /// The grant to use.
    pub grant: Grant,
    /// The name dynamic registration gives the client (default `oxmcp`).
    pub client_name: Option<String>,
    /// Where the authorization server sends the browser back (default
    /// `http://127.0.0.1/callback`; with a [`Loopback`] agent, its
    /// [`redirect_uri`](Loopback::redirect_uri)).
    pub redirect_uri: Option<String>,
    /// A client id registered beforehand (then no registration happens).
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// A private key (PKCS#8 PEM) for `private_key_jwt`.
    pub private_key_pem: Option<String>,
    /// The key's algorithm (default `ES256`).
    pub signing_alg: Option<String>,
    /// Forces a token endpoint authentication method instead of choosing one.
    pub token_endpoint_auth_method: Option<String>,
    /// The URL of this client's metadata document, used as its client id where the
    /// authorization server supports that (CIMD).
    pub client_metadata_url: Option<String>,
    /// The scope to ask for instead of the one discovery suggests (a server that needs
    /// more still gets it asked for).
    pub scope: Option<String>,
    /// How many times one request may ask for more scopes after a 403 (default 2).
    pub max_step_ups: Option<u32>,
    /// The authorization server's issuer these credentials belong to: any other one the
    /// server names is refused, so a secret, key or assertion configured here never goes
    /// to an authorization server a (hostile) MCP server picked. Recommended whenever a
    /// secret, a private key or an assertion is configured.
    pub issuer: Option<String>,
    /// Whether to bind tokens with DPoP (where the authorization server offers it):
    /// `true` always, `false` never; by default when the server asks for it.
    pub dpop: Option<bool>,
    /// The JWT presented by the `jwt_bearer` grant.
    pub assertion: Option<String>,
    /// The user's ID token, for the `enterprise_managed` grant.
    pub id_token: Option<String>,
    /// The identity provider's token endpoint, for the `enterprise_managed` grant.
    pub idp_token_endpoint: Option<String>,
    /// This client's id at the identity provider.
    pub idp_client_id: Option<String>,
    /// Its secret there, if it has one.
    pub idp_client_secret: Option<String>,
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .field("redirect_uri", &self.redirect_uri)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    pub(crate) fn client_name(&self) -> &str {
        self.client_name.as_deref().unwrap_or("oxmcp")
    }
    pub(crate) fn redirect_uri(&self) -> String {
        self.redirect_uri.clone().unwrap_or_else(|| "http://127.0.0.1/callback".into())
    }
    pub(crate) fn max_step_ups(&self) -> u32 {
        self.max_step_ups.unwrap_or(2)
    }
}

/// An authorization the user is asked for: the agent sends the browser to `url` and
/// returns the URL the authorization server sent it back to (`redirect_uri` with `code`,
/// `state` and `iss`, or `error`).
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    /// The authorization URL to visit.
    pub url: String,
    /// Where the browser comes back.
    pub redirect_uri: String,
    /// The `state` the response must carry (checked by the client, given for agents that
    /// serve several flows at once).
    pub state: String,
}

/// What plays the user's browser in the authorization code grant.
pub type UserAgent = Arc<dyn Fn(AuthorizationRequest) -> BoxFuture<'static, Result<String>> + Send + Sync>;

/// An agent that visits the authorization URL itself and takes the redirect it gets back,
/// without following it: for authorization servers that grant without a login page
/// (tests, the conformance suite, servers that already know the user by other means).
pub fn headless_agent() -> UserAgent {
    Arc::new(|req: AuthorizationRequest| {
        Box::pin(async move {
            let resp = fetch::http_client().get(&req.url).send().await.map_err(|e| {
                crate::Error::new(crate::ErrorKind::Transport, format!("visiting the authorization URL failed: {e}"))
            })?;
            resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_string).ok_or_else(|| {
                denied(format!("the authorization endpoint answered HTTP {} without sending the browser back", resp.status()))
            })
        })
    })
}

struct State {
    /// Loaded from the store on first use.
    credentials: Option<Credentials>,
    discovered: Option<Arc<Discovered>>,
    /// The server this client is for (canonical URL), once used.
    server: Option<String>,
    /// Bumped whenever the tokens change: a request refused with older tokens just tries
    /// again instead of starting another flow.
    generation: u64,
}

/// An OAuth client for one MCP server, shared by every request of a connection (and by
/// clones). See the module docs.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// use oxmcp::auth::{headless_agent, OAuth, OAuthOptions};
/// use oxmcp::client::Client;
/// use oxmcp::transport::http::HttpClientTransport;
/// let options = OAuthOptions { client_name: Some("my-app".into()), ..Default::default() };
/// let oauth = OAuth::new(options).user_agent(headless_agent());
/// let transport = HttpClientTransport::new("https://mcp.example.com/mcp").oauth(oauth);
/// let client = Client::builder("me", "1.0.0").connect(transport).await?;
/// client.close().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuth(Arc<Shared>);

struct Shared {
    options: OAuthOptions,
    agent: Option<UserAgent>,
    store: Arc<dyn CredentialStore>,
    http: reqwest::Client,
    state: Mutex<State>,
    /// One flow at a time: concurrent 401s wait for the first one's tokens.
    flow: tokio::sync::Mutex<()>,
    /// The DPoP key: generated, or the one the stored tokens are bound to.
    dpop: Mutex<Arc<dpop::DpopKey>>,
    /// The latest DPoP nonces of the authorization server and of the MCP server.
    as_nonce: Mutex<Option<String>>,
    rs_nonce: Mutex<Option<String>>,
    /// The server challenged with the DPoP scheme.
    rs_dpop: std::sync::atomic::AtomicBool,
}

/// What a request to the server carries: its `Authorization` value, the DPoP proof for
/// it when the token is bound, and the generation of the tokens (for
/// [`OAuth::refused`]).
#[derive(Clone)]
pub struct Authorization {
    /// `Bearer …` or `DPoP …`.
    pub header: String,
    /// The `DPoP` header's proof.
    pub dpop: Option<String>,
    /// Which tokens these are.
    pub generation: u64,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.header.split(' ').next().unwrap_or_default();
        f.debug_struct("Authorization").field("scheme", &scheme).field("generation", &self.generation).finish_non_exhaustive()
    }
}

/// How the server refused a request.
#[derive(Debug, Clone, Copy)]
pub struct Refusal<'a> {
    /// 401 or 403.
    pub status: u16,
    /// Its `WWW-Authenticate` header.
    pub www_authenticate: Option<&'a str>,
    /// Its `DPoP-Nonce` header.
    pub dpop_nonce: Option<&'a str>,
}

/// What the transport does after the server refused a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Retry {
    /// New credentials are in place: send the request again.
    Again,
    /// Nothing more to try: the refusal stands.
    GiveUp,
}

impl OAuth {
    /// A client with these options, an in-memory store and no user agent (client
    /// credentials need none; the authorization code grant fails without one).
    pub fn new(options: OAuthOptions) -> Self {
        Self::build(options, None, Arc::new(MemoryStore::default()), fetch::http_client())
    }

    fn build(options: OAuthOptions, agent: Option<UserAgent>, store: Arc<dyn CredentialStore>, http: reqwest::Client) -> Self {
        let state = State { credentials: None, discovered: None, server: None, generation: 0 };
        OAuth(Arc::new(Shared {
            options,
            agent,
            store,
            http,
            state: Mutex::new(state),
            flow: tokio::sync::Mutex::new(()),
            dpop: Mutex::new(Arc::new(dpop::DpopKey::generate())),
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
            rs_dpop: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    /// The same client with `agent` as the user's browser.
    pub fn user_agent(self, agent: UserAgent) -> Self {
        let s = &self.0;
        // The same HTTP client too: building one loads the system's root certificates.
        Self::build(s.options.clone(), Some(agent), s.store.clone(), s.http.clone())
    }

    /// The same client keeping its credentials in `store`.
    pub fn store(self, store: Arc<dyn CredentialStore>) -> Self {
        let s = &self.0;
        Self::build(s.options.clone(), s.agent.clone(), store, s.http.clone())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn key(server_url: &str) -> String {
        canonical_resource(server_url).unwrap_or_else(|_| server_url.to_string())
    }

    fn credentials(&self, server_url: &str) -> Credentials {
        let mut s = self.state();
        if s.credentials.is_none() {
            let kept = self.0.store.load(&Self::key(server_url)).unwrap_or_default();
            // Tokens bound to a key need that key: it comes back with them.
            self.take_key(&kept);
            s.credentials = Some(kept);
        }
        s.credentials.clone().unwrap_or_default()
    }

    fn dpop_key(&self) -> Arc<dpop::DpopKey> {
        self.0.dpop.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Ties this client to the first server it is used with: its tokens, registration and
    /// discovery are that server's, and must never reach another.
    fn check_server(&self, server_url: &str) -> Result<()> {
        let key = Self::key(server_url);
        let mut s = self.state();
        match &s.server {
            Some(bound) if *bound != key => Err(Error::new(
                ErrorKind::InvalidInput,
                format!("this OAuth client serves {bound:?}; make another one for {key:?}"),
            )),
            Some(_) => Ok(()),
            None => {
                s.server = Some(key);
                Ok(())
            }
        }
    }

    fn keep(&self, server_url: &str, mut credentials: Credentials) -> Result<()> {
        let bound = credentials.tokens.as_ref().is_some_and(|t| t.token_type == "DPoP");
        credentials.dpop_key = bound.then(|| self.dpop_key().secret());
        self.0.store.save(&Self::key(server_url), &credentials)?;
        let mut s = self.state();
        s.credentials = Some(credentials);
        s.generation += 1;
        Ok(())
    }

    fn cx(&self) -> grant::Cx<'_> {
        let server_wants_dpop = self.0.rs_dpop.load(std::sync::atomic::Ordering::Relaxed);
        grant::Cx {
            http: &self.0.http,
            options: &self.0.options,
            dpop: self.dpop_key(),
            as_nonce: &self.0.as_nonce,
            server_wants_dpop,
        }
    }

    /// Whether the tokens held are DPoP-bound (each request then needs a proof naming its
    /// method).
    pub fn binds_tokens(&self) -> bool {
        let s = self.state();
        s.credentials.as_ref().and_then(|c| c.tokens.as_ref()).is_some_and(|t| t.token_type == "DPoP")
    }

    /// What a `method` request to the server at `server_url` carries; refreshes first
    /// when the token is about to expire. `None` before any token was obtained.
    pub async fn authorization(&self, method: &str, server_url: &str) -> Result<Option<Authorization>> {
        self.check_server(server_url)?;
        let tokens = self.credentials(server_url).tokens;
        if tokens.as_ref().is_some_and(|t| t.refresh_token.is_some() && t.expires_within(60)) {
            let _flow = self.0.flow.lock().await;
            // Someone may have refreshed while this waited.
            let current = self.credentials(server_url).tokens;
            if current.as_ref().is_some_and(|t| t.expires_within(60)) {
                if let Err(e) = self.refresh(server_url).await {
                    tracing::info!("refreshing the access token failed ({}); the server's answer will tell", e.message());
                }
            }
        }
        let s = self.state();
        let Some(t) = s.credentials.as_ref().and_then(|c| c.tokens.as_ref()) else { return Ok(None) };
        let dpop = (t.token_type == "DPoP").then(|| {
            let nonce = self.0.rs_nonce.lock().unwrap_or_else(|e| e.into_inner()).clone();
            self.dpop_key().proof(method, server_url, nonce.as_deref(), Some(&t.access_token))
        });
        Ok(Some(Authorization { header: format!("{} {}", t.token_type, t.access_token), dpop, generation: s.generation }))
    }

    /// The server at `server_url` refused a request sent with tokens of `generation`
    /// (`status` 401 or 403, with its `WWW-Authenticate` and `DPoP-Nonce`): gets new
    /// tokens (or takes the nonce) if it can. `step_ups` is how many times this request
    /// already asked for more scopes.
    pub async fn refused(&self, server_url: &str, generation: Option<u64>, refusal: Refusal<'_>, step_ups: u32) -> Result<Retry> {
        let Refusal { status, www_authenticate, dpop_nonce } = refusal;
        let schemes = www_authenticate.and_then(|h| Challenge::parse_all(h).ok()).unwrap_or_default();
        if schemes.iter().any(|c| c.scheme.eq_ignore_ascii_case("dpop")) {
            self.0.rs_dpop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let challenge: BearerChallenge = match www_authenticate.map(Challenge::bearer) {
            Some(Ok(Some(c))) => c,
            _ => BearerChallenge::default(),
        };
        if let (401, Some("use_dpop_nonce"), Some(nonce)) = (status, challenge.error.as_deref(), dpop_nonce) {
            let mut held = self.0.rs_nonce.lock().unwrap_or_else(|e| e.into_inner());
            // The same nonce refused twice: sending it a third time would not help.
            if held.as_deref() == Some(nonce) {
                return Ok(Retry::GiveUp);
            }
            *held = Some(nonce.to_string());
            return Ok(Retry::Again);
        }
        let insufficient_scope = status == 403 && challenge.error.as_deref() == Some("insufficient_scope");
        if status == 403 && !insufficient_scope {
            return Ok(Retry::GiveUp);
        }
        if insufficient_scope && step_ups >= self.0.options.max_step_ups() {
            return Err(denied(format!(
                "the server still needs more scopes ({}) after {step_ups} authorizations",
                challenge.scope.as_deref().unwrap_or("unnamed")
            )));
        }
        let _flow = self.0.flow.lock().await;
        let current = self.state().generation;
        if generation.is_some_and(|g| g != current) || (generation.is_none() && current > 0 && !insufficient_scope) {
            return Ok(Retry::Again); // another request got new tokens meanwhile
        }
        let held = self.credentials(server_url).tokens;
        if status == 401 && held.as_ref().is_some_and(|t| t.refresh_token.is_some()) && self.refresh(server_url).await.is_ok() {
            return Ok(Retry::Again);
        }
        self.obtain(server_url, Some(&challenge), held.as_ref()).await?;
        Ok(Retry::Again)
    }

    /// Runs discovery and a grant now, without waiting for a challenge (what a CLI's
    /// `login` does).
    pub async fn login(&self, server_url: &str) -> Result<()> {
        self.check_server(server_url)?;
        let _flow = self.0.flow.lock().await;
        let held = self.credentials(server_url).tokens;
        self.obtain(server_url, None, held.as_ref()).await
    }

    async fn discovered(&self, server_url: &str, resource_metadata: Option<&str>) -> Result<Arc<Discovered>> {
        if resource_metadata.is_none() {
            if let Some(d) = self.state().discovered.clone() {
                return Ok(d);
            }
        }
        let d = Arc::new(discover::discover(&self.0.http, server_url, resource_metadata).await?);
        self.state().discovered = Some(d.clone());
        Ok(d)
    }

    async fn refresh(&self, server_url: &str) -> Result<()> {
        let creds = self.credentials(server_url);
        let old = creds.tokens.clone().ok_or_else(|| denied("no tokens to refresh"))?;
        // A span under the request that waits on it (telemetry on).
        let step = crate::telemetry::Step::internal(
            "oauth token refresh",
            vec![opentelemetry::KeyValue::new("url.full", server_url.to_owned())],
        );
        let refreshed = match self.refresh_now(server_url, creds, &old).await {
            Ok(()) => Ok(()),
            // Another process sharing the store (a second CLI run) may have refreshed
            // first: the server then refuses the refresh token it rotated, and the store
            // holds the new tokens.
            Err(e) => self.adopt_newer(server_url, &old).then_some(()).ok_or(e),
        };
        if let Some(step) = step {
            step.end(refreshed.as_ref().map_err(|e| (e.kind().name(), e.message())).copied());
        }
        refreshed
    }

    async fn refresh_now(&self, server_url: &str, mut creds: Credentials, old: &Tokens) -> Result<()> {
        let d = self.discovered(server_url, None).await?;
        if creds.issuer.as_deref() != Some(d.issuer.as_str()) {
            return Err(denied("the tokens come from another authorization server"));
        }
        let (client, _) = identity::identify(&self.0.http, &self.0.options, &d, creds.client.as_ref()).await?;
        creds.tokens = Some(grant::refresh(&self.cx(), &d, &client, old).await?);
        self.keep(server_url, creds)
    }

    /// Takes the store's tokens for `server_url` if they are not `old`; true if it did.
    fn adopt_newer(&self, server_url: &str, old: &Tokens) -> bool {
        let Some(kept) = self.0.store.load(&Self::key(server_url)) else { return false };
        if kept.tokens.is_none() || kept.tokens.as_ref() == Some(old) {
            return false;
        }
        self.take_key(&kept);
        let mut s = self.state();
        s.credentials = Some(kept);
        s.generation += 1;
        true
    }

    /// Signs with the key `kept` tokens are bound to, if they are.
    fn take_key(&self, kept: &Credentials) {
        if let Some(key) = kept.dpop_key.as_deref().and_then(dpop::DpopKey::from_secret) {
            *self.0.dpop.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(key);
        }
    }

    /// Discovery, identity and a grant, with the scope this challenge calls for.
    async fn obtain(&self, server_url: &str, challenge: Option<&BearerChallenge>, held: Option<&Tokens>) -> Result<()> {
        let d = self.discovered(server_url, challenge.and_then(|c| c.resource_metadata.as_deref())).await?;
        if let Some(pinned) = self.0.options.issuer.as_deref().filter(|p| *p != d.issuer) {
            return Err(denied(format!(
                "the server sends this client to the authorization server {:?}, not to {pinned:?} its credentials are for",
                d.issuer
            )));
        }
        let mut creds = self.credentials(server_url);
        if creds.issuer.as_deref() != Some(d.issuer.as_str()) {
            // A new authorization server (or the first): nothing from another one is used
            // with it, neither the registration nor the tokens.
            creds = Credentials { issuer: Some(d.issuer.clone()), ..Default::default() };
        }
        let scope = self.scope(&d, challenge.and_then(|c| c.scope.as_deref()), held.and_then(|t| t.scope.as_deref()));
        let (client, registered) = identity::identify(&self.0.http, &self.0.options, &d, creds.client.as_ref()).await?;
        if registered {
            creds.client = Some(client.clone());
            self.0.store.save(&Self::key(server_url), &creds)?;
        }
        let (cx, options, scope) = (&self.cx(), &self.0.options, scope.as_deref());
        let tokens = match options.grant {
            Grant::ClientCredentials => grant::client_credentials(cx, &d, &client, scope).await?,
            Grant::JwtBearer => {
                let assertion = options.assertion.as_deref().ok_or_else(|| denied("the jwt_bearer grant needs an assertion"))?;
                grant::jwt_bearer(cx, &d, &client, assertion, scope).await?
            }
            Grant::EnterpriseManaged => {
                let grant = grant::identity_assertion(cx, &d, scope).await?;
                grant::jwt_bearer(cx, &d, &client, &grant, scope).await?
            }
            Grant::AuthorizationCode => {
                let agent = self.0.agent.as_ref().ok_or_else(|| {
                    denied("the server needs authorization and this client has no user agent to run the authorization code grant")
                })?;
                grant::authorization_code(cx, agent, &d, &client, scope).await?
            }
        };
        creds.tokens = Some(tokens);
        self.keep(server_url, creds)
    }

    /// The scope to ask for: the challenge's joined with the configured one and what is
    /// held (a step-up keeps what was granted); else the configured one; else what the
    /// resource lists; else none.
    /// `offline_access` is added for a user's grant when the authorization server offers it.
    fn scope(&self, d: &Discovered, challenged: Option<&str>, held: Option<&str>) -> Option<String> {
        fn add(scopes: &mut Vec<String>, s: &str) {
            for one in s.split_whitespace() {
                if !scopes.iter().any(|x| x == one) {
                    scopes.push(one.to_string());
                }
            }
        }
        let mut scopes: Vec<String> = Vec::new();
        let configured = self.0.options.scope.as_deref();
        if let Some(c) = challenged.filter(|c| !c.trim().is_empty()) {
            add(&mut scopes, configured.unwrap_or_default());
            add(&mut scopes, held.unwrap_or_default());
            add(&mut scopes, c);
        } else if let Some(s) = configured {
            add(&mut scopes, s);
        } else if let Some(listed) = d.resource_scopes.as_ref().filter(|l| !l.is_empty()) {
            add(&mut scopes, &listed.join(" "));
        }
        if scopes.is_empty() {
            return None;
        }
        let offered = d.meta.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|x| x == "offline_access"));
        if offered && self.0.options.grant == Grant::AuthorizationCode {
            add(&mut scopes, "offline_access");
        }
        Some(scopes.join(" "))
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("options", &self.0.options).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Tokens;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    fn proof_jwk(proof: &str) -> serde_json::Value {
        let header = URL_SAFE_NO_PAD.decode(proof.split('.').next().unwrap()).unwrap();
        serde_json::from_slice::<serde_json::Value>(&header).unwrap()["jwk"].clone()
    }

    fn tokens(token_type: &str) -> Tokens {
        Tokens { access_token: "AT".into(), token_type: token_type.into(), refresh_token: None, expires_at: None, scope: None }
    }

    #[tokio::test]
    async fn dpop_bound_tokens_are_kept_with_their_key_and_signed_with_it_next_time() {
        let url = "https://mcp.example.com/mcp";
        let store = Arc::new(MemoryStore::default());
        let first = OAuth::new(OAuthOptions::default()).store(store.clone());
        first.check_server(url).unwrap();
        first.keep(url, Credentials { tokens: Some(tokens("DPoP")), ..Default::default() }).unwrap();
        let kept = store.load(&OAuth::key(url)).unwrap();
        assert_eq!(kept.dpop_key, Some(first.dpop_key().secret()));
        assert!(!format!("{kept:?}").contains(&first.dpop_key().secret()), "the key stays out of Debug");

        // The next process's client signs its requests with the key the tokens are bound to.
        let next = OAuth::new(OAuthOptions::default()).store(store.clone());
        let auth = next.authorization("POST", url).await.unwrap().unwrap();
        assert_eq!(auth.header, "DPoP AT");
        let own_key = first.dpop_key().proof("POST", url, None, None);
        assert_eq!(proof_jwk(auth.dpop.as_deref().unwrap()), proof_jwk(&own_key));

        // Bearer tokens are bound to nothing: no key is kept.
        first.keep(url, Credentials { tokens: Some(tokens("Bearer")), ..Default::default() }).unwrap();
        assert_eq!(store.load(&OAuth::key(url)).unwrap().dpop_key, None);
    }

    #[tokio::test]
    async fn a_refresh_that_fails_takes_the_tokens_another_process_refreshed_meanwhile() {
        // Nothing listens on port 9: the refresh itself fails.
        let url = "http://127.0.0.1:9/mcp";
        let store = Arc::new(MemoryStore::default());
        store.save(&OAuth::key(url), &Credentials { tokens: Some(tokens("Bearer")), ..Default::default() }).unwrap();
        let client = OAuth::new(OAuthOptions::default()).store(store.clone());
        assert_eq!(client.authorization("POST", url).await.unwrap().unwrap().header, "Bearer AT");
        assert!(client.refresh(url).await.is_err(), "no newer tokens: the failure stands");

        let newer = Tokens { access_token: "AT2".into(), ..tokens("Bearer") };
        store.save(&OAuth::key(url), &Credentials { tokens: Some(newer), ..Default::default() }).unwrap();
        client.refresh(url).await.unwrap();
        assert_eq!(client.authorization("POST", url).await.unwrap().unwrap().header, "Bearer AT2");
    }
}
