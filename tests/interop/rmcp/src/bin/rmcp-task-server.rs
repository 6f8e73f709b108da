//! An rmcp (official Rust MCP SDK) server over stdio with the tasks extension
//! (`io.modelcontextprotocol/tasks`, SEP-2663): the tool `slow_sum {a, b}` sleeps ~300 ms
//! (or `ms` milliseconds) and returns `sum: <a+b>`. It runs as a task (rmcp's
//! `TaskManager`) when the request declares the extension (per-request `_meta` client
//! capabilities, or the capabilities of `initialize` in the session era); otherwise it
//! answers inline. With `RMCP_TASK_LOG` set,
//! a task stopped by `tasks/cancel` appends `cancelled <taskId>` to that file.

use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{tool, tool_router, ErrorData as McpError, ServerHandler, ServiceExt};

const DELAY: Duration = Duration::from_millis(300);

#[derive(Debug, serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct SumArgs {
    a: f64,
    b: f64,
    /// How long to work, in milliseconds (default 300).
    #[serde(default)]
    ms: Option<u64>,
}

impl SumArgs {
    fn delay(&self) -> Duration {
        self.ms.map_or(DELAY, Duration::from_millis)
    }
}

fn sum_text(args: &SumArgs) -> String {
    format!("sum: {}", args.a + args.b)
}

/// Appends a line to the file named by `RMCP_TASK_LOG`, if set.
fn log_line(line: &str) {
    use std::io::Write;
    let Some(path) = std::env::var_os("RMCP_TASK_LOG") else {
        return;
    };
    match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
        Ok(mut file) => {
            let _ = writeln!(file, "{line}");
        }
        Err(e) => eprintln!("rmcp-task-server: cannot append to {}: {e}", path.to_string_lossy()),
    }
}

#[derive(Clone)]
struct TaskServer {
    tool_router: ToolRouter<TaskServer>,
    tasks: TaskManager,
}

#[tool_router]
impl TaskServer {
    fn new() -> Self {
        Self { tool_router: Self::tool_router(), tasks: TaskManager::new() }
    }

    /// The inline path (a client without the tasks extension).
    #[tool(
        description = "Sleeps ~300 ms, then returns the sum of a and b (as a task when the client declares the tasks extension)"
    )]
    async fn slow_sum(&self, Parameters(args): Parameters<SumArgs>) -> Result<CallToolResult, McpError> {
        tokio::time::sleep(args.delay()).await;
        Ok(CallToolResult::success(vec![ContentBlock::text(sum_text(&args))]))
    }
}

impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let client_supports_tasks = context.client_capabilities().is_some_and(|caps| caps.supports_tasks());
        if request.name == "slow_sum" && client_supports_tasks {
            let args: SumArgs = serde_json::from_value(serde_json::Value::Object(request.arguments.clone().unwrap_or_default()))
                .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
            eprintln!("rmcp-task-server: slow_sum({}, {}) runs as a task", args.a, args.b);
            let task = self.tasks.spawn(TaskOptions::new().with_poll_interval_ms(50), move |ctx| {
                Box::pin(async move {
                    tokio::select! {
                        _ = ctx.cancelled() => {
                            log_line(&format!("cancelled {}", ctx.task_id()));
                            Err(TaskExit::Cancelled)
                        }
                        _ = tokio::time::sleep(args.delay()) => {
                            Ok(CallToolResult::success(vec![ContentBlock::text(sum_text(&args))]))
                        }
                    }
                })
            });
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let tcc = ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }

    async fn get_task(&self, request: GetTaskParams, _context: RequestContext<RoleServer>) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(&self, request: UpdateTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.tasks.update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(&self, request: CancelTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
    }
}

#[tokio::main]
async fn main() {
    let service = match TaskServer::new().serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        Err(e) => {
            eprintln!("rmcp-task-server: stdio initialization failed: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = service.waiting().await {
        eprintln!("rmcp-task-server: {e}");
        std::process::exit(1);
    }
}
