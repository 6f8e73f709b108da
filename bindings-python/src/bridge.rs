//! Crossing between asyncio and tokio. Both directions hand work to the loop through its
//! [`LoopHandle`] queue, so no tokio thread ever waits for the GIL.
//!
//! - Rust -> Python: [`awaitable`] runs a Rust future on the runtime and returns an asyncio
//!   future that the loop completes; cancelling the asyncio future (task cancel, `wait_for`
//!   timeout) drops the Rust future, which cancels the MCP request.
//! - Python -> Rust: [`call_async`] starts an asyncio task for a handler on its loop and
//!   awaits its outcome; when the engine cancels the request, the task is cancelled, so the
//!   handler sees `CancelledError`.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::event_loop::LoopHandle;
use crate::runtime;

/// A value handed back to Python: JSON text (parsed by the Python layer), or nothing.
pub type Output = Option<String>;

/// The done-callback of an [`awaitable`]'s asyncio future: a cancelled future cancels the
/// Rust work.
#[pyclass(module = "oxmcp._oxmcp")]
struct CancelOnDone {
    token: CancellationToken,
}

#[pymethods]
impl CancelOnDone {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        if future.call_method0("cancelled")?.is_truthy()? {
            self.token.cancel();
        }
        Ok(())
    }
}

/// Runs `fut` on the runtime; returns an asyncio future for its output on the running loop.
pub fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = Result<T, Error>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let (handle, event_loop) = LoopHandle::current(py)?;
    let py_future = event_loop.call_method0("create_future")?;
    let cancel = CancellationToken::new();
    py_future.call_method1("add_done_callback", (CancelOnDone { token: cancel.clone() },))?;
    let target = py_future.clone().unbind();
    runtime::spawn(async move {
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

/// Receives a handler task's outcome (called by `oxmcp._runner.run_handler`, exactly once).
#[pyclass(module = "oxmcp._oxmcp")]
struct Outcome {
    tx: Mutex<Option<oneshot::Sender<Result<Output, Error>>>>,
}

impl Outcome {
    fn send(&self, outcome: Result<Output, Error>) {
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(outcome);
        }
    }
}

#[pymethods]
impl Outcome {
    fn succeeded(&self, py: Python<'_>, value: &Bound<'_, PyAny>) {
        let out =
            if value.is_none() { Ok(None) } else { value.extract::<String>().map(Some).map_err(|e| errors::from_py(py, &e)) };
        self.send(out);
    }

    fn failed(&self, py: Python<'_>, exc: &Bound<'_, PyAny>) {
        self.send(Err(errors::from_py(py, &PyErr::from_value(exc.clone()))));
    }

    fn cancelled(&self) {
        self.send(Err(Error::new(ErrorKind::Cancelled, "the handler was cancelled")));
    }
}

static RUN_HANDLER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Runs `func(*args)` (an async Python function returning `str` or `None`) as a task on
/// the loop behind `handle` and waits for it. `cancel` firing cancels the task; the
/// handler then has `grace` to finish before this returns [`ErrorKind::Cancelled`].
pub async fn call_async(
    handle: &LoopHandle,
    func: &Arc<Py<PyAny>>,
    args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>> + Send + 'static,
    cancel: Option<&CancellationToken>,
) -> Result<Output, Error> {
    let (tx, mut rx) = oneshot::channel::<Result<Output, Error>>();
    let task: Arc<Mutex<Option<Py<PyAny>>>> = Arc::default();
    let (func, task_slot) = (func.clone(), task.clone());
    handle.run(move |py| {
        let outcome = Outcome { tx: Mutex::new(Some(tx)) };
        let start = |outcome: Bound<'_, Outcome>| -> PyResult<Py<PyAny>> {
            let runner =
                RUN_HANDLER.get_or_try_init(py, || py.import("oxmcp._runner")?.getattr("run_handler").map(Bound::unbind))?;
            let coro = runner.bind(py).call1((func.bind(py), args(py)?, &outcome))?;
            Ok(crate::event_loop::running_loop(py)?.call_method1("create_task", (coro,))?.unbind())
        };
        match Bound::new(py, outcome) {
            Ok(outcome) => match start(outcome.clone()) {
                Ok(t) => *task_slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(t),
                Err(e) => outcome.borrow().send(Err(errors::from_py(py, &e))),
            },
            Err(e) => drop(e), // out of memory: the sender is dropped, the caller sees "vanished"
        }
    });

    let never = CancellationToken::new();
    let cancel = cancel.unwrap_or(&never);
    tokio::select! {
        r = &mut rx => return r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the handler vanished"))),
        _ = cancel.cancelled() => {}
    }
    handle.run(move |py| {
        if let Some(t) = task.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.bind(py).call_method0("cancel");
        }
    });
    let _ = tokio::time::timeout(Duration::from_secs(2), &mut rx).await;
    Err(Error::new(ErrorKind::Cancelled, "cancelled by the client"))
}
