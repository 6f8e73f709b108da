//! The tokio runtime the binding runs on: the core's one-per-process runtime, built on
//! first use, stopped by [`shutdown`] (`Oxmcp.shutdown()` in Java, also run from a JVM
//! shutdown hook).
//!
//! The JVM waits at exit for every non-daemon thread attached to it, and jni 0.22 attaches
//! threads as non-daemon. Runtime threads therefore attach themselves as *daemon* threads
//! the first time they call into Java ([`crate::jvm::with_java`]) and detach when they stop,
//! so a JVM whose `main` returns exits even if nobody called `Oxmcp.shutdown()`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use oxmcp::host::runtime::{HostRuntime, ProcessRuntime, ThreadHooks};

static RUNTIME: ProcessRuntime =
    ProcessRuntime::new(2, ThreadHooks { on_start: None, on_stop: Some(crate::jvm::detach_current_thread) });

/// The runtime if it was built and is running (never builds one).
pub fn existing() -> Option<Arc<HostRuntime>> {
    RUNTIME.existing()
}

/// Spawns a task; returns false (dropping `fut` unrun) once the runtime is shut down.
pub fn spawn(fut: impl Future<Output = ()> + Send + 'static) -> bool {
    RUNTIME.spawn(fut)
}

/// Whether [`shutdown`] ran.
pub fn is_stopped() -> bool {
    RUNTIME.is_stopped()
}

/// Stops the runtime: every task is dropped (open clients close, child processes are
/// killed, servers stop listening) and its threads are waited for, up to `grace`.
/// Idempotent.
pub fn shutdown(grace: Duration) {
    RUNTIME.shutdown(grace);
}
