//! Content blocks carried by tool results, prompt messages and sampling messages.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::{Annotations, Icon, Meta};
use super::resources::ResourceContents;

/// One piece of content, discriminated by its `type` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// Plain text (`"text"`).
    #[serde(rename = "text")]
    Text(TextContent),
    /// A base64 image (`"image"`).
    #[serde(rename = "image")]
    Image(ImageContent),
    /// A base64 audio clip (`"audio"`).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// A pointer to a resource the client may read (`"resource_link"`).
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// A resource's contents inlined (`"resource"`).
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data and its MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// A resource-link block.
    pub fn resource_link(link: ResourceLink) -> Self {
        ContentBlock::ResourceLink(link)
    }

    /// An embedded-resource block.
    pub fn resource(contents: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(contents))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text itself.
    pub text: String,
    /// Display and audience hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// Text content without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent { text: text.into(), annotations: None, meta: None, extra: Map::new() }
    }
}

/// Image content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image bytes.
    pub data: String,
    /// MIME type of the image.
    pub mime_type: String,
    /// Display and audience hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ImageContent {
    /// Image content from base64 data and a MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent { data: data.into(), mime_type: mime_type.into(), annotations: None, meta: None, extra: Map::new() }
    }
}

/// Audio content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio bytes.
    pub data: String,
    /// MIME type of the audio.
    pub mime_type: String,
    /// Display and audience hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AudioContent {
    /// Audio content from base64 data and a MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent { data: data.into(), mime_type: mime_type.into(), annotations: None, meta: None, extra: Map::new() }
    }
}

/// A link to a resource, which need not appear in `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// URI of the linked resource.
    pub uri: String,
    /// Programmatic name of the resource.
    pub name: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is, as a hint for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the resource, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size of the raw content in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Display and audience hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for user interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceLink {
    /// A link with just a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// A resource's contents embedded in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The embedded text or blob contents.
    pub resource: ResourceContents,
    /// Display and audience hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EmbeddedResource {
    /// Embeds the given contents without annotations.
    pub fn new(resource: ResourceContents) -> Self {
        EmbeddedResource { resource, annotations: None, meta: None, extra: Map::new() }
    }
}

/// A model's request to call a tool, inside a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseContent {
    /// Identifier that the matching tool result refers back to.
    pub id: String,
    /// Name of the tool to call.
    pub name: String,
    /// Arguments for the tool.
    pub input: Map<String, Value>,
    /// Content metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The outcome of a tool use, handed back to the model in a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the tool use this answers.
    pub tool_use_id: String,
    /// Unstructured result, shaped like `CallToolResult::content`.
    pub content: Vec<ContentBlock>,
    /// Structured result, conforming to the tool's output schema if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Content metadata; clients should keep it when reusing the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
