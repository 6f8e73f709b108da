//! `OxmcpRuntime`: the tokio runtime every server and client of the host runs on, with an
//! explicit shutdown that stops (and joins) its threads, so hosts that attach foreign
//! threads (mono, the JVM) can exit.

use std::sync::Arc;
use std::time::Duration;

use oxmcp::host::runtime::{HostRuntime, ThreadHooks};
use oxmcp::Error;
use tokio::runtime::Handle;

use crate::error::{guard, invalid, out, quietly, OxmcpStatus};

/// A runtime: worker threads that run the engine and call the host's callbacks.
pub struct OxmcpRuntime {
    pub(crate) inner: Arc<Rt>,
}

/// The runtime behind a handle (servers and clients keep it alive): the core's host
/// runtime.
pub(crate) type Rt = HostRuntime;

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
        // A C host keeps SIGPIPE's default action: a write to a child that exited must fail
        // with EPIPE, not end the host.
        let hooks = ThreadHooks { on_start: Some(oxmcp::transport::block_sigpipe_on_this_thread), on_stop: None };
        let inner = HostRuntime::new(worker_threads as usize, hooks)?;
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
        if Handle::try_current().is_ok() {
            return Err(invalid("oxmcp_runtime_shutdown cannot be called on an oxmcp runtime thread (inside a callback)"));
        }
        rt.inner.shutdown(Duration::from_secs(5));
        Ok(())
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
