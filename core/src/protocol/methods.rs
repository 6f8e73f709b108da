//! Method names, so a typo is a compile error and not a silent -32601.

#![allow(missing_docs)]

pub const INITIALIZE: &str = "initialize";
pub const INITIALIZED: &str = "notifications/initialized";
pub const PING: &str = "ping";
pub const CANCELLED: &str = "notifications/cancelled";
pub const PROGRESS: &str = "notifications/progress";

pub const TOOLS_LIST: &str = "tools/list";
pub const TOOLS_CALL: &str = "tools/call";
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

pub const RESOURCES_LIST: &str = "resources/list";
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
pub const RESOURCES_READ: &str = "resources/read";
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";

pub const PROMPTS_LIST: &str = "prompts/list";
pub const PROMPTS_GET: &str = "prompts/get";
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

pub const COMPLETION_COMPLETE: &str = "completion/complete";
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
pub const LOGGING_MESSAGE: &str = "notifications/message";

pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
pub const ELICITATION_CREATE: &str = "elicitation/create";
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
pub const ROOTS_LIST: &str = "roots/list";
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";

// The stateless era (2026-07-28).
pub const SERVER_DISCOVER: &str = "server/discover";
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

// The tasks extension (`io.modelcontextprotocol/tasks`).
pub const TASKS_GET: &str = "tasks/get";
pub const TASKS_UPDATE: &str = "tasks/update";
pub const TASKS_CANCEL: &str = "tasks/cancel";
pub const TASKS_STATUS: &str = "notifications/tasks";
/// The 2025-11-25 specification's task methods, which the extension dropped: the result of
/// a task (blocking until it ends) and the requestor's tasks.
pub const TASKS_RESULT: &str = "tasks/result";
pub const TASKS_LIST: &str = "tasks/list";

// The skills extension (`io.modelcontextprotocol/skills`).
pub const SKILLS_LIST: &str = "skills/list";
pub const SKILLS_GET: &str = "skills/get";
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";

/// Session-era methods the stateless era removed (a 2026-07-28 request for one is -32601).
pub const REMOVED_IN_STATELESS_ERA: [&str; 5] = [INITIALIZE, PING, LOGGING_SET_LEVEL, RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE];
