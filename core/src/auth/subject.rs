//! Who a verified access token speaks for, as handlers and sessions see it. Outside the
//! `http` feature's code: a request context carries it whatever the transport.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// Who a verified token speaks for: what handlers see of it (the token itself stays out).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthInfo {
    /// The user or workload (`sub`).
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id` or `azp`).
    pub client_id: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// When the token expires (Unix seconds).
    pub expires_at: Option<u64>,
    /// Every claim of the token (or of the introspection answer).
    pub claims: Value,
}

impl AuthInfo {
    /// Who the token speaks for, as one unambiguous text naming its subject and its client
    /// (a subject `alice` and a client `alice` are different owners); `None` when it names
    /// neither, and so nobody to keep anything for.
    ///
    /// ```
    /// use oxmcp::auth::AuthInfo;
    /// let user = AuthInfo { subject: Some("alice".into()), ..Default::default() };
    /// let app = AuthInfo { client_id: Some("alice".into()), ..Default::default() };
    /// assert_ne!(user.identity(), app.identity());
    /// assert_eq!(AuthInfo::default().identity(), None);
    /// ```
    pub fn identity(&self) -> Option<String> {
        match (&self.subject, &self.client_id) {
            (None, None) => None,
            (s, c) => Some(format!("subject {s:?} client {c:?}")),
        }
    }

    #[cfg(feature = "http")]
    /// Reads the common claims of a JWT payload or an introspection answer.
    pub(crate) fn from_claims(claims: Value) -> Self {
        let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_string);
        let scopes = match claims.get("scope").or_else(|| claims.get("scp")) {
            Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        AuthInfo {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// Whether every scope of `needed` was granted.
    pub fn has_scopes(&self, needed: &[String]) -> bool {
        needed.iter().all(|n| self.scopes.iter().any(|s| s == n))
    }
}

/// Who the latest verified token of one session (or stateless request) speaks for: set
/// by the HTTP server as each request arrives, read by the handlers it runs.
#[derive(Clone, Default, Debug)]
pub struct SessionAuth(Arc<std::sync::Mutex<Option<Owned>>>);

/// Who owns a session (see [`SessionAuth::bind`]), and the latest token's information.
type Owned = (String, Arc<AuthInfo>);

impl SessionAuth {
    /// The latest verified token's information.
    pub fn get(&self) -> Option<Arc<AuthInfo>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(_, info)| info.clone())
    }

    /// Records `info` (from `token`) for a request of the session. A session belongs to
    /// whoever opened it (the token's subject and client; the token itself when it names
    /// neither): anyone else is refused (a session id is not a credential), and `false`
    /// is returned.
    pub fn bind(&self, info: AuthInfo, token: &str) -> bool {
        let owner = Self::owner(&info, token);
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if held.as_ref().is_some_and(|(o, _)| *o != owner) {
            return false;
        }
        *held = Some((owner, Arc::new(info)));
        true
    }

    /// Who a token speaks for, as a session's owner: its subject and client, or (naming
    /// neither) a hash of the token itself.
    pub fn owner(info: &AuthInfo, token: &str) -> String {
        info.identity().unwrap_or_else(|| {
            use sha2::Digest;
            let hash = sha2::Sha256::digest(token.as_bytes());
            format!("token {}", hash.iter().map(|b| format!("{b:02x}")).collect::<String>())
        })
    }

    /// Gives a session its owner before any request of it arrives (a session another
    /// server node opened): only that owner's tokens may use it here.
    pub fn owned_by(&self, owner: String) {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if held.is_none() {
            *held = Some((owner, Arc::new(AuthInfo::default())));
        }
    }
}
