//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a server may answer a
//! `tools/call` with a task handle ([`CreateTaskResult`]) and run the call in the
//! background; the client follows it with `tasks/get`, answers its input requests with
//! `tasks/update` and stops it with `tasks/cancel`.

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
    /// wire) for no limit.
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
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
}
