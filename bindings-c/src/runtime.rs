//! `OxmcpRuntime`: the tokio runtime every server and client of the host runs on, with an
//! explicit shutdown that stops (and joins) its threads, so hosts that attach foreign
//! threads (mono, the JVM) can exit; and where its callbacks run (its threads, or the host's
//! thread through oxmcp_runtime_run_pending()).

use std::ffi::c_char;
use std::sync::Arc;
use std::time::Duration;

use oxmcp::host::runtime::{HostRuntime, ThreadHooks};
use oxmcp::Error;
use serde::Deserialize;
use tokio::runtime::Handle;

use crate::deliver::Deliver;
use crate::error::{guard, invalid, opt_str_arg, out, quietly, OxmcpStatus};

/// A runtime: worker threads that run the engine and call the host's callbacks.
pub struct OxmcpRuntime {
    pub(crate) inner: Arc<Rt>,
}

/// The runtime behind a handle (servers and clients keep it alive): the core's host
/// runtime, and how its callbacks reach the host.
pub(crate) struct Rt {
    host: Arc<HostRuntime>,
    pub(crate) deliver: Deliver,
}

impl std::ops::Deref for Rt {
    type Target = HostRuntime;
    fn deref(&self) -> &HostRuntime {
        &self.host
    }
}

/// What oxmcp_runtime_create() reads.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RuntimeOptions {
    #[serde(default)]
    worker_threads: u32,
    #[serde(default)]
    callbacks: Callbacks,
    queue_bound: Option<usize>,
}

#[derive(Deserialize, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Callbacks {
    #[default]
    Threads,
    Queued,
}

fn create(options: RuntimeOptions, out_runtime: *mut *mut OxmcpRuntime) -> Result<(), Error> {
    // A C host keeps SIGPIPE's default action: a write to a child that exited must fail
    // with EPIPE, not end the host.
    let hooks = ThreadHooks { on_start: Some(oxmcp::transport::block_sigpipe_on_this_thread), on_stop: None };
    let host = HostRuntime::new(options.worker_threads as usize, hooks)?;
    let deliver = match options.callbacks {
        Callbacks::Threads => Deliver::default(),
        Callbacks::Queued => Deliver::queued(options.queue_bound.unwrap_or(4096).max(1)),
    };
    out(out_runtime, Box::into_raw(Box::new(OxmcpRuntime { inner: Arc::new(Rt { host, deliver }) })), "out_runtime")
}

/// Starts a runtime with `worker_threads` threads (0 = 2) and stores it in `*out`; its
/// callbacks run on its threads (see oxmcp_runtime_create() for the other choice).
///
/// Ownership: the caller owns `*out` and releases it with oxmcp_runtime_free(). Servers and
/// clients created on it keep the runtime's threads alive until they are freed too, unless
/// oxmcp_runtime_shutdown() stops them first.
///
/// # Safety
/// `out` is a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_new(worker_threads: u32, out_runtime: *mut *mut OxmcpRuntime) -> OxmcpStatus {
    guard(|| create(RuntimeOptions { worker_threads, ..Default::default() }, out_runtime))
}

/// Starts a runtime as `options_json` says (NULL: the defaults) and stores it in `*out`:
/// `{"workerThreads": n, "callbacks": "threads" | "queued", "queueBound": n}`.
///
/// - `"threads"` (the default): every callback (completions, progress, notifications,
///   handlers, cancellations) runs on one of the runtime's threads, as soon as it is due.
/// - `"queued"`: callbacks wait in order (a request's progress before its completion) until
///   the host runs them on its own thread with oxmcp_runtime_run_pending(): a program with
///   its own event loop, or a single-threaded server whose handlers need no locks. At most
///   `queueBound` (default 4096) wait; past that the engine waits for the host. The header's
///   oxmcp_client_call_wait() is a blocking call written on this.
///
/// Ownership as oxmcp_runtime_new().
///
/// ```c
/// OxmcpRuntime *rt;
/// oxmcp_runtime_create("{\"callbacks\":\"queued\"}", &rt);
/// /* ... start calls, serve ...; then, in the program's loop: */
/// size_t ran;
/// oxmcp_runtime_run_pending(rt, 100, &ran);
/// ```
///
/// # Safety
/// `options_json` is NULL or NUL-terminated; `out_runtime` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_create(options_json: *const c_char, out_runtime: *mut *mut OxmcpRuntime) -> OxmcpStatus {
    guard(|| {
        let options = match opt_str_arg(options_json, "options_json")? {
            Some(text) if !text.trim().is_empty() => {
                serde_json::from_str(text).map_err(|e| invalid(format!("invalid runtime options: {e}")))?
            }
            _ => RuntimeOptions::default(),
        };
        create(options, out_runtime)
    })
}

/// Runs, on the calling thread, the callbacks of a `"queued"` runtime (oxmcp_runtime_create())
/// that are due, waiting up to `timeout_ms` for the first (0: not at all); stores how many ran
/// in `*out_ran` (may be NULL). Callbacks that become due while these run wait for the next
/// call. A runtime whose callbacks run on its threads: `OXMCP_STATUS_INVALID_INPUT`.
///
/// Threading: one host thread drains (the callbacks' thread); never from inside a callback.
///
/// # Safety
/// `runtime` is a live runtime; `out_ran` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_runtime_run_pending(
    runtime: *const OxmcpRuntime,
    timeout_ms: u32,
    out_ran: *mut usize,
) -> OxmcpStatus {
    guard(|| {
        let rt = rt_arg(runtime)?;
        let queue = rt.deliver.queue().ok_or_else(|| {
            invalid("this runtime runs callbacks on its own threads (create it with {\"callbacks\": \"queued\"})")
        })?;
        let ran = queue.run(Duration::from_millis(u64::from(timeout_ms)));
        if !out_ran.is_null() {
            // SAFETY: the caller passes NULL or a writable pointer.
            unsafe { out_ran.write(ran) };
        }
        Ok(())
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
        if let Some(queue) = rt.inner.deliver.queue() {
            queue.close();
        }
        rt.inner.shutdown(Duration::from_secs(5));
        // What was queued (completions with CLOSED among it) runs here, on the host's thread.
        if let Some(queue) = rt.inner.deliver.queue() {
            while queue.run(Duration::ZERO) > 0 {}
        }
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
