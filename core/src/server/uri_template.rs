//! Matching URIs against RFC 6570 URI templates (the reverse of expansion), so a resource
//! template's handler receives its variables.
//!
//! Supported expressions: `{var}` (no `/`, `?`, `#`), `{+var}` and `{#var}` (anything),
//! `{/var}`, `{.var}`, `{;var}`, and query forms `{?a,b}` / `{&a,b}` (order-free,
//! optional). Values are percent-decoded.

use std::collections::BTreeMap;

/// A parsed URI template.
///
/// ```
/// use oxmcp::server::UriTemplate;
/// let t = UriTemplate::parse("test://template/{id}/data").unwrap();
/// let vars = t.match_uri("test://template/42/data").unwrap();
/// assert_eq!(vars["id"], "42");
/// assert!(t.match_uri("test://template/42/other").is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Expr { op: Option<char>, vars: Vec<String> },
}

impl UriTemplate {
    /// Parses a template; `Err` names the problem (unclosed brace, empty expression).
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
            let close = rest[open..].find('}').ok_or_else(|| format!("unclosed '{{' in {template:?}"))? + open;
            let mut body = &rest[open + 1..close];
            let op = body.chars().next().filter(|c| "+#./;?&".contains(*c));
            if op.is_some() {
                body = &body[1..];
            }
            let vars: Vec<String> = body
                .split(',')
                .map(|v| v.trim_end_matches('*').split(':').next().unwrap_or("").to_string())
                .collect();
            if vars.iter().any(String::is_empty) {
                return Err(format!("empty variable in {template:?}"));
            }
            parts.push(Part::Expr { op, vars });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_string()));
        }
        Ok(Self { source: template.to_string(), parts })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { vars, .. } => vars.iter().map(String::as_str).collect(),
                Part::Literal(_) => Vec::new(),
            })
            .collect()
    }

    /// The variables if `uri` matches, else `None`.
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        match_parts(&self.parts, uri, &mut vars).then_some(vars)
    }
}

fn match_parts(parts: &[Part], uri: &str, vars: &mut BTreeMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(lit) => uri.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars)),
        Part::Expr { op: Some(op @ ('?' | '&')), vars: names } => {
            // Query expressions consume `?k=v&k=v` (or `&...`) up to a fragment; all optional.
            let Some(body) = uri.strip_prefix(*op) else {
                return match_parts(rest, uri, vars);
            };
            let end = body.find('#').unwrap_or(body.len());
            for pair in body[..end].split('&') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                if names.iter().any(|n| n == k) {
                    vars.insert(k.to_string(), decode(v));
                }
            }
            match_parts(rest, &body[end..], vars)
        }
        Part::Expr { op, vars: names } => {
            let (prefix, allow_reserved) = match op {
                None => ("", false),
                Some('+') => ("", true),
                Some('#') => ("#", true),
                Some(c) => (match c { '/' => "/", '.' => ".", _ => ";" }, false),
            };
            let Some(body) = uri.strip_prefix(prefix) else { return false };
            // Try the longest candidate first, backtracking until the rest matches.
            let stop = body
                .char_indices()
                .find(|&(_, c)| !allow_reserved && (c == '/' || c == '?' || c == '#' || (prefix == "." && c == '.')))
                .map_or(body.len(), |(i, _)| i);
            let mut ends: Vec<usize> = body[..stop].char_indices().map(|(i, _)| i).skip(1).collect();
            ends.push(stop);
            for end in ends.into_iter().rev() {
                let value = &body[..end];
                let mut trial = vars.clone();
                let values: Vec<&str> = if names.len() > 1 { value.split(',').collect() } else { vec![value] };
                if values.len() != names.len() {
                    continue;
                }
                for (n, v) in names.iter().zip(values) {
                    let v = if *op == Some(';') { v.strip_prefix(n.as_str()).and_then(|v| v.strip_prefix('=')).unwrap_or(v) } else { v };
                    trial.insert(n.clone(), decode(v));
                }
                if match_parts(rest, &body[end..], &mut trial) {
                    *vars = trial;
                    return true;
                }
            }
            false
        }
    }
}

/// Percent-decodes; invalid escapes are kept as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<BTreeMap<String, String>> {
        UriTemplate::parse(t).unwrap().match_uri(uri)
    }

    #[test]
    fn simple_variables_stop_at_slashes() {
        let v = m("file:///{dir}/{name}.txt", "file:///docs/a.b.txt").unwrap();
        assert_eq!((v["dir"].as_str(), v["name"].as_str()), ("docs", "a.b"));
        assert!(m("test://x/{id}", "test://x/a/b").is_none());
        assert!(m("test://x/{id}", "test://x/").is_none() || m("test://x/{id}", "test://x/").unwrap()["id"].is_empty());
    }

    #[test]
    fn reserved_and_path_and_query_forms() {
        assert_eq!(m("file://{+path}", "file://a/b/c").unwrap()["path"], "a/b/c");
        assert_eq!(m("x://h{/seg}", "x://h/abc").unwrap()["seg"], "abc");
        let q = m("search://q{?term,limit}", "search://q?limit=5&term=hello%20world").unwrap();
        assert_eq!((q["term"].as_str(), q["limit"].as_str()), ("hello world", "5"));
        assert!(m("search://q{?term}", "search://q").unwrap().is_empty());
        assert_eq!(m("a://{x},{y}", "a://1,2").unwrap()["y"], "2");
    }

    #[test]
    fn rejects_malformed_templates() {
        assert!(UriTemplate::parse("a://{x").is_err());
        assert!(UriTemplate::parse("a://{}").is_err());
        assert_eq!(UriTemplate::parse("a://{x}/{+y}").unwrap().variables(), vec!["x", "y"]);
    }
}
