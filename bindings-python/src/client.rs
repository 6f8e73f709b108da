//! `NativeClient`: the engine side of `oxmcp.Client`. Every call returns an awaitable of
//! JSON text; cancelling the awaiting task cancels the MCP request.

use std::sync::Arc;
use std::time::Duration;

use oxmcp::client::{Client, ClientBuilder, ClientContext, Era, ServerNotification};
use oxmcp::protocol::{CompleteRequestParams, CreateMessageResult, ElicitResult, ListRootsResult, LoggingLevel};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;
use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::Value;

use crate::bridge::{self, awaitable};
use crate::errors;
use crate::event_loop::{self, LoopHandle};

/// Python callables the client answers server requests and notifications with.
#[derive(Clone)]
struct Hooks {
    event_loop: LoopHandle,
    /// `async def on_request(method, params_json) -> str`, for sampling, elicitation, roots.
    on_request: Option<Arc<Py<PyAny>>>,
    /// `def on_notification(method, params_json)`, called on the event loop.
    on_notification: Option<Arc<Py<PyAny>>>,
}

impl Hooks {
    /// Asks the Python handler; the server cancelling its request cancels the handler's
    /// task (CancelledError inside it).
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        method: &'static str,
        params: Value,
        ctx: ClientContext,
    ) -> oxmcp::Result<T> {
        let handler = self.on_request.as_ref().ok_or_else(|| Error::new(ErrorKind::Handler, "no request handler"))?;
        let out = bridge::call_async(
            &self.event_loop,
            handler,
            move |py| PyTuple::new(py, [method.into_pyobject(py)?.into_any(), params.to_string().into_pyobject(py)?.into_any()]),
            Some(&ctx.cancel),
        )
        .await?;
        let text = out.ok_or_else(|| Error::new(ErrorKind::Handler, format!("the {method} handler returned nothing")))?;
        serde_json::from_str(&text).map_err(|e| Error::new(ErrorKind::Handler, format!("invalid {method} result: {e}")))
    }

    fn builder(&self, name: String, version: String, capabilities: &[String], era: Era) -> ClientBuilder {
        let mut b = Client::builder(name, version).era(era);
        let has = |c: &str| capabilities.iter().any(|x| x == c);
        if has("sampling") {
            let h = self.clone();
            b = b.on_sampling(move |params, ctx| {
                let h = h.clone();
                async move { h.ask::<CreateMessageResult>("sampling/createMessage", serde_json::to_value(params)?, ctx).await }
            });
        }
        if has("elicitation") {
            let h = self.clone();
            b = b.on_elicitation(move |params, ctx| {
                let h = h.clone();
                async move { h.ask::<ElicitResult>("elicitation/create", serde_json::to_value(params)?, ctx).await }
            });
        }
        if has("roots") {
            let h = self.clone();
            b = b.on_list_roots(move |_, ctx| {
                let h = h.clone();
                async move { h.ask::<ListRootsResult>("roots/list", Value::Object(Default::default()), ctx).await }
            });
        }
        if let Some(cb) = self.on_notification.clone() {
            let event_loop = self.event_loop.clone();
            b = b.on_notification(move |n| {
                let (method, params) = notification_parts(n);
                let cb = cb.clone();
                event_loop.run(move |py| event_loop::report(py, cb.bind(py).call1((method, params))));
            });
        }
        b
    }
}

fn notification_parts(n: ServerNotification) -> (String, String) {
    let (method, params) = n.into_wire();
    (method, params.to_string())
}

/// A connected client.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeClient {
    client: Arc<Client>,
}

fn hooks(py: Python<'_>, on_request: Option<Py<PyAny>>, on_notification: Option<Py<PyAny>>) -> PyResult<Hooks> {
    let event_loop = LoopHandle::current(py)?.0;
    Ok(Hooks { event_loop, on_request: on_request.map(Arc::new), on_notification: on_notification.map(Arc::new) })
}

/// `"auto"`, `"session"` or `"stateless"` (also `"legacy"` / `"modern"`), as the engine
/// parses them; anything else is `InvalidInput`.
fn parse_era(era: &str) -> PyResult<Era> {
    Era::parse(era).map_err(errors::raise)
}

fn json<T: serde::Serialize>(v: &T) -> oxmcp::Result<Option<String>> {
    Ok(Some(serde_json::to_string(v)?))
}

fn parse_json(what: &str, text: &str) -> PyResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| errors::raise(Error::new(ErrorKind::InvalidInput, format!("invalid {what} JSON: {e}"))))
}

#[pymethods]
impl NativeClient {
    /// Starts `command` as a child process and connects over stdio (awaitable).
    #[staticmethod]
    #[pyo3(signature = (command, args, env, name, version, capabilities, on_request=None, on_notification=None, era="auto"))]
    #[allow(clippy::too_many_arguments)]
    fn connect_stdio<'py>(
        py: Python<'py>,
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        name: String,
        version: String,
        capabilities: Vec<String>,
        on_request: Option<Py<PyAny>>,
        on_notification: Option<Py<PyAny>>,
        era: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let era = parse_era(era)?;
        let hooks = hooks(py, on_request, on_notification)?;
        awaitable(py, async move {
            let mut child = ChildProcess::new(command).args(args);
            for (k, v) in env {
                child = child.env(k, v);
            }
            let client = hooks.builder(name, version, &capabilities, era).connect(child.spawn()?).await?;
            Ok(NativeClient { client: Arc::new(client) })
        })
    }

    /// Connects to a Streamable HTTP (or legacy HTTP+SSE) server (awaitable).
    #[staticmethod]
    #[pyo3(signature = (url, headers, name, version, capabilities, on_request=None, on_notification=None, era="auto"))]
    #[allow(clippy::too_many_arguments)]
    fn connect_http<'py>(
        py: Python<'py>,
        url: String,
        headers: Vec<(String, String)>,
        name: String,
        version: String,
        capabilities: Vec<String>,
        on_request: Option<Py<PyAny>>,
        on_notification: Option<Py<PyAny>>,
        era: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let era = parse_era(era)?;
        let hooks = hooks(py, on_request, on_notification)?;
        awaitable(py, async move {
            let mut transport = HttpClientTransport::new(url);
            for (k, v) in &headers {
                transport = transport.header(k, v);
            }
            let client = hooks.builder(name, version, &capabilities, era).connect(transport).await?;
            Ok(NativeClient { client: Arc::new(client) })
        })
    }

    /// The era the connection settled on: `"session"` or `"stateless"`.
    fn era(&self) -> &'static str {
        self.client.era().as_str()
    }

    /// The server's `initialize` result (JSON; synthesized from `server/discover` in the
    /// stateless era).
    fn initialize_result_json(&self) -> PyResult<String> {
        serde_json::to_string(self.client.initialize_result()).map_err(|e| errors::raise(e.into()))
    }

    /// `ping` (awaitable; a `server/discover` round trip in the stateless era).
    fn ping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { c.ping().await.map(|()| None::<String>) })
    }

    /// A raw request: `method` with params JSON; resolves to the result JSON. Era-aware: in
    /// the stateless era it carries the request `_meta` and the server's input requests are
    /// answered with the client's handlers.
    #[pyo3(signature = (method, params_json, timeout=None, on_progress=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params_json: &str,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = parse_json("params", params_json)?;
        let mut options = RequestOptions::default();
        if let Some(secs) = timeout {
            options = options.timeout(Duration::from_secs_f64(secs.max(0.0)));
        }
        if let Some(cb) = on_progress {
            let (event_loop, cb) = (LoopHandle::current(py)?.0, Arc::new(cb));
            options = options.on_progress(move |p| {
                let cb = cb.clone();
                event_loop.run(move |py| event_loop::report(py, cb.bind(py).call1((p.progress, p.total, p.message))));
            });
        }
        let c = self.client.clone();
        awaitable(py, async move { json(&c.request(&method, Some(params), options).await?) })
    }

    /// `resources/subscribe` (awaitable; session era only: `InvalidInput` in the stateless era).
    fn subscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { c.subscribe(&uri).await.map(|()| None::<String>) })
    }

    /// `resources/unsubscribe` (awaitable; session era only).
    fn unsubscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { c.unsubscribe(&uri).await.map(|()| None::<String>) })
    }

    /// Every tool, following cursors (JSON array; awaitable).
    fn list_all_tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { json(&c.list_all_tools().await?) })
    }

    /// Every resource (JSON array; awaitable).
    fn list_all_resources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { json(&c.list_all_resources().await?) })
    }

    /// Every resource template (JSON array; awaitable).
    fn list_all_resource_templates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { json(&c.list_all_resource_templates().await?) })
    }

    /// Every prompt (JSON array; awaitable).
    fn list_all_prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move { json(&c.list_all_prompts().await?) })
    }

    /// `completion/complete` with params JSON (awaitable).
    fn complete<'py>(&self, py: Python<'py>, params_json: &str) -> PyResult<Bound<'py, PyAny>> {
        let params: CompleteRequestParams = serde_json::from_value(parse_json("completion", params_json)?)
            .map_err(|e| errors::raise(Error::new(ErrorKind::InvalidInput, e.to_string())))?;
        let c = self.client.clone();
        awaitable(py, async move { json(&c.complete(params).await?) })
    }

    /// `logging/setLevel` (awaitable); in the stateless era the level rides on every later
    /// request instead.
    fn set_log_level<'py>(&self, py: Python<'py>, level: String) -> PyResult<Bound<'py, PyAny>> {
        let level: LoggingLevel = serde_json::from_value(Value::String(level.to_lowercase()))
            .map_err(|_| errors::raise(Error::new(ErrorKind::InvalidInput, format!("unknown log level {level:?}"))))?;
        let c = self.client.clone();
        awaitable(py, async move { c.set_log_level(level).await.map(|()| None::<String>) })
    }

    /// Tells the server the roots changed.
    fn notify_roots_changed(&self) -> PyResult<()> {
        self.client.notify_roots_changed().map_err(errors::raise)
    }

    /// The sizes of the pending and in-flight maps (for leak checks).
    fn stats(&self) -> (usize, usize) {
        let s = self.client.stats();
        (s.pending_requests, s.in_flight_requests)
    }

    /// Closes the connection; a child process is stopped (awaitable).
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = self.client.clone();
        awaitable(py, async move {
            c.shutdown().await;
            Ok(None::<String>)
        })
    }
}
