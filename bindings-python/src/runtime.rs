//! The tokio runtime the binding runs on: one per process, rebuilt lazily after `fork()`
//! (a forked child inherits the runtime's memory but none of its threads), and stopped at
//! interpreter exit (waiting for its threads) so no runtime thread touches Python while it
//! finalizes.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};

static RUNTIME: Mutex<Option<(u32, Runtime)>> = Mutex::new(None);
/// Set at interpreter exit: from then on nothing is spawned (no new threads while Python
/// finalizes).
static STOPPED: AtomicBool = AtomicBool::new(false);

/// A handle to this process's runtime, building it on first use (and after a fork).
/// `None` once the interpreter is exiting.
pub fn handle() -> Option<Handle> {
    if STOPPED.load(Ordering::Acquire) {
        return None;
    }
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return Some(rt.handle().clone());
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
    Some(handle)
}

/// Spawns a task on the runtime (dropped unrun once the interpreter is exiting).
pub fn spawn<F>(fut: F)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if let Some(h) = handle() {
        h.spawn(fut);
    }
}

/// Stops the runtime and waits for its threads (the package calls it with `atexit`, while
/// the interpreter is still whole). The caller must not hold the GIL: tasks finishing
/// their Python work need it.
pub fn shutdown() {
    STOPPED.store(true, Ordering::Release);
    let taken = RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((pid, rt)) = taken {
        if pid == std::process::id() {
            rt.shutdown_timeout(Duration::from_secs(3));
        } else {
            std::mem::forget(rt);
        }
    }
}
