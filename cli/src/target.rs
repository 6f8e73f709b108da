//! Where a client command's server is: a URL or a command given on the command line, or a
//! server named in an `mcp.json`-style file (`--config`), with extra HTTP headers
//! (`--header`) or environment variables for the child (`-e`).
//!
//! The file is the one MCP hosts share: `{"mcpServers": {NAME: {...}}}` (or `"servers"`,
//! as VS Code writes it), each entry either `{"command", "args", "env"}` or
//! `{"url", "headers"}`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

/// Options every client command takes about its server.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServerArgs {
    /// An HTTP header sent to a URL server, `Name: value` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// An environment variable for a command server, KEY=VALUE (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Take the server from this mcp.json-style file: it is then named by its key, right
    /// after the command's options (`oxmcp call --config mcp.json SERVER TOOL ...`).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

/// A server to connect to.
#[derive(Debug, Clone, PartialEq)]
pub enum Server {
    /// Streamable HTTP (or legacy HTTP+SSE), with extra headers.
    Url { url: String, headers: Vec<(String, String)> },
    /// A command run as a child process (stdio), with extra environment variables.
    Command { program: String, args: Vec<String>, env: Vec<(String, String)> },
}

/// One server of a config file.
#[derive(Deserialize)]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `stdio`, `http`, `streamable-http` or `sse`: informative, the other fields decide.
    #[serde(rename = "type")]
    _kind: Option<String>,
    /// Other hosts' settings (e.g. `disabled`, `timeout`), not oxmcp's business.
    #[serde(flatten)]
    _rest: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct File {
    #[serde(default, rename = "mcpServers")]
    mcp_servers: BTreeMap<String, Entry>,
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

impl ServerArgs {
    /// Whether the server is named in a config file (the first word is its name).
    pub fn from_config(&self) -> bool {
        self.config.is_some()
    }

    /// The server `words` name: with `--config`, a name from the file; else a URL (one
    /// word starting with http:// or https://) or a command and its arguments.
    pub fn resolve(&self, words: &[String]) -> Result<Server> {
        let mut server = match &self.config {
            Some(path) => {
                let [name] = words else {
                    bail!("with --config, name one server of {} (got {} words)", path.display(), words.len())
                };
                read_config(path, name)?
            }
            None => {
                let (program, args) = words.split_first().ok_or_else(|| anyhow!("give the server command or URL after --"))?;
                if args.is_empty() && (program.starts_with("http://") || program.starts_with("https://")) {
                    Server::Url { url: program.clone(), headers: Vec::new() }
                } else {
                    Server::Command { program: program.clone(), args: args.to_vec(), env: Vec::new() }
                }
            }
        };
        match &mut server {
            Server::Url { headers, .. } => {
                if !self.env.is_empty() {
                    bail!("-e sets a child process's environment: this server is a URL");
                }
                for h in &self.headers {
                    let (name, value) = h.split_once(':').ok_or_else(|| anyhow!("--header {h:?} is not `Name: value`"))?;
                    headers.push((name.trim().to_string(), value.trim().to_string()));
                }
            }
            Server::Command { env, .. } => {
                if !self.headers.is_empty() {
                    bail!("--header is for a URL server: this server is a command");
                }
                for kv in &self.env {
                    let (key, value) = kv.split_once('=').ok_or_else(|| anyhow!("-e {kv:?} is not KEY=VALUE"))?;
                    if key.is_empty() {
                        bail!("-e {kv:?} names no variable");
                    }
                    env.push((key.to_string(), value.to_string()));
                }
            }
        }
        Ok(server)
    }
}

fn read_config(path: &std::path::Path, name: &str) -> Result<Server> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: File = serde_json::from_str(&text).with_context(|| format!("{} is not an MCP servers file", path.display()))?;
    let mut all = file.mcp_servers;
    all.extend(file.servers);
    let known = all.keys().cloned().collect::<Vec<_>>().join(", ");
    let entry = all.remove(name).ok_or_else(|| anyhow!("{} has no server {name:?} (it has: {known})", path.display()))?;
    match (entry.command, entry.url) {
        (Some(program), None) => Ok(Server::Command { program, args: entry.args, env: entry.env.into_iter().collect() }),
        (None, Some(url)) => Ok(Server::Url { url, headers: entry.headers.into_iter().collect() }),
        (Some(_), Some(_)) => bail!("server {name:?} in {} has both a command and a url", path.display()),
        (None, None) => bail!("server {name:?} in {} has neither a command nor a url", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn command_line_servers_take_headers_or_environment() {
        let args = ServerArgs { env: vec!["A=1".into(), "B=x=y".into()], ..Default::default() };
        let s = args.resolve(&words(&["python", "server.py"])).unwrap();
        let env = vec![("A".to_string(), "1".to_string()), ("B".to_string(), "x=y".to_string())];
        assert_eq!(s, Server::Command { program: "python".into(), args: vec!["server.py".into()], env });
        assert!(args.resolve(&words(&["http://h/mcp"])).is_err(), "-e is for commands");

        let args = ServerArgs { headers: vec!["X-Key:  abc ".into()], ..Default::default() };
        let s = args.resolve(&words(&["https://h/mcp"])).unwrap();
        assert_eq!(s, Server::Url { url: "https://h/mcp".into(), headers: vec![("X-Key".into(), "abc".into())] });
        assert!(ServerArgs { headers: vec!["no colon".into()], ..Default::default() }.resolve(&words(&["https://h"])).is_err());
        assert!(ServerArgs { env: vec!["=1".into()], ..Default::default() }.resolve(&words(&["cmd"])).is_err());
    }

    #[test]
    fn config_files_name_servers_in_either_layout() {
        let dir = std::env::temp_dir().join(format!("oxmcp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        std::fs::write(
            &path,
            r#"{"mcpServers": {"local": {"command": "node", "args": ["s.js"], "env": {"K": "v"}, "disabled": false}},
                "servers": {"remote": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}},
                            "broken": {"args": []}}}"#,
        )
        .unwrap();
        let args = ServerArgs { config: Some(path.clone()), env: vec!["E=1".into()], ..Default::default() };
        let env = vec![("K".to_string(), "v".to_string()), ("E".to_string(), "1".to_string())];
        assert_eq!(
            args.resolve(&words(&["local"])).unwrap(),
            Server::Command { program: "node".into(), args: vec!["s.js".into()], env }
        );
        let args = ServerArgs { config: Some(path.clone()), ..Default::default() };
        let headers = vec![("Authorization".to_string(), "Bearer t".to_string())];
        assert_eq!(args.resolve(&words(&["remote"])).unwrap(), Server::Url { url: "https://h/mcp".into(), headers });
        let unknown = args.resolve(&words(&["nope"])).unwrap_err().to_string();
        assert!(unknown.contains("broken, local, remote"), "{unknown}");
        assert!(args.resolve(&words(&["broken"])).unwrap_err().to_string().contains("neither"));
        std::fs::write(&path, "[1]").unwrap();
        assert!(args.resolve(&words(&["local"])).unwrap_err().to_string().contains("not an MCP servers file"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
