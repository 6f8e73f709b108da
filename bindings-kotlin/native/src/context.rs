//! A handler's request context: everything a handler asks of its request goes by name
//! through the core's context door ([`context::call_now`], [`context::call`]), so a new
//! capability is a new name there and Kotlin code in `Context.kt`, not a new native method.
//! It names its call in the server's table, so once the call is over it does nothing
//! (progress and logs are dropped, questions fail as closed).

use std::sync::Arc;

use oxmcp::host::{context, CallId, HostCalls};

use crate::error::Result;
use crate::runtime;

/// Told when the peer cancels a handler's request (see [`RequestContext::on_cancel`]).
#[uniffi::export(with_foreign)]
pub trait CancelListener: Send + Sync {
    /// The peer cancelled: stop the handler.
    fn cancelled(&self);
}

/// The context of one handler call.
#[derive(uniffi::Object)]
pub struct RequestContext {
    calls: Arc<HostCalls>,
    id: CallId,
}

impl RequestContext {
    pub(crate) fn new(calls: Arc<HostCalls>, id: CallId) -> Self {
        Self { calls, id }
    }
}

#[uniffi::export]
impl RequestContext {
    /// Tells `listener` when the peer cancels the request: once, at once if it has, never
    /// once the call is answered (the table's own canceller, [`HostCalls::on_cancel`]). The
    /// handler stops then, and may still log or report progress while its call settles.
    /// The table drops the listener with the call, so the Kotlin coroutine it holds (which
    /// holds this context) is not kept alive across the language boundary.
    pub fn on_cancel(&self, listener: Arc<dyn CancelListener>) {
        self.calls.on_cancel(self.id, move || listener.cancelled());
    }

    /// Asks the request `op` with `params` (JSON text, empty: none), answered at once:
    /// `info`, `cancelled`, `progress`, `log`, `end response stream` (see
    /// [`context::call_now`]); the answer's JSON text, if any.
    pub fn call_now(&self, op: String, params: String) -> Result<Option<String>> {
        Ok(context::call_now(&self.calls, self.id, &op, &params)?)
    }

    /// Asks the request `op` with `params`, any op (see [`context::call`]): also
    /// `sampling/createMessage`, `elicitation/create`, `roots/list`, `resources/read`,
    /// `escalate`, `next`; the answer's JSON text, if any.
    pub async fn call(&self, op: String, params: String) -> Result<Option<String>> {
        let asked = context::call(&self.calls, self.id, &op, &params);
        runtime::run(async move { Ok(asked.await?) }).await
    }
}
