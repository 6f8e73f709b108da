//! An rmcp (official Rust MCP SDK) client with the tasks extension
//! (`io.modelcontextprotocol/tasks`, SEP-2663):
//!
//!     rmcp-task-client [--era session|stateless] [--tool NAME] [--args JSON] <command...>
//!
//! spawns `<command...>` over stdio (rmcp's `TokioChildProcess`), declares the extension,
//! calls the tool (default `slow_compute {"seconds": 0.3, "label": "x"}`), requires a
//! `CreateTaskResult` (`resultType: "task"`), polls `tasks/get` at the task's
//! `pollIntervalMs` until a terminal status, prints the result's text on stdout and each
//! status seen on stderr (`status: working` ...). Exit 0 on `completed` with a text result,
//! 1 otherwise. `--era session` (default) uses `initialize`; `--era stateless` uses
//! `server/discover` and protocol 2026-07-28 (per-request `_meta` capabilities).
//!
//! `--cancel-after MS` sends `tasks/cancel` MS ms after the task was created and then
//! requires the task to end `cancelled` (prints `cancelled`). `--no-tasks` declares no
//! tasks extension and requires an inline `CallToolResult` (a server MUST NOT answer
//! such a request with a task).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rmcp::model::*;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::TokioChildProcess;

struct Options {
    stateless: bool,
    cancel_after: Option<u64>,
    no_tasks: bool,
    tool: String,
    args: JsonObject,
    command: Vec<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut argv = std::env::args().skip(1);
    let mut options = Options {
        stateless: false,
        cancel_after: None,
        no_tasks: false,
        tool: "slow_compute".into(),
        args: serde_json::from_value(serde_json::json!({"seconds": 0.3, "label": "x"})).expect("an object"),
        command: Vec::new(),
    };
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "--era" => match argv.next().as_deref() {
                Some("session") => options.stateless = false,
                Some("stateless") => options.stateless = true,
                other => return Err(format!("--era takes session or stateless, not {other:?}")),
            },
            "--cancel-after" => {
                let ms = argv.next().ok_or("--cancel-after takes milliseconds")?;
                options.cancel_after = Some(ms.parse().map_err(|e| format!("--cancel-after {ms}: {e}"))?);
            }
            "--no-tasks" => options.no_tasks = true,
            "--tool" => options.tool = argv.next().ok_or("--tool takes a name")?,
            "--args" => {
                let text = argv.next().ok_or("--args takes a JSON object")?;
                options.args = serde_json::from_str(&text).map_err(|e| format!("--args: {e}"))?;
            }
            "--" => {
                options.command.extend(argv.by_ref());
            }
            _ => {
                options.command.push(arg);
                options.command.extend(argv.by_ref());
            }
        }
    }
    if options.command.is_empty() {
        return Err("usage: rmcp-task-client [--era session|stateless] [--cancel-after MS] [--no-tasks] [--tool NAME] [--args JSON] <command...>".into());
    }
    Ok(options)
}

async fn run(options: Options) -> Result<String, String> {
    let mut command = tokio::process::Command::new(&options.command[0]);
    command.args(&options.command[1..]);
    let transport = TokioChildProcess::new(command).map_err(|e| format!("cannot spawn {:?}: {e}", options.command[0]))?;
    let capabilities =
        if options.no_tasks { ClientCapabilities::default() } else { ClientCapabilities::builder().enable_tasks().build() };
    let config = ClientConfig::new(capabilities, Implementation::new("rmcp-task-client", env!("CARGO_PKG_VERSION")));
    let lifecycle = if options.stateless {
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
    } else {
        ClientLifecycleMode::Initialize
    };
    let era = if options.stateless { "stateless" } else { "session" };
    let client = config.serve_with_lifecycle(transport, lifecycle).await.map_err(|e| format!("{era} lifecycle failed: {e}"))?;
    let negotiated = client.peer().peer_info().map(|info| info.protocol_version.to_string()).unwrap_or_default();
    eprintln!("rmcp-task-client: era {era}, protocol {negotiated}");

    let outcome = follow(&client, &options).await;
    let _ = client.cancel().await;
    outcome
}

async fn follow<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    options: &Options,
) -> Result<String, String> {
    let params = CallToolRequestParams::new(options.tool.clone()).with_arguments(options.args.clone());
    let response = client.call_tool_once(params).await.map_err(|e| format!("tools/call failed: {e}"))?;
    if options.no_tasks {
        return match response {
            CallToolResponse::Complete(result) => result_text(result),
            other => Err(format!("without the tasks extension: expected an inline CallToolResult, got {other:?}")),
        };
    }
    let create = match response {
        CallToolResponse::Task(create) => create,
        other => return Err(format!("expected a CreateTaskResult (resultType \"task\"), got {other:?}")),
    };
    let task_id = create.task.task_id.clone();
    eprintln!("status: {}", status_name(create.task.status));
    let mut poll = create.task.poll_interval_ms.unwrap_or(100);
    let created = Instant::now();
    let mut cancel_at = options.cancel_after.map(|ms| created + Duration::from_millis(ms));
    let deadline = created + Duration::from_secs(30);
    loop {
        if Instant::now() > deadline {
            return Err(format!("task {task_id} did not finish within 30 s"));
        }
        tokio::time::sleep(Duration::from_millis(poll.clamp(10, 1000))).await;
        if cancel_at.is_some_and(|at| Instant::now() >= at) {
            cancel_at = None;
            client
                .peer()
                .cancel_task(CancelTaskParams::new(task_id.clone()))
                .await
                .map_err(|e| format!("tasks/cancel {task_id} failed: {e}"))?;
            eprintln!("sent tasks/cancel");
        }
        let now = client
            .peer()
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .map_err(|e| format!("tasks/get {task_id} failed: {e}"))?;
        if now.task.task.task_id != task_id {
            return Err(format!("tasks/get {task_id} answered for task {}", now.task.task.task_id));
        }
        poll = now.task.task.poll_interval_ms.unwrap_or(poll);
        eprintln!("status: {}", status_name(now.task.status()));
        match now.task.payload {
            TaskPayload::Working => {}
            TaskPayload::Completed { .. } if options.cancel_after.is_some() => {
                return Err(format!("task {task_id} completed although it was cancelled"))
            }
            TaskPayload::Completed { result } => {
                let result: CallToolResult =
                    serde_json::from_value(serde_json::Value::Object(result)).map_err(|e| format!("task result: {e}"))?;
                return result_text(result);
            }
            TaskPayload::Failed { error } => return Err(format!("task {task_id} failed: {error:?}")),
            TaskPayload::Cancelled if options.cancel_after.is_some() && cancel_at.is_none() => return Ok("cancelled".into()),
            TaskPayload::Cancelled => return Err(format!("task {task_id} was cancelled")),
            TaskPayload::InputRequired { input_requests } => {
                return Err(format!("task {task_id} asks for input this client does not give: {input_requests:?}"))
            }
            other => return Err(format!("task {task_id}: unexpected payload {other:?}")),
        }
    }
}

fn result_text(result: CallToolResult) -> Result<String, String> {
    if result.is_error == Some(true) {
        return Err(format!("the tool failed: {result:?}"));
    }
    let texts: Vec<&str> = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect();
    if texts.is_empty() {
        return Err(format!("the result has no text content: {result:?}"));
    }
    Ok(texts.join("\n"))
}

fn status_name(status: TaskStatus) -> String {
    serde_json::to_value(status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_else(|| format!("{status:?}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("rmcp-task-client: {e}");
            return ExitCode::from(2);
        }
    };
    match run(options).await {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rmcp-task-client: {e}");
            ExitCode::FAILURE
        }
    }
}
