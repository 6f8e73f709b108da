//! The tokio runtime the binding runs on: one per process, rebuilt lazily after `fork()`
//! (a forked child inherits the runtime's memory but none of its threads), and stopped at
//! interpreter exit so no runtime thread touches Python while it finalizes.

use std::future::Future;
use std::sync::Mutex;

use tokio::runtime::{Builder, Handle, Runtime};

static RUNTIME: Mutex<Option<(u32, Runtime)>> = Mutex::new(None);

/// A handle to this process's runtime, building it on first use (and after a fork).
pub fn handle() -> Handle {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return rt.handle().clone();
        }
    }
    if let Some((_, stale)) = slot.take() {
        // Inherited from the parent across fork(): its threads do not exist here.
        std::mem::forget(stale);
    }
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("oxmcp")
        .enable_all()
        .build()
        .expect("the tokio runtime starts");
    let handle = rt.handle().clone();
    *slot = Some((pid, rt));
    handle
}

/// Spawns a task on the runtime.
pub fn spawn<F>(fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    handle().spawn(fut)
}

/// Stops the runtime's threads (registered with `atexit` by the Python package).
pub fn shutdown() {
    let taken = RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((pid, rt)) = taken {
        if pid == std::process::id() {
            rt.shutdown_background();
        } else {
            std::mem::forget(rt);
        }
    }
}
