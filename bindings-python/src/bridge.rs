//! Crossing between asyncio and tokio.
//!
//! - Rust -> Python: [`awaitable`] runs a Rust future on the runtime and returns an asyncio
//!   future completed through `call_soon_threadsafe`; cancelling the asyncio future (task
//!   cancel, `wait_for` timeout) drops the Rust future, which cancels the MCP request.
//! - Python -> Rust: [`call_async`] runs a coroutine on the server's event loop with
//!   `run_coroutine_threadsafe` and awaits it; when the engine cancels the request, the
//!   asyncio task is cancelled, so the handler sees `CancelledError`.

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use pyo3::types::{PyCFunction, PyTuple};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::runtime;

/// A value handed back to Python: JSON text (parsed by the Python layer), or nothing.
pub type Output = Option<String>;

/// Runs `fut` on the runtime; returns an asyncio future for its output on the running loop.
pub fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = Result<T, Error>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let py_future = event_loop.call_method0("create_future")?;
    let cancel = CancellationToken::new();
    let on_cancel = cancel.clone();
    let watcher = PyCFunction::new_closure(py, None, None, move |args: &Bound<'_, PyTuple>, _kw| -> PyResult<()> {
        if args.get_item(0)?.call_method0("cancelled")?.is_truthy()? {
            on_cancel.cancel();
        }
        Ok(())
    })?;
    py_future.call_method1("add_done_callback", (watcher,))?;
    let target = py_future.clone().unbind();
    let loop_ref = event_loop.unbind();
    runtime::spawn(async move {
        let outcome = tokio::select! {
            r = fut => r,
            _ = cancel.cancelled() => return, // dropping `fut` cancelled the work
        };
        let outcome = Mutex::new(Some(outcome));
        Python::attach(|py| {
            let setter = PyCFunction::new_closure(py, None, None, move |args: &Bound<'_, PyTuple>, _kw| -> PyResult<()> {
                let py = args.py();
                let fut = target.bind(py);
                let Some(outcome) = outcome.lock().unwrap().take() else { return Ok(()) };
                if fut.call_method0("done")?.is_truthy()? {
                    return Ok(());
                }
                match outcome {
                    Ok(v) => {
                        let value = v.into_bound_py_any(py)?;
                        fut.call_method1("set_result", (value,))?
                    }
                    Err(e) => fut.call_method1("set_exception", (errors::to_py(py, &e).into_value(py),))?,
                };
                Ok(())
            });
            if let Ok(setter) = setter {
                // Fails only if the loop is closed: nobody is waiting any more.
                let _ = loop_ref.bind(py).call_method1("call_soon_threadsafe", (setter,));
            }
        });
    });
    Ok(py_future)
}

/// Runs `func(*args)` (an async Python function returning `str` or `None`) on `event_loop`
/// and waits for it. `cancel` firing cancels the asyncio task; the handler then has
/// `grace` to finish before this returns [`ErrorKind::Cancelled`].
pub async fn call_async(
    event_loop: &Py<PyAny>,
    func: &Py<PyAny>,
    args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>> + Send,
    cancel: Option<&CancellationToken>,
) -> Result<Output, Error> {
    let (tx, mut rx) = oneshot::channel::<Result<Output, Error>>();
    let concurrent = Python::attach(|py| -> PyResult<Py<PyAny>> {
        let coro = func.bind(py).call1(args(py)?)?;
        let asyncio = py.import("asyncio")?;
        let cf = asyncio.call_method1("run_coroutine_threadsafe", (coro, event_loop.bind(py)))?;
        let tx = Mutex::new(Some(tx));
        let done = PyCFunction::new_closure(py, None, None, move |a: &Bound<'_, PyTuple>, _kw| -> PyResult<()> {
            let py = a.py();
            let f = a.get_item(0)?;
            let outcome = if f.call_method0("cancelled")?.is_truthy()? {
                Err(Error::new(ErrorKind::Cancelled, "the handler was cancelled"))
            } else {
                match f.call_method0("result") {
                    Ok(v) if v.is_none() => Ok(None),
                    Ok(v) => v.extract::<String>().map(Some).map_err(|e| errors::from_py(py, &e)),
                    Err(e) => Err(errors::from_py(py, &e)),
                }
            };
            if let Some(tx) = tx.lock().unwrap().take() {
                let _ = tx.send(outcome);
            }
            Ok(())
        })?;
        cf.call_method1("add_done_callback", (done,))?;
        Ok(cf.unbind())
    })
    .map_err(|e| Python::attach(|py| errors::from_py(py, &e)))?;

    let never = CancellationToken::new();
    let cancel = cancel.unwrap_or(&never);
    tokio::select! {
        r = &mut rx => return r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the handler vanished"))),
        _ = cancel.cancelled() => {}
    }
    Python::attach(|py| {
        let _ = concurrent.bind(py).call_method0("cancel");
    });
    let _ = tokio::time::timeout(Duration::from_secs(2), &mut rx).await;
    Err(Error::new(ErrorKind::Cancelled, "cancelled by the client"))
}
