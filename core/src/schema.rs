//! JSON Schema validation of tool arguments and structured output: one engine for every
//! host language.
//!
//! Schemas are JSON Schema 2020-12 unless they say otherwise with `$schema` (draft-07 is
//! accepted too). References are resolved inside the schema only: there is no network or
//! file access, so a schema cannot make the server fetch anything.

use std::fmt::Write;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// A compiled schema.
///
/// ```
/// use serde_json::json;
/// let schema = oxmcp::schema::Schema::compile(&json!({
///     "type": "object",
///     "properties": {"a": {"type": "integer"}},
///     "required": ["a"]
/// })).unwrap();
/// assert!(schema.validate(&json!({"a": 1})).is_ok());
/// let err = schema.validate(&json!({"a": "x"})).unwrap_err();
/// assert!(err.contains("/a"));
/// ```
pub struct Schema {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Schema")
    }
}

impl Schema {
    /// Compiles a schema; fails with [`ErrorKind::InvalidInput`] if it is not a valid
    /// schema or refers to anything outside itself.
    pub fn compile(schema: &Value) -> Result<Schema> {
        jsonschema::validator_for(schema)
            .map(|validator| Schema { validator })
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid JSON Schema: {e}")))
    }

    /// Validates `instance`; the error lists every problem with the path of the field it
    /// concerns (`/a: "x" is not of type "integer"`).
    pub fn validate(&self, instance: &Value) -> std::result::Result<(), String> {
        let mut out = String::new();
        for (i, e) in self.validator.iter_errors(instance).enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            let path = e.instance_path().as_str();
            let path = if path.is_empty() { "(root)" } else { path };
            let _ = write!(out, "{path}: {e}");
        }
        if out.is_empty() {
            Ok(())
        } else {
            Err(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_bad_field_and_missing_ones() {
        let s = Schema::compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a", "b"]
        }))
        .unwrap();
        let err = s.validate(&json!({"a": "x"})).unwrap_err();
        assert!(err.contains("/a"), "{err}");
        assert!(err.contains("\"b\""), "{err}");
    }

    #[test]
    fn draft_2020_12_by_default_and_draft_07_accepted() {
        // prefixItems exists only in 2020-12: without $schema it must apply.
        let s = Schema::compile(&json!({"type": "array", "prefixItems": [{"type": "integer"}]})).unwrap();
        assert!(s.validate(&json!(["x"])).is_err());
        // draft-07: `items` as an array is positional.
        let s = Schema::compile(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array", "items": [{"type": "integer"}]
        }))
        .unwrap();
        assert!(s.validate(&json!(["x"])).is_err());
        assert!(s.validate(&json!([1, "x"])).is_ok());
    }

    #[test]
    fn refuses_remote_references() {
        let err = Schema::compile(&json!({"$ref": "http://127.0.0.1:9/schema.json"})).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let local = Schema::compile(&json!({"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"})).unwrap();
        assert!(local.validate(&json!(1)).is_ok() && local.validate(&json!("1")).is_err());
    }
}
