//! The one channel from the engine's threads to JavaScript: a thread-safe function taking
//! `(kind, id, slot, a, b)`. The JS side is a dispatcher that never throws. It starts
//! unreferenced (it does not keep Node alive); the JS layer references it while it has
//! work outstanding (a listening server, a pending client call).

use std::sync::Arc;

use napi::bindgen_prelude::{FnArgs, Function};
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

/// A cheap-to-clone handle on the dispatcher.
#[derive(Clone)]
pub struct Events(Arc<Tsfn>);

impl Events {
    /// Wraps a JS dispatcher (on the JS thread).
    pub fn new(f: &Dispatcher<'_>) -> napi::Result<Self> {
        let tsfn =
            f.build_threadsafe_function::<Event>().weak::<true>().build_callback(|ctx: ThreadsafeCallContext<Event>| {
                let e = ctx.value;
                Ok(FnArgs::from((e.kind, js_id(e.id), e.slot, e.a, e.b)))
            })?;
        Ok(Self(Arc::new(tsfn)))
    }

    /// Queues an event; false if JavaScript is gone (the environment is shutting down).
    pub fn send(&self, kind: u32, id: CallId, slot: u32, a: Option<String>, b: Option<String>) -> bool {
        self.0.call(Event { kind, id, slot, a, b }, ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok
    }

    /// References (keeps Node alive) or unreferences the dispatcher. JS thread only.
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        if self.0.aborted() {
            return Ok(());
        }
        let status = unsafe {
            if on {
                napi::sys::napi_ref_threadsafe_function(env.raw(), self.0.raw())
            } else {
                napi::sys::napi_unref_threadsafe_function(env.raw(), self.0.raw())
            }
        };
        if status == napi::sys::Status::napi_ok {
            Ok(())
        } else {
            Err(napi::Error::from_reason("could not (un)reference the event dispatcher"))
        }
    }
}
