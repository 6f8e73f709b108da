//! Server-to-client logging.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::Meta;

/// Syslog severity of a log message, ordered from least (`Debug`) to most (`Emergency`) severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The level's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

/// Parameters of `logging/setLevel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to receive.
    pub level: LoggingLevel,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SetLevelRequestParams {
    /// Parameters setting `level`.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelRequestParams { level, meta: None, extra: Map::new() }
    }
}

/// Parameters of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggingMessageNotificationParams {
    /// Severity of the message.
    pub level: LoggingLevel,
    /// Name of the logger that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: any JSON value (often a string or an object).
    pub data: Value,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl LoggingMessageNotificationParams {
    /// A log message at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        LoggingMessageNotificationParams { level, logger: None, data: data.into(), meta: None, extra: Map::new() }
    }

    /// Sets the logger name.
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }
}
