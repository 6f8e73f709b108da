//! The one channel from the engine's threads to JavaScript: a thread-safe function taking
//! `(kind, id, slot, a, b)`. The JS side is a dispatcher that never throws. It starts
//! unreferenced (it does not keep Node alive); the JS layer references it while it has
//! work outstanding (a listening server, a pending client call).
//!
//! Events raised on the JS thread while the engine reads a pipe there (see `uv_loop`) skip
//! the thread-safe function: they are collected and handed to the dispatcher when the
//! read is done, in the same turn of the loop and in one callback scope. Through the
//! queue, each would cost a write to the loop's wake-up descriptor and another turn to
//! read it back.

use std::cell::RefCell;
use std::sync::{Arc, RwLock};
use std::thread::ThreadId;

use napi::bindgen_prelude::{FnArgs, Function, JsValue};
use napi::sys;
use napi::threadsafe_function::{ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use oxmcp::host::CallId;

/// One event for JavaScript.
pub struct Event {
    pub kind: u32,
    pub id: CallId,
    pub slot: u32,
    pub a: Option<String>,
    pub b: Option<String>,
}

/// Ids cross as JS numbers through napi's `i64`: exact up to 2^53, far more calls than a
/// process makes (the engine counts them up from 1).
type Args = (u32, i64, u32, Option<String>, Option<String>);
type Tsfn = ThreadsafeFunction<Event, (), FnArgs<Args>, Status, false, true, 0>;

/// The JS signature of an event dispatcher.
pub type Dispatcher<'a> = Function<'a, FnArgs<Args>, ()>;

/// A call id JavaScript passed back. 0 is never a call id, so a negative number finds
/// nothing instead of wrapping onto another call.
pub fn call_id(id: i64) -> CallId {
    CallId::try_from(id).unwrap_or(0)
}

fn js_id(id: CallId) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

/// A cheap-to-clone handle on the dispatcher. The thread-safe function is shared so that
/// [`Events::release`] ends it for every clone at once.
#[derive(Clone)]
pub struct Events(Arc<RwLock<Option<Tsfn>>>, Arc<Direct>);

/// What calling the dispatcher directly takes: its environment and thread, a (weak)
/// reference to it, and an async context for the callback scope the calls run in
/// (its closing runs the microtasks they queued, as the thread-safe function's calls do).
struct Direct {
    env: sys::napi_env,
    thread: ThreadId,
    func: sys::napi_ref,
    context: sys::napi_async_context,
}

// SAFETY: the raw handles are only used on `thread`, the JS thread they belong to (checked
// in `Events::send`); elsewhere the struct is only moved and dropped.
unsafe impl Send for Direct {}
// SAFETY: as above.
unsafe impl Sync for Direct {}

/// An event waiting for the end of [`direct`], with the dispatcher it goes to.
type Collected = (Arc<Direct>, Event);

thread_local! {
    /// The events raised on this thread inside [`direct`], waiting for its end.
    static COLLECTED: RefCell<Option<Vec<Collected>>> = const { RefCell::new(None) };
}

/// Runs `f` (the engine reading a pipe on the JS thread, from a libuv callback: no
/// JavaScript on the stack) and then hands the events it raised to their dispatchers,
/// in order.
pub fn direct(f: impl FnOnce()) {
    let outermost = COLLECTED.with(|c| {
        let mut c = c.borrow_mut();
        let outermost = c.is_none();
        if outermost {
            *c = Some(Vec::new());
        }
        outermost
    });
    if !outermost {
        return f();
    }
    f();
    loop {
        // Events a dispatch raises (a handler answering at once) go out in the next pass.
        let batch = COLLECTED.with(|c| c.borrow_mut().as_mut().map(std::mem::take).unwrap_or_default());
        if batch.is_empty() {
            break;
        }
        dispatch(batch);
    }
    COLLECTED.with(|c| *c.borrow_mut() = None);
}

/// Hands `batch` to JavaScript in one callback scope: the microtasks its calls queue (the
/// continuations of the calls it resolves) run once, after the last, as when the
/// thread-safe function delivers a burst.
fn dispatch(batch: Vec<Collected>) {
    let Some((first, _)) = batch.first() else { return };
    let (env, context) = (first.env, first.context);
    // SAFETY: on the dispatchers' JS thread (checked in `Events::send`), outside any
    // JavaScript; every value is created in our handle scope and used before it closes,
    // and the callback scope closes before it.
    unsafe {
        let (mut handles, mut callback, mut resource) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        if sys::napi_open_handle_scope(env, &mut handles) != sys::Status::napi_ok {
            return;
        }
        sys::napi_create_object(env, &mut resource);
        let opened = sys::napi_open_callback_scope(env, resource, context, &mut callback) == sys::Status::napi_ok;
        for (to, event) in batch {
            to.call(event);
        }
        if opened {
            // Runs the microtasks (and next ticks) the calls queued.
            sys::napi_close_callback_scope(env, callback);
        }
        sys::napi_close_handle_scope(env, handles);
    }
}

impl Direct {
    /// Calls the dispatcher with `event` (on its JS thread, inside [`dispatch`]'s scopes).
    fn call(&self, e: Event) {
        let env = self.env;
        // SAFETY: see `dispatch`.
        unsafe {
            let string = |s: &Option<String>| {
                let mut v = std::ptr::null_mut();
                match s {
                    Some(s) => sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v),
                    None => sys::napi_get_null(env, &mut v),
                };
                v
            };
            let mut args = [std::ptr::null_mut(); 5];
            sys::napi_create_uint32(env, e.kind, &mut args[0]);
            sys::napi_create_int64(env, js_id(e.id), &mut args[1]);
            sys::napi_create_uint32(env, e.slot, &mut args[2]);
            args[3] = string(&e.a);
            args[4] = string(&e.b);
            let (mut func, mut recv, mut out) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
            sys::napi_get_reference_value(env, self.func, &mut func);
            sys::napi_get_undefined(env, &mut recv);
            if !func.is_null() {
                let status = sys::napi_call_function(env, recv, func, args.len(), args.as_ptr(), &mut out);
                if status == sys::Status::napi_pending_exception {
                    // The dispatcher never throws; if it did, it is uncaught, as through the queue.
                    let mut err = std::ptr::null_mut();
                    sys::napi_get_and_clear_last_exception(env, &mut err);
                    sys::napi_fatal_exception(env, err);
                }
            }
        }
    }
}

impl Events {
    /// Wraps a JS dispatcher (on the JS thread).
    pub fn new(f: &Dispatcher<'_>) -> napi::Result<Self> {
        let env = f.value().env;
        let (mut func, mut context, mut name) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: plain napi calls on the JS thread with out-pointers we own. The reference
        // is weak: the thread-safe function holds the dispatcher for as long as these
        // events exist, and a second, strong hold would keep it (and the client or server
        // it closes over) from ever being collected. It and the async context are small
        // and not freed (they may be dropped on any thread).
        unsafe {
            check(sys::napi_create_reference(env, f.raw(), 0, &mut func))?;
            check(sys::napi_create_string_utf8(env, c"oxmcp".as_ptr(), 5, &mut name))?;
            check(sys::napi_async_init(env, std::ptr::null_mut(), name, &mut context))?;
        }
        let direct = Direct { env, thread: std::thread::current().id(), func, context };
        let tsfn =
            f.build_threadsafe_function::<Event>().weak::<true>().build_callback(|ctx: ThreadsafeCallContext<Event>| {
                let e = ctx.value;
                Ok(FnArgs::from((e.kind, js_id(e.id), e.slot, e.a, e.b)))
            })?;
        Ok(Self(Arc::new(RwLock::new(Some(tsfn))), Arc::new(direct)))
    }

    /// Queues an event; false if JavaScript is gone (the environment is shutting down) or
    /// the events were released.
    pub fn send(&self, kind: u32, id: CallId, slot: u32, a: Option<String>, b: Option<String>) -> bool {
        let tsfn = self.0.read().unwrap_or_else(|e| e.into_inner());
        let Some(tsfn) = tsfn.as_ref().filter(|t| !t.aborted()) else { return false };
        let event = Event { kind, id, slot, a, b };
        let event = COLLECTED.with(|c| match c.borrow_mut().as_mut() {
            Some(list) if self.1.thread == std::thread::current().id() => {
                list.push((self.1.clone(), event));
                None
            }
            _ => Some(event),
        });
        match event {
            None => true,
            Some(event) => tsfn.call(event, ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok,
        }
    }

    /// Lets the dispatcher go: no event is delivered after this (events already queued
    /// still are). The thread-safe function holds the dispatcher strongly, and through it
    /// the JS object that owns these events: a cycle through Rust that the garbage
    /// collector cannot see, so an object is collectable only once its events are released.
    pub fn release(&self) {
        let tsfn = self.0.write().unwrap_or_else(|e| e.into_inner()).take();
        // Dropping the last handle releases the function; Node finalizes it (and drops its
        // reference to the dispatcher) once its queue is empty.
        drop(tsfn);
    }

    /// References (keeps Node alive) or unreferences the dispatcher. JS thread only.
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        let tsfn = self.0.read().unwrap_or_else(|e| e.into_inner());
        let Some(tsfn) = tsfn.as_ref().filter(|t| !t.aborted()) else { return Ok(()) };
        let status = unsafe {
            if on {
                napi::sys::napi_ref_threadsafe_function(env.raw(), tsfn.raw())
            } else {
                napi::sys::napi_unref_threadsafe_function(env.raw(), tsfn.raw())
            }
        };
        if status == napi::sys::Status::napi_ok {
            Ok(())
        } else {
            Err(napi::Error::from_reason("could not (un)reference the event dispatcher"))
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
