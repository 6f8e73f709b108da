//! `NativeServer` and `NativeContext`: the Python `Server` registers handlers here; the
//! core runs them. Each handler is an async Python function taking JSON text (and a
//! context) and returning JSON text; the Python layer does the conversions.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CreateMessageRequestParams, ElicitRequestParams, GetPromptResult,
    LoggingLevel, Prompt, ReadResourceResult, RequestId, Resource, ResourceTemplate, Tool,
};
use oxmcp::server::{
    Arguments, CompletionHandler, PromptArguments, PromptHandler, RequestContext, ResourceHandler, ResourceRequest, Server,
    ToolHandler,
};
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde::de::DeserializeOwned;

use crate::bridge::{self, awaitable};
use crate::errors;
use crate::event_loop::LoopHandle;

/// A Python handler and the event loop it runs on. Async handlers run on the loop; plain
/// functions run on the runtime's blocking pool (never on the event loop), with the GIL.
#[derive(Clone)]
struct PyHandler {
    func: Arc<Py<PyAny>>,
    is_async: bool,
    event_loop: LoopHandle,
}

fn parse<T: DeserializeOwned>(what: &str, out: Option<String>) -> oxmcp::Result<T> {
    let text = out.ok_or_else(|| Error::new(ErrorKind::Handler, format!("the {what} handler returned nothing")))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {what} handler returned an invalid result: {e}")))
}

impl PyHandler {
    async fn run(&self, first: String, second: Option<String>, ctx: RequestContext) -> oxmcp::Result<Option<String>> {
        let cancel = ctx.cancellation_token().clone();
        let native = NativeContext { ctx };
        if !self.is_async {
            let func = self.func.clone();
            let call = tokio::task::spawn_blocking(move || {
                Python::attach(|py| {
                    let native = Bound::new(py, native)?.into_any();
                    let out = match second {
                        Some(s) => func.bind(py).call1((first, s, native))?,
                        None => func.bind(py).call1((first, native))?,
                    };
                    if out.is_none() {
                        Ok(None)
                    } else {
                        out.extract::<String>().map(Some)
                    }
                })
                .map_err(|e| Python::attach(|py| errors::from_py(py, &e)))
            });
            return call.await.map_err(|e| Error::new(ErrorKind::Handler, format!("the handler panicked: {e}")))?;
        }
        bridge::call_async(
            &self.event_loop,
            &self.func,
            move |py| {
                let native = Bound::new(py, native)?.into_any();
                match second {
                    Some(s) => PyTuple::new(py, [first.into_pyobject(py)?.into_any(), s.into_pyobject(py)?.into_any(), native]),
                    None => PyTuple::new(py, [first.into_pyobject(py)?.into_any(), native]),
                }
            },
            Some(&cancel),
        )
        .await
    }
}

impl ToolHandler for PyHandler {
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<CallToolResult>> {
        let h = self.clone();
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("tool", h.run(args, None, ctx).await?)
        })
    }
}

impl ResourceHandler for PyHandler {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<ReadResourceResult>> {
        let h = self.clone();
        Box::pin(async move {
            let vars = serde_json::to_string(&request.variables)?;
            parse("resource", h.run(request.uri, Some(vars), ctx).await?)
        })
    }
}

impl PromptHandler for PyHandler {
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<GetPromptResult>> {
        let h = self.clone();
        Box::pin(async move {
            let args = serde_json::to_string(&arguments)?;
            parse("prompt", h.run(args, None, ctx).await?)
        })
    }
}

impl CompletionHandler for PyHandler {
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, oxmcp::Result<Completion>> {
        let h = self.clone();
        Box::pin(async move {
            let params = serde_json::to_string(&params)?;
            parse("completion", h.run(params, None, ctx).await?)
        })
    }
}

/// A Python callable and whether it is a coroutine function.
type Callable = (Arc<Py<PyAny>>, bool);

enum Registration {
    Tool(Tool, Callable),
    Resource(Resource, Callable),
    Template(ResourceTemplate, Callable),
    Prompt(Prompt, Callable),
    Completion(Callable),
}

fn invalid(what: &str, e: impl std::fmt::Display) -> PyErr {
    errors::raise(Error::new(ErrorKind::InvalidInput, format!("invalid {what}: {e}")))
}

/// The engine side of `oxmcp.Server`.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeServer {
    name: String,
    version: String,
    instructions: Option<String>,
    registrations: Mutex<Vec<Registration>>,
    /// The core server and its loop, once serving started (later registrations go live).
    running: Mutex<Option<(Server, LoopHandle)>>,
    http: Arc<tokio::sync::Mutex<Option<HttpServer>>>,
}

impl NativeServer {
    fn register(&self, r: Registration) -> PyResult<()> {
        if let Some((server, event_loop)) = self.running.lock().unwrap().as_ref() {
            let handler = |(f, a): &Callable| PyHandler { func: f.clone(), is_async: *a, event_loop: event_loop.clone() };
            match &r {
                Registration::Tool(t, f) => server.add_tool_handler(t.clone(), handler(f)).map_err(errors::raise)?,
                Registration::Resource(res, f) => server.add_resource_handler(res.clone(), handler(f)),
                Registration::Prompt(p, f) => server.add_prompt_handler(p.clone(), handler(f)),
                Registration::Template(..) | Registration::Completion(..) => {
                    return Err(invalid("registration", "templates and completion must be registered before serving"))
                }
            }
        }
        self.registrations.lock().unwrap().push(r);
        Ok(())
    }

    /// The core server, built on first serve with handlers bound to `event_loop`.
    fn build(&self, event_loop: LoopHandle) -> PyResult<Server> {
        let mut running = self.running.lock().unwrap();
        if let Some((server, _)) = running.as_ref() {
            return Ok(server.clone());
        }
        let mut b = Server::builder(&self.name, &self.version);
        if let Some(i) = &self.instructions {
            b = b.instructions(i.clone());
        }
        let handler = |(f, a): &Callable| PyHandler { func: f.clone(), is_async: *a, event_loop: event_loop.clone() };
        for r in self.registrations.lock().unwrap().iter() {
            b = match r {
                Registration::Tool(t, f) => b.tool_handler(t.clone(), handler(f)),
                Registration::Resource(res, f) => b.resource_handler(res.clone(), handler(f)),
                Registration::Template(t, f) => b.resource_template_handler(t.clone(), handler(f)),
                Registration::Prompt(p, f) => b.prompt_handler(p.clone(), handler(f)),
                Registration::Completion(f) => b.completion_handler(handler(f)),
            };
        }
        let server = b.build().map_err(errors::raise)?;
        *running = Some((server.clone(), event_loop));
        Ok(server)
    }
}

fn running_loop(py: Python<'_>) -> PyResult<LoopHandle> {
    Ok(LoopHandle::current(py)?.0)
}

#[pymethods]
impl NativeServer {
    #[new]
    #[pyo3(signature = (name, version, instructions=None))]
    fn new(name: String, version: String, instructions: Option<String>) -> Self {
        Self {
            name,
            version,
            instructions,
            registrations: Mutex::new(Vec::new()),
            running: Mutex::new(None),
            http: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// Registers a tool (its definition as JSON) with `async def handler(args_json, ctx) -> str`.
    #[pyo3(signature = (tool_json, handler, is_async=true))]
    fn add_tool(&self, tool_json: &str, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let tool: Tool = serde_json::from_str(tool_json).map_err(|e| invalid("tool", e))?;
        oxmcp::schema::Schema::compile(&tool.input_schema).map_err(errors::raise)?;
        self.register(Registration::Tool(tool, (Arc::new(handler), is_async)))
    }

    /// Registers a resource with `async def handler(uri, variables_json, ctx) -> str`.
    #[pyo3(signature = (resource_json, handler, is_async=true))]
    fn add_resource(&self, resource_json: &str, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let r: Resource = serde_json::from_str(resource_json).map_err(|e| invalid("resource", e))?;
        self.register(Registration::Resource(r, (Arc::new(handler), is_async)))
    }

    /// Registers a resource template (RFC 6570) with the same handler shape as a resource.
    #[pyo3(signature = (template_json, handler, is_async=true))]
    fn add_resource_template(&self, template_json: &str, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let t: ResourceTemplate = serde_json::from_str(template_json).map_err(|e| invalid("resource template", e))?;
        oxmcp::server::UriTemplate::parse(&t.uri_template).map_err(|e| invalid("resource template", e))?;
        self.register(Registration::Template(t, (Arc::new(handler), is_async)))
    }

    /// Registers a prompt with `async def handler(args_json, ctx) -> str`.
    #[pyo3(signature = (prompt_json, handler, is_async=true))]
    fn add_prompt(&self, prompt_json: &str, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let p: Prompt = serde_json::from_str(prompt_json).map_err(|e| invalid("prompt", e))?;
        self.register(Registration::Prompt(p, (Arc::new(handler), is_async)))
    }

    /// Sets the completion handler `async def handler(params_json, ctx) -> str`.
    #[pyo3(signature = (handler, is_async=true))]
    fn set_completion(&self, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        self.register(Registration::Completion((Arc::new(handler), is_async)))
    }

    /// Removes a tool; returns whether it existed.
    fn remove_tool(&self, name: &str) -> bool {
        let staged = {
            let mut registrations = self.registrations.lock().unwrap();
            let before = registrations.len();
            registrations.retain(|r| !matches!(r, Registration::Tool(t, _) if t.name == name));
            registrations.len() != before
        };
        // Either counts: a tool removed before serving was removed all the same.
        let running = self.running.lock().unwrap().as_ref().is_some_and(|(s, _)| s.remove_tool(name));
        staged || running
    }

    /// Tells subscribed clients that a resource changed.
    fn notify_resource_updated(&self, uri: &str) {
        if let Some((s, _)) = self.running.lock().unwrap().as_ref() {
            s.notify_resource_updated(uri);
        }
    }

    /// Serves on stdin/stdout until stdin closes (awaitable).
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let server = self.build(running_loop(py)?)?;
        awaitable(py, async move {
            server.serve_stdio().await?;
            Ok(None::<String>)
        })
    }

    /// Starts Streamable HTTP (and legacy SSE) in the background; resolves to the URL.
    #[pyo3(signature = (host, port, path="/mcp".to_string(), stateless=false, json_response=false))]
    fn start_http<'py>(
        &self,
        py: Python<'py>,
        host: String,
        port: u16,
        path: String,
        stateless: bool,
        json_response: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let server = self.build(running_loop(py)?)?;
        let slot = self.http.clone();
        awaitable(py, async move {
            // A name ("localhost") or an address; the first address it resolves to is bound.
            let bind = tokio::net::lookup_host((host.as_str(), port))
                .await?
                .next()
                .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("host {host:?} resolves to no address")))?;
            let config = HttpServerConfig { bind, endpoint: path, stateless, json_response, ..Default::default() };
            let http = HttpServer::bind(server, config).await?;
            let url = http.url();
            if let Some(old) = slot.lock().await.replace(http) {
                old.shutdown().await;
            }
            Ok(Some(url))
        })
    }

    /// Stops the HTTP server gracefully (awaitable).
    fn stop_http<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let slot = self.http.clone();
        awaitable(py, async move {
            if let Some(http) = slot.lock().await.take() {
                http.shutdown().await;
            }
            Ok(None::<String>)
        })
    }
}

/// The engine side of `oxmcp.Context`: one request's context.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeContext {
    ctx: RequestContext,
}

fn level(name: &str) -> PyResult<LoggingLevel> {
    serde_json::from_value(serde_json::Value::String(name.to_lowercase())).map_err(|_| invalid("log level", name))
}

#[pymethods]
impl NativeContext {
    /// The client's id for this request (int or str).
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.ctx.request_id() {
            RequestId::Number(n) => n.into_pyobject(py)?.into_any(),
            RequestId::String(s) => s.as_ref().into_pyobject(py)?.into_any(),
        })
    }

    /// The progress token the client attached (int or str), if any.
    #[getter]
    fn progress_token<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match self.ctx.progress_token() {
            None => None,
            Some(oxmcp::protocol::ProgressToken::Number(n)) => Some(n.into_pyobject(py)?.into_any()),
            Some(oxmcp::protocol::ProgressToken::String(s)) => Some(s.into_pyobject(py)?.into_any()),
        })
    }

    /// Whether the client cancelled the request.
    #[getter]
    fn cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// The client's info (JSON), once initialized.
    fn client_info_json(&self) -> Option<String> {
        self.ctx.client_info().and_then(|i| serde_json::to_string(i).ok())
    }

    /// The client's capabilities (JSON).
    fn client_capabilities_json(&self) -> Option<String> {
        self.ctx.client_capabilities().and_then(|c| serde_json::to_string(c).ok())
    }

    /// The negotiated protocol version.
    fn protocol_version(&self) -> Option<String> {
        self.ctx.protocol_version().map(|v| v.to_string())
    }

    /// Sends a progress notification (nothing if the client asked for none).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> PyResult<()> {
        self.ctx.report_progress(progress, total, message.as_deref()).map_err(errors::raise)
    }

    /// Sends a log message (JSON data) if the client's level lets it through.
    #[pyo3(signature = (level_name, data_json, logger=None))]
    fn log(&self, level_name: &str, data_json: &str, logger: Option<String>) -> PyResult<()> {
        let data = serde_json::from_str(data_json).map_err(|e| invalid("log data", e))?;
        self.ctx.log_with_logger(level(level_name)?, logger.as_deref(), data).map_err(errors::raise)
    }

    /// Over Streamable HTTP, ends this request's SSE connection; the client resumes.
    fn end_response_stream(&self) {
        self.ctx.end_response_stream();
    }

    /// `elicitation/create` (params and result as JSON; awaitable).
    fn elicit<'py>(&self, py: Python<'py>, params_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let params: ElicitRequestParams = serde_json::from_str(params_json).map_err(|e| invalid("elicitation", e))?;
        let ctx = self.ctx.clone();
        awaitable(py, async move { Ok(Some(serde_json::to_string(&ctx.elicit(params).await?)?)) })
    }

    /// `sampling/createMessage` (params and result as JSON; awaitable).
    fn sample<'py>(&self, py: Python<'py>, params_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let params: CreateMessageRequestParams = serde_json::from_str(params_json).map_err(|e| invalid("sampling request", e))?;
        let ctx = self.ctx.clone();
        awaitable(py, async move { Ok(Some(serde_json::to_string(&ctx.create_message(params).await?)?)) })
    }

    /// `roots/list` (result as JSON; awaitable).
    fn list_roots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx.clone();
        awaitable(py, async move { Ok(Some(serde_json::to_string(&ctx.list_roots().await?)?)) })
    }
}
