//! Sampling: the server asks the client's LLM for a message (`sampling/createMessage`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::common::{serialize_opt_f64, Meta, Role};
use super::content::{AudioContent, ImageContent, TextContent, ToolResultContent, ToolUseContent};
use super::tools::Tool;

/// Parameters of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation to continue.
    pub messages: Vec<SamplingMessage>,
    /// The server's model preferences; the client may ignore them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt the server would like used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP servers' context to include (soft-deprecated values besides `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub temperature: Option<f64>,
    /// Upper bound on tokens to sample.
    pub max_tokens: u64,
    /// Sequences that end sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata passed through to the LLM provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may use (needs the client's `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateMessageRequestParams {
    /// Parameters sampling at most `max_tokens` after `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Which servers' context the client should add to a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No extra context (`"none"`).
    None,
    /// Context from the requesting server (`"thisServer"`).
    ThisServer,
    /// Context from all connected servers (`"allServers"`).
    AllServers,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingMessage {
    /// Who the message is from.
    pub role: Role,
    /// A single block or an array of blocks.
    pub content: SamplingContent,
    /// Message metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SamplingMessage {
    /// A message with the given role and content.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage { role, content: content.into(), meta: None, extra: Map::new() }
    }

    /// A single-text-block message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::User, SamplingContentBlock::text(text))
    }

    /// A single-text-block message from the assistant.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::Assistant, SamplingContentBlock::text(text))
    }
}

/// Sampling content: one block or a list of blocks, kept in the shape it arrived in.
// `One` is much bigger than `Many`, but boxing it would only burden every constructor.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block (the only form before 2025-11-25).
    One(SamplingContentBlock),
    /// Several blocks.
    Many(Vec<SamplingContentBlock>),
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(deserializer)?;
        if value.is_array() {
            Vec::<SamplingContentBlock>::deserialize(value).map(SamplingContent::Many).map_err(D::Error::custom)
        } else {
            SamplingContentBlock::deserialize(value).map(SamplingContent::One).map_err(D::Error::custom)
        }
    }
}

impl SamplingContent {
    /// The blocks as a slice, whichever shape this is.
    pub fn blocks(&self) -> &[SamplingContentBlock] {
        match self {
            SamplingContent::One(block) => std::slice::from_ref(block),
            SamplingContent::Many(blocks) => blocks,
        }
    }
}

impl From<SamplingContentBlock> for SamplingContent {
    fn from(block: SamplingContentBlock) -> Self {
        SamplingContent::One(block)
    }
}

impl From<Vec<SamplingContentBlock>> for SamplingContent {
    fn from(blocks: Vec<SamplingContentBlock>) -> Self {
        SamplingContent::Many(blocks)
    }
}

/// One block of sampling content, discriminated by its `type` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContentBlock {
    /// Plain text (`"text"`).
    #[serde(rename = "text")]
    Text(TextContent),
    /// A base64 image (`"image"`).
    #[serde(rename = "image")]
    Image(ImageContent),
    /// A base64 audio clip (`"audio"`).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// The model calling a tool (`"tool_use"`).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// A tool's result for the model (`"tool_result"`).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

impl SamplingContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The server's model preferences for a sampling request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much low cost matters, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub cost_priority: Option<f64>,
    /// How much low latency matters, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub speed_priority: Option<f64>,
    /// How much capability matters, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub intelligence_priority: Option<f64>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A hint towards a model, matched loosely against model names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelHint {
    /// Full or partial model name, e.g. `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How the model may use the tools of a sampling request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolChoice {
    /// The tool-use mode; `auto` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Tool-use mode of a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// The client's answer to `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who the sampled message is from (normally the assistant).
    pub role: Role,
    /// The sampled content: one block or several.
    pub content: SamplingContent,
    /// Name of the model that produced it.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or provider-specific.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateMessageResult {
    /// A result from `model` with the given role and content.
    pub fn new(role: Role, content: impl Into<SamplingContent>, model: impl Into<String>) -> Self {
        CreateMessageResult {
            role,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the stop reason.
    pub fn with_stop_reason(mut self, stop_reason: impl Into<String>) -> Self {
        self.stop_reason = Some(stop_reason.into());
        self
    }
}
