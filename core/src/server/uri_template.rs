//! Matching URIs against RFC 6570 URI templates (the reverse of expansion), so a resource
//! template's handler receives its variables.
//!
//! Supported expressions: `{var}` (no `/`, `?`, `#`), `{+var}` and `{#var}` (anything),
//! `{/var}`, `{.var}`, `{;var}`, and query forms `{?a,b}` / `{&a,b}` (order-free,
//! optional). Values are percent-decoded.

use std::collections::{BTreeMap, HashSet};

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
            let vars: Vec<String> =
                body.split(',').map(|v| v.trim_end_matches('*').split(':').next().unwrap_or("").to_string()).collect();
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
    ///
    /// The URI comes from a client, so the work is bounded: URIs longer than
    /// `MAX_MATCHED_URI` match no template, and the search remembers where a part
    /// already failed, so no position is tried twice for the same part (the cost grows
    /// with the square of the length at most, never exponentially with the template).
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_MATCHED_URI {
            return None;
        }
        let mut search = Search { parts: &self.parts, uri, failed: HashSet::new(), found: Vec::new() };
        if !search.parts_from(0, 0) {
            return None;
        }
        Some(search.found.into_iter().map(|(name, value)| (name.to_string(), decode(value))).collect())
    }
}

/// The longest URI [`UriTemplate::match_uri`] considers (8 KiB).
pub const MAX_MATCHED_URI: usize = 8 * 1024;

/// One match of a URI against a template's parts: a backtracking search over positions,
/// with the (part, position) pairs that failed remembered, and the variables found so far
/// kept as raw slices (decoded once, at the end).
struct Search<'a> {
    parts: &'a [Part],
    uri: &'a str,
    failed: HashSet<(usize, usize)>,
    found: Vec<(&'a str, &'a str)>,
}

impl<'a> Search<'a> {
    /// Whether parts `index..` match the URI from byte `at` to its end.
    fn parts_from(&mut self, index: usize, at: usize) -> bool {
        if self.failed.contains(&(index, at)) {
            return false;
        }
        let kept = self.found.len();
        let matched = self.part(index, at);
        if !matched {
            self.found.truncate(kept);
            self.failed.insert((index, at));
        }
        matched
    }

    fn part(&mut self, index: usize, at: usize) -> bool {
        let (parts, uri) = (self.parts, self.uri);
        let rest = &uri[at..];
        let Some(part) = parts.get(index) else {
            return rest.is_empty();
        };
        match part {
            Part::Literal(lit) => rest.starts_with(lit.as_str()) && self.parts_from(index + 1, at + lit.len()),
            Part::Expr { op: Some(op @ ('?' | '&')), vars: names } => {
                // Query expressions consume `?k=v&k=v` (or `&...`) up to a fragment; all optional.
                let Some(body) = rest.strip_prefix(*op) else {
                    return self.parts_from(index + 1, at);
                };
                let end = body.find('#').unwrap_or(body.len());
                for pair in body[..end].split('&') {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    if let Some(name) = names.iter().find(|n| *n == k) {
                        self.found.push((name.as_str(), v));
                    }
                }
                self.parts_from(index + 1, at + op.len_utf8() + end)
            }
            Part::Expr { op, vars: names } => {
                let (prefix, allow_reserved) = match op {
                    None => ("", false),
                    Some('+') => ("", true),
                    Some('#') => ("#", true),
                    Some(c) => (
                        match c {
                            '/' => "/",
                            '.' => ".",
                            _ => ";",
                        },
                        false,
                    ),
                };
                let Some(body) = rest.strip_prefix(prefix) else { return false };
                let start = at + prefix.len();
                let stop = body
                    .char_indices()
                    .find(|&(_, c)| !allow_reserved && (c == '/' || c == '?' || c == '#' || (prefix == "." && c == '.')))
                    .map_or(body.len(), |(i, _)| i);
                // Commas before each end, so a multi-variable expression only tries values
                // with the right number of them.
                let commas_before = |end: usize| body[..end].bytes().filter(|&b| b == b',').count();
                let mut ends: Vec<usize> = body[..stop].char_indices().map(|(i, _)| i).skip(1).collect();
                ends.push(stop);
                // Try the longest candidate first, backtracking until the rest matches.
                for end in ends.into_iter().rev() {
                    if names.len() > 1 && commas_before(end) != names.len() - 1 {
                        continue;
                    }
                    let value = &body[..end];
                    let kept = self.found.len();
                    let values: Vec<&'a str> = if names.len() > 1 { value.split(',').collect() } else { vec![value] };
                    for (n, v) in names.iter().zip(values) {
                        let v = if *op == Some(';') {
                            v.strip_prefix(n.as_str()).and_then(|v| v.strip_prefix('=')).unwrap_or(v)
                        } else {
                            v
                        };
                        self.found.push((n.as_str(), v));
                    }
                    if self.parts_from(index + 1, start + end) {
                        return true;
                    }
                    self.found.truncate(kept);
                }
                false
            }
        }
    }
}

/// Percent-decodes; invalid escapes are kept as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    while i < bytes.len() {
        // Bytes, not a slice of the string: what follows `%` may be any character.
        if let (b'%', Some(&high), Some(&low)) = (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            if let (Some(h), Some(l)) = (hex(high), hex(low)) {
                out.push(h << 4 | l);
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
    fn a_percent_before_a_multibyte_character_is_kept() {
        // Found by the uri_template fuzz target: decoding sliced inside a character.
        assert_eq!(m("x://{v}", "x://a%\u{456}b").unwrap()["v"], "a%\u{456}b");
        assert_eq!(m("x://{v}", "x://%4").unwrap()["v"], "%4");
        assert_eq!(m("x://{v}", "x://%C3%A9").unwrap()["v"], "\u{e9}");
    }

    #[test]
    fn adjacent_variables_do_not_make_matching_explode() {
        // Before the search remembered its failures, five adjacent variables against 200
        // characters ran for minutes (each variable tried every length, again and again).
        let t = UriTemplate::parse("x://{a}{b}{c}{d}{e}z").unwrap();
        assert!(t.match_uri(&format!("x://{}", "y".repeat(600))).is_none());
        let v = t.match_uri("x://abcdez").unwrap();
        assert_eq!(v.values().map(String::as_str).collect::<String>(), "abcde");
        assert!(t.match_uri(&format!("x://{}z", "y".repeat(MAX_MATCHED_URI))).is_none(), "too long to consider");
    }

    #[test]
    fn rejects_malformed_templates() {
        assert!(UriTemplate::parse("a://{x").is_err());
        assert!(UriTemplate::parse("a://{}").is_err());
        assert_eq!(UriTemplate::parse("a://{x}/{+y}").unwrap().variables(), vec!["x", "y"]);
    }
}
