//! Notifications a server sends, typed for client callbacks.

use serde_json::Value;

use crate::protocol::{
    methods, CancelledNotificationParams, ElicitationCompleteNotificationParams, LoggingMessageNotificationParams,
    ProgressNotificationParams, ResourceUpdatedNotificationParams,
};

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/message`: a log message.
    LoggingMessage(LoggingMessageNotificationParams),
    /// `notifications/progress` (also delivered to the request's own progress callback).
    Progress(ProgressNotificationParams),
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated(ResourceUpdatedNotificationParams),
    /// `notifications/resources/list_changed`.
    ResourceListChanged,
    /// `notifications/tools/list_changed`.
    ToolListChanged,
    /// `notifications/prompts/list_changed`.
    PromptListChanged,
    /// `notifications/cancelled`: the server gave up on a request it sent us.
    Cancelled(CancelledNotificationParams),
    /// `notifications/elicitation/complete`: a URL-mode elicitation finished.
    ElicitationComplete(ElicitationCompleteNotificationParams),
    /// Anything else, or a known notification whose params did not parse.
    Other {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
}

impl ServerNotification {
    pub(crate) fn from_wire(method: String, params: Option<Value>) -> Self {
        fn typed<T: serde::de::DeserializeOwned>(params: &Option<Value>) -> Option<T> {
            serde_json::from_value(params.clone().unwrap_or(Value::Null)).ok()
        }
        let parsed = match method.as_str() {
            methods::LOGGING_MESSAGE => typed(&params).map(Self::LoggingMessage),
            methods::PROGRESS => typed(&params).map(Self::Progress),
            methods::RESOURCES_UPDATED => typed(&params).map(Self::ResourceUpdated),
            methods::RESOURCES_LIST_CHANGED => Some(Self::ResourceListChanged),
            methods::TOOLS_LIST_CHANGED => Some(Self::ToolListChanged),
            methods::PROMPTS_LIST_CHANGED => Some(Self::PromptListChanged),
            methods::CANCELLED => typed(&params).map(Self::Cancelled),
            methods::ELICITATION_COMPLETE => typed(&params).map(Self::ElicitationComplete),
            _ => None,
        };
        parsed.unwrap_or(Self::Other { method, params })
    }

    /// The notification as it travels: its method and params (`{}` when it has none). What a
    /// host binding hands its callbacks, so no binding maps notifications itself.
    pub fn into_wire(self) -> (String, Value) {
        fn params<T: serde::Serialize>(p: T) -> Value {
            serde_json::to_value(p).unwrap_or(Value::Null)
        }
        let empty = || Value::Object(Default::default());
        match self {
            Self::LoggingMessage(p) => (methods::LOGGING_MESSAGE.into(), params(p)),
            Self::Progress(p) => (methods::PROGRESS.into(), params(p)),
            Self::ResourceUpdated(p) => (methods::RESOURCES_UPDATED.into(), params(p)),
            Self::ResourceListChanged => (methods::RESOURCES_LIST_CHANGED.into(), empty()),
            Self::ToolListChanged => (methods::TOOLS_LIST_CHANGED.into(), empty()),
            Self::PromptListChanged => (methods::PROMPTS_LIST_CHANGED.into(), empty()),
            Self::Cancelled(p) => (methods::CANCELLED.into(), params(p)),
            Self::ElicitationComplete(p) => (methods::ELICITATION_COMPLETE.into(), params(p)),
            Self::Other { method, params } => (method, params.unwrap_or_else(empty)),
        }
    }
}
