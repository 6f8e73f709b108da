//! Node's event loop as the engine's `HostLoop`: the engine's pipes (stdin of a stdio
//! server, a child server's stdout) are watched with libuv poll handles, so the engine reads
//! and routes their messages on the JS thread, one wake-up per message (see
//! `oxmcp::transport::HostLoop`). Work for the JS thread crosses through a thread-safe
//! function that runs Rust closures and calls no JavaScript.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use napi::sys;
use napi::Env;
use oxmcp::drive::{self, Home};
use oxmcp::os::pipe::{self, OwnedPipe, RawPipe};
use oxmcp::transport::HostLoop;

// libuv, exported by the node process itself (as napi is).
extern "C" {
    fn uv_handle_size(kind: c_int) -> usize;
    fn uv_poll_init(uv_loop: *mut sys::uv_loop_s, handle: *mut c_void, fd: c_int) -> c_int;
    fn uv_poll_start(handle: *mut c_void, events: c_int, cb: unsafe extern "C" fn(*mut c_void, c_int, c_int)) -> c_int;
    fn uv_poll_stop(handle: *mut c_void) -> c_int;
    fn uv_close(handle: *mut c_void, cb: unsafe extern "C" fn(*mut c_void));
    fn uv_unref(handle: *mut c_void);
    fn uv_handle_set_data(handle: *mut c_void, data: *mut c_void);
    fn uv_handle_get_data(handle: *const c_void) -> *mut c_void;
}

/// `UV_POLL` in libuv's `uv_handle_type`.
const UV_POLL: c_int = 8;
/// `UV_READABLE` in libuv's `uv_poll_event`.
const UV_READABLE: c_int = 1;

type Job = Box<dyn FnOnce(sys::napi_env) + Send>;

/// Runs closures on the JS thread.
struct JsJobs(sys::napi_threadsafe_function);

// SAFETY: a napi thread-safe function may be called from any thread.
unsafe impl Send for JsJobs {}
// SAFETY: as above.
unsafe impl Sync for JsJobs {}

unsafe extern "C" fn run_job(env: sys::napi_env, _js: sys::napi_value, _ctx: *mut c_void, data: *mut c_void) {
    // SAFETY: `data` is the boxed job `JsJobs::run` handed over, taken back exactly once.
    let job = unsafe { Box::from_raw(data.cast::<Job>()) };
    if !env.is_null() {
        // What the job wakes on this thread goes on here too (see `oxmcp::drive`).
        drive::scope(|| job(env)); // a null env: Node is tearing down, the job is dropped unrun
    }
}

impl JsJobs {
    fn new(env: &Env) -> napi::Result<Self> {
        let mut name = std::ptr::null_mut();
        let mut tsfn = std::ptr::null_mut();
        // SAFETY: plain napi calls on the JS thread with out-pointers we own.
        unsafe {
            check(sys::napi_create_string_utf8(env.raw(), c"oxmcp".as_ptr(), 5, &mut name))?;
            check(sys::napi_create_threadsafe_function(
                env.raw(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                name,
                0,
                1,
                std::ptr::null_mut(),
                None,
                std::ptr::null_mut(),
                Some(run_job),
                &mut tsfn,
            ))?;
            // It never keeps Node alive: the JS layer references what should.
            check(sys::napi_unref_threadsafe_function(env.raw(), tsfn))?;
        }
        // Never released: a job queued after a release (a pipe to unwatch) would be dropped
        // unrun, leaving libuv polling a closed descriptor. One per client or server.
        Ok(JsJobs(tsfn))
    }

    fn run(&self, job: impl FnOnce(sys::napi_env) + Send + 'static) {
        let data = Box::into_raw(Box::new(Box::new(job) as Job));
        // SAFETY: the function lives for the process; `data` is taken back by `run_job`, or
        // here when the call is refused.
        let status =
            unsafe { sys::napi_call_threadsafe_function(self.0, data.cast(), sys::ThreadsafeFunctionCallMode::nonblocking) };
        if status != sys::Status::napi_ok {
            // SAFETY: refused, so never handed to `run_job`.
            drop(unsafe { Box::from_raw(data) });
        }
    }
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(format!("napi call failed with status {status}")))
    }
}

thread_local! {
    /// The poll handles of the JS thread, by descriptor.
    static WATCHED: RefCell<HashMap<RawPipe, *mut c_void>> = RefCell::new(HashMap::new());
}

type Ready = Arc<dyn Fn() + Send + Sync>;

unsafe extern "C" fn on_readable(handle: *mut c_void, _status: c_int, _events: c_int) {
    // SAFETY: the handle's data is the `Ready` boxed in `watch`, freed only in `on_closed`.
    let ready = unsafe { &*uv_handle_get_data(handle).cast::<Ready>() };
    // An error status also means "read now": the read reports it. The events the read
    // raises reach JavaScript at its end, in this same turn of the loop.
    crate::events::direct(|| drive::scope(|| ready()));
}

unsafe extern "C" fn on_closed(handle: *mut c_void) {
    // SAFETY: see `on_readable`; libuv is done with the handle, allocated in `watch`.
    unsafe {
        drop(Box::from_raw(uv_handle_get_data(handle).cast::<Ready>()));
        libc::free(handle);
    }
}

/// The JS thread's libuv loop, for the engine.
pub struct UvLoop {
    jobs: Arc<JsJobs>,
    runtime: tokio::runtime::Handle,
}

impl UvLoop {
    /// This environment's loop (on the JS thread).
    pub fn of(env: &Env) -> napi::Result<Arc<dyn HostLoop>> {
        let runtime = napi::bindgen_prelude::within_runtime_if_available(tokio::runtime::Handle::current);
        Ok(Arc::new(UvLoop { jobs: Arc::new(JsJobs::new(env)?), runtime }))
    }
}

impl HostLoop for UvLoop {
    fn watch(&self, fd: RawPipe, ready: Ready) {
        self.jobs.run(move |env| {
            let mut uv_loop = std::ptr::null_mut();
            // SAFETY: on the JS thread; the handle is allocated at libuv's size for a poll
            // handle, initialized before use and freed in `on_closed`.
            unsafe {
                if sys::napi_get_uv_event_loop(env, &mut uv_loop) != sys::Status::napi_ok {
                    return;
                }
                let handle = libc::malloc(uv_handle_size(UV_POLL));
                if handle.is_null() || uv_poll_init(uv_loop, handle, pipe::c_descriptor(fd)) != 0 {
                    libc::free(handle);
                    return;
                }
                uv_handle_set_data(handle, Box::into_raw(Box::new(ready)).cast());
                uv_poll_start(handle, UV_READABLE, on_readable);
                uv_unref(handle);
                WATCHED.with(|w| w.borrow_mut().insert(fd, handle));
            }
        });
    }

    fn unwatch(&self, fd: RawPipe, close: Option<OwnedPipe>) {
        self.jobs.run(move |_| {
            if let Some(handle) = WATCHED.with(|w| w.borrow_mut().remove(&fd)) {
                // SAFETY: a live handle of this thread's loop, closed once.
                unsafe {
                    uv_poll_stop(handle);
                    uv_close(handle, on_closed);
                }
            }
            drop(close);
        });
    }

    fn home(&self) -> Home {
        let jobs = self.jobs.clone();
        Home::host(self.runtime.clone(), move |task| jobs.run(move |_| task.run()))
    }
}
