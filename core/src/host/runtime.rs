//! The tokio runtime a host runs the engine on. Hosts need the same things of it: worker
//! threads named `oxmcp`, spawning that fails cleanly once it is stopped, blocking calls
//! refused on its own threads (where they would stall it), a shutdown that joins its
//! threads (so a JVM or mono can exit) and, for hosts that fork (Python), a fresh runtime in
//! the child, which inherits the parent's memory but none of its threads.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};

use crate::error::{Error, ErrorKind, Result};

/// Per-thread hooks: what each runtime thread runs when it starts and stops.
#[derive(Clone, Copy, Default)]
pub struct ThreadHooks {
    /// Run on each new runtime thread (e.g. blocking SIGPIPE for a C host).
    pub on_start: Option<fn()>,
    /// Run on each runtime thread as it exits (e.g. detaching it from a JVM).
    pub on_stop: Option<fn()>,
}

/// One runtime: see the module docs.
///
/// ```
/// use oxmcp::host::runtime::{HostRuntime, ThreadHooks};
/// let rt = HostRuntime::new(2, ThreadHooks::default()).unwrap();
/// assert_eq!(rt.block_on(async { 40 + 2 }).unwrap(), 42);
/// rt.shutdown(std::time::Duration::from_secs(1));
/// assert!(rt.spawn(async {}).is_err());
/// ```
pub struct HostRuntime {
    handle: Handle,
    runtime: Mutex<Option<Runtime>>,
    stopped: AtomicBool,
    /// The process that built it: in a forked child its threads do not exist.
    pid: u32,
}

fn closed() -> Error {
    Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down")
}

impl HostRuntime {
    /// Starts `threads` worker threads (0 means 2).
    pub fn new(threads: usize, hooks: ThreadHooks) -> Result<Arc<Self>> {
        // A host's telemetry is set by the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT...).
        #[cfg(feature = "otlp")]
        crate::telemetry::start_from_env_once("oxmcp");
        let mut b = Builder::new_multi_thread();
        b.worker_threads(if threads == 0 { 2 } else { threads }).max_blocking_threads(16).thread_name("oxmcp").enable_all();
        if let Some(f) = hooks.on_start {
            b.on_thread_start(f);
        }
        if let Some(f) = hooks.on_stop {
            b.on_thread_stop(f);
        }
        let rt = b.build().map_err(|e| Error::caused(ErrorKind::Transport, format!("the runtime did not start: {e}"), e))?;
        let handle = rt.handle().clone();
        Ok(Arc::new(Self { handle, runtime: Mutex::new(Some(rt)), stopped: AtomicBool::new(false), pid: std::process::id() }))
    }

    /// Whether [`shutdown`](Self::shutdown) ran (or this is a forked child's stale copy).
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire) || self.pid != std::process::id()
    }

    /// The runtime's handle while it runs.
    pub fn handle(&self) -> Option<Handle> {
        (!self.is_stopped()).then(|| self.handle.clone())
    }

    /// Spawns a task, or hands it back unrun once the runtime is stopped (so a completion
    /// inside it can be disarmed). A shutdown racing this call drops the task.
    pub fn try_spawn<F>(&self, fut: F) -> std::result::Result<(), F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if self.is_stopped() {
            return Err(fut);
        }
        self.handle.spawn(fut);
        Ok(())
    }

    /// Spawns a task; [`ErrorKind::Closed`] (the task dropped unrun) once stopped.
    pub fn spawn<F>(&self, fut: F) -> Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.try_spawn(fut).map_err(|_| closed())
    }

    /// Runs `fut` to completion from a host thread. Refused on a runtime thread (inside a
    /// callback), where blocking would stall the runtime.
    pub fn block_on<F: Future>(&self, fut: F) -> Result<F::Output> {
        if Handle::try_current().is_ok() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "this blocking call cannot run on an oxmcp runtime thread (inside a callback)",
            ));
        }
        if self.is_stopped() {
            return Err(closed());
        }
        Ok(self.handle.block_on(fut))
    }

    /// Stops the runtime: every task is dropped and its threads are joined, waiting at most
    /// `grace` for one that does not return. On a runtime thread it stops in the background
    /// instead (joining there would deadlock). Idempotent.
    pub fn shutdown(&self, grace: Duration) {
        #[cfg(feature = "otlp")]
        crate::telemetry::flush_process();
        self.stopped.store(true, Ordering::Release);
        let taken = self.runtime.lock().unwrap_or_else(|e| e.into_inner()).take();
        match taken {
            Some(rt) if self.pid != std::process::id() => std::mem::forget(rt),
            Some(rt) if Handle::try_current().is_ok() => rt.shutdown_background(),
            Some(rt) => rt.shutdown_timeout(grace),
            None => {}
        }
    }
}

impl Drop for HostRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            if self.pid == std::process::id() {
                // Never blocks: the last reference may go away on a runtime thread.
                rt.shutdown_background();
            } else {
                // Inherited across fork(): its threads do not exist here.
                std::mem::forget(rt);
            }
        }
    }
}

/// The one runtime of a process, for hosts with no runtime object of their own (Python,
/// Java): built on first use, rebuilt in a forked child, stopped once for good.
pub struct ProcessRuntime {
    slot: Mutex<Option<Arc<HostRuntime>>>,
    stopped: AtomicBool,
    threads: usize,
    hooks: ThreadHooks,
}

impl ProcessRuntime {
    /// A process runtime of `threads` workers (usable in a `static`).
    pub const fn new(threads: usize, hooks: ThreadHooks) -> Self {
        Self { slot: Mutex::new(None), stopped: AtomicBool::new(false), threads, hooks }
    }

    /// The runtime, built on first use (and again after a fork); `None` once stopped.
    pub fn get(&self) -> Option<Arc<HostRuntime>> {
        if self.stopped.load(Ordering::Acquire) {
            return None;
        }
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(rt) = slot.as_ref().filter(|rt| !rt.is_stopped()) {
            return Some(rt.clone());
        }
        let rt = HostRuntime::new(self.threads, self.hooks).ok()?;
        *slot = Some(rt.clone());
        Some(rt)
    }

    /// The runtime if it was built and runs (never builds one).
    pub fn existing(&self) -> Option<Arc<HostRuntime>> {
        if self.stopped.load(Ordering::Acquire) {
            return None;
        }
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).clone().filter(|rt| !rt.is_stopped())
    }

    /// Spawns a task; `false` (the task dropped unrun) once stopped.
    pub fn spawn<F>(&self, fut: F) -> bool
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.get().is_some_and(|rt| rt.spawn(fut).is_ok())
    }

    /// Whether [`shutdown`](Self::shutdown) ran.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Stops the runtime for good (see [`HostRuntime::shutdown`]). Idempotent.
    pub fn shutdown(&self, grace: Duration) {
        self.stopped.store(true, Ordering::Release);
        let taken = self.slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(rt) = taken {
            rt.shutdown(grace);
        }
    }
}
