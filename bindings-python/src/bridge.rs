//! Crossing between asyncio and tokio. Both directions hand work to the loop through its
//! [`LoopHandle`] queue, so no tokio thread ever waits for the GIL.
//!
//! - Rust -> Python: [`awaitable`] runs a Rust future (polled on the loop's thread, see
//!   `oxmcp::drive`) and returns an asyncio future that the loop completes; cancelling the asyncio future (task cancel, `wait_for`
//!   timeout) drops the Rust future, which cancels the MCP request.
//! - Python -> Rust: [`PyFn::start`] starts an asyncio task for a host call on its loop;
//!   the task answers the call in the engine's host-call table, and when the engine cancels
//!   the call, the task is cancelled, so the handler sees `CancelledError`.

use std::future::Future;
use std::sync::Arc;

use oxmcp::drive;
use oxmcp::host::{CallId, HostCalls};
use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::event_loop::LoopHandle;
use crate::runtime;

/// Cancels an [`awaitable`]'s Rust work: called by its `CallFuture` from inside
/// `cancel()` (task cancel, `wait_for` timeout), so the request's cancel is written before
/// `cancel()` returns.
#[pyclass(module = "oxmcp._oxmcp")]
struct CancelEngine {
    token: CancellationToken,
}

#[pymethods]
impl CancelEngine {
    fn __call__(&self) {
        // The call's future goes on here and sends its cancel now, not on a later turn.
        drive::scope(|| self.token.cancel());
    }
}

static CALL_FUTURE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Runs `fut` (on this loop's thread); returns an asyncio future for its output on the running loop.
pub fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = Result<T, Error>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let (handle, event_loop) = LoopHandle::current(py)?;
    let cancel = CancellationToken::new();
    // An asyncio future whose `cancel()` cancels the work itself: no done-callback, which
    // would cost every call a loop callback and every cancel a loop turn.
    let class = CALL_FUTURE.get_or_try_init(py, || py.import("oxmcp._runner")?.getattr("CallFuture").map(Bound::unbind))?;
    let py_future = class.bind(py).call1((&event_loop, CancelEngine { token: cancel.clone() }))?;
    let target = py_future.clone().unbind();
    let Some(rt) = runtime::handle() else {
        return Err(errors::raise(Error::new(ErrorKind::Closed, "the interpreter is exiting")));
    };
    // Polled first right here (a request is written now, from this thread), then on this
    // loop whenever it is woken: a response costs one wake-up of the loop, none of tokio.
    let lp = handle.clone();
    let home = drive::Home::host(rt, move |task| lp.run(move |_| task.run()));
    drive::spawn(home, async move {
        let outcome = tokio::select! {
            r = fut => r,
            _ = cancel.cancelled() => return, // dropping `fut` cancelled the work
        };
        handle.run(move |py| {
            let fut = target.bind(py);
            if fut.call_method0("done").and_then(|d| d.is_truthy()).unwrap_or(true) {
                return; // cancelled meanwhile: nobody wants the outcome
            }
            let _ = match outcome {
                Ok(v) => v.into_bound_py_any(py).and_then(|v| fut.call_method1("set_result", (v,))),
                Err(e) => fut.call_method1("set_exception", (errors::to_py(py, &e).into_value(py),)),
            };
        });
    });
    Ok(py_future)
}

/// Receives a handler task's outcome (called by `oxmcp._runner.run_handler`) and answers
/// the host call with it; the table takes the first answer only.
#[pyclass(module = "oxmcp._oxmcp")]
struct Outcome {
    calls: Arc<HostCalls>,
    id: CallId,
}

#[pymethods]
impl Outcome {
    fn succeeded(&self, py: Python<'_>, value: &Bound<'_, PyAny>) {
        self.calls.complete(self.id, text(py, value));
    }

    fn failed(&self, py: Python<'_>, exc: &Bound<'_, PyAny>) {
        self.calls.complete(self.id, Err(errors::from_py(py, &PyErr::from_value(exc.clone()))));
    }

    fn cancelled(&self) {
        self.calls.complete(self.id, Err(Error::new(ErrorKind::Cancelled, "the handler was cancelled")));
    }
}

/// A handler's return value: JSON text (`None` is the handler's mistake).
fn text(py: Python<'_>, value: &Bound<'_, PyAny>) -> oxmcp::host::Outcome {
    if value.is_none() {
        return Err(Error::new(ErrorKind::Handler, "the handler returned nothing"));
    }
    value.extract::<String>().map_err(|e| errors::from_py(py, &e))
}

static START_HANDLER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A Python function answering host calls: an async one runs as a task on its event
/// loop (cancelled when the peer cancels the call, so it sees `CancelledError`); a plain
/// one runs on the runtime's blocking pool, never on the event loop.
#[derive(Clone)]
pub struct PyFn {
    pub func: Arc<Py<PyAny>>,
    pub is_async: bool,
}

impl PyFn {
    /// Starts call `id` with `args`; its outcome answers the call in `calls`. `false` when
    /// nothing could be started (the interpreter is exiting).
    pub fn start(
        &self,
        event_loop: &LoopHandle,
        calls: &Arc<HostCalls>,
        id: CallId,
        args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>> + Send + 'static,
    ) -> bool {
        let (func, calls) = (self.func.clone(), calls.clone());
        if !self.is_async {
            let Some(rt) = runtime::handle() else { return false };
            rt.spawn_blocking(move || {
                let out = Python::attach(|py| match args(py).and_then(|a| func.bind(py).call1(a)) {
                    Ok(v) => text(py, &v),
                    Err(e) => Err(errors::from_py(py, &e)),
                });
                calls.complete(id, out);
            });
            return true;
        }
        let handle = event_loop.clone();
        event_loop.run(move |py| {
            let outcome = Outcome { calls: calls.clone(), id };
            let started = (|| -> PyResult<Py<PyAny>> {
                let start = START_HANDLER
                    .get_or_try_init(py, || py.import("oxmcp._runner")?.getattr("start_handler").map(Bound::unbind))?;
                Ok(start.bind(py).call1((func.bind(py), args(py)?, Bound::new(py, outcome)?))?.unbind())
            })();
            match started {
                Ok(task) => calls.on_cancel(id, move || {
                    handle.run(move |py| {
                        let _ = task.bind(py).call_method0("cancel");
                    })
                }),
                Err(e) => {
                    calls.complete(id, Err(errors::from_py(py, &e)));
                }
            }
        });
        true
    }
}
