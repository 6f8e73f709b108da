//! `NativeHttpApp` and `NativeHttpBody`: the engine's HTTP server answering requests an
//! ASGI server hands in (`oxmcp.Server.http_app()` does the ASGI side in Python).

use std::borrow::Cow;
use std::sync::Arc;

use oxmcp::host::{HttpApp, HttpBody};
use pyo3::prelude::*;

use crate::bridge::awaitable;

/// The engine side of `oxmcp.Server.http_app()`.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeHttpApp {
    pub(crate) app: HttpApp,
}

/// A response body being read; `close()` (the client went away) ends it.
#[pyclass(module = "oxmcp._oxmcp")]
pub struct NativeHttpBody {
    body: std::sync::Mutex<Option<Arc<HttpBody>>>,
}

/// What `handle` resolves to: status, headers and the body.
type Reply = (u16, Vec<(String, String)>, NativeHttpBody);

#[pymethods]
impl NativeHttpApp {
    /// Answers one request (awaitable): resolves to `(status, [(name, value)], body)`.
    fn handle<'py>(
        &self,
        py: Python<'py>,
        method: String,
        target: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let app = self.app.clone();
        awaitable(py, async move {
            let reply = app.handle(&method, &target, &headers, body).await?;
            let body = NativeHttpBody { body: std::sync::Mutex::new(Some(Arc::new(reply.body))) };
            Ok::<Reply, oxmcp::Error>((reply.status, reply.headers, body))
        })
    }

    /// The largest request body the engine takes: read one byte more at most.
    #[getter]
    fn max_body_bytes(&self) -> usize {
        self.app.max_body_bytes()
    }

    fn session_count(&self) -> usize {
        self.app.session_count()
    }

    /// Ends every session and stream (awaitable).
    fn shutdown<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let app = self.app.clone();
        awaitable(py, async move {
            app.shutdown().await;
            Ok(None::<String>)
        })
    }
}

#[pymethods]
impl NativeHttpBody {
    /// The next chunk, or `None` at the end (awaitable).
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let body = self.body.lock().unwrap_or_else(|e| e.into_inner()).clone();
        awaitable(py, async move {
            let Some(body) = body else { return Ok(None) };
            Ok(body.next_chunk().await.map(|c| Cow::<'static, [u8]>::Owned(c.to_vec())))
        })
    }

    /// Drops the body: an SSE stream ends on the engine's side as a closed connection would.
    fn close(&self) {
        self.body.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}
