//! Building blocks shared by many messages: `_meta`, implementation info, icons,
//! annotations, roles, progress tokens and pagination.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// The free-form `_meta` object that most messages may carry.
pub type Meta = Map<String, Value>;

/// An opaque pagination position handed out by a list result and passed back in the next request.
pub type Cursor = String;

/// The `_meta` key under which a request asks for progress notifications.
pub const PROGRESS_TOKEN_META_KEY: &str = "progressToken";

/// Reads the `progressToken` out of a request's `_meta`, if it has a usable one.
pub fn progress_token_from_meta(meta: Option<&Meta>) -> Option<ProgressToken> {
    let value = meta?.get(PROGRESS_TOKEN_META_KEY)?;
    ProgressToken::deserialize(value).ok()
}

/// Largest magnitude below which every integer is exactly representable as an `f64` (2^53).
const F64_EXACT_INT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Serializes an `f64` as a JSON integer when it holds a whole number, so `50` stays `50`
/// rather than becoming `50.0` on a round trip.
pub(super) fn serialize_f64<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() <= F64_EXACT_INT_LIMIT {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// [`serialize_f64`] for optional fields (always paired with `skip_serializing_if`).
pub(super) fn serialize_opt_f64<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => serialize_f64(v, serializer),
        None => serializer.serialize_none(),
    }
}

/// Who a message or piece of content is from or meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human side of the conversation.
    User,
    /// The model side of the conversation.
    Assistant,
}

/// A token that ties progress notifications to the request that asked for them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl From<i64> for ProgressToken {
    fn from(n: i64) -> Self {
        ProgressToken::Number(n)
    }
}

impl From<String> for ProgressToken {
    fn from(s: String) -> Self {
        ProgressToken::String(s)
    }
}

impl From<&str> for ProgressToken {
    fn from(s: &str) -> Self {
        ProgressToken::String(s.to_owned())
    }
}

/// Which background colour an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// Meant for a light background.
    Light,
    /// Meant for a dark background.
    Dark,
}

/// An icon a user interface may show for a server, tool, resource or prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// HTTP(S) URL or `data:` URI of the image.
    pub src: String,
    /// MIME type of the image, when the source does not make it clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes the icon suits, as `"WxH"` strings or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// Background theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Icon {
    /// An icon with only a source.
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), mime_type: None, sizes: None, theme: None, extra: Map::new() }
    }
}

/// Name, version and display details of an MCP client or server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name of the implementation.
    pub name: String,
    /// Version string of the implementation.
    pub version: String,
    /// Human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description of what the implementation does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Website of the implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons for user interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    /// Implementation info with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
            extra: Map::new(),
        }
    }

    /// Sets the display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// Hints telling a client how content should be used or shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (optional) to 1 (effectively required).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of a request that takes nothing but `_meta` (e.g. `ping`, `roots/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestParams {
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of a paginated list request (`tools/list`, `resources/list`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedRequestParams {
    /// Where to continue listing; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PaginatedRequestParams {
    /// Parameters asking for the page at `cursor`.
    pub fn with_cursor(cursor: impl Into<Cursor>) -> Self {
        PaginatedRequestParams { cursor: Some(cursor.into()), ..Default::default() }
    }
}

/// A result with no payload beyond `_meta` (e.g. the answer to `ping`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
