//! `WWW-Authenticate` (RFC 9110 §11.6.1): one or more challenges, each a scheme with
//! either a token68 or comma-separated `name=value` parameters (values are tokens or quoted
//! strings). The Bearer challenge's parameters (RFC 6750 §3, RFC 9728 §5.1) tell a client
//! where the resource's metadata is, which scope to ask for, and why it was refused.

use std::collections::BTreeMap;

use crate::error::{Error, ErrorKind, Result};

/// The most bytes of a header value read: a larger one is refused, not parsed.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// One challenge: its scheme (as sent) and its parameters (names lowercased).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    /// The auth scheme, e.g. `Bearer`, `DPoP`.
    pub scheme: String,
    /// A token68 instead of parameters, when the challenge has one.
    pub token68: Option<String>,
    /// `name=value` parameters, names lowercased; a repeated name keeps the first value.
    pub params: BTreeMap<String, String>,
}

/// What a Bearer (or DPoP) challenge says to an MCP client.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BearerChallenge {
    /// The protected resource metadata URL (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scopes the resource needs, space-separated.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, `invalid_request`...
    pub error: Option<String>,
    /// A human-readable reason.
    pub error_description: Option<String>,
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn is_token68_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/".contains(c)
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.at..].chars().next()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &str {
        let start = self.at;
        while let Some(c) = self.peek() {
            if !f(c) {
                break;
            }
            self.at += c.len_utf8();
        }
        &self.s[start..self.at]
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn quoted(&mut self) -> Result<String> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(bad("an unterminated quoted string")),
                Some('"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.at += 1;
                    let c = self.peek().ok_or_else(|| bad("a dangling escape"))?;
                    out.push(c);
                    self.at += c.len_utf8();
                }
                Some(c) => {
                    out.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
    }
    /// Whether what follows is `name =` (a parameter) rather than a new challenge.
    fn param_ahead(&self) -> bool {
        let rest = &self.s[self.at..];
        let name_len = rest.find(|c: char| !is_tchar(c)).unwrap_or(rest.len());
        name_len > 0 && rest[name_len..].trim_start_matches([' ', '\t']).starts_with('=')
    }
}

fn bad(what: &str) -> Error {
    Error::new(ErrorKind::Protocol, format!("invalid WWW-Authenticate header: {what}"))
}

impl Challenge {
    /// Every challenge in a `WWW-Authenticate` value (the values of several such headers
    /// may be joined with commas).
    ///
    /// ```
    /// use oxmcp::auth::Challenge;
    /// let c = Challenge::parse_all(r#"Bearer error="invalid_token", scope="files:read", Basic realm="x""#).unwrap();
    /// assert_eq!((c[0].scheme.as_str(), c[1].scheme.as_str()), ("Bearer", "Basic"));
    /// assert_eq!(c[0].params["scope"], "files:read");
    /// ```
    pub fn parse_all(header: &str) -> Result<Vec<Challenge>> {
        if header.len() > MAX_HEADER_BYTES {
            return Err(bad("too large"));
        }
        let mut cur = Cursor { s: header, at: 0 };
        let mut out = Vec::new();
        loop {
            cur.skip_ws();
            while cur.eat(',') {
                cur.skip_ws();
            }
            if cur.peek().is_none() {
                return Ok(out);
            }
            let scheme = cur.take_while(is_tchar).to_string();
            if scheme.is_empty() {
                return Err(bad("a challenge without a scheme"));
            }
            let mut challenge = Challenge { scheme, ..Default::default() };
            cur.skip_ws();
            // Whether a comma closed this challenge (so what follows is the next one).
            let mut comma = false;
            if !cur.param_ahead() && cur.peek().is_some_and(is_token68_char) {
                let t = cur.take_while(is_token68_char).to_string();
                let pad = cur.take_while(|c| c == '=').to_string();
                challenge.token68 = Some(t + &pad);
            } else {
                while cur.param_ahead() {
                    let name = cur.take_while(is_tchar).to_ascii_lowercase();
                    cur.skip_ws();
                    cur.eat('=');
                    cur.skip_ws();
                    let value = if cur.eat('"') { cur.quoted()? } else { cur.take_while(is_tchar).to_string() };
                    challenge.params.entry(name).or_insert(value);
                    cur.skip_ws();
                    comma = false;
                    while cur.eat(',') {
                        comma = true;
                        cur.skip_ws();
                    }
                    if !comma {
                        break;
                    }
                }
            }
            out.push(challenge);
            cur.skip_ws();
            match cur.peek() {
                None => return Ok(out),
                Some(',') => {}
                Some(_) if comma => {}
                Some(c) => return Err(bad(&format!("unexpected {c:?}"))),
            }
        }
    }

    /// The Bearer (or DPoP) parameters an MCP client acts on, from the first challenge of
    /// that scheme in `header`; `None` when there is none.
    pub fn bearer(header: &str) -> Result<Option<BearerChallenge>> {
        let all = Self::parse_all(header)?;
        let Some(c) = all.iter().find(|c| c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop"))
        else {
            return Ok(None);
        };
        let get = |k: &str| c.params.get(k).cloned();
        Ok(Some(BearerChallenge {
            resource_metadata: get("resource_metadata"),
            scope: get("scope"),
            error: get("error"),
            error_description: get("error_description"),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mcp_bearer_challenge() {
        let h = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="insufficient_scope""#;
        let b = Challenge::bearer(h).unwrap().unwrap();
        assert_eq!(b.resource_metadata.as_deref(), Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(b.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(b.error.as_deref(), Some("insufficient_scope"));
    }

    #[test]
    fn several_challenges_tokens_escapes_and_case() {
        let all = Challenge::parse_all(
            r#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", bearer ERROR=invalid_token"#,
        )
        .unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].params["title"], r#"Login to "apps""#);
        assert_eq!(all[0].params["type"], "1");
        assert_eq!(all[1].params["realm"], "simple");
        assert_eq!(
            Challenge::bearer(r#"Basic realm="x", bearer ERROR=invalid_token"#).unwrap().unwrap().error.as_deref(),
            Some("invalid_token")
        );
    }

    #[test]
    fn token68_and_bare_schemes() {
        let all = Challenge::parse_all("Negotiate abc+/def==, Bearer").unwrap();
        assert_eq!(all[0].token68.as_deref(), Some("abc+/def=="));
        assert_eq!(all[1].scheme, "Bearer");
        assert!(all[1].params.is_empty());
        assert_eq!(Challenge::bearer("Bearer").unwrap(), Some(BearerChallenge::default()));
        assert_eq!(Challenge::bearer(r#"Basic realm="x""#).unwrap(), None);
    }

    #[test]
    fn hostile_values_are_refused_not_crashed_on() {
        assert!(Challenge::parse_all(r#"Bearer scope="never closed"#).is_err());
        assert!(Challenge::parse_all(r#"Bearer scope="dangling\"#).is_err());
        assert!(Challenge::parse_all(&format!("Bearer scope=\"{}\"", "a".repeat(MAX_HEADER_BYTES))).is_err());
        assert!(Challenge::parse_all("=oops").is_err());
        // Never a panic, whatever the bytes.
        for s in ["Bearer ,,,", "Bearer a=", "Bearer a=\"é\"", ",", "Bearer a=b c=d", "Bearer \"x\""] {
            let _ = Challenge::parse_all(s);
        }
        assert_eq!(Challenge::parse_all("").unwrap(), vec![]);
    }
}
