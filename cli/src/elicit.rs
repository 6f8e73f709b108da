//! The CLI answers a server's `elicitation/create` on the terminal: the message on stderr,
//! then a prompt per form field read from stdin (stdout keeps the command's output).
//!
//! An empty answer takes the field's default (or leaves an optional field out), `!decline`
//! declines the request, and the end of input (Ctrl-D) cancels it. A URL request shows the
//! URL and is accepted once the user presses Enter.

use std::io::BufRead;

use oxmcp::protocol::{ElicitRequestParams, ElicitResult};
use oxmcp::Result;
use serde_json::{Map, Value};

/// What one typed line means for a field.
enum Read {
    Value(Value),
    Skip,
    Again(String),
}

/// Answers `params` from the user at the terminal.
pub async fn answer(params: ElicitRequestParams) -> Result<ElicitResult> {
    // The terminal is read by blocking calls, off the runtime's threads.
    let asked = tokio::task::spawn_blocking(move || ask(params, &mut std::io::stdin().lock(), &mut std::io::stderr()));
    Ok(asked.await.unwrap_or_else(|_| ElicitResult::cancel()))
}

/// The dialogue itself, on any input and output (tests give it strings).
pub fn ask(params: ElicitRequestParams, input: &mut dyn BufRead, out: &mut dyn std::io::Write) -> ElicitResult {
    let mut line = || {
        let mut l = String::new();
        match input.read_line(&mut l) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(l.trim_end_matches(['\r', '\n']).to_string()),
        }
    };
    match params {
        ElicitRequestParams::Url(u) => {
            let _ = write!(out, "{}\nOpen {} then press Enter (Ctrl-D cancels): ", u.message, u.url);
            let _ = out.flush();
            match line() {
                Some(l) if l.trim() == "!decline" => ElicitResult::decline(),
                Some(_) => ElicitResult::new(oxmcp::protocol::ElicitAction::Accept),
                None => ElicitResult::cancel(),
            }
        }
        ElicitRequestParams::Form(f) => {
            let _ = writeln!(out, "{}\n(Enter takes the default, !decline declines, Ctrl-D cancels)", f.message);
            let schema = &f.requested_schema;
            let required: Vec<&str> =
                schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            let mut content = Map::new();
            let empty = Map::new();
            let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
            for (name, p) in properties {
                let is_required = required.contains(&name.as_str());
                loop {
                    let _ = write!(out, "{}{}: ", label(name, p), if is_required { " *" } else { "" });
                    let _ = out.flush();
                    let Some(typed) = line() else { return ElicitResult::cancel() };
                    if typed.trim() == "!decline" {
                        return ElicitResult::decline();
                    }
                    match read(&typed, p, is_required) {
                        Read::Value(v) => {
                            content.insert(name.clone(), v);
                            break;
                        }
                        Read::Skip => break,
                        Read::Again(why) => {
                            let _ = writeln!(out, "  {why}");
                        }
                    }
                }
            }
            ElicitResult::accept(content)
        }
    }
}

/// The choices a field offers: `(value, shown as)`; empty for a free field.
fn choices(p: &Value) -> Vec<(Value, String)> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let shown = names.and_then(|n| n.get(i)).and_then(Value::as_str).map(str::to_string);
                (v.clone(), shown.unwrap_or_else(|| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
            })
            .collect();
    }
    let titled = p.get("oneOf").or(p.get("anyOf")).and_then(Value::as_array);
    titled
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let v = c.get("const")?.clone();
            let shown = c.get("title").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| v.to_string());
            Some((v, shown))
        })
        .collect()
}

fn label(name: &str, p: &Value) -> String {
    let title = p.get("title").and_then(Value::as_str).unwrap_or(name);
    let items = p.get("items");
    let options = choices(items.unwrap_or(p));
    let mut hint = p.get("type").and_then(Value::as_str).unwrap_or("string").to_string();
    if !options.is_empty() {
        let list: Vec<String> = options.iter().map(|(v, s)| format!("{}={s}", v.as_str().unwrap_or(&v.to_string()))).collect();
        hint = format!("{}{}", if items.is_some() { "several of, comma-separated: " } else { "one of " }, list.join(", "));
    }
    if let Some(d) = p.get("default") {
        hint += &format!("; default {d}");
    }
    match p.get("description").and_then(Value::as_str) {
        Some(d) => format!("{title} - {d} ({hint})"),
        None => format!("{title} ({hint})"),
    }
}

/// What `typed` means for the field `p`.
fn read(typed: &str, p: &Value, required: bool) -> Read {
    let typed = typed.trim();
    if typed.is_empty() {
        return match (p.get("default"), required) {
            (Some(d), _) => Read::Value(d.clone()),
            (None, false) => Read::Skip,
            (None, true) => Read::Again("this field is required".into()),
        };
    }
    let one = |text: &str, p: &Value| -> Result<Value, String> {
        let options = choices(p);
        if !options.is_empty() {
            return options.iter().find(|(v, _)| v.as_str() == Some(text)).map(|(v, _)| v.clone()).ok_or_else(|| {
                format!("choose one of {}", options.iter().map(|(v, _)| v.to_string()).collect::<Vec<_>>().join(", "))
            });
        }
        match p.get("type").and_then(Value::as_str) {
            Some("integer") => text.parse::<i64>().map(Value::from).map_err(|_| "type a whole number".into()),
            Some("number") => text.parse::<f64>().map(Value::from).map_err(|_| "type a number".into()),
            Some("boolean") => match text.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => Ok(Value::Bool(true)),
                "n" | "no" | "false" => Ok(Value::Bool(false)),
                _ => Err("type yes or no".into()),
            },
            _ => Ok(Value::String(text.to_string())),
        }
    };
    let value = match (p.get("type").and_then(Value::as_str), p.get("items")) {
        (Some("array"), Some(items)) => {
            typed.split(',').map(|t| one(t.trim(), items)).collect::<Result<Vec<_>, _>>().map(Value::Array)
        }
        _ => one(typed, p),
    };
    match value {
        Ok(v) => Read::Value(v),
        Err(why) => Read::Again(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxmcp::protocol::{ElicitAction, ElicitRequestFormParams};
    use serde_json::json;

    fn form(schema: Value, typed: &str) -> ElicitResult {
        let params = ElicitRequestParams::Form(ElicitRequestFormParams::new("Tell me".to_string(), schema));
        ask(params, &mut typed.as_bytes(), &mut Vec::new())
    }

    #[test]
    fn fields_take_typed_values_defaults_and_choices() {
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "default": 30},
            "ok": {"type": "boolean"},
            "pick": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}},
            "note": {"type": "string"}
        }});
        // An empty required name is asked again; "ten" is no integer; "c" is no choice.
        let r = form(schema.clone(), "\nAda\nten\n\nyes\nc\nb\nx, z\n\n");
        assert_eq!(r.action, ElicitAction::Accept);
        let content = Value::Object(r.content.unwrap());
        assert_eq!(content, json!({"name": "Ada", "age": 30, "ok": true, "pick": "b", "many": ["x", "z"]}));
        assert_eq!(form(schema.clone(), "Ada\n!decline\n").action, ElicitAction::Decline);
        assert_eq!(form(schema, "Ada\n").action, ElicitAction::Cancel, "the input ended");
    }
}
