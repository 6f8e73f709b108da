//! A user agent for programs on the user's own machine (a CLI, a desktop app): the
//! authorization URL is shown (and opened in a browser when one is there), and the
//! browser comes back to a listener on 127.0.0.1 (RFC 8252 §7.3), which takes the one
//! request that carries the flow's `state`.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::fetch::denied;
use super::{AuthorizationRequest, UserAgent};
use crate::error::{Error, ErrorKind, Result};

/// The most bytes of the browser's request read: the request line is all that matters.
const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// A loopback redirect listener, bound before the flow starts so its URI is known.
pub struct Loopback {
    listener: Arc<TcpListener>,
    redirect_uri: String,
}

impl Loopback {
    /// Listens on 127.0.0.1:`port` (0: a free port).
    pub async fn bind(port: u16) -> Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| {
            Error::caused(ErrorKind::Transport, format!("cannot listen on 127.0.0.1:{port} for the redirect: {e}"), e)
        })?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
        Ok(Self { listener: Arc::new(listener), redirect_uri: format!("http://127.0.0.1:{port}/callback") })
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// The agent: `show` gets the authorization URL (to print it), a browser is started
    /// on it when one is configured, and the callback is awaited for at most `wait`.
    pub fn agent(&self, show: impl Fn(&str) + Send + Sync + 'static, wait: Duration) -> UserAgent {
        let listener = self.listener.clone();
        let show = Arc::new(show);
        Arc::new(move |req: AuthorizationRequest| {
            let (listener, show) = (listener.clone(), show.clone());
            Box::pin(async move {
                show(&req.url);
                open_browser(&req.url);
                tokio::time::timeout(wait, callback(&listener, &req))
                    .await
                    .map_err(|_| denied(format!("no authorization came back within {} s", wait.as_secs())))?
            })
        })
    }
}

/// Starts the desktop's browser on `url`, when there is a desktop (best effort, quiet).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let desktop =
        cfg!(target_os = "macos") || std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if desktop {
        let _ = std::process::Command::new(opener)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
    }
}

/// Serves browser requests until one carries this flow's state; returns its URL.
async fn callback(listener: &TcpListener, req: &AuthorizationRequest) -> Result<String> {
    let base = reqwest::Url::parse(&req.redirect_uri)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid redirect URI: {e}")))?;
    loop {
        let (mut conn, _) = listener
            .accept()
            .await
            .map_err(|e| Error::caused(ErrorKind::Transport, format!("the redirect listener failed: {e}"), e))?;
        // One slow or silent connection must not hold the flow: each gets a few seconds.
        let line = tokio::time::timeout(Duration::from_secs(5), request_line(&mut conn)).await.ok().flatten();
        let url = line.and_then(|target| base.join(&target).ok());
        let ours = url
            .as_ref()
            .is_some_and(|u| u.path() == base.path() && u.query_pairs().any(|(k, v)| k == "state" && v == req.state.as_str()));
        let (status, text) = if ours {
            ("200 OK", "Authorization received: you can close this window.")
        } else {
            ("404 Not Found", "Not the authorization this program is waiting for.")
        };
        let page = format!("HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}", text.len());
        let _ = conn.write_all(page.as_bytes()).await;
        let _ = conn.shutdown().await;
        if ours {
            return Ok(url.expect("checked above").to_string());
        }
    }
}

/// The target of a `GET` request line (bounded read).
async fn request_line(conn: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buf.windows(2).any(|w| w == b"\r\n") {
        let n = conn.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() + n > MAX_REQUEST_BYTES {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let line = std::str::from_utf8(&buf[..buf.windows(2).position(|w| w == b"\r\n")?]).ok()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Some(target.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_the_flows_own_callback_is_taken() {
        let lb = Loopback::bind(0).await.unwrap();
        let agent = lb.agent(|_| {}, Duration::from_secs(10));
        let redirect = lb.redirect_uri().to_string();
        let req = AuthorizationRequest {
            url: "http://127.0.0.1:9/authorize".into(),
            redirect_uri: redirect.clone(),
            state: "S1".into(),
        };
        let flow = tokio::spawn(agent(req));
        let http = reqwest::Client::new();
        // A stray request, a forged state and a silent connection first: none is taken.
        assert_eq!(http.get(format!("{redirect}?code=X&state=S2")).send().await.unwrap().status(), 404);
        assert_eq!(http.get(redirect.replace("/callback", "/favicon.ico")).send().await.unwrap().status(), 404);
        let _silent =
            tokio::net::TcpStream::connect(redirect.trim_start_matches("http://").trim_end_matches("/callback")).await.unwrap();
        assert_eq!(http.get(format!("{redirect}?code=C&state=S1")).send().await.unwrap().status(), 200);
        let landed = flow.await.unwrap().unwrap();
        assert!(landed.ends_with("/callback?code=C&state=S1"), "{landed}");
    }
}
