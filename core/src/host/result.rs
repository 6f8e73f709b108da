//! What a host tool handler's return value becomes: one rule for every host, so the same
//! value gives the same `CallToolResult` whichever language returned it.
//!
//! The host hands over its handler's value as JSON (a value that has no JSON form is the
//! host's text for it, a string). Then, in this order:
//!
//! | the value | the result |
//! |---|---|
//! | `null` (nothing returned) | no content |
//! | a string | one text block |
//! | a content block (`{"type": "text" \| "image" \| "audio" \| "resource" \| "resource_link", ...}`) | that block |
//! | a whole result: an object whose `content` is a list of content blocks, with no keys but `content`, `structuredContent`, `isError`, `_meta` | as it is |
//! | a list | one block per item: a string a text block, a content block itself, any other value its JSON text |
//! | any other object | structured content, and its JSON text as one text block |
//! | any other value (number, boolean) | its JSON text as one text block |
//!
//! A tool with an output schema promises structured content, which is an object: a value
//! that is not an object (`null` included) is also given as `{"result": value}`.
//!
//! The official SDKs agree on the rows (the TypeScript SDK's handlers return the whole
//! result; FastMCP and the C# SDK turn strings, blocks and lists of blocks into content and
//! objects into structured content with their JSON as text, for clients that read text only;
//! FastMCP and oxmcp's Node host before this rule make each item of a list a block, and
//! FastMCP wraps other values for a schema).

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::protocol::{CallToolResult, ContentBlock};

/// The keys of a whole `CallToolResult` a value may have and still be taken as one.
const RESULT_KEYS: [&str; 4] = ["content", "structuredContent", "isError", "_meta"];

/// `value` as the result of a tool (with an output schema or not), by the rule above.
///
/// ```
/// use oxmcp::host::result::tool_result;
/// use serde_json::json;
/// let r = tool_result(json!("hi"), false);
/// assert_eq!(serde_json::to_value(&r).unwrap(), json!({"content": [{"type": "text", "text": "hi"}]}));
/// let r = tool_result(json!({"city": "Paris"}), false);
/// assert_eq!(r.structured_content, Some(json!({"city": "Paris"})));
/// let whole = json!({"content": [{"type": "text", "text": "x"}], "isError": true});
/// assert_eq!(tool_result(whole, false).is_error, Some(true));
/// ```
pub fn tool_result(value: Value, has_output_schema: bool) -> CallToolResult {
    // Structured content is an object: a tool that promises one (an output schema) and
    // returns another value gives it wrapped.
    let wrapped = (has_output_schema && !value.is_object()).then(|| json!({ "result": value }));
    let mut result = shape(value);
    if result.structured_content.is_none() {
        result.structured_content = wrapped;
    }
    result
}

/// A tool's result from the host's answer (JSON text) by [`tool_result`]: text that is not
/// JSON is the host's failure to say what it returned.
pub fn tool_result_from_text(text: &str, has_output_schema: bool) -> crate::Result<CallToolResult> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        crate::Error::caused(crate::ErrorKind::Handler, format!("the tool handler returned what is not JSON: {e}"), e)
    })?;
    Ok(tool_result(value, has_output_schema))
}

fn shape(value: Value) -> CallToolResult {
    match value {
        Value::Null => content(vec![]),
        Value::String(text) => content(vec![text_block(text)]),
        Value::Object(fields) if is_block(&fields) => match block(Value::Object(fields)) {
            Ok(b) => content(vec![b]),
            Err(v) => other(v),
        },
        Value::Object(fields) if is_whole_result(&fields) => {
            let v = Value::Object(fields);
            // Read in place: a whole result (the common answer of C, C# and Java) is not copied.
            CallToolResult::deserialize(&v).unwrap_or_else(|_| other(v))
        }
        Value::Array(items) => content(items.into_iter().map(item).collect()),
        v => other(v),
    }
}

fn content(blocks: Vec<ContentBlock>) -> CallToolResult {
    CallToolResult { content: blocks, ..Default::default() }
}

fn text_block(text: String) -> ContentBlock {
    serde_json::from_value(json!({"type": "text", "text": text})).expect("a text block")
}

fn is_block(fields: &Map<String, Value>) -> bool {
    matches!(fields.get("type").and_then(Value::as_str), Some("text" | "image" | "audio" | "resource" | "resource_link"))
}

/// One item of a list as one block.
fn item(v: Value) -> ContentBlock {
    match v {
        Value::String(text) => text_block(text),
        Value::Object(ref f) if is_block(f) => block(v).unwrap_or_else(|v| text_block(v.to_string())),
        v => text_block(v.to_string()),
    }
}

fn block(v: Value) -> Result<ContentBlock, Value> {
    ContentBlock::deserialize(&v).map_err(|_| v)
}

fn is_whole_result(fields: &Map<String, Value>) -> bool {
    let blocks = matches!(fields.get("content"), Some(Value::Array(items))
        if items.iter().all(|i| matches!(i, Value::Object(f) if is_block(f))));
    blocks && fields.keys().all(|k| RESULT_KEYS.contains(&k.as_str()))
}

/// Any other value: its JSON text, and structured content when it is an object.
fn other(v: Value) -> CallToolResult {
    let text = text_block(v.to_string());
    let structured = v.is_object().then_some(v);
    CallToolResult { content: vec![text], structured_content: structured, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaped(v: Value, schema: bool) -> Value {
        serde_json::to_value(tool_result(v, schema)).unwrap()
    }

    #[test]
    fn every_row_of_the_rule() {
        assert_eq!(shaped(Value::Null, false), json!({"content": []}));
        assert_eq!(shaped(json!("a"), false), json!({"content": [{"type": "text", "text": "a"}]}));
        let img = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        assert_eq!(shaped(img.clone(), false), json!({"content": [img.clone()]}));
        let whole = json!({"content": [{"type": "text", "text": "w"}], "structuredContent": {"k": 1}, "isError": false});
        assert_eq!(shaped(whole.clone(), true), whole);
        let two = json!([{"type": "text", "text": "1"}, img.clone()]);
        assert_eq!(shaped(two.clone(), false), json!({"content": two}));
        let mixed = shaped(json!(["a", img.clone()]), false);
        assert_eq!(mixed, json!({"content": [{"type": "text", "text": "a"}, img.clone()]}));
        // An object with a content key and something else is data, not a result.
        let data = json!({"content": [{"type": "text", "text": "w"}], "author": "ada"});
        assert_eq!(shaped(data.clone(), false)["structuredContent"], data);
        assert_eq!(
            shaped(json!({"n": 1}), false),
            json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}})
        );
        assert_eq!(shaped(json!(42), false), json!({"content": [{"type": "text", "text": "42"}]}));
        let items = json!({"content": [{"type": "text", "text": "1"}, {"type": "text", "text": "{\"a\":2}"}]});
        assert_eq!(shaped(json!([1, {"a": 2}]), false), items);
        // A block of a known type that is malformed is data too, never an error.
        assert_eq!(shaped(json!({"type": "image"}), false)["structuredContent"], json!({"type": "image"}));
        assert_eq!(shaped(json!([]), false), json!({"content": []}));
    }

    #[test]
    fn an_output_schema_gets_every_value_as_an_object() {
        assert_eq!(shaped(json!(42), true)["structuredContent"], json!({"result": 42}));
        let s = shaped(json!("s"), true);
        assert_eq!(s, json!({"content": [{"type": "text", "text": "s"}], "structuredContent": {"result": "s"}}));
        assert_eq!(shaped(json!(["a"]), true)["structuredContent"], json!({"result": ["a"]}));
        assert_eq!(shaped(json!({"n": 1}), true)["structuredContent"], json!({"n": 1}));
        assert_eq!(shaped(Value::Null, true), json!({"content": [], "structuredContent": {"result": null}}));
    }

    #[test]
    fn text_that_is_not_json_is_the_handlers_failure() {
        let e = tool_result_from_text("not json", false).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Handler);
    }
}
