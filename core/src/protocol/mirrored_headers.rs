//! Request headers that mirror the body (2026-07-28 Streamable HTTP, SEP-2243).
//!
//! A stateless-era POST repeats parts of its JSON-RPC body in headers so that load
//! balancers and gateways can route without parsing JSON: `Mcp-Method`, `Mcp-Name` (a
//! tool's or prompt's name, a resource's URI) and one `Mcp-Param-{Name}` per tool argument
//! whose input schema property carries `"x-mcp-header": "{Name}"`. The server must reject
//! a request whose headers and body disagree: otherwise an intermediary could route (or
//! authorize) on one value while the server acts on another.
//!
//! This module is the transport-independent part: the `=?base64?…?=` sentinel that
//! carries values a header cannot hold, the scan of a tool's input schema for
//! `x-mcp-header` annotations (done once, when the tool is registered), and the
//! comparison of one `Mcp-Param-*` header with its argument. It lives outside the HTTP
//! transport because the server's registry computes the annotations whether or not the
//! `http` feature is on.

use std::borrow::Cow;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

/// The schema keyword that designates an argument to mirror into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The prefix of the headers `x-mcp-header` names, lowercase (header names compare
/// case-insensitively).
pub const PARAM_HEADER_PREFIX: &str = "mcp-param-";

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// A header value that is not usable: a malformed base64 sentinel, characters a header
/// value cannot carry, or bytes that are not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadValue(pub &'static str);

/// Reads a mirrored header's value: `=?base64?{standard base64 of UTF-8}?=` is decoded,
/// anything else is taken literally.
///
/// The markers are case-sensitive and must wrap the whole value; a value that only starts
/// or only ends like the sentinel is literal. Inside the sentinel the base64 must be
/// canonical (padded, no stray bits): a corrupt header must never match a body value by
/// accident, so it is refused rather than decoded leniently.
pub fn decode(value: &str) -> Result<Cow<'_, str>, BadValue> {
    if !is_header_text(value) {
        return Err(BadValue("characters a header value cannot carry"));
    }
    let Some(payload) = value.strip_prefix(SENTINEL_PREFIX).and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX)) else {
        return Ok(Cow::Borrowed(value));
    };
    let bytes = STANDARD.decode(payload).map_err(|_| BadValue("invalid base64 in the =?base64?…?= sentinel"))?;
    String::from_utf8(bytes).map(Cow::Owned).map_err(|_| BadValue("the =?base64?…?= sentinel does not hold UTF-8"))
}

/// Writes a value for a mirrored header: literal when it survives as a header value, in
/// the base64 sentinel when it does not (non-ASCII or control characters, leading or
/// trailing whitespace that HTTP would strip, or a literal that looks like the sentinel).
pub fn encode(value: &str) -> Cow<'_, str> {
    let looks_like_sentinel = value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX);
    if is_header_text(value) && value.trim_matches([' ', '\t']) == value && !looks_like_sentinel {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}", STANDARD.encode(value)))
    }
}

/// What RFC 9110 allows in a field value: visible ASCII, space and horizontal tab.
fn is_header_text(value: &str) -> bool {
    value.bytes().all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
}

/// An RFC 9110 token (`1*tchar`): what a header name may be made of.
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The JSON type an `x-mcp-header` argument is declared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// Sent verbatim (or in the sentinel).
    String,
    /// Sent in decimal; compared numerically.
    Integer,
    /// Sent as `true` or `false`.
    Boolean,
}

/// One `x-mcp-header` annotation of a tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The annotation's value: `Region` for `Mcp-Param-Region`.
    pub name: String,
    /// The header's name in lowercase: `mcp-param-region`.
    pub header: String,
    /// The property names leading from the arguments object to the value.
    pub path: Vec<String>,
    /// The property's declared type.
    pub ty: ParamType,
}

/// Schema keywords whose values are schemas (or lists or maps of schemas) other than
/// `properties`. An annotation below one of them is not reachable through `properties`
/// alone, so a client could not know which argument it names. Keywords holding instance
/// data (`const`, `enum`, `default`, `examples`) are left out: data is not an annotation.
const SUBSCHEMA: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const SUBSCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS: &[&str] = &["patternProperties", "dependentSchemas", "$defs", "definitions"];

/// The `x-mcp-header` annotations of a tool's input schema, or why they are invalid.
///
/// Valid annotations sit on a property reached from the root through `properties` only
/// (at any depth), declare `type` `string`, `integer` or `boolean`, hold an RFC 9110 token
/// and are unique regardless of case. Clients must drop a tool that breaks any of these
/// rules, so a server registering one is told at once instead of offering a tool no
/// conforming HTTP client will call.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found: Vec<HeaderParam> = Vec::new();
    // (schema, properties path from the root, or None once another keyword was crossed)
    let mut stack: Vec<(&Value, Option<Vec<String>>)> = vec![(input_schema, Some(Vec::new()))];
    while let Some((node, path)) = stack.pop() {
        let Value::Object(schema) = node else { continue };
        if let Some(annotation) = schema.get(X_MCP_HEADER) {
            found.push(annotated(annotation, schema.get("type"), path.as_deref())?);
        }
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (key, sub) in props {
                let sub_path = path.as_ref().map(|p| p.iter().cloned().chain([key.clone()]).collect());
                stack.push((sub, sub_path));
            }
        }
        for (keyword, sub) in schema {
            let k = keyword.as_str();
            if SUBSCHEMA.contains(&k) {
                stack.push((sub, None));
            } else if SUBSCHEMA_LISTS.contains(&k) {
                stack.extend(sub.as_array().into_iter().flatten().map(|s| (s, None)));
            } else if SUBSCHEMA_MAPS.contains(&k) {
                stack.extend(sub.as_object().into_iter().flat_map(|m| m.values()).map(|s| (s, None)));
            }
        }
    }
    for (i, p) in found.iter().enumerate() {
        if found[..i].iter().any(|q| q.header == p.header) {
            return Err(format!("x-mcp-header {:?} is used more than once (names compare without case)", p.name));
        }
    }
    // The walk is depth-first from the end; schema order reads better in messages and lists.
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn annotated(annotation: &Value, ty: Option<&Value>, path: Option<&[String]>) -> Result<HeaderParam, String> {
    let name = match annotation.as_str() {
        Some(n) if is_token(n) => n,
        _ => return Err(format!("x-mcp-header {annotation} is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)")),
    };
    let path = match path {
        Some(p) if !p.is_empty() => p.to_vec(),
        _ => return Err(format!("x-mcp-header {name:?} is not on a property reached through `properties` alone")),
    };
    let ty = match ty.and_then(Value::as_str) {
        Some("string") => ParamType::String,
        Some("integer") => ParamType::Integer,
        Some("boolean") => ParamType::Boolean,
        _ => {
            let ty = ty.map_or("no type".to_string(), |t| format!("type {t}"));
            return Err(format!(
                "x-mcp-header {name:?} is on a property of {ty}: only string, integer and boolean may be mirrored"
            ));
        }
    };
    Ok(HeaderParam { header: format!("{PARAM_HEADER_PREFIX}{}", name.to_ascii_lowercase()), name: name.to_string(), path, ty })
}

impl HeaderParam {
    /// The argument this header mirrors, if the call has it (`null` counts as absent).
    pub fn argument<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        let value = self.path.iter().try_fold(arguments?, |v, key| v.get(key))?;
        (!value.is_null()).then_some(value)
    }

    /// Checks this parameter's header (its raw value, `None` if absent) against the call's
    /// arguments. They must come together and agree, or both be absent: a header for an
    /// argument the body does not carry is refused too, as it is exactly what an
    /// intermediary could act on while the server acts on the body.
    pub fn check(&self, header: Option<&str>, arguments: Option<&Value>) -> Result<(), String> {
        let header_name = format!("Mcp-Param-{}", self.name);
        let argument = self.path.join(".");
        // Objects and arrays have no header form: a conforming client sends nothing.
        let value = self.argument(arguments).filter(|v| !v.is_object() && !v.is_array());
        let raw = match (header, value) {
            (None, None) => return Ok(()),
            (None, Some(_)) => return Err(format!("{header_name} header is missing but the arguments carry {argument:?}")),
            (Some(_), None) => {
                return Err(format!("{header_name} header is present but the arguments carry no value for {argument:?}"))
            }
            (Some(raw), Some(_)) => raw,
        };
        let decoded = decode(raw).map_err(|BadValue(why)| format!("{header_name} header: {why}"))?;
        if value.is_some_and(|v| agrees(&decoded, v)) {
            Ok(())
        } else {
            Err(format!("{header_name} header {raw:?} differs from the argument {argument:?}"))
        }
    }
}

/// Whether a decoded header value says the same as a scalar body value. Numbers compare
/// numerically (`42`, `42.0` and `42.00` agree), as the specification suggests, so that
/// clients that print integers differently are not refused.
fn agrees(header: &str, value: &Value) -> bool {
    match value {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => {
            if let (Some(h), Some(v)) = (integral(header), n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))) {
                return h == v;
            }
            match (header.parse::<f64>(), n.as_f64()) {
                (Ok(h), Some(v)) if h.is_finite() && is_decimal(header) => h == v,
                _ => false,
            }
        }
        _ => false,
    }
}

/// Plain decimal notation: `-?digits(.digits)?` (no exponents, no `+`, no `NaN`).
fn is_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    !whole.is_empty() && !fraction.is_empty() && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
}

/// The integer a decimal header value names exactly (`42`, `-7`, `42.0`), if any.
fn integral(s: &str) -> Option<i128> {
    if !is_decimal(s) {
        return None;
    }
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    fraction.bytes().all(|b| b == b'0').then(|| whole.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_sentinel_is_decoded_only_when_it_wraps_the_whole_value() {
        assert_eq!(decode("=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert_eq!(decode("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
        assert_eq!(decode("=?base64??=").unwrap(), "");
        // Half a sentinel, or other letter case: literal.
        assert_eq!(decode("=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
        assert_eq!(decode("SGVsbG8=?=").unwrap(), "SGVsbG8=?=");
        assert_eq!(decode("=?BASE64?SGVsbG8=?=").unwrap(), "=?BASE64?SGVsbG8=?=");
        assert_eq!(decode("us-west1").unwrap(), "us-west1");
    }

    #[test]
    fn a_corrupt_sentinel_or_a_raw_control_character_is_refused() {
        assert!(decode("=?base64?SGVsbG8?=").is_err(), "padding missing");
        assert!(decode("=?base64?SGVs!!!bG8=?=").is_err(), "outside the alphabet");
        assert!(decode("=?base64?SGVsbG9=?=").is_err(), "stray bits after the last byte");
        assert!(decode("=?base64?SGVsbG8_?=").is_err(), "the URL-safe alphabet is not the standard one");
        assert!(decode("=?base64?/w==?=").is_err(), "not UTF-8");
        assert!(decode("a\nb").is_err());
        assert!(decode("caf\u{e9}").is_err());
        assert!(decode("tab\tinside").is_ok());
    }

    #[test]
    fn encoding_uses_the_sentinel_only_when_it_must() {
        for (plain, wire) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("", ""),
        ] {
            assert_eq!(encode(plain), wire);
            assert_eq!(decode(&encode(plain)).unwrap(), plain);
        }
    }

    #[test]
    fn annotations_are_found_through_properties_at_any_depth() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "target": {"type": "object", "properties": {
                "tenant": {"type": "integer", "x-mcp-header": "Tenant-Id"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry"}}}}});
        let found = header_params(&schema).unwrap();
        let summary: Vec<_> = found.iter().map(|p| (p.header.as_str(), p.path.join("."), p.ty)).collect();
        assert_eq!(
            summary,
            [
                ("mcp-param-region", "region".into(), ParamType::String),
                ("mcp-param-dry", "target.dry".into(), ParamType::Boolean),
                ("mcp-param-tenant-id", "target.tenant".into(), ParamType::Integer),
            ]
        );
        assert!(header_params(&json!({"type": "object"})).unwrap().is_empty());
        // Instance data is not an annotation, nor is a property that happens to be named so.
        let data = json!({"type": "object", "default": {"x-mcp-header": "No"},
            "properties": {"x-mcp-header": {"type": "string", "const": {"x-mcp-header": "No"}}}});
        assert!(header_params(&data).unwrap().is_empty());
    }

    #[test]
    fn invalid_annotations_are_reported() {
        let one = |prop: Value| header_params(&json!({"type": "object", "properties": {"p": prop}}));
        assert!(one(json!({"type": "string", "x-mcp-header": ""})).is_err(), "empty");
        assert!(one(json!({"type": "string", "x-mcp-header": "My Region"})).is_err(), "space");
        assert!(one(json!({"type": "string", "x-mcp-header": "Region:Primary"})).is_err(), "colon");
        assert!(one(json!({"type": "string", "x-mcp-header": "Région"})).is_err(), "non-ASCII");
        assert!(one(json!({"type": "string", "x-mcp-header": "A\r\nB"})).is_err(), "CRLF");
        assert!(one(json!({"type": "string", "x-mcp-header": 7})).is_err(), "not a string");
        for ty in [json!("number"), json!("object"), json!("array"), json!("null"), json!(["string", "null"])] {
            assert!(one(json!({"type": ty, "x-mcp-header": "P"})).is_err(), "{ty}");
        }
        assert!(one(json!({"x-mcp-header": "P"})).is_err(), "no type");
        let twice = json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}}});
        assert!(header_params(&twice).unwrap_err().contains("more than once"));
        for unreachable in [
            json!({"type": "object", "x-mcp-header": "Root"}),
            json!({"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}),
            json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"$defs": {"d": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}),
            json!({"type": "object", "properties": {"list": {"type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}}),
        ] {
            assert!(header_params(&unreachable).unwrap_err().contains("`properties` alone"), "{unreachable}");
        }
    }

    fn param(path: &[&str], ty: ParamType) -> HeaderParam {
        HeaderParam { name: "P".into(), header: "mcp-param-p".into(), path: path.iter().map(|s| s.to_string()).collect(), ty }
    }

    #[test]
    fn a_header_must_come_with_its_argument_and_agree_with_it() {
        let region = param(&["region"], ParamType::String);
        let args = json!({"region": "us-east1"});
        assert!(region.check(Some("us-east1"), Some(&args)).is_ok());
        assert!(region.check(Some("=?base64?dXMtZWFzdDE=?="), Some(&args)).is_ok());
        assert!(region.check(Some("us-west1"), Some(&args)).unwrap_err().contains("differs"));
        assert!(region.check(None, Some(&args)).unwrap_err().contains("missing"));
        assert!(region.check(Some("=?base64?dXMtZWFzdDE?="), Some(&args)).unwrap_err().contains("base64"));
        // Absent or null: no header expected, and none accepted.
        for args in [json!({}), json!({"region": null})] {
            assert!(region.check(None, Some(&args)).is_ok());
            assert!(region.check(Some("us-east1"), Some(&args)).unwrap_err().contains("no value"));
        }
        assert!(region.check(None, None).is_ok());
        // A body value of the wrong shape: nothing to mirror (the schema check refuses it later).
        assert!(region.check(None, Some(&json!({"region": {"a": 1}}))).is_ok());
    }

    #[test]
    fn numbers_compare_numerically_and_booleans_in_lowercase() {
        let n = param(&["n"], ParamType::Integer);
        for (header, body) in [("42", json!(42)), ("42.0", json!(42)), ("42", json!(42.0)), ("-7", json!(-7)), ("0", json!(0))] {
            assert!(n.check(Some(header), Some(&json!({"n": body}))).is_ok(), "{header} vs {body}");
        }
        for (header, body) in
            [("43", json!(42)), ("42.5", json!(42)), ("4.2e1", json!(42)), ("+42", json!(42)), ("forty-two", json!(42))]
        {
            assert!(n.check(Some(header), Some(&json!({"n": body}))).is_err(), "{header} vs {body}");
        }
        assert!(n.check(Some("9007199254740993"), Some(&json!({"n": 9007199254740993u64}))).is_ok(), "exact beyond 2^53");
        assert!(n.check(Some("9007199254740992"), Some(&json!({"n": 9007199254740993u64}))).is_err());
        let b = param(&["deep", "b"], ParamType::Boolean);
        assert!(b.check(Some("true"), Some(&json!({"deep": {"b": true}}))).is_ok());
        assert!(b.check(Some("false"), Some(&json!({"deep": {"b": false}}))).is_ok());
        assert!(b.check(Some("True"), Some(&json!({"deep": {"b": true}}))).is_err());
        assert!(b.check(Some("1"), Some(&json!({"deep": {"b": true}}))).is_err());
    }
}
