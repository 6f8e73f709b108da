//! What an elicitation form may ask: the specification's restricted subset of JSON Schema
//! (a flat object whose properties are strings, numbers, booleans or enums, and from
//! 2025-11-25 multi-select enums). A host derives the form from its own types; the engine
//! refuses what a client could not render, before anything is sent, naming the property.

use serde_json::{Map, Value};

use crate::protocol::ProtocolVersion;

/// Checks a form's `requestedSchema` against the restricted subset `version` allows
/// (`None`: the newest). The error says which property and why.
///
/// ```
/// use oxmcp::protocol::{check_form_schema, ProtocolVersion};
/// use serde_json::json;
///
/// let ok = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
/// assert!(check_form_schema(&ok, None).is_ok());
/// let nested = json!({"type": "object", "properties": {"who": {"$ref": "#/$defs/Person"}}});
/// assert!(check_form_schema(&nested, None).unwrap_err().contains("properties.who"));
/// let multi = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}});
/// assert!(check_form_schema(&multi, Some(ProtocolVersion::V2025_06_18)).is_err());
/// ```
pub fn check_form_schema(schema: &Value, version: Option<ProtocolVersion>) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Err("requestedSchema must be a JSON object".into());
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(r#"requestedSchema needs "type": "object""#.into());
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err("requestedSchema needs a \"properties\" object".into());
    };
    for (name, property) in properties {
        primitive(property, version).map_err(|why| format!("requestedSchema.properties.{name}: {why}"))?;
    }
    match schema.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for n in names {
                match n.as_str() {
                    Some(n) if properties.contains_key(n) => {}
                    Some(n) => return Err(format!("requestedSchema.required names {n:?}, which is not a property")),
                    None => return Err("requestedSchema.required must list property names".into()),
                }
            }
        }
        Some(_) => return Err("requestedSchema.required must be an array of property names".into()),
    }
    Ok(())
}

const FLAT: &str = "a form field is a string, number, integer, boolean or enum (no nested object, reference or union)";

fn primitive(p: &Value, version: Option<ProtocolVersion>) -> Result<(), String> {
    let p = p.as_object().ok_or("not a JSON object")?;
    for key in ["$ref", "anyOf", "allOf", "properties"] {
        if p.contains_key(key) {
            return Err(format!("{key:?} is not allowed: {FLAT}"));
        }
    }
    match p.get("type").and_then(Value::as_str) {
        Some("string") => {
            if let Some(values) = p.get("enum") {
                strings(values, "enum")?;
            }
            if let Some(options) = p.get("oneOf") {
                titled(options, "oneOf")?;
            }
            if let Some(format) = p.get("format").and_then(Value::as_str) {
                if !["date", "date-time", "email", "uri"].contains(&format) {
                    return Err(format!("format {format:?} is not one a form knows (date, date-time, email, uri)"));
                }
            }
            Ok(())
        }
        Some("number" | "integer" | "boolean") => Ok(()),
        Some("array") => {
            if let Some(v) = version.filter(|v| *v < ProtocolVersion::V2025_11_25) {
                return Err(format!("a multi-select enum needs protocol 2025-11-25 or later (this request speaks {v})"));
            }
            let items =
                p.get("items").and_then(Value::as_object).ok_or("an array field is a multi-select enum: it needs \"items\"")?;
            multi_items(items)
        }
        Some(other) => Err(format!("type {other:?}: {FLAT}")),
        None => Err(format!("no \"type\": {FLAT}")),
    }
}

fn multi_items(items: &Map<String, Value>) -> Result<(), String> {
    if let Some(values) = items.get("enum") {
        if items.get("type").and_then(Value::as_str) != Some("string") {
            return Err(r#"a multi-select enum's items need "type": "string""#.into());
        }
        return strings(values, "items.enum");
    }
    if let Some(options) = items.get("anyOf") {
        return titled(options, "items.anyOf");
    }
    Err("an array field is a multi-select enum: its items need \"enum\" or \"anyOf\" options".into())
}

fn strings(v: &Value, at: &str) -> Result<(), String> {
    match v.as_array() {
        Some(a) if a.iter().all(Value::is_string) => Ok(()),
        _ => Err(format!("{at} must be an array of strings")),
    }
}

fn titled(v: &Value, at: &str) -> Result<(), String> {
    let ok = |o: &Value| o.get("const").is_some_and(Value::is_string) && o.get("title").is_some_and(Value::is_string);
    match v.as_array() {
        Some(a) if a.iter().all(ok) => Ok(()),
        _ => Err(format!("{at} must be an array of {{\"const\": string, \"title\": string}} options")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(property: Value) -> Value {
        json!({"type": "object", "properties": {"x": property}})
    }

    #[test]
    fn every_kind_the_specification_allows_passes() {
        for p in [
            json!({"type": "string", "minLength": 1, "format": "email", "default": "a@b.c"}),
            json!({"type": "integer", "minimum": 0}),
            json!({"type": "number"}),
            json!({"type": "boolean", "default": true}),
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
            json!({"type": "array", "items": {"type": "string", "enum": ["a"]}, "maxItems": 1}),
            json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
        ] {
            assert_eq!(check_form_schema(&form(p.clone()), None), Ok(()), "{p}");
        }
    }

    #[test]
    fn what_a_client_cannot_render_is_refused_by_name() {
        for (p, why) in [
            (json!({"$ref": "#/$defs/Color"}), "\"$ref\" is not allowed"),
            (json!({"anyOf": [{"type": "string"}, {"type": "null"}]}), "\"anyOf\" is not allowed"),
            (json!({"type": "object", "properties": {}}), "\"properties\" is not allowed"),
            (json!({"type": "object"}), "type \"object\""),
            (json!({"type": "array", "items": {"type": "string"}}), "need \"enum\" or \"anyOf\""),
            (json!({"type": "string", "format": "phone"}), "format \"phone\""),
            (json!({"type": "string", "enum": [1, 2]}), "enum must be an array of strings"),
            (json!({"description": "no type"}), "no \"type\""),
        ] {
            let e = check_form_schema(&form(p.clone()), None).unwrap_err();
            assert!(e.starts_with("requestedSchema.properties.x: ") && e.contains(why), "{p}: {e}");
        }
        let e = check_form_schema(&json!({"type": "object", "properties": {}, "required": ["y"]}), None).unwrap_err();
        assert!(e.contains("\"y\""), "{e}");
        assert!(check_form_schema(&json!({"properties": {}}), None).is_err());
    }

    #[test]
    fn multi_select_needs_2025_11_25() {
        let multi = form(json!({"type": "array", "items": {"type": "string", "enum": ["a"]}}));
        assert!(check_form_schema(&multi, Some(ProtocolVersion::V2025_06_18)).unwrap_err().contains("2025-11-25"));
        assert!(check_form_schema(&multi, Some(ProtocolVersion::V2025_11_25)).is_ok());
        assert!(check_form_schema(&multi, Some(ProtocolVersion::V2026_07_28)).is_ok());
    }
}
