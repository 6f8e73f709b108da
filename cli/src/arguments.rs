//! A tool's or a prompt's arguments on the command line: one JSON object
//! (`'{"city": "Paris"}'`) or `KEY=VALUE` words (`city=Paris days=3`), given before the server.
//!
//! A `KEY=VALUE` value is read by the type the tool's input schema gives the key: a string
//! property takes the text as it is (`zip=01234` stays a string), any other type takes JSON
//! (`days=3`, `tags='["a","b"]'`, `draft=true`). A key the schema does not type takes JSON
//! when the text is JSON, else the text. A prompt's arguments are all text, so its values
//! are taken as typed.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

/// What the command line gave.
#[derive(Debug, PartialEq)]
pub enum Given {
    /// A JSON object.
    Json(Value),
    /// `KEY=VALUE` words, in order.
    Pairs(Vec<(String, String)>),
}

fn is_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Splits the words after the tool's (or prompt's) name into its arguments and the rest
/// (the server, after an optional `--`).
pub fn split(mut words: Vec<String>) -> Result<(Given, Vec<String>)> {
    let given = match words.first() {
        Some(first) if first.trim_start().starts_with('{') => {
            let json = words.remove(0);
            let value: Value = serde_json::from_str(&json).context("arguments must be JSON")?;
            if !value.is_object() {
                bail!("arguments must be a JSON object");
            }
            Given::Json(value)
        }
        _ => {
            let count = words.iter().take_while(|w| w.split_once('=').is_some_and(|(k, _)| is_key(k))).count();
            let pairs = words.drain(..count).map(|w| {
                let (k, v) = w.split_once('=').expect("checked above");
                (k.to_string(), v.to_string())
            });
            Given::Pairs(pairs.collect())
        }
    };
    // `TOOL ARGUMENTS -- SERVER...`: once a value is taken, clap keeps the `--`.
    if words.first().is_some_and(|w| w == "--") {
        words.remove(0);
    }
    Ok((given, words))
}

impl Given {
    /// Whether reading the values needs the tool's input schema.
    pub fn needs_schema(&self) -> bool {
        matches!(self, Given::Pairs(p) if !p.is_empty())
    }

    /// The arguments object, `KEY=VALUE` values read by `schema` (the tool's input schema,
    /// if known).
    pub fn into_value(self, schema: Option<&Value>) -> Result<Value> {
        let pairs = match self {
            Given::Json(v) => return Ok(v),
            Given::Pairs(p) => p,
        };
        let mut out = Map::new();
        for (key, text) in pairs {
            let types =
                schema.and_then(|s| s.get("properties")).and_then(|p| p.get(&key)).map(declared_types).unwrap_or_default();
            let value = if types.iter().any(|t| t == "string") {
                Value::String(text)
            } else if types.is_empty() {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            } else {
                serde_json::from_str(&text).with_context(|| format!("{key}={text}: expected {} (as JSON)", types.join(" or ")))?
            };
            if out.insert(key.clone(), value).is_some() {
                bail!("argument {key} is given twice");
            }
        }
        Ok(Value::Object(out))
    }

    /// A prompt's arguments, which MCP types as strings: `KEY=VALUE` values as typed, a
    /// JSON object's values only when they are strings (a number would reach the server as
    /// an invalid request, so it is refused here where the user can fix it).
    pub fn into_strings(self) -> Result<BTreeMap<String, String>> {
        let pairs = match self {
            Given::Pairs(p) => p,
            Given::Json(Value::Object(o)) => {
                return o
                    .into_iter()
                    .map(|(key, value)| match value {
                        Value::String(text) => Ok((key, text)),
                        other => bail!("prompt argument {key} must be a string, as every prompt argument is (got {other})"),
                    })
                    .collect();
            }
            Given::Json(_) => bail!("arguments must be a JSON object"),
        };
        let mut out = BTreeMap::new();
        for (key, text) in pairs {
            if out.insert(key.clone(), text).is_some() {
                bail!("argument {key} is given twice");
            }
        }
        Ok(out)
    }
}

/// The JSON types a property schema allows (`type` as a string or a list).
fn declared_types(property: &Value) -> Vec<String> {
    match property.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pairs_stop_at_the_server_and_json_stays_whole() {
        let (given, rest) = split(words(&["city=Paris", "n=3", "--", "python", "a=b.py"])).unwrap();
        assert_eq!(given, Given::Pairs(vec![("city".into(), "Paris".into()), ("n".into(), "3".into())]));
        assert_eq!(rest, words(&["python", "a=b.py"]));
        let (given, rest) = split(words(&["http://h/mcp?x=1"])).unwrap();
        assert_eq!((given, rest), (Given::Pairs(vec![]), words(&["http://h/mcp?x=1"])));
        let (given, _) = split(words(&[r#"{"a": 1}"#, "cmd"])).unwrap();
        assert_eq!(given, Given::Json(json!({"a": 1})));
        assert!(split(words(&["{not json", "cmd"])).is_err());
        assert!(!split(words(&["[1]", "cmd"])).unwrap().0.needs_schema());
    }

    #[test]
    fn values_take_the_type_the_schema_gives() {
        let schema = json!({"properties": {
            "zip": {"type": "string"}, "days": {"type": "integer"}, "tags": {"type": ["array", "null"]}
        }});
        let pairs = |p: &[(&str, &str)]| Given::Pairs(p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        let v = pairs(&[("zip", "01234"), ("days", "3"), ("tags", r#"["a"]"#), ("other", "true"), ("note", "hi there")])
            .into_value(Some(&schema))
            .unwrap();
        assert_eq!(v, json!({"zip": "01234", "days": 3, "tags": ["a"], "other": true, "note": "hi there"}));
        let bad = pairs(&[("days", "three")]).into_value(Some(&schema)).unwrap_err().to_string();
        assert!(bad.contains("expected integer"), "{bad}");
        assert!(pairs(&[("a", "1"), ("a", "2")]).into_value(None).is_err());
    }

    #[test]
    fn prompt_arguments_stay_text() {
        let (given, _) = split(words(&["n=3", "city=Paris", "cmd"])).unwrap();
        let strings = given.into_strings().unwrap();
        assert_eq!(strings, BTreeMap::from([("n".to_string(), "3".to_string()), ("city".to_string(), "Paris".to_string())]));
        let (given, _) = split(words(&[r#"{"n": "3"}"#, "cmd"])).unwrap();
        assert_eq!(given.into_strings().unwrap()["n"], "3");
        let (given, _) = split(words(&[r#"{"n": 3}"#, "cmd"])).unwrap();
        assert!(given.into_strings().unwrap_err().to_string().contains("must be a string"));
        let (given, _) = split(words(&["a=1", "a=2", "cmd"])).unwrap();
        assert!(given.into_strings().is_err());
    }
}
