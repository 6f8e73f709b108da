//! Elicitation: the server asks the client's user for input (`elicitation/create`).
//!
//! Two modes exist. Form mode carries a restricted JSON Schema the client renders as a
//! form; URL mode sends the user to a web page out of band, and its completion may be
//! announced with `notifications/elicitation/complete`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::common::Meta;

/// Parameters of `elicitation/create`: a form-mode or a URL-mode request.
///
/// Parsing dispatches on `mode`: `"url"` gives [`ElicitRequestParams::Url`]; `"form"` or no
/// `mode` at all (the 2025-06-18 shape) gives [`ElicitRequestParams::Form`]. Each variant
/// remembers its own `mode` field, so messages serialize back exactly as they came.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Ask for structured data through a form.
    Form(ElicitRequestFormParams),
    /// Send the user to a URL.
    Url(ElicitRequestUrlParams),
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let mode = match &value {
            Value::Object(object) => object.get("mode"),
            _ => return Err(D::Error::custom("elicitation params must be a JSON object")),
        };
        match mode {
            None | Some(Value::Null) => {
                ElicitRequestFormParams::deserialize(value).map(ElicitRequestParams::Form).map_err(D::Error::custom)
            }
            Some(Value::String(m)) if m == "form" => {
                ElicitRequestFormParams::deserialize(value).map(ElicitRequestParams::Form).map_err(D::Error::custom)
            }
            Some(Value::String(m)) if m == "url" => {
                ElicitRequestUrlParams::deserialize(value).map(ElicitRequestParams::Url).map_err(D::Error::custom)
            }
            Some(other) => Err(D::Error::custom(format!("unknown elicitation mode {other}"))),
        }
    }
}

impl ElicitRequestParams {
    /// The message shown to the user, whichever mode this is.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(f) => &f.message,
            ElicitRequestParams::Url(u) => &u.message,
        }
    }

    /// The request's `_meta`, whichever mode this is.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            ElicitRequestParams::Form(f) => f.meta.as_ref(),
            ElicitRequestParams::Url(u) => u.meta.as_ref(),
        }
    }
}

/// The `"form"` value of a form-mode request's `mode` field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElicitationFormMode {
    /// `"form"`.
    #[default]
    #[serde(rename = "form")]
    Form,
}

/// The `"url"` value of a URL-mode request's `mode` field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElicitationUrlMode {
    /// `"url"`.
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// A form-mode elicitation request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// The optional `"mode": "form"` marker; `None` omits it, which also means form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationFormMode>,
    /// What is being asked and why.
    pub message: String,
    /// Flat object JSON Schema of primitive properties describing the wanted answer.
    pub requested_schema: Value,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequestFormParams {
    /// A form request without an explicit `mode` (understood by every protocol version).
    pub fn new(message: impl Into<String>, requested_schema: impl Into<Value>) -> Self {
        ElicitRequestFormParams {
            mode: None,
            message: message.into(),
            requested_schema: requested_schema.into(),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// A URL-mode elicitation request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// The `"mode": "url"` marker, always serialized.
    #[serde(default)]
    pub mode: ElicitationUrlMode,
    /// Why the user should visit the URL.
    pub message: String,
    /// The page the user should open.
    pub url: String,
    /// Server-unique, opaque identifier of this elicitation (required before 2026-07-28,
    /// where a multi round-trip request's input key identifies it instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequestUrlParams {
    /// A URL request.
    pub fn new(message: impl Into<String>, url: impl Into<String>, elicitation_id: impl Into<String>) -> Self {
        ElicitRequestUrlParams {
            mode: ElicitationUrlMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: Some(elicitation_id.into()),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// How the user answered an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form or agreed to the action.
    Accept,
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// The client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form values (strings, integers, booleans or string arrays), on accepted form requests only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitResult {
    /// An answer with the given action and no content.
    pub fn new(action: ElicitAction) -> Self {
        ElicitResult { action, content: None, meta: None, extra: Map::new() }
    }

    /// An accepted form with the submitted values.
    pub fn accept(content: Map<String, Value>) -> Self {
        ElicitResult { content: Some(content), ..ElicitResult::new(ElicitAction::Accept) }
    }

    /// A declined request.
    pub fn decline() -> Self {
        ElicitResult::new(ElicitAction::Decline)
    }

    /// A cancelled request.
    pub fn cancel() -> Self {
        ElicitResult::new(ElicitAction::Cancel)
    }
}

/// Parameters of `notifications/elicitation/complete`, ending a URL-mode elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the finished URL-mode request.
    pub elicitation_id: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCompleteNotificationParams {
    /// Parameters announcing that `elicitation_id` is complete.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        ElicitationCompleteNotificationParams { elicitation_id: elicitation_id.into(), meta: None, extra: Map::new() }
    }
}

/// The `data` of a `-32042` (URL elicitation required) error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlElicitationRequiredErrorData {
    /// The URL elicitations the user must complete before retrying.
    pub elicitations: Vec<ElicitRequestUrlParams>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
