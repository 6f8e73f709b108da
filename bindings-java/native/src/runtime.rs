//! The tokio runtime the binding runs on: one per process, built on first use, stopped by
//! [`shutdown`] (`Oxmcp.shutdown()` in Java, also run from a JVM shutdown hook).
//!
//! The JVM waits at exit for every non-daemon thread attached to it, and jni 0.22 attaches
//! threads as non-daemon. Runtime threads therefore attach themselves as *daemon* threads
//! the first time they call into Java ([`crate::jvm::with_java`]) and detach when they stop,
//! so a JVM whose `main` returns exits even if nobody called `Oxmcp.shutdown()`.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};

static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);
/// Set by [`shutdown`]: nothing is spawned any more.
static STOPPED: AtomicBool = AtomicBool::new(false);

/// A handle to the runtime, building it on first use; `None` once shut down.
pub fn handle() -> Option<Handle> {
    if STOPPED.load(Ordering::Acquire) {
        return None;
    }
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = slot.as_ref() {
        return Some(rt.handle().clone());
    }
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("oxmcp")
        .enable_all()
        .on_thread_stop(crate::jvm::detach_current_thread)
        .build()
        .expect("the tokio runtime starts");
    let handle = rt.handle().clone();
    *slot = Some(rt);
    Some(handle)
}

/// A handle to the runtime if it was built and is running (never builds one).
pub fn existing() -> Option<Handle> {
    if STOPPED.load(Ordering::Acquire) {
        return None;
    }
    RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|rt| rt.handle().clone())
}

/// Spawns a task; returns false (dropping `fut` unrun) once the runtime is shut down.
pub fn spawn<F>(fut: F) -> bool
where
    F: Future<Output = ()> + Send + 'static,
{
    match handle() {
        Some(h) => {
            h.spawn(fut);
            true
        }
        None => false,
    }
}

/// Whether [`shutdown`] ran.
pub fn is_stopped() -> bool {
    STOPPED.load(Ordering::Acquire)
}

/// Stops the runtime: every task is dropped (open clients close, child processes are
/// killed, servers stop listening) and its threads are waited for, up to `grace`.
/// Idempotent. Must not run on a runtime thread (the Java side never calls it from one).
pub fn shutdown(grace: Duration) {
    STOPPED.store(true, Ordering::Release);
    let taken = RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(rt) = taken {
        if Handle::try_current().is_ok() {
            // Called from inside the runtime: stopping here would deadlock.
            rt.shutdown_background();
        } else {
            rt.shutdown_timeout(grace);
        }
    }
}
