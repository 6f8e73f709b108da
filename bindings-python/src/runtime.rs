//! The tokio runtime the binding runs on: the core's one-per-process runtime, rebuilt
//! lazily after `fork()` and stopped at interpreter exit (waiting for its threads) so no
//! runtime thread touches Python while it finalizes.

use std::time::Duration;

use oxmcp::host::runtime::{ProcessRuntime, ThreadHooks};
use tokio::runtime::Handle;

static RUNTIME: ProcessRuntime = ProcessRuntime::new(2, ThreadHooks { on_start: None, on_stop: None });

/// A handle to this process's runtime, building it on first use (and after a fork).
/// `None` once the interpreter is exiting.
pub fn handle() -> Option<Handle> {
    RUNTIME.get().and_then(|rt| rt.handle())
}

/// Stops the runtime and waits for its threads (the package calls it with `atexit`, while
/// the interpreter is still whole). The caller must not hold the GIL: tasks finishing
/// their Python work need it.
pub fn shutdown() {
    RUNTIME.shutdown(Duration::from_secs(3));
}
