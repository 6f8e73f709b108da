//! `OxmcpRequest`: the handle of an asynchronous operation (a client call, a connect, a
//! stdio serve), through which the host cancels it.

use std::ffi::c_void;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use oxmcp::{Error, ErrorKind};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::callback::{Completion, OxmcpCompletionFn};
use crate::error::{guard, invalid, quietly, OxmcpStatus};
use crate::runtime::Rt;

/// An operation in progress. Freeing the handle does not cancel the operation: its
/// completion callback still runs exactly once.
pub struct OxmcpRequest {
    cancel: CancellationToken,
}

/// Starts `make(token)` on the runtime; its outcome goes to `callback` exactly once. The
/// token fires on oxmcp_request_cancel(); the operation then ends with `Cancelled` (the
/// future is dropped if it has not ended by itself, which cancels an MCP request on the
/// wire). On error nothing was started and the callback will not be called.
pub(crate) fn start<F, M>(
    rt: &Arc<Rt>,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
    make: M,
) -> Result<(), Error>
where
    M: FnOnce(CancellationToken) -> F,
    F: Future<Output = Result<Value, Error>> + Send + 'static,
{
    if callback.is_none() {
        return Err(invalid("callback is NULL"));
    }
    let token = CancellationToken::new();
    let fut = make(token.clone());
    spawn(rt, callback, user_data, out_request, token, fut)
}

/// Starts `make(token)` as [`start`] does, but takes its first step on the calling thread
/// (inside the runtime's context), so an outcome known at once is delivered at once: an
/// error whose kind `refuses` says is the caller's (bad input, a request that is over) is
/// returned (nothing started, the callback never runs); any other outcome goes to
/// `callback` before this returns, with `*out_request` set to NULL. This is how the doors
/// keep "bad input is refused by the call itself" without a C copy of the engine's checks.
pub(crate) fn start_now<F, M>(
    rt: &Arc<Rt>,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
    refuses: impl Fn(ErrorKind) -> bool,
    make: M,
) -> Result<(), Error>
where
    M: FnOnce(CancellationToken) -> F,
    F: Future<Output = Result<Value, Error>> + Send + 'static,
{
    if callback.is_none() {
        return Err(invalid("callback is NULL"));
    }
    let handle = rt.handle().ok_or_else(|| Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down"))?;
    let token = CancellationToken::new();
    let mut fut = Box::pin(make(token.clone()));
    let first = {
        let _inside = handle.enter();
        let mut cx = std::task::Context::from_waker(futures::task::noop_waker_ref());
        fut.as_mut().poll(&mut cx)
    };
    match first {
        // A future may be polled again with another waker: the spawned task's.
        std::task::Poll::Pending => spawn(rt, callback, user_data, out_request, token, fut),
        std::task::Poll::Ready(Err(e)) if refuses(e.kind()) => Err(e),
        std::task::Poll::Ready(outcome) => {
            if !out_request.is_null() {
                // SAFETY: the caller passes NULL or a writable pointer.
                unsafe { out_request.write(std::ptr::null_mut()) };
            }
            Completion::new(callback, user_data, rt.deliver.clone()).finish(outcome);
            Ok(())
        }
    }
}

/// Spawns `fut`, cancelled by `token`, delivering its outcome to `callback` exactly once.
fn spawn<F>(
    rt: &Arc<Rt>,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
    token: CancellationToken,
    fut: F,
) -> Result<(), Error>
where
    F: Future<Output = Result<Value, Error>> + Send + 'static,
{
    let completion = Completion::new(callback, user_data, rt.deliver.clone());
    let armed = completion.armed();
    let watch = token.clone();
    let task = {
        async move {
            let outcome = tokio::select! {
                biased;
                r = fut => r,
                _ = watch.cancelled() => Err(Error::new(ErrorKind::Cancelled, "the request was cancelled")),
            };
            completion.finish(outcome);
        }
    };
    if let Err(unrun) = rt.try_spawn(task) {
        // Never started: the caller gets the failure, the callback must not run.
        armed.store(false, Ordering::Release);
        drop(unrun);
        return Err(Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down"));
    }
    if !out_request.is_null() {
        // SAFETY: the caller passes NULL or a writable pointer.
        unsafe { out_request.write(Box::into_raw(Box::new(OxmcpRequest { cancel: token }))) };
    }
    Ok(())
}

/// A door's outcome (`None`: nothing to give back) as the JSON value a callback gets.
pub(crate) fn door_value(outcome: Option<String>) -> Result<Value, Error> {
    match outcome {
        Some(text) => Ok(serde_json::from_str(&text)?),
        None => Ok(Value::Null),
    }
}

/// Cancels the operation: a client request sends `notifications/cancelled` to the peer and
/// its completion callback reports `OXMCP_STATUS_CANCELLED` (unless it already ended: a
/// cancel after the end is ignored). Returns at once; the callback may run on another
/// thread before or after this returns. Any thread.
///
/// # Safety
/// `request` is NULL or a live request handle.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_request_cancel(request: *const OxmcpRequest) -> OxmcpStatus {
    guard(|| {
        // SAFETY: see the function's contract.
        let r = unsafe { request.as_ref() }.ok_or_else(|| invalid("request is NULL"))?;
        r.cancel.cancel();
        Ok(())
    })
}

/// Releases the handle (NULL is ignored). The operation goes on and its callback still
/// runs; only cancelling through this handle becomes impossible.
///
/// # Safety
/// `request` is NULL or a live request handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_request_free(request: *mut OxmcpRequest) {
    if !request.is_null() {
        // SAFETY: see the function's contract.
        quietly(|| drop(unsafe { Box::from_raw(request) }));
    }
}
