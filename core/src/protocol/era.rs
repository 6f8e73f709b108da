//! Fitting what oxmcp sends to the negotiated version. Handlers are written once against
//! the newest types; a client that negotiated an older version receives the nearest shape
//! its version defines instead of a message its schema rejects.
//!
//! - content blocks a version lacks (audio before 2025-03-26, resource links before
//!   2025-06-18) become a text block that says what was left out;
//! - `structuredContent` is dropped before 2025-06-18 (the text content carries the data);
//! - tool fields a version lacks (`annotations` before 2025-03-26; `title`, `outputSchema`
//!   before 2025-06-18; `icons`, `execution` before 2025-11-25) are dropped;
//! - a progress `message` is dropped before 2025-03-26.

use super::types::{CallToolResult, ContentBlock, GetPromptResult, Tool};
use super::version::ProtocolVersion;

/// Replaces a content block the version cannot carry with a text block describing it.
pub fn adapt_content(block: &mut ContentBlock, version: ProtocolVersion) {
    let replacement = match block {
        ContentBlock::Audio(a) if !version.supports_audio() => {
            format!("[audio content ({}) omitted: protocol {version} cannot carry audio]", a.mime_type)
        }
        ContentBlock::ResourceLink(l) if !version.supports_structured_content() => {
            format!("[resource link: {}]", l.uri)
        }
        _ => return,
    };
    *block = ContentBlock::text(replacement);
}

/// Fits a tool result to the version.
pub fn adapt_call_tool_result(result: &mut CallToolResult, version: ProtocolVersion) {
    for block in &mut result.content {
        adapt_content(block, version);
    }
    if !version.supports_structured_content() {
        result.structured_content = None;
    }
}

/// Fits a prompt's messages to the version.
pub fn adapt_prompt_result(result: &mut GetPromptResult, version: ProtocolVersion) {
    for message in &mut result.messages {
        adapt_content(&mut message.content, version);
    }
}

/// Fits a tool definition to the version.
pub fn adapt_tool(tool: &mut Tool, version: ProtocolVersion) {
    if version < ProtocolVersion::V2025_03_26 {
        tool.annotations = None;
    }
    if version < ProtocolVersion::V2025_06_18 {
        tool.title = None;
        tool.output_schema = None;
    }
    if version < ProtocolVersion::V2025_11_25 {
        tool.icons = None;
        tool.execution = None;
    }
}

/// Whether a progress notification may carry a `message`.
pub fn progress_has_message(version: ProtocolVersion) -> bool {
    version >= ProtocolVersion::V2025_03_26
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ResourceLink;
    use serde_json::json;

    #[test]
    fn older_versions_get_shapes_they_define() {
        let mut r = CallToolResult::new(vec![
            ContentBlock::audio("AAAA", "audio/wav"),
            ContentBlock::resource_link(ResourceLink::new("file:///a", "a")),
            ContentBlock::text("kept"),
        ])
        .with_structured_content(json!({"n": 1}));
        let untouched = r.clone();
        adapt_call_tool_result(&mut r, ProtocolVersion::V2025_11_25);
        assert_eq!(r, untouched);

        adapt_call_tool_result(&mut r, ProtocolVersion::V2024_11_05);
        assert!(r.content[0].as_text().unwrap().contains("audio/wav"));
        assert_eq!(r.content[1].as_text(), Some("[resource link: file:///a]"));
        assert_eq!(r.content[2].as_text(), Some("kept"));
        assert_eq!(r.structured_content, None);

        let mut t = Tool::new("t", "d", json!({"type": "object"})).with_title("T").with_output_schema(json!({"type": "object"}));
        adapt_tool(&mut t, ProtocolVersion::V2025_03_26);
        assert_eq!((t.title, t.output_schema), (None, None));
    }
}
