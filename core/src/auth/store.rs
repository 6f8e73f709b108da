//! What an OAuth client keeps between requests and runs: the client registration it got
//! from an authorization server and the tokens it was granted, per protected resource.
//! Behind [`CredentialStore`]: in memory by default, a file (mode 0600) for a CLI.
//!
//! Secrets never reach logs: the `Debug` of every type here leaves them out.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};

/// Seconds since the Unix epoch, now.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// The tokens an authorization server granted.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// What goes in `Authorization: Bearer ...`.
    pub access_token: String,
    /// `Bearer` (compared without case).
    #[serde(default = "bearer")]
    pub token_type: String,
    /// Gets a new access token without the user (absent when none was granted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (Unix seconds), when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or requested, when the server did not say), space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

fn bearer() -> String {
    "Bearer".into()
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl Tokens {
    /// Whether the access token expires within `margin_secs` (false when its expiry is
    /// unknown: the server's 401 will say).
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now_secs() + margin_secs)
    }
}

/// The client's identity at one authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRegistration {
    /// The client id (a URL for a client ID metadata document).
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint: `client_secret_basic`,
    /// `client_secret_post`, `private_key_jwt` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
}

impl std::fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .finish()
    }
}

/// Everything kept for one protected resource. Bound to the authorization server that
/// issued it: when the resource moves to another one, none of it is used there.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    /// The issuer of the authorization server the rest came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// A registration obtained from that server (dynamic registration); pre-registered
    /// credentials are configuration, not kept here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRegistration>,
    /// The latest tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// The private DPoP key (base64url P-256 scalar) the tokens are bound to, when they
    /// are DPoP-bound: without it they are useless to the next process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("issuer", &self.issuer)
            .field("client", &self.client)
            .field("tokens", &self.tokens)
            .field("dpop_key", &self.dpop_key.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Where an OAuth client keeps [`Credentials`], by resource (the server's canonical URL).
pub trait CredentialStore: Send + Sync {
    /// What is kept for `resource`, if anything.
    fn load(&self, resource: &str) -> Option<Credentials>;
    /// Keeps `credentials` for `resource`, replacing what was there.
    fn save(&self, resource: &str, credentials: &Credentials) -> Result<()>;
}

/// Keeps credentials for as long as the process runs (the default).
#[derive(Default)]
pub struct MemoryStore(Mutex<HashMap<String, Credentials>>);

impl CredentialStore for MemoryStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(resource).cloned()
    }
    fn save(&self, resource: &str, credentials: &Credentials) -> Result<()> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(resource.to_string(), credentials.clone());
        Ok(())
    }
}

/// Keeps credentials in one JSON file readable by its owner only (mode 0600), for tools
/// such as a CLI whose runs share a login.
///
/// ```
/// use oxmcp::auth::{CredentialStore, Credentials, FileStore};
/// let dir = std::env::temp_dir().join(format!("oxmcp-doc-{}", std::process::id()));
/// let store = FileStore::new(dir.join("tokens.json"));
/// let c = Credentials { issuer: Some("https://auth.example.com".into()), ..Default::default() };
/// store.save("https://mcp.example.com/mcp", &c).unwrap();
/// assert_eq!(store.load("https://mcp.example.com/mcp"), Some(c));
/// # std::fs::remove_dir_all(dir).unwrap();
/// ```
pub struct FileStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileStore {
    /// A store in the file at `path` (created, with its folder, on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), lock: Mutex::new(()) }
    }

    /// Everything in the file: nothing when there is no file; an error when it cannot be
    /// read (a save must not wipe what it did not understand).
    fn read_all(&self) -> Result<HashMap<String, Credentials>> {
        match std::fs::read(&self.path) {
            Ok(b) => serde_json::from_slice(&b)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("{} is not a token file: {e}", self.path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(Error::new(ErrorKind::InvalidInput, format!("cannot read {}: {e}", self.path.display()))),
        }
    }
}

impl CredentialStore for FileStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.read_all().ok()?.remove(resource)
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> Result<()> {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let io = |e: std::io::Error| Error::new(ErrorKind::InvalidInput, format!("cannot write {}: {e}", self.path.display()));
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // Other processes (another CLI run) save into the same file: each read-modify-write
        // holds the lock file's exclusive lock, so none undoes another's save. Readers need
        // no lock: the file is replaced whole, by a rename.
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        let lock = crate::os::files::owner_only(&mut options).open(&lock_path).map_err(io)?;
        lock_exclusive(&lock).map_err(io)?;
        let mut all = self.read_all()?;
        all.insert(resource.to_string(), credentials.clone());
        // Written to a private temporary file, then renamed: never a moment where the
        // tokens sit in a file others can read, nor a half-written file.
        // A name of its own (another process may be saving too) that did not exist: its
        // mode is the one asked for, not that of a file left behind.
        let tmp = self.path.with_extension(format!("tmp.{}.{}", std::process::id(), crate::auth::pkce::random_token()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        crate::os::files::owner_only(&mut options);
        let body = serde_json::to_vec_pretty(&all).expect("credentials serialize");
        std::io::Write::write_all(&mut options.open(&tmp).map_err(io)?, &body).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)
    }
}

/// Waits for `file`'s exclusive lock (advisory on Unix, mandatory on Windows), released
/// when the file closes.
fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    fs4::FileExt::lock(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_debug() {
        let t = Tokens {
            access_token: "AT-value".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("RT-value".into()),
            expires_at: None,
            scope: None,
        };
        let c = ClientRegistration {
            client_id: "id".into(),
            client_secret: Some("CS-value".into()),
            token_endpoint_auth_method: None,
        };
        let shown = format!(
            "{t:?} {c:?} {:?}",
            Credentials { tokens: Some(t.clone()), client: Some(c.clone()), issuer: None, dpop_key: Some("KEY-value".into()) }
        );
        for value in ["AT-value", "RT-value", "CS-value", "KEY-value"] {
            assert!(!shown.contains(value), "{shown}");
        }
    }

    #[test]
    fn stores_of_the_same_file_never_undo_each_others_saves() {
        // Two stores on one file stand for two processes: only the file lock orders them.
        let dir = std::env::temp_dir().join(format!("oxmcp-store-race-{}-{}", std::process::id(), now_secs()));
        let path = dir.join("tokens.json");
        let stores = [std::sync::Arc::new(FileStore::new(&path)), std::sync::Arc::new(FileStore::new(&path))];
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let store = stores[t % 2].clone();
                std::thread::spawn(move || {
                    for i in 0..25 {
                        let c = Credentials { issuer: Some(format!("https://as/{t}/{i}")), ..Default::default() };
                        store.save(&format!("https://mcp/{t}/{i}"), &c).unwrap();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        for t in 0..8 {
            for i in 0..25 {
                let kept = stores[0].load(&format!("https://mcp/{t}/{i}"));
                assert_eq!(kept.and_then(|c| c.issuer), Some(format!("https://as/{t}/{i}")), "save {t}/{i} was lost");
            }
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_file_store_is_private_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("oxmcp-store-{}-{}", std::process::id(), now_secs()));
        let store = FileStore::new(dir.join("t.json"));
        assert_eq!(store.load("r"), None);
        store.save("r", &Credentials { issuer: Some("i".into()), ..Default::default() }).unwrap();
        store.save("s", &Credentials::default()).unwrap();
        assert_eq!(store.load("r").unwrap().issuer.as_deref(), Some("i"));
        let mode = std::fs::metadata(dir.join("t.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
