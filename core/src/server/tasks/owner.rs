//! Whose a task is. A request sees, steers and answers only the tasks of its owner; any
//! other task is as unknown to it as one that never was.
//!
//! - In the session era a task belongs to the session that made it (and, on a protected
//!   server, to the token's subject and client as well): another session, of the same
//!   user or not, cannot read it, cancel it or answer what it asks.
//! - In the stateless era (and for session-era requests served without `initialize`)
//!   there is no session: on a protected server a task belongs to the token's subject and
//!   client; on an open server it belongs to nobody, and its id (128 random bits, given
//!   only to the client that made it) is what grants reading, cancelling and answering it.
//! - A token that names neither a subject nor a client identifies nobody: it gets no
//!   task, so that no two strangers share one.

use crate::auth::AuthInfo;
use crate::protocol::ErrorObject;

/// The owner of the tasks a request makes and may reach: `auth`, the request's verified
/// token (on a protected server), and `session`, the key of its session (session era).
/// `None`: anyone who holds a task's id.
pub(crate) fn owner(auth: Option<&AuthInfo>, session: Option<&str>) -> Result<Option<String>, ErrorObject> {
    let identity = match auth {
        Some(info) => Some(info.identity().ok_or_else(|| {
            ErrorObject::invalid_request("tasks need an access token naming its subject or client: this one names neither")
        })?),
        None => None,
    };
    Ok(match (identity, session) {
        (None, None) => None,
        (Some(who), None) => Some(who),
        (None, Some(key)) => Some(format!("session {key:?}")),
        (Some(who), Some(key)) => Some(format!("{who} session {key:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(sub: Option<&str>, client: Option<&str>) -> AuthInfo {
        AuthInfo { subject: sub.map(str::to_string), client_id: client.map(str::to_string), ..Default::default() }
    }

    #[test]
    fn owners_are_unambiguous() {
        let sub = owner(Some(&token(Some("alice"), None)), None).unwrap();
        let client = owner(Some(&token(None, Some("alice"))), None).unwrap();
        assert!(sub.is_some() && client.is_some());
        assert_ne!(sub, client, "a subject and a client of one name are two owners");
        assert_ne!(owner(None, Some("a")).unwrap(), owner(None, Some("b")).unwrap(), "two sessions, two owners");
        assert_ne!(
            owner(Some(&token(Some("alice"), None)), Some("a")).unwrap(),
            owner(Some(&token(Some("alice"), None)), Some("b")).unwrap(),
            "one user's two sessions"
        );
        // A subject made to look like a session cannot pass for one.
        let forged = owner(Some(&token(Some("x\" session \"k"), None)), None).unwrap();
        assert_ne!(forged, owner(Some(&token(Some("x"), None)), Some("k")).unwrap());
        assert_eq!(owner(None, None).unwrap(), None, "the stateless era on an open server: the id is the key");
        let nobody = owner(Some(&token(None, None)), None).unwrap_err();
        assert_eq!(nobody.code, -32600);
    }
}
