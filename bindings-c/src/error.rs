//! Statuses, the error object, the per-thread last error, and the guard every exported
//! function runs in (no panic crosses the boundary).

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use oxmcp::{Error, ErrorKind};

/// What a call returned: `OXMCP_STATUS_OK`, or why it failed. Every failure kind of the
/// engine has its own status; details are in an `OxmcpError` (oxmcp_last_error() after a
/// call, or the `error` argument of a completion callback).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OxmcpStatus {
    /// Success.
    Ok = 0,
    /// The peer answered with a JSON-RPC error (oxmcp_error_code() holds its code).
    Rpc = 1,
    /// The request's local timeout elapsed.
    Timeout = 2,
    /// The request was cancelled (oxmcp_request_cancel, or the peer cancelled it).
    Cancelled = 3,
    /// The connection, server or runtime is closed / shut down.
    Closed = 4,
    /// Reading or writing the transport failed, or a process could not be started.
    Transport = 5,
    /// The peer broke the protocol.
    Protocol = 6,
    /// The caller passed something unusable (NULL, bad UTF-8, bad JSON, wrong state).
    InvalidInput = 7,
    /// The peer did not declare the capability this call needs.
    CapabilityMissing = 8,
    /// A handler failed.
    Handler = 9,
    /// A bug inside oxmcp (a caught panic).
    Internal = 10,
    /// Authorization failed: the server refused the credentials and no new ones could be
    /// obtained.
    Unauthorized = 11,
}

impl OxmcpStatus {
    /// The status of an engine error. Exhaustive: a new kind must be mapped here.
    pub(crate) fn of(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Rpc => Self::Rpc,
            ErrorKind::Timeout => Self::Timeout,
            ErrorKind::Cancelled => Self::Cancelled,
            ErrorKind::Closed => Self::Closed,
            ErrorKind::Transport => Self::Transport,
            ErrorKind::Protocol => Self::Protocol,
            ErrorKind::InvalidInput => Self::InvalidInput,
            ErrorKind::CapabilityMissing => Self::CapabilityMissing,
            ErrorKind::Handler => Self::Handler,
            ErrorKind::Unauthorized => Self::Unauthorized,
        }
    }
}

/// An error: a status, a message, and for `OXMCP_STATUS_RPC` the JSON-RPC code and data.
/// Read it with the oxmcp_error_* functions; it is owned by oxmcp (never freed by the
/// caller) and valid as long as each function that hands one out says.
pub struct OxmcpError {
    status: OxmcpStatus,
    message: CString,
    code: Option<i64>,
    data: Option<Vec<u8>>,
}

impl OxmcpError {
    pub(crate) fn from_error(e: &Error) -> Self {
        let status = OxmcpStatus::of(e.kind());
        Self::new(status, &e.detail(), e.code(), e.rpc().and_then(|r| r.data.as_ref()).map(|d| d.to_string().into_bytes()))
    }

    pub(crate) fn new(status: OxmcpStatus, message: &str, code: Option<i64>, data: Option<Vec<u8>>) -> Self {
        let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
        Self { status, message, code, data }
    }

    pub(crate) fn status(&self) -> OxmcpStatus {
        self.status
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<Box<OxmcpError>>> = const { RefCell::new(None) };
}

fn set_last(e: Option<OxmcpError>) {
    // try_with: a call during thread teardown must not panic.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = e.map(Box::new));
}

/// The message of a caught panic.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs the body of an exported function: its error (or a panic) becomes the thread's last
/// error and the returned status; success clears the last error.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Error>) -> OxmcpStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            set_last(None);
            OxmcpStatus::Ok
        }
        Ok(Err(e)) => {
            let err = OxmcpError::from_error(&e);
            let status = err.status;
            set_last(Some(err));
            status
        }
        Err(panic) => {
            let msg = format!("internal error in oxmcp: {}", panic_message(&*panic));
            set_last(Some(OxmcpError::new(OxmcpStatus::Internal, &msg, None, None)));
            OxmcpStatus::Internal
        }
    }
}

/// Runs a function that cannot report failure (free functions), swallowing a panic.
pub(crate) fn quietly(body: impl FnOnce()) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(body)) {
        // Nowhere to report it: a free function returns nothing.
        eprintln!("oxmcp: internal error while releasing a handle: {}", panic_message(&*panic));
    }
}

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// A NUL-terminated UTF-8 argument.
pub(crate) fn str_arg<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Error> {
    if ptr.is_null() {
        return Err(invalid(format!("{what} is NULL")));
    }
    // SAFETY: the caller passes a NUL-terminated string valid for the call.
    unsafe { CStr::from_ptr(ptr) }.to_str().map_err(|_| invalid(format!("{what} is not valid UTF-8")))
}

/// An optional NUL-terminated UTF-8 argument (NULL = none).
pub(crate) fn opt_str_arg<'a>(ptr: *const c_char, what: &str) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        Ok(None)
    } else {
        str_arg(ptr, what).map(Some)
    }
}

/// A pointer + length argument (NULL with length 0 is empty).
pub(crate) fn bytes_arg<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(invalid(format!("{what} is NULL with length {len}"))) };
    }
    // SAFETY: the caller passes `len` readable bytes valid for the call.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An optional JSON argument (pointer + length) as text: `None` when empty.
pub(crate) fn opt_json_text(ptr: *const u8, len: usize, what: &str) -> Result<Option<String>, Error> {
    let bytes = bytes_arg(ptr, len, what)?;
    if bytes.is_empty() {
        return Ok(None);
    }
    std::str::from_utf8(bytes).map(|t| Some(t.to_owned())).map_err(|e| invalid(format!("{what} is not UTF-8: {e}")))
}

/// Writes `value` through an out pointer that must not be NULL.
pub(crate) fn out<T>(ptr: *mut T, value: T, what: &str) -> Result<(), Error> {
    if ptr.is_null() {
        return Err(invalid(format!("{what} is NULL")));
    }
    // SAFETY: the caller passes a writable pointer.
    unsafe { ptr.write(value) };
    Ok(())
}

/// The error of the last oxmcp call that failed on this thread, or NULL when the last call
/// succeeded. Owned by oxmcp; valid until the next oxmcp call on this thread.
#[no_mangle]
pub extern "C" fn oxmcp_last_error() -> *const OxmcpError {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_deref().map_or(std::ptr::null(), |e| e as *const OxmcpError))
        .unwrap_or(std::ptr::null())
}

/// The status of `error` (`OXMCP_STATUS_OK` for NULL).
///
/// # Safety
/// `error` is NULL or a live error handed out by oxmcp.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_error_status(error: *const OxmcpError) -> OxmcpStatus {
    // SAFETY: see the function's contract.
    unsafe { error.as_ref() }.map_or(OxmcpStatus::Ok, |e| e.status)
}

/// The message of `error`: NUL-terminated UTF-8 owned by the error ("" for NULL).
///
/// # Safety
/// `error` is NULL or a live error handed out by oxmcp.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_error_message(error: *const OxmcpError) -> *const c_char {
    // SAFETY: see the function's contract.
    match unsafe { error.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// Whether `error` carries a JSON-RPC error code (the peer's, for `OXMCP_STATUS_RPC`);
/// if so and `code` is not NULL, stores it there.
///
/// # Safety
/// `error` is NULL or a live error handed out by oxmcp; `code` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_error_code(error: *const OxmcpError, code: *mut i64) -> bool {
    // SAFETY: see the function's contract.
    match unsafe { error.as_ref() }.and_then(|e| e.code) {
        Some(c) => {
            if !code.is_null() {
                // SAFETY: see the function's contract.
                unsafe { code.write(c) };
            }
            true
        }
        None => false,
    }
}

/// The JSON-RPC error's `data` as JSON text (not NUL-terminated; owned by the error), or
/// NULL when there is none. Its length goes to `len` when not NULL.
///
/// # Safety
/// `error` is NULL or a live error handed out by oxmcp; `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_error_data(error: *const OxmcpError, len: *mut usize) -> *const u8 {
    // SAFETY: see the function's contract.
    let data = unsafe { error.as_ref() }.and_then(|e| e.data.as_deref());
    if !len.is_null() {
        // SAFETY: see the function's contract.
        unsafe { len.write(data.map_or(0, <[u8]>::len)) };
    }
    data.map_or(std::ptr::null(), <[u8]>::as_ptr)
}

/// A static, NUL-terminated name for a status value ("OK", "RPC", "CANCELLED", ...;
/// "UNKNOWN" for a value that is no status).
#[no_mangle]
pub extern "C" fn oxmcp_status_name(status: i32) -> *const c_char {
    let s: &'static CStr = match status {
        0 => c"OK",
        1 => c"RPC",
        2 => c"TIMEOUT",
        3 => c"CANCELLED",
        4 => c"CLOSED",
        5 => c"TRANSPORT",
        6 => c"PROTOCOL",
        7 => c"INVALID_INPUT",
        8 => c"CAPABILITY_MISSING",
        9 => c"HANDLER",
        10 => c"INTERNAL",
        11 => c"UNAUTHORIZED",
        _ => c"UNKNOWN",
    };
    s.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_the_engines_stable_kind_numbers() {
        for kind in ErrorKind::ALL {
            assert_eq!(OxmcpStatus::of(kind) as u32, kind.code(), "{kind:?}");
            // SAFETY: oxmcp_status_name returns a static NUL-terminated string.
            let name = unsafe { CStr::from_ptr(oxmcp_status_name(kind.code() as i32)) };
            assert_eq!(name.to_str().unwrap(), kind.name().to_uppercase(), "{kind:?}");
        }
    }

    #[test]
    fn a_panic_becomes_internal_and_never_unwinds() {
        let status = guard(|| panic!("boom inside"));
        assert_eq!(status, OxmcpStatus::Internal);
        let e = oxmcp_last_error();
        assert!(!e.is_null());
        // SAFETY: the error lives until the next oxmcp call on this thread.
        let msg = unsafe { CStr::from_ptr(oxmcp_error_message(e)) }.to_str().unwrap();
        assert!(msg.contains("boom inside"), "{msg}");
        quietly(|| panic!("in a free"));
    }

    #[test]
    fn success_clears_the_last_error_and_errors_keep_codes() {
        assert_eq!(guard(|| Err(Error::rpc_error(-32042, "custom"))), OxmcpStatus::Rpc);
        let mut code = 0;
        // SAFETY: the error lives until the next oxmcp call on this thread.
        assert!(unsafe { oxmcp_error_code(oxmcp_last_error(), &mut code) });
        assert_eq!(code, -32042);
        assert_eq!(guard(|| Ok(())), OxmcpStatus::Ok);
        assert!(oxmcp_last_error().is_null());
    }

    #[test]
    fn arguments_are_checked() {
        assert!(str_arg(std::ptr::null(), "name").is_err());
        assert!(bytes_arg(std::ptr::null(), 3, "json").is_err());
        assert_eq!(bytes_arg(std::ptr::null(), 0, "json").unwrap(), b"");
        let bad = [0xffu8, 0];
        assert!(str_arg(bad.as_ptr().cast(), "name").is_err());
    }
}
