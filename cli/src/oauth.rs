//! The CLI's OAuth: `oxmcp login URL` runs the browser flow once and keeps the tokens in
//! a file readable by the user only; the client commands use (and refresh) them, or do
//! the client credentials grant when given `--client-id` and `--client-secret`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use oxmcp::auth::{FileStore, Grant, Loopback, OAuth, OAuthOptions};

/// Credentials given on the command line.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct AuthArgs {
    /// OAuth client id (with --client-secret: the client credentials grant; alone with
    /// `login`: a client registered beforehand).
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth client secret.
    #[arg(long, value_name = "SECRET", requires = "client_id")]
    pub client_secret: Option<String>,
    /// The authorization server (issuer) the client id belongs to: a server that sends
    /// the client elsewhere is refused, so the secret never goes there.
    #[arg(long, value_name = "URL", requires = "client_id")]
    pub issuer: Option<String>,
}

/// What a protected HTTP server (`everything-server --http`, `proxy --http`) asks of
/// its clients' tokens.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServeAuthArgs {
    /// With --http: require OAuth access tokens (JWTs) from this authorization server,
    /// checked against its JWKS.
    #[arg(long, value_name = "URL", requires = "http")]
    pub auth_issuer: Option<String>,
    /// The audience tokens must name (default: this server's own /mcp URL).
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub auth_audience: Option<String>,
    /// Scopes every request needs, comma-separated.
    #[arg(long, value_name = "SCOPES", requires = "auth_issuer", value_delimiter = ',')]
    pub auth_scopes: Vec<String>,
}

impl ServeAuthArgs {
    /// The protection for a server bound to `addr`, if `--auth-issuer` was given. Tokens
    /// must name this server (its audience): one minted for another server, even the one
    /// a proxy relays to, is refused, so no client's token is ever passed on.
    pub fn resource(&self, addr: std::net::SocketAddr) -> Result<Option<Arc<oxmcp::auth::ProtectedResource>>> {
        let Some(issuer) = &self.auth_issuer else { return Ok(None) };
        if (addr.port() == 0 || addr.ip().is_unspecified()) && self.auth_audience.is_none() {
            anyhow::bail!("--auth-issuer with port 0 or a wildcard address needs --auth-audience (the URL clients use)");
        }
        let audience = self.auth_audience.clone().unwrap_or_else(|| format!("http://{addr}/mcp"));
        let mut resource = oxmcp::auth::ProtectedResource::jwt(audience, issuer.clone());
        resource.required_scopes = self.auth_scopes.clone();
        Ok(Some(Arc::new(resource)))
    }
}

/// Where tokens are kept: `$OXMCP_TOKENS`, else `$XDG_CONFIG_HOME/oxmcp/tokens.json`,
/// else `~/.config/oxmcp/tokens.json`.
pub fn token_file() -> PathBuf {
    if let Some(p) = std::env::var_os("OXMCP_TOKENS") {
        return PathBuf::from(p);
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    config.join("oxmcp").join("tokens.json")
}

fn show(url: &str) {
    eprintln!("Open this URL to authorize oxmcp:\n{url}");
}

/// The OAuth client of a client command: client credentials when a secret is given, else
/// the tokens `oxmcp login` kept (refreshed as needed), with the browser flow when the
/// server asks for more.
pub async fn for_command(args: &AuthArgs) -> Result<OAuth> {
    let store = Arc::new(FileStore::new(token_file()));
    if let (Some(id), Some(secret)) = (&args.client_id, &args.client_secret) {
        let options = OAuthOptions {
            grant: Grant::ClientCredentials,
            client_id: Some(id.clone()),
            client_secret: Some(secret.clone()),
            issuer: args.issuer.clone(),
            ..Default::default()
        };
        return Ok(OAuth::new(options).store(store));
    }
    interactive(args, 0, store).await
}

async fn interactive(args: &AuthArgs, port: u16, store: Arc<FileStore>) -> Result<OAuth> {
    let loopback = Loopback::bind(port).await?;
    let options = OAuthOptions {
        client_name: Some("oxmcp CLI".into()),
        redirect_uri: Some(loopback.redirect_uri().to_string()),
        client_id: args.client_id.clone(),
        client_secret: args.client_secret.clone(),
        issuer: args.issuer.clone(),
        ..Default::default()
    };
    let agent = loopback.agent(show, Duration::from_secs(300));
    Ok(OAuth::new(options).user_agent(agent).store(store))
}

/// `oxmcp login URL`: the authorization code flow now, the tokens kept for later commands.
pub async fn login(url: &str, args: &AuthArgs, port: u16) -> Result<()> {
    let store = Arc::new(FileStore::new(token_file()));
    let oauth = interactive(args, port, store).await?;
    oauth.login(url).await?;
    eprintln!("Logged in: the tokens for {url} are in {}", token_file().display());
    Ok(())
}
