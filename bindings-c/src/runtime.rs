//! `OxmcpRuntime`: the tokio runtime every server and client of the host runs on, with an
//! explicit shutdown that stops (and joins) its threads, so hosts that attach foreign
//! threads (mono, the JVM) can exit.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::{Error, ErrorKind};
use tokio::runtime::{Builder, Handle, Runtime};

use crate::error::{guard, invalid, out, quietly, OxmcpStatus};

/// A runtime: worker threads that run the engine and call the host's callbacks.
pub struct OxmcpRuntime {
    pub(crate) inner: Arc<Rt>,
}

/// The shared state behind a runtime handle (servers and clients keep it alive).
pub(crate) struct Rt {
    handle: Handle,
    runtime: Mutex<Option<Runtime>>,
    stopped: AtomicBool,
}

impl Rt {
    fn closed() -> Error {
        Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down")
    }

    /// Spawns a task; fails once the runtime is shut down (the task is then not run).
    pub(crate) fn spawn<F>(&self, fut: F) -> Result<(), Error>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.try_spawn(fut).map_err(|_| Self::closed())
    }

    /// Spawns a task, or hands it back unrun once the runtime is shut down (so a completion
    /// inside it can be disarmed: the caller reports the failure instead). A shutdown racing
    /// this call drops the task, which completes it as closed: still exactly once.
    pub(crate) fn try_spawn<F>(&self, fut: F) -> Result<(), F>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if self.stopped.load(Ordering::Acquire) {
            return Err(fut);
        }
        self.handle.spawn(fut);
        Ok(())
    }

    /// Runs `fut` to completion from a host thread. Refused on a runtime thread (inside a
    /// callback), where blocking would stall the runtime.
    pub(crate) fn block_on<F: Future>(&self, fut: F) -> Result<F::Output, Error> {
        if Handle::try_current().is_ok() {
            return Err(invalid("this blocking call cannot run on an oxmcp runtime thread (inside a callback)"));
        }
        if self.stopped.load(Ordering::Acquire) {
            return Err(Self::closed());
        }
        Ok(self.handle.block_on(fut))
    }

    /// Stops the runtime and waits (bounded) for its threads.
    fn shutdown(&self) -> Result<(), Error> {
        if Handle::try_current().is_ok() {
            return Err(invalid("oxmcp_runtime_shutdown cannot be called on an oxmcp runtime thread (inside a callback)"));
        }
        self.stopped.store(true, Ordering::Release);
        let taken = self.runtime.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(rt) = taken {
            rt.shutdown_timeout(Duration::from_secs(5));
        }
        Ok(())
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            // Never blocks: the last reference may go away on a runtime thread.
            rt.shutdown_background();
        }
    }
}

/// Starts a runtime with `worker_threads` threads (0 = 2) and stores it in `*out`.
///
/// Ownership: the caller owns `*out` and releases it with oxmcp_runtime_free(). Servers and
/// clients created on it keep the runtime's threads alive until they are freed too, unless
/// oxmcp_runtime_shutdown() stops them first.
///
/// # Safety
/// `out` is a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_new(worker_threads: u32, out_runtime: *mut *mut OxmcpRuntime) -> OxmcpStatus {
    guard(|| {
        let threads = if worker_threads == 0 { 2 } else { worker_threads as usize };
        let rt = Builder::new_multi_thread()
            .worker_threads(threads)
            .max_blocking_threads(16)
            .thread_name("oxmcp")
            // A C host keeps SIGPIPE's default action: a write to a child that exited
            // must fail with EPIPE, not end the host.
            .on_thread_start(oxmcp::transport::block_sigpipe_on_this_thread)
            .enable_all()
            .build()
            .map_err(|e| Error::new(ErrorKind::Transport, format!("the runtime did not start: {e}")))?;
        let inner = Arc::new(Rt { handle: rt.handle().clone(), runtime: Mutex::new(Some(rt)), stopped: AtomicBool::new(false) });
        out(out_runtime, Box::into_raw(Box::new(OxmcpRuntime { inner })), "out_runtime")
    })
}

/// Stops the runtime: every task ends, pending completion callbacks are invoked with
/// `OXMCP_STATUS_CLOSED` (possibly on the calling thread), HTTP listeners close, child
/// processes are stopped, and the runtime's threads exit before this returns (waiting at
/// most 5 s for a callback that does not return). Later calls on objects of this runtime
/// fail with `OXMCP_STATUS_CLOSED`. Idempotent.
///
/// Threading: call it from a host thread, never from inside an oxmcp callback
/// (`OXMCP_STATUS_INVALID_INPUT`). The handle stays valid: free it with oxmcp_runtime_free().
///
/// # Safety
/// `runtime` is NULL or a live runtime handle.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_shutdown(runtime: *const OxmcpRuntime) -> OxmcpStatus {
    guard(|| {
        // SAFETY: see the function's contract.
        let rt = unsafe { runtime.as_ref() }.ok_or_else(|| invalid("runtime is NULL"))?;
        rt.inner.shutdown()
    })
}

/// Releases the handle (NULL is ignored). A runtime that was not shut down stops in the
/// background once no server or client uses it any more (without waiting for its threads).
///
/// # Safety
/// `runtime` is NULL or a live runtime handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_free(runtime: *mut OxmcpRuntime) {
    if !runtime.is_null() {
        // SAFETY: see the function's contract.
        quietly(|| drop(unsafe { Box::from_raw(runtime) }));
    }
}

/// The runtime of a handle argument.
pub(crate) fn rt_arg(runtime: *const OxmcpRuntime) -> Result<Arc<Rt>, Error> {
    // SAFETY: exported functions require a NULL or live runtime handle.
    unsafe { runtime.as_ref() }.map(|r| r.inner.clone()).ok_or_else(|| invalid("runtime is NULL"))
}
