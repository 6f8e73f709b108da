//! Tasks, in their two wire forms.
//!
//! - The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a server may answer a
//!   `tools/call` with a task handle ([`CreateTaskResult`]) and run the call in the
//!   background; the client follows it with `tasks/get`, answers its input requests with
//!   `tasks/update` and stops it with `tasks/cancel`.
//! - The 2025-11-25 specification's task augmentation: the client asks for a task with
//!   `params.task` ([`TaskMetadata`]), is answered `{"task": Task}`, polls `tasks/get`,
//!   takes the outcome from `tasks/result` (which blocks until the task ends and carries
//!   the task's requests to the client meanwhile), lists its tasks with `tasks/list`.
//!   The task is the same, written with `ttl` and `pollInterval` ([`Task::to_2025`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension's identifier, under `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Being processed.
    Working,
    /// Waiting for the client's answers to its `inputRequests` (through `tasks/update`).
    InputRequired,
    /// Finished with a result (a tool's `isError` result included).
    Completed,
    /// Ended by a JSON-RPC error.
    Failed,
    /// Stopped by `tasks/cancel` before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task can change no more.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The status as the wire writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task's metadata: what [`CreateTaskResult`] carries, and every status report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The server's identifier for the task.
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A human-readable account of the status (progress, why it failed...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601, when it was created.
    pub created_at: String,
    /// ISO 8601, when it last changed.
    pub last_updated_at: String,
    /// How long after creation the server keeps it, in milliseconds; `None` (null on the
    /// wire) for no limit. (Read from `ttl` too: the 2025-11-25 form.)
    #[serde(alias = "ttl")]
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds. (Read from `pollInterval` too.)
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "pollInterval")]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// The task as the 2025-11-25 specification writes it: `ttl` and `pollInterval` for
    /// the extension's `ttlMs` and `pollIntervalMs`.
    pub fn to_2025(&self) -> Value {
        let mut task = Map::new();
        task.insert("taskId".into(), Value::String(self.task_id.clone()));
        task.insert("status".into(), Value::String(self.status.as_str().into()));
        if let Some(m) = &self.status_message {
            task.insert("statusMessage".into(), Value::String(m.clone()));
        }
        task.insert("createdAt".into(), Value::String(self.created_at.clone()));
        task.insert("lastUpdatedAt".into(), Value::String(self.last_updated_at.clone()));
        task.insert("ttl".into(), self.ttl_ms.map_or(Value::Null, Value::from));
        if let Some(p) = self.poll_interval_ms {
            task.insert("pollInterval".into(), Value::from(p));
        }
        Value::Object(task)
    }
}

/// The `_meta` key tying a message to its task (2025-11-25): `{"taskId": ...}` on the
/// `tasks/result` answer and on every request a task sends the client.
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// `params.task` of a task-augmented request (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    /// How long after creation the requestor wants the task kept, in milliseconds (the
    /// receiver may keep it less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// `tasks/list` result (2025-11-25): the requestor's tasks, a page at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A task with what its status brings: the result once completed, the JSON-RPC error
/// once failed, the outstanding requests while input is required. `tasks/get` answers
/// one, and `notifications/tasks` carries one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task's metadata.
    #[serde(flatten)]
    pub task: Task,
    /// `completed`: the original request's result (a `CallToolResult`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `failed`: the JSON-RPC error (`code`, `message`, `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// `input_required`: the server-to-client requests to answer, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
}

/// The answer to a request the server turned into a task (`resultType: "task"`).
pub type CreateTaskResult = Task;

/// `tasks/get` and `tasks/cancel` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// `tasks/update` params: answers to some or all of the task's outstanding input
/// requests, by their keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// The answers, keyed as the task's `inputRequests` were.
    pub input_responses: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_reads_and_writes_the_extensions_shape() {
        let wire = json!({
            "taskId": "t1", "status": "input_required", "createdAt": "2026-11-24T10:30:00Z",
            "lastUpdatedAt": "2026-11-24T10:31:00Z", "ttlMs": null, "pollIntervalMs": 500,
            "inputRequests": {"name": {"method": "elicitation/create", "params": {}}}
        });
        let task: DetailedTask = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(task.task.status, TaskStatus::InputRequired);
        assert_eq!(task.task.ttl_ms, None);
        assert!(!task.task.status.is_terminal());
        // ttlMs is required and nullable: written as null, not left out.
        assert_eq!(serde_json::to_value(&task).unwrap(), wire);
    }

    #[test]
    fn a_task_reads_and_writes_the_2025_11_25_shape() {
        let wire = json!({
            "taskId": "t2", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": 60000, "pollInterval": 5000
        });
        let task: Task = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!((task.ttl_ms, task.poll_interval_ms), (Some(60000), Some(5000)));
        assert_eq!(task.to_2025(), wire);
        let unlimited = Task { ttl_ms: None, poll_interval_ms: None, ..task };
        assert_eq!(unlimited.to_2025()["ttl"], Value::Null, "ttl is required and nullable");
        assert!(unlimited.to_2025().get("pollInterval").is_none());
    }
}
