//! The everything server's fixtures for tasks (the `io.modelcontextprotocol/tasks`
//! extension), with the names and arguments the official conformance suite uses. The
//! handlers are ordinary: the engine runs a task-supporting tool as a task when the
//! client declared the extension, and what a task asks the client becomes its
//! `inputRequests`.

use std::time::Duration;

use oxmcp::protocol::{
    CallToolResult, ElicitAction, ElicitRequestFormParams, ElicitRequestParams, TaskSupport, Tool, ToolExecution,
};
use oxmcp::server::{Arguments, RequestContext, ServerBuilder};
use oxmcp::{Error, Result};
use serde_json::{json, Value};

fn object(properties: Value) -> Value {
    json!({ "type": "object", "properties": properties })
}

/// A tool that runs as a task when it can (`Optional`) or only as one (`Required`).
fn task_tool(name: &str, description: &str, support: TaskSupport, input: Value) -> Tool {
    let mut tool = Tool::new(name, description, input);
    tool.execution = Some(ToolExecution { task_support: Some(support), ..Default::default() });
    tool
}

async fn confirm(ctx: &RequestContext, key: &str, message: String) -> Result<bool> {
    let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
    let answer = ctx.keyed(key).elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new(message, schema))).await?;
    let yes = answer.content.as_ref().and_then(|c| c.get("confirm")).and_then(Value::as_bool) == Some(true);
    Ok(answer.action == ElicitAction::Accept && yes)
}

/// Adds the tools.
pub fn add(b: ServerBuilder) -> ServerBuilder {
    b.tool(
        Tool::new("greet", "Greets (never a task).", object(json!({"name": {"type": "string"}}))),
        |a: Arguments, _| async move {
            Ok(CallToolResult::text(format!("Hello, {}!", a.get("name").and_then(Value::as_str).unwrap_or("World"))))
        },
    )
    .tool(
        task_tool(
            "slow_compute",
            "Works for `seconds` seconds, as a task when it can.",
            TaskSupport::Optional,
            object(json!({
                "seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}
            })),
        ),
        |a: Arguments, ctx: RequestContext| async move {
            let seconds = a.get("seconds").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.0, 600.0);
            let label = a.get("label").and_then(Value::as_str).unwrap_or("job").to_string();
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {}
                _ = ctx.cancelled() => return Err(Error::new(oxmcp::ErrorKind::Cancelled, "cancelled")),
            }
            Ok(CallToolResult::text(format!("{label}: computed in {seconds} s")))
        },
    )
    .tool(
        task_tool("failing_job", "Fails as a tool after a second (only as a task).", TaskSupport::Required, object(json!({}))),
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ok(CallToolResult::error_text("the job failed"))
        },
    )
    .tool(
        task_tool(
            "protocol_error_job",
            "Ends with a JSON-RPC error, as a task when it can.",
            TaskSupport::Optional,
            object(json!({})),
        ),
        |_, _| async { Err(Error::rpc_error(-32603, "the job crashed")) },
    )
    .tool(
        task_tool(
            "confirm_delete",
            "Asks the user to confirm before deleting `filename`.",
            TaskSupport::Optional,
            object(json!({
                "filename": {"type": "string"}
            })),
        ),
        |a: Arguments, ctx: RequestContext| async move {
            let file = a.get("filename").and_then(Value::as_str).unwrap_or("the file").to_string();
            let yes = confirm(&ctx, "confirm_delete", format!("Delete {file}?")).await?;
            Ok(CallToolResult::text(if yes { format!("deleted {file}") } else { format!("kept {file}") }))
        },
    )
    .escalating_tool(
        task_tool(
            "test_tool_with_task",
            "Asks the user's name inline (MRTR), then finishes the greeting as a task.",
            TaskSupport::Required,
            object(json!({})),
        ),
        |_, ctx: RequestContext| async move {
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            let form = ElicitRequestFormParams::new("What is your name?", schema);
            let answer = ctx.keyed("user_name").elicit(ElicitRequestParams::Form(form)).await?;
            let name =
                answer.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or("stranger").to_string();
            // What is left is slow: the client gets a task handle now.
            ctx.escalate_to_task().await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CallToolResult::text(format!("Hello, {name}! Your report is ready.")))
        },
    )
    .tool(
        task_tool("multi_input", "Asks two questions at once.", TaskSupport::Optional, object(json!({}))),
        |_, ctx: RequestContext| async move {
            let (first, second) = tokio::join!(
                confirm(&ctx, "first", "First question?".into()),
                confirm(&ctx, "second", "Second question?".into())
            );
            Ok(CallToolResult::text(format!("first={} second={}", first?, second?)))
        },
    )
}
