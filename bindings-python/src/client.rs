//! `NativeClient`: the engine side of `oxmcp.Client`. Every call returns an awaitable of
//! JSON text; cancelling the awaiting task cancels the MCP request.

use std::sync::Arc;
use std::time::Duration;

use oxmcp::client::Client;
use oxmcp::host::{client as host, ClientHooks, ConnectOptions};
use oxmcp::session::RequestOptions;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::bridge::{awaitable, PyFn};
use crate::errors;
use crate::event_loop::{self, LoopHandle, PyLoop};

/// A connected client.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeClient {
    pub(crate) client: Arc<Client>,
}

#[pymethods]
impl NativeClient {
    /// Connects as the core's client options (JSON) say, or to `server` (a
    /// `NativeServer` of this process) in memory. `on_request(method, params_json)`
    /// (async) answers the server's sampling, elicitation and roots requests named in
    /// `answers`; `on_notification(method, params_json)` runs on the event loop.
    #[staticmethod]
    #[pyo3(signature = (options_json, on_request=None, on_notification=None, server=None))]
    fn connect<'py>(
        py: Python<'py>,
        options_json: &str,
        on_request: Option<Py<PyAny>>,
        on_notification: Option<Py<PyAny>>,
        server: Option<PyRef<'py, crate::server::NativeServer>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let server = match server {
            Some(s) => {
                // The server's handlers run on this loop, as when it serves stdio or HTTP.
                s.bind_loop(py)?;
                Some(s.staged.clone())
            }
            None => None,
        };
        let options = ConnectOptions::from_json(options_json).map_err(errors::raise)?;
        let event_loop = LoopHandle::current(py)?.0;
        let mut hooks = ClientHooks::default();
        hooks.read_on = PyLoop::current(py)?;
        let calls = hooks.calls().clone();
        if let Some(func) = on_request {
            let (f, lp, table) = (PyFn { func: Arc::new(func), is_async: true }, event_loop.clone(), calls.clone());
            hooks.on_request = Some(Arc::new(move |id, method, params| {
                f.start(&lp, &table, id, move |py| {
                    PyTuple::new(py, [method.into_pyobject(py)?.into_any(), params.into_pyobject(py)?.into_any()])
                })
            }));
        }
        if let Some(cb) = on_notification.map(Arc::new) {
            hooks.on_notification = Some(Arc::new(move |method, params| {
                let cb = cb.clone();
                event_loop.run(move |py| event_loop::report(py, cb.bind(py).call1((method, params))));
            }));
        }
        awaitable(py, async move {
            let client = match server {
                Some(server) => host::connect_in_memory(&server, options, hooks).await?,
                None => host::connect(options, hooks).await?,
            };
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

    /// A client call by the core's op name (`tools/call`, `request`...) with its two text
    /// arguments (`b` may also be a dict, written as JSON here); resolves to the result
    /// JSON or `None`. `timeout`: seconds without a response or progress;
    /// `on_progress(progress, total, message)` runs on the loop.
    #[pyo3(signature = (op, a=None, b=None, timeout=None, on_progress=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        op: String,
        a: Option<String>,
        b: Option<Bound<'py, PyAny>>,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let b = match b {
            Some(b) if b.is_none() => None,
            Some(b) => Some(match b.cast::<pyo3::types::PyString>() {
                Ok(s) => s.extract::<String>()?,
                Err(_) => crate::json_text::to_text(py, &b)?,
            }),
            None => None,
        };
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
        awaitable(py, async move { host::call(&c, &op, a.as_deref(), b.as_deref(), options).await })
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
