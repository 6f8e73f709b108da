//! Host callbacks: the callback types of the ABI, the exactly-once completion, and the gate
//! that makes "after free returns, no callback runs" hold.

use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use oxmcp::Error;
use serde_json::Value;

use crate::deliver::Deliver;
use crate::error::{OxmcpError, OxmcpStatus};

/// Called once when an asynchronous operation ends, whatever the outcome.
///
/// - `user_data`: what the caller passed with the callback.
/// - `status`: `OXMCP_STATUS_OK`, or why it failed (`OXMCP_STATUS_CANCELLED` after
///   oxmcp_request_cancel(), `OXMCP_STATUS_CLOSED` at runtime shutdown, ...).
/// - `result_json`, `result_len`: the result as JSON on success (NULL / 0 otherwise); owned
///   by oxmcp and valid only during the call: copy it.
/// - `error`: the error on failure (NULL on success); valid only during the call.
///
/// Runs on a runtime thread (or on the thread calling oxmcp_runtime_shutdown()).
pub type OxmcpCompletionFn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        status: OxmcpStatus,
        result_json: *const u8,
        result_len: usize,
        error: *const OxmcpError,
    ),
>;

/// Called for each progress notification of a client request, before its completion
/// callback and never after it. `total` is meaningful only when `has_total`; `message` is
/// NULL or NUL-terminated UTF-8 valid during the call. Runs on a runtime thread.
pub type OxmcpProgressFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, progress: f64, has_total: bool, total: f64, message: *const c_char)>;

/// Called for each notification the server sends a client (`notifications/message`,
/// `notifications/progress`, list changes, ...): `method` is NUL-terminated, `params_json`
/// is JSON (`{}` when the notification has none); both valid during the call only. Runs on
/// a runtime thread; notifications of one connection arrive in order.
pub type OxmcpNotificationFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, method: *const c_char, params_json: *const u8, params_len: usize)>;

/// Called once when the client cancels an incoming request (or its connection closes)
/// before the host completed it. Runs on a runtime thread.
pub type OxmcpCancelFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A host pointer carried across threads; the host promised it may be used from any thread.
#[derive(Clone, Copy)]
pub(crate) struct UserData(pub *mut c_void);
// SAFETY: the ABI documents that user data is handed to callbacks on runtime threads.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

impl UserData {
    /// The pointer (a method, so closures capture the whole `Send` wrapper).
    pub(crate) fn ptr(self) -> *mut c_void {
        self.0
    }
}

/// Open while the host object lives: callbacks run under a read lock, and free takes the
/// write lock, so once free returns no callback runs or starts.
#[derive(Clone)]
pub(crate) struct Gate(Arc<RwLock<bool>>);

impl Gate {
    pub(crate) fn new() -> Self {
        Self(Arc::new(RwLock::new(true)))
    }

    /// Runs `f` if the gate is open; returns whether it ran.
    pub(crate) fn run(&self, f: impl FnOnce()) -> bool {
        let open = self.0.read().unwrap_or_else(|e| e.into_inner());
        if *open {
            f();
            true
        } else {
            false
        }
    }

    pub(crate) fn close(&self) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = false;
    }
}

/// A completion callback invoked exactly once: by [`Completion::finish`], or with
/// `OXMCP_STATUS_CLOSED` when dropped unfinished (the runtime shut down under its task);
/// delivered as its runtime delivers callbacks.
pub(crate) struct Completion {
    callback: OxmcpCompletionFn,
    user_data: UserData,
    deliver: Deliver,
    done: bool,
    /// Cleared when the operation never started (the caller reports the failure instead).
    armed: Arc<AtomicBool>,
}

impl Completion {
    pub(crate) fn new(callback: OxmcpCompletionFn, user_data: *mut c_void, deliver: Deliver) -> Self {
        Self { callback, user_data: UserData(user_data), deliver, done: false, armed: Arc::new(AtomicBool::new(true)) }
    }

    /// The flag that disarms this completion's drop-time callback.
    pub(crate) fn armed(&self) -> Arc<AtomicBool> {
        self.armed.clone()
    }

    /// Delivers the outcome: a JSON value or text on success, or the error.
    pub(crate) fn finish(mut self, outcome: Result<Value, Error>) {
        self.done = true;
        let Some(cb) = self.callback else { return };
        let ud = self.user_data;
        match outcome.and_then(|v| serde_json::to_vec(&v).map_err(Error::from)) {
            // SAFETY: the host registered `cb` with this user data.
            Ok(json) => {
                self.deliver.call(move || unsafe { cb(ud.ptr(), OxmcpStatus::Ok, json.as_ptr(), json.len(), std::ptr::null()) })
            }
            Err(e) => {
                let err = OxmcpError::from_error(&e);
                // SAFETY: as above; `err` outlives the call.
                self.deliver.call(move || unsafe { cb(ud.ptr(), err.status(), std::ptr::null(), 0, &err) })
            }
        }
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        if self.done || !self.armed.load(Ordering::Acquire) {
            return;
        }
        if let Some(cb) = self.callback {
            let ud = self.user_data;
            let err = OxmcpError::new(OxmcpStatus::Closed, "the oxmcp runtime shut down before the operation ended", None, None);
            // SAFETY: the host registered `cb` with this user data.
            self.deliver.call(move || unsafe { cb(ud.ptr(), OxmcpStatus::Closed, std::ptr::null(), 0, &err) })
        }
    }
}

/// A string for a callback argument (interior NULs replaced).
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    static CALLS: AtomicUsize = AtomicUsize::new(0);
    static LAST: AtomicUsize = AtomicUsize::new(99);

    unsafe extern "C" fn count(_: *mut c_void, status: OxmcpStatus, _: *const u8, _: usize, _: *const OxmcpError) {
        CALLS.fetch_add(1, Ordering::SeqCst);
        LAST.store(status as usize, Ordering::SeqCst);
    }

    #[test]
    fn a_completion_runs_exactly_once_whatever_happens() {
        Completion::new(Some(count), std::ptr::null_mut(), Deliver::default()).finish(Ok(Value::Null));
        assert_eq!((CALLS.load(Ordering::SeqCst), LAST.load(Ordering::SeqCst)), (1, OxmcpStatus::Ok as usize));
        // Dropped unfinished (its task was dropped at shutdown): CLOSED, once.
        drop(Completion::new(Some(count), std::ptr::null_mut(), Deliver::default()));
        assert_eq!((CALLS.load(Ordering::SeqCst), LAST.load(Ordering::SeqCst)), (2, OxmcpStatus::Closed as usize));
        // Disarmed (never started): no call at all.
        let c = Completion::new(Some(count), std::ptr::null_mut(), Deliver::default());
        c.armed().store(false, Ordering::SeqCst);
        drop(c);
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    }
}
