//! Parameters of the general-purpose notifications: progress, cancellation,
//! resource updates and the parameter-less ones (`initialized`, `*/list_changed`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::{serialize_f64, serialize_opt_f64, Meta, ProgressToken};

/// Parameters of a notification that carries nothing but `_meta`: `notifications/initialized`
/// and the `notifications/{tools,resources,prompts,roots}/list_changed` family.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request this progress belongs to.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    #[serde(serialize_with = "serialize_f64")]
    pub progress: f64,
    /// Total amount of work, if known.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "serialize_opt_f64")]
    pub total: Option<f64>,
    /// Human-readable description of the current step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ProgressNotificationParams {
    /// Progress `progress` (out of an optional `total`) for `progress_token`.
    pub fn new(progress_token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        ProgressNotificationParams { progress_token, progress, total, message: None, meta: None, extra: Map::new() }
    }

    /// Sets the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// Parameters of `notifications/cancelled`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// JSON-RPC id (string or integer) of the request to cancel; required except for tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Value>,
    /// Why the request was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CancelledNotificationParams {
    /// Parameters cancelling the request with id `request_id`.
    pub fn new(request_id: impl Into<Value>) -> Self {
        CancelledNotificationParams { request_id: Some(request_id.into()), ..Default::default() }
    }

    /// Sets the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// Parameters of `notifications/resources/updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUpdatedNotificationParams {
    /// URI of the resource that changed (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceUpdatedNotificationParams {
    /// Parameters announcing that `uri` changed.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUpdatedNotificationParams { uri: uri.into(), meta: None, extra: Map::new() }
    }
}
