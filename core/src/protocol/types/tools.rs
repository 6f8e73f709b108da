//! Tools: listing and calling.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::{Cursor, Icon, Meta};
use super::content::ContentBlock;

/// The input schema used when none is given: any object.
fn default_input_schema() -> Value {
    let mut schema = Map::new();
    schema.insert("type".to_owned(), Value::String("object".to_owned()));
    Value::Object(schema)
}

/// A tool the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name of the tool.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, as a hint for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema (an object schema) of the arguments; `{"type":"object"}` if absent.
    #[serde(default = "default_input_schema")]
    pub input_schema: Value,
    /// JSON Schema (an object schema) of `structuredContent` in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints for clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties such as task support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons for user interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Tool metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tool {
    /// A tool with a name, a description and an input schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: impl Into<Value>) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: input_schema.into(),
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, output_schema: impl Into<Value>) -> Self {
        self.output_schema = Some(output_schema.into());
        self
    }

    /// Sets the annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Hints about a tool's behaviour; untrusted unless the server is trusted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// A non-read-only tool may destroy data rather than only add (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Execution properties of a tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether the tool can be called as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether a tool may, must or must not be called as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Task calls are not allowed (the default).
    Forbidden,
    /// Task calls are allowed.
    Optional,
    /// Only task calls are allowed.
    Required,
}

/// Result of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    pub tools: Vec<Tool>,
    /// Cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// Name of the tool to call.
    pub name: String,
    /// Arguments for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolRequestParams {
    /// Parameters calling `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolRequestParams { name: name.into(), arguments: None, meta: None, extra: Map::new() }
    }

    /// Sets the arguments.
    pub fn with_arguments(mut self, arguments: Map<String, Value>) -> Self {
        self.arguments = Some(arguments);
        self
    }

    /// Reads a request's params object, moving its values into place: what deserializing
    /// does, without the copy of every value that serde's `flatten` makes (the largest
    /// cost of a `tools/call` on the server's hot path).
    ///
    /// ```
    /// use oxmcp::protocol::CallToolRequestParams;
    /// use serde_json::json;
    ///
    /// let p = CallToolRequestParams::from_params(Some(json!({"name": "add", "arguments": {"a": 1}, "x": 2}))).unwrap();
    /// assert_eq!((p.name.as_str(), p.arguments.unwrap()["a"].as_i64(), p.extra["x"].as_i64()), ("add", Some(1), Some(2)));
    /// assert!(CallToolRequestParams::from_params(Some(json!({"arguments": {}}))).is_err());
    /// ```
    pub fn from_params(params: Option<Value>) -> Result<Self, String> {
        fn object(field: &str, v: Option<Value>) -> Result<Option<Map<String, Value>>, String> {
            match v {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Object(m)) => Ok(Some(m)),
                Some(other) => Err(format!("`{field}` must be an object, not {}", kind(&other))),
            }
        }
        fn kind(v: &Value) -> &'static str {
            match v {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                Value::Array(_) => "an array",
                Value::Object(_) => "an object",
            }
        }
        let mut map = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => return Err(format!("params must be an object, not {}", kind(&other))),
        };
        let name = match map.remove("name") {
            Some(Value::String(name)) => name,
            Some(other) => return Err(format!("`name` must be a string, not {}", kind(&other))),
            None => return Err("missing field `name`".into()),
        };
        let arguments = object("arguments", map.remove("arguments"))?;
        let meta = object("_meta", map.remove("_meta"))?;
        Ok(CallToolRequestParams { name, arguments, meta, extra: map })
    }
}

/// Result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result, conforming to the tool's output schema if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (errors the model should see, not protocol errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// A successful result with the given content.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::new(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) holding one text block.
    pub fn error_text(text: impl Into<String>) -> Self {
        CallToolResult { is_error: Some(true), ..CallToolResult::text(text) }
    }

    /// Sets the structured content.
    pub fn with_structured_content(mut self, structured_content: Value) -> Self {
        self.structured_content = Some(structured_content);
        self
    }

    /// Whether the result reports a tool failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}
