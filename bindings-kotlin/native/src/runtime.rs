//! The tokio runtime the engine runs on, one per process, and running engine futures on it
//! for Kotlin: uniffi polls an exported `async fn` from Kotlin's side, outside any tokio
//! runtime, so each one hands its work to the runtime and waits for the answer. Dropping
//! the waiting future (the coroutine was cancelled) aborts the work, which drops the
//! engine's future: a request in flight then tells the peer it was cancelled.

use std::future::Future;

use oxmcp::host::runtime::{ProcessRuntime, ThreadHooks};
use oxmcp::{Error, ErrorKind};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::error::Result;

static RUNTIME: ProcessRuntime = ProcessRuntime::new(2, ThreadHooks { on_start: None, on_stop: None });

fn stopped() -> Error {
    Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down")
}

/// Spawns a task; false (dropping `fut` unrun) once the runtime is shut down.
pub fn spawn(fut: impl Future<Output = ()> + Send + 'static) -> bool {
    RUNTIME.spawn(fut)
}

/// Runs `fut` on the runtime and waits for its output; dropped, it stops `fut`.
pub async fn run<T: Send + 'static>(fut: impl Future<Output = Result<T>> + Send + 'static) -> Result<T> {
    let (tx, rx) = oneshot::channel();
    let stop = CancellationToken::new();
    let _abort = stop.clone().drop_guard();
    let spawned = spawn(async move {
        tokio::select! {
            out = fut => { let _ = tx.send(out); }
            _ = stop.cancelled() => {}
        }
    });
    if !spawned {
        return Err(stopped().into());
    }
    rx.await.unwrap_or_else(|_| Err(stopped().into()))
}

/// Stops the runtime: open clients close (child processes are stopped), servers stop
/// listening; its threads are waited for up to `grace_ms`. Idempotent; nothing runs after.
#[uniffi::export]
pub fn shutdown(grace_ms: u64) {
    RUNTIME.shutdown(std::time::Duration::from_millis(grace_ms));
}
