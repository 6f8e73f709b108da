//! How the CLI prints what a server sent: content blocks as text, schemas as readable lines.

use oxmcp::protocol::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A tool's result as the terminal shows it: each content block, then the structured
/// content, unless a text block already is that content serialized (servers are asked to
/// mirror structured output as text for older clients, and the same data twice is noise).
pub fn result_lines(result: &CallToolResult) -> Vec<String> {
    let mut lines: Vec<String> = result.content.iter().map(describe).collect();
    if let Some(structured) = result.structured_content.as_ref().filter(|s| !mirrored(&result.content, s)) {
        lines.push(format!("structured: {structured}"));
    }
    lines
}

/// Whether a text block holds `structured` as JSON (compared parsed, so spacing and key
/// order do not matter).
fn mirrored(content: &[ContentBlock], structured: &Value) -> bool {
    content.iter().any(|block| match block {
        ContentBlock::Text(t) => serde_json::from_str::<Value>(&t.text).is_ok_and(|v| &v == structured),
        _ => false,
    })
}

/// One content block as the terminal shows it.
pub fn describe(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!("<image {} {} bytes base64>", i.mime_type, i.data.len()),
        ContentBlock::Audio(a) => format!("<audio {} {} bytes base64>", a.mime_type, a.data.len()),
        ContentBlock::ResourceLink(l) => format!("<resource link {}>", l.uri),
        ContentBlock::Resource(r) => match serde_json::to_value(&r.resource) {
            Ok(Value::Object(o)) if o.contains_key("text") => {
                format!("<resource {}>\n{}", r.resource.uri(), o["text"].as_str().unwrap_or_default())
            }
            _ => format!("<resource {} (binary)>", r.resource.uri()),
        },
    }
}

/// An object schema's properties, a line each, `indent` spaces in:
/// `name: type, constraints (required) - description`, nested objects below their name.
pub fn schema_lines(schema: &Value, indent: usize) -> Vec<String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object).filter(|p| !p.is_empty()) else {
        return vec![format!("{:indent$}(no arguments)", "")];
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut out = Vec::new();
    for (name, p) in properties {
        let mut line = format!("{:indent$}{name}: {}", "", kind(p));
        for (key, label) in [("minimum", "min"), ("maximum", "max"), ("minLength", "min length"), ("maxLength", "max length")] {
            if let Some(v) = p.get(key) {
                line += &format!(", {label} {v}");
            }
        }
        if let Some(v) = p.get("enum").and_then(Value::as_array) {
            line += &format!(", one of {}", v.iter().map(Value::to_string).collect::<Vec<_>>().join(" | "));
        }
        if let Some(v) = p.get("default") {
            line += &format!(", default {v}");
        }
        if required.contains(&name.as_str()) {
            line += " (required)";
        }
        if let Some(d) = p.get("description").and_then(Value::as_str) {
            line += &format!(" - {d}");
        }
        out.push(line);
        if p.get("properties").is_some() {
            out.extend(schema_lines(p, indent + 2));
        }
    }
    out
}

/// A property's type: `string`, `integer (or null)`, `string | integer`, `array of string`,
/// `any`.
fn kind(p: &Value) -> String {
    let base = match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => alternatives(ts.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        _ => match p.get("anyOf").or(p.get("oneOf")).and_then(Value::as_array) {
            Some(variants) => alternatives(variants.iter().map(kind).collect()),
            None => "any".into(),
        },
    };
    match p.get("items") {
        Some(items) if base == "array" => format!("array of {}", kind(items)),
        _ => base,
    }
}

/// Types a value may have, as `a | b`; a `null` among them reads `a (or null)`, so an
/// optional field (`anyOf: [{type: string}, {type: null}]`, as Pydantic writes it) shows
/// what it holds.
fn alternatives(kinds: Vec<String>) -> String {
    let (nulls, rest): (Vec<String>, Vec<String>) = kinds.into_iter().partition(|k| k == "null");
    match (rest.is_empty(), nulls.is_empty()) {
        (true, true) => "any".into(),
        (true, false) => "null".into(),
        (false, true) => rest.join(" | "),
        (false, false) => format!("{} (or null)", rest.join(" | ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_mirrored_as_text_prints_once() {
        let structured = json!({"temperature": 21, "unit": "c"});
        let mirrored = CallToolResult::text(r#"{ "unit": "c", "temperature": 21 }"#).with_structured_content(structured.clone());
        assert_eq!(result_lines(&mirrored), vec![r#"{ "unit": "c", "temperature": 21 }"#]);
        let different = CallToolResult::text("21 degrees").with_structured_content(structured);
        assert_eq!(result_lines(&different), vec!["21 degrees", r#"structured: {"temperature":21,"unit":"c"}"#]);
    }

    #[test]
    fn schemas_read_as_lines() {
        let schema = json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "description": "Where"},
            "days": {"type": "integer", "minimum": 1, "default": 3},
            "units": {"enum": ["c", "f"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "window": {"type": ["object", "null"], "properties": {"from": {"type": "string"}}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "ids": {"oneOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]}
        }});
        assert_eq!(
            schema_lines(&schema, 4),
            vec![
                "    city: string (required) - Where",
                "    days: integer, min 1, default 3",
                "    units: any, one of \"c\" | \"f\"",
                "    tags: array of string",
                "    window: object (or null)",
                "      from: string",
                "    note: string (or null), default null",
                "    ids: array of integer | string",
            ]
        );
        assert_eq!(schema_lines(&json!({"type": "object"}), 2), vec!["  (no arguments)"]);
    }
}
