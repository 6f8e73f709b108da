//! `NativeServer` and `NativeContext`: the Python `Server` files handlers with the core's
//! staged server; each handler is a Python function taking JSON text and a context and
//! returning JSON text (the Python layer does the conversions).

use std::sync::{Arc, Mutex};

use oxmcp::host::{context, CallId, HandlerKind, HostCalls, HttpOptions, StagedServer};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::bridge::{awaitable, PyFn};
use crate::errors;
use crate::event_loop::{LoopHandle, PyLoop};

/// The engine side of `oxmcp.Server`.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeServer {
    pub(crate) staged: Arc<StagedServer>,
    /// The event loop handlers run on: the one serving (or an in-memory client) last
    /// started from. Handlers are registered before any loop runs, and a server may outlive
    /// a loop (a module-level server in tests, each run on a loop of its own).
    event_loop: Arc<Mutex<Option<LoopHandle>>>,
    /// The loop slots of the servers this one mounts (theirs and what they mount): their
    /// handlers run on the loop this one serves from.
    mounted: Mutex<Vec<Arc<Mutex<Option<LoopHandle>>>>>,
    /// Every Python function filed here, as the core's handlers hold them: what
    /// `__traverse__` shows the cycle collector (see there).
    handlers: Mutex<Vec<Arc<Py<PyAny>>>>,
}

impl NativeServer {
    /// Makes the running loop the one handlers run on (each serve and in-memory client).
    pub(crate) fn bind_loop(&self, py: Python<'_>) -> PyResult<()> {
        let (handle, _) = LoopHandle::current(py)?;
        let mounted = self.mounted.lock().unwrap_or_else(|e| e.into_inner());
        for slot in std::iter::once(&self.event_loop).chain(mounted.iter()) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle.clone());
        }
        Ok(())
    }

    /// `handler` as the core holds it, remembered for the collector. Handlers the core has
    /// let go since (a tool replaced or removed) are forgotten now, so a server that keeps
    /// replacing its tools holds only the live ones and, at most, the one replaced last.
    fn keep(&self, handler: Py<PyAny>, is_async: bool) -> PyFn {
        let func = Arc::new(handler);
        let mut handlers = self.handlers.lock().unwrap_or_else(|e| e.into_inner());
        handlers.retain(|h| Arc::strong_count(h) > 1);
        handlers.push(func.clone());
        PyFn { func, is_async }
    }
}

#[pymethods]
impl NativeServer {
    /// The handlers are Python functions that usually hold the `Server` this native server
    /// belongs to (its bound methods, its closures), and the core holds them from Rust: a
    /// cycle the collector could not see, so no server was ever freed. Shown here, the
    /// cycle is collected once the `Server` is unreachable, but only while the core says
    /// nothing can call a handler any more (`is_idle`: no call under way or queued, no
    /// listener, session or task holding the running server): a collected function must
    /// never be called. While the server is busy its handlers are not shown, and the
    /// collector keeps it; a later collection frees it.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if !self.staged.is_idle() {
            return Ok(());
        }
        // The collector must not block: a handler list being filed now is skipped this time.
        if let Ok(handlers) = self.handlers.try_lock() {
            for handler in handlers.iter() {
                visit.call(&**handler)?;
            }
        }
        Ok(())
    }

    #[new]
    #[pyo3(signature = (name, version, instructions=None))]
    fn new(name: String, version: String, instructions: Option<String>) -> PyResult<Self> {
        let staged = StagedServer::new(name, version);
        if let Some(i) = instructions {
            staged.set_instructions(i).map_err(errors::raise)?;
        }
        Ok(Self { staged, event_loop: Arc::default(), mounted: Mutex::default(), handlers: Mutex::default() })
    }

    /// How tasks are kept (the core's task options, JSON); before serving.
    fn set_task_options(&self, options_json: &str) -> PyResult<()> {
        self.staged.set_task_options(options_json).map_err(errors::raise)
    }

    /// Files `definition_json` as a `kind` (`"tool"`, `"resource"`, `"resource template"`,
    /// `"prompt"`, `"completion"`) served by `handler(input_json, ctx) -> str` (see the
    /// core's `HandlerKind` for each kind's input and result).
    #[pyo3(signature = (kind, definition_json, handler, is_async=true))]
    fn register(&self, kind: &str, definition_json: &str, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let kind = HandlerKind::from_name(kind).map_err(errors::raise)?;
        let f = self.keep(handler, is_async);
        let (calls, event_loop) = (self.staged.calls().clone(), self.event_loop.clone());
        let host = Arc::new(move |id, input: String| {
            let lp = event_loop.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let (true, Some(lp)) = (calls.is_open(id), lp) else { return false };
            let native = NativeContext { calls: calls.clone(), id };
            f.start(&lp, &calls, id, move |py| {
                PyTuple::new(py, [input.into_pyobject(py)?.into_any(), Bound::new(py, native)?.into_any()])
            })
        });
        self.staged.register(kind, definition_json, host).map_err(errors::raise)
    }

    /// Checks access tokens with `handler(input_json)` on a protected HTTP listener.
    fn verify_tokens(&self, handler: Py<PyAny>, is_async: bool) {
        let f = self.keep(handler, is_async);
        let (calls, event_loop) = (self.staged.calls().clone(), self.event_loop.clone());
        self.staged.verify_tokens_with(Arc::new(move |id, input: String| {
            let Some(lp) = event_loop.lock().unwrap_or_else(|e| e.into_inner()).clone() else { return false };
            f.start(&lp, &calls, id, move |py| PyTuple::new(py, [input.into_pyobject(py)?.into_any()]))
        }));
    }

    /// Serves a skill: `files_json` maps each file's path in it to its text.
    fn add_skill(&self, skill_path: &str, files_json: &str) -> PyResult<()> {
        self.staged.add_skill(skill_path, files_json).map_err(errors::raise)
    }

    /// Serves every skill under the directory `root`.
    fn add_skills_dir(&self, root: &str) -> PyResult<()> {
        self.staged.add_skills_dir(root).map_err(errors::raise)
    }

    /// Removes the tool or prompt named `key`, or the resource at `key` (`kind`: `"tool"`,
    /// `"prompt"`, `"resource"`), staged or live; returns whether it existed.
    fn remove(&self, kind: &str, key: &str) -> PyResult<bool> {
        HandlerKind::from_name(kind).and_then(|kind| self.staged.remove_named(kind, key)).map_err(errors::raise)
    }

    /// Serves `other`'s tools, prompts and resources under `prefix`.
    fn mount(&self, prefix: &str, other: PyRef<'_, NativeServer>) -> PyResult<()> {
        self.staged.mount(prefix, &other.staged).map_err(errors::raise)?;
        let theirs = other.mounted.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut mounted = self.mounted.lock().unwrap_or_else(|e| e.into_inner());
        mounted.push(other.event_loop.clone());
        mounted.extend(theirs);
        Ok(())
    }

    /// Serves what `client`'s server offers under `prefix`, forwarding each call
    /// (awaitable).
    fn mount_client<'py>(
        &self,
        py: Python<'py>,
        prefix: String,
        client: PyRef<'py, crate::client::NativeClient>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (staged, client) = (self.staged.clone(), client.client.clone());
        awaitable(py, async move {
            staged.mount_client(&prefix, client).await?;
            Ok(None::<String>)
        })
    }

    /// Tells subscribed clients that a resource changed.
    fn notify_resource_updated(&self, uri: &str) {
        self.staged.notify_resource_updated(uri);
    }

    /// Live sessions.
    fn session_count(&self) -> usize {
        self.staged.session_count()
    }

    /// Serves on stdin/stdout until stdin closes (awaitable).
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bind_loop(py)?;
        let serving = self.staged.serve_stdio_on(PyLoop::current(py)?).map_err(errors::raise)?;
        awaitable(py, async move {
            serving.await?;
            Ok(None::<String>)
        })
    }

    /// Starts Streamable HTTP (and legacy SSE) in the background with the core's HTTP
    /// options (JSON); resolves to the URL.
    fn start_http<'py>(&self, py: Python<'py>, options_json: &str) -> PyResult<Bound<'py, PyAny>> {
        self.bind_loop(py)?;
        let options = HttpOptions::from_json(options_json).map_err(errors::raise)?;
        let staged = self.staged.clone();
        awaitable(py, async move { Ok(Some(staged.start_http(options).await?)) })
    }

    /// The engine's HTTP server for an ASGI server to hand requests to, with the core's
    /// HTTP options (JSON; host and port are not used).
    fn http_app(&self, py: Python<'_>, options_json: &str) -> PyResult<crate::http_app::NativeHttpApp> {
        self.bind_loop(py)?;
        let options = HttpOptions::from_json(options_json).map_err(errors::raise)?;
        let rt = crate::runtime::handle()
            .ok_or_else(|| errors::raise(oxmcp::Error::new(oxmcp::ErrorKind::Closed, "the interpreter is exiting")))?;
        let _in_runtime = rt.enter(); // the app reaps idle sessions on the runtime
        let app = self.staged.http_app(options).map_err(errors::raise)?;
        Ok(crate::http_app::NativeHttpApp { app })
    }

    /// Stops the HTTP server gracefully (awaitable).
    fn stop_http<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let staged = self.staged.clone();
        awaitable(py, async move {
            staged.stop_http().await;
            Ok(None::<String>)
        })
    }
}

/// The engine side of `oxmcp.Context`: one request's context, reached by its call id
/// through the engine's context door ([`context::call_now`], [`context::call`]), so a new
/// capability of the context is a new op name there, not a new method here.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeContext {
    calls: Arc<HostCalls>,
    id: CallId,
}

#[pymethods]
impl NativeContext {
    /// An op answered at once (`info`, `cancelled`, `progress`, `log`, `end response
    /// stream`) with params JSON (empty: none); its result JSON, or `None`.
    #[pyo3(signature = (op, params_json=""))]
    fn call_now(&self, op: &str, params_json: &str) -> PyResult<Option<String>> {
        context::call_now(&self.calls, self.id, op, params_json).map_err(errors::raise)
    }

    /// Any op (asking the client, reading a resource, escalating, the rest of a middleware
    /// chain...) with params JSON; awaitable, resolving to its result JSON or `None`.
    #[pyo3(signature = (op, params_json=""))]
    fn call<'py>(&self, py: Python<'py>, op: &str, params_json: &str) -> PyResult<Bound<'py, PyAny>> {
        awaitable(py, context::call(&self.calls, self.id, op, params_json))
    }
}
