//! How a client command connects to its server: the protocol era to speak, over
//! Streamable HTTP (or legacy HTTP+SSE, detected) for a URL, or stdio for a command run as
//! a child process.

use std::time::Duration;

use anyhow::{anyhow, Result};
use oxmcp::client::{Client, ClientBuilder, Era, ServerNotification};
use oxmcp::session::SessionConfig;
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;

use crate::oauth::AuthArgs;
use crate::target::Server;

/// Options every client command takes about connecting.
#[derive(clap::Args, Debug, Clone)]
pub struct ConnectArgs {
    /// The protocol era to speak: `auto` asks the server (server/discover) and falls back
    /// to `initialize` for an older one; `session` initializes at once (protocol up to
    /// 2025-11-25); `stateless` speaks 2026-07-28 only.
    #[arg(long, env = "OXMCP_ERA", default_value = "auto", value_name = "ERA", value_parser = parse_era)]
    pub era: Era,
    /// Give up connecting (the era probe and the handshake) after this many seconds.
    #[arg(long, default_value = "15", value_name = "SECONDS", value_parser = parse_seconds)]
    pub connect_timeout: Duration,
}

/// The longest the era probe waits for a server that ignores it, as the core's default.
const MAX_DISCOVER_TIMEOUT: Duration = Duration::from_secs(10);

/// A clap value parser for a positive number of seconds (fractions allowed).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).ok().filter(|d| !d.is_zero()).ok_or_else(|| format!("{text} is not a positive duration"))
}

/// A clap value parser: the core's parser, whose error names the accepted values. clap
/// names only `--era` in its error, so the message says where else the value may come from.
fn parse_era(text: &str) -> Result<Era, String> {
    Era::parse(text).map_err(|e| format!("{} (from --era, or OXMCP_ERA without it)", e.message()))
}

/// Connects to the server: a URL (Streamable HTTP, or legacy HTTP+SSE, detected) or a
/// command run as a child process (stdio). With `show_logs` the server's log messages
/// are printed on stderr.
/// The whole of it takes at most `--connect-timeout`: a server that never answers would
/// otherwise hold the command for the probe's time plus the session's request timeout.
pub async fn connect(server: &Server, show_logs: bool, auth: &AuthArgs, how: &ConnectArgs) -> Result<Client> {
    let connecting = async {
        let client = connect_to(server, show_logs, auth, how).await?;
        if show_logs && client.era() == Era::Stateless {
            // A stateless-era server logs only to requests that ask for a level.
            client.set_log_level(oxmcp::protocol::LoggingLevel::Debug).await?;
        }
        Ok(client)
    };
    // On timeout the half-made connection is dropped, and with it a child server's process.
    tokio::time::timeout(how.connect_timeout, connecting).await.unwrap_or_else(|_| {
        Err(anyhow!(
            "the server did not finish connecting within {} s (--connect-timeout SECONDS waits longer)",
            how.connect_timeout.as_secs_f64()
        ))
    })
}

async fn connect_to(server: &Server, show_logs: bool, auth: &AuthArgs, how: &ConnectArgs) -> Result<Client> {
    let builder = client_builder(show_logs, how);
    match server {
        Server::Url { url, headers } => {
            // A server that asks for authorization gets it: the tokens `oxmcp login` kept,
            // or client credentials.
            let mut transport = HttpClientTransport::new(url).oauth(crate::oauth::for_command(auth).await?);
            if let Ok(lines) = std::env::var("OXMCP_HEADERS") {
                // "Name: value" lines, e.g. OXMCP_HEADERS='Authorization: Bearer ...'
                for line in lines.lines().filter(|l| l.contains(':')) {
                    let (name, value) = line.split_once(':').unwrap();
                    transport = transport.header(name.trim(), value.trim());
                }
            }
            for (name, value) in headers {
                transport = transport.header(name, value);
            }
            builder.connect(transport).await.map_err(|e| with_path_hint(e, url))
        }
        Server::Command { program, args, env } => {
            let child = env.iter().fold(ChildProcess::new(program).args(args), |c, (k, v)| c.env(k, v));
            Ok(builder.connect(child.spawn()?).await?)
        }
    }
}

/// A connect error, with a hint when the server answered 404 at a URL whose path is not
/// an MCP endpoint: the usual cause is a URL given without its `/mcp`.
fn with_path_hint(error: oxmcp::Error, url: &str) -> anyhow::Error {
    // The HTTP transport reports the status in its message only ("... HTTP 404 Not Found").
    match mcp_url_for(url).filter(|_| error.message().contains("HTTP 404")) {
        Some(suggested) => {
            anyhow::Error::new(error).context(format!("404 from {url}: MCP servers usually serve at /mcp; try {suggested}"))
        }
        None => error.into(),
    }
}

/// Where the MCP endpoint of `url` probably is (`/mcp` appended to its path), unless its
/// path already ends in `/mcp`.
fn mcp_url_for(url: &str) -> Option<String> {
    let (head, query) = url.split_at(url.find(['?', '#']).unwrap_or(url.len()));
    let after_scheme = head.split_once("://").map_or(head, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
    if path.trim_end_matches('/').ends_with("/mcp") {
        return None;
    }
    Some(format!("{}/mcp{query}", head.trim_end_matches('/')))
}

fn client_builder(show_logs: bool, how: &ConnectArgs) -> ClientBuilder {
    // A server that ignores the era probe (older, and not answering unknown methods) leaves
    // at least half the connect time for `initialize`.
    let discover = MAX_DISCOVER_TIMEOUT.min(how.connect_timeout / 2);
    let mut builder = Client::builder("oxmcp-cli", env!("CARGO_PKG_VERSION")).era(how.era).discover_timeout(discover);
    // A server may ask the user something: asked on the terminal.
    builder = builder.on_elicitation(|params, _| crate::elicit::answer(params));
    if show_logs {
        builder = builder.on_notification(|n| {
            if let ServerNotification::LoggingMessage(m) = n {
                eprintln!("[{}] {}", m.level.as_str(), m.data.as_str().map(str::to_string).unwrap_or_else(|| m.data.to_string()));
            }
        });
    }
    builder.session_config(SessionConfig::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_without_mcp_get_it_suggested() {
        assert_eq!(mcp_url_for("http://h:8000").as_deref(), Some("http://h:8000/mcp"));
        assert_eq!(mcp_url_for("http://h:8000/").as_deref(), Some("http://h:8000/mcp"));
        assert_eq!(mcp_url_for("https://h/api/?k=1").as_deref(), Some("https://h/api/mcp?k=1"));
        assert_eq!(mcp_url_for("http://h/mcp"), None);
        assert_eq!(mcp_url_for("http://h/v1/mcp/"), None);
    }

    #[test]
    fn connect_timeouts_are_positive_seconds() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_seconds("0").is_err() && parse_seconds("-1").is_err() && parse_seconds("soon").is_err());
    }
}
