//! [`HttpClientTransport`]: the server's URL and how to talk to it.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// Connects to an MCP server by URL.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// use oxmcp::client::Client;
/// use oxmcp::transport::http::HttpClientTransport;
/// let transport = HttpClientTransport::new("http://127.0.0.1:8000/mcp").bearer_token("secret");
/// let client = Client::builder("me", "1.0.0").connect(transport).await?;
/// println!("{:?}", client.server_info());
/// client.close().await;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct HttpClientTransport {
    pub(super) url: String,
    pub(super) headers: HeaderMap,
    pub(super) max_resume_attempts: u32,
    pub(super) default_retry: Duration,
    pub(super) open_get_stream: bool,
    pub(super) oauth: Option<crate::auth::OAuth>,
}

impl HttpClientTransport {
    /// A transport for the server at `url` (the Streamable HTTP endpoint, or a legacy
    /// SSE URL).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: HeaderMap::new(),
            max_resume_attempts: 5,
            default_retry: Duration::from_secs(1),
            open_get_stream: true,
            oauth: None,
        }
    }
    /// Adds a header sent with every request (ignored if name or value is invalid).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            self.headers.insert(n, v);
        }
        self
    }
    /// Sends `Authorization: Bearer <token>`.
    pub fn bearer_token(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }
    /// Answers the server's 401 and 403 challenges with OAuth: every request carries the
    /// client's access token, obtained when the server first asks for one (see
    /// [`OAuth`](crate::auth::OAuth)).
    pub fn oauth(mut self, oauth: crate::auth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }
    /// Whether to open the standalone GET stream after initialization (default true).
    pub fn open_get_stream(mut self, on: bool) -> Self {
        self.open_get_stream = on;
        self
    }
    /// How many times a broken response stream is resumed (default 5).
    pub fn max_resume_attempts(mut self, n: u32) -> Self {
        self.max_resume_attempts = n;
        self
    }
}
