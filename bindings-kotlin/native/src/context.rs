//! A handler's request context: the facts of its request, progress, log messages, and
//! questions for the client (sampling, elicitation, roots). It names its call in the
//! server's table, so once the call is over it does nothing (progress and logs are dropped,
//! questions fail as closed).

use std::sync::{Arc, Mutex};

use oxmcp::host::{context, CallId, HostCalls};
use oxmcp::server::RequestContext as Request;
use oxmcp::{Error, ErrorKind};

use crate::error::Result;
use crate::runtime;

/// Told when the peer cancels a handler's request (see [`RequestContext::on_cancel`]).
#[uniffi::export(with_foreign)]
pub trait CancelListener: Send + Sync {
    /// The peer cancelled: stop the handler.
    fn cancelled(&self);
}

/// Whether the peer cancelled, and who is told.
#[derive(Default)]
struct CancelSlot {
    seen: bool,
    /// The call has left the table: nothing is kept or told any more.
    ended: bool,
    listener: Option<Arc<dyn CancelListener>>,
}

/// The context of one handler call.
#[derive(uniffi::Object)]
pub struct RequestContext {
    calls: Arc<HostCalls>,
    id: CallId,
    cancel: Arc<Mutex<CancelSlot>>,
}

impl RequestContext {
    pub(crate) fn new(calls: Arc<HostCalls>, id: CallId) -> Self {
        let cancel: Arc<Mutex<CancelSlot>> = Arc::default();
        // The listener holds the Kotlin coroutine that holds this context: let it go with
        // the call, or the two would keep each other alive across the language boundary.
        let slot = cancel.clone();
        calls.on_end(id, move || {
            let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
            slot.ended = true;
            slot.listener = None;
        });
        Self { calls, id, cancel }
    }

    /// What the call table runs on the peer's cancel: tells the listener, or the one
    /// registered later.
    pub(crate) fn canceller(&self) -> Box<dyn FnOnce() + Send> {
        let slot = self.cancel.clone();
        Box::new(move || {
            let listener = {
                let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                slot.seen = true;
                slot.listener.take()
            };
            if let Some(listener) = listener {
                listener.cancelled();
            }
        })
    }

    fn request(&self) -> oxmcp::Result<Request> {
        self.calls.context(self.id).map_err(|_| Error::new(ErrorKind::Closed, "the request is over"))
    }
}

/// Progress and logs after the request ended are nothing to fail over.
fn ignore_gone(r: oxmcp::Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::Closed => Ok(()),
        r => Ok(r?),
    }
}

#[uniffi::export]
impl RequestContext {
    /// The request's facts as JSON (`requestId`, `progressToken`, `clientInfo`,
    /// `clientCapabilities`, `protocolVersion`, `cancelled`, `auth`, `headers`); `null`
    /// once it is over.
    pub fn info(&self) -> String {
        self.request().map_or_else(|_| "null".into(), |ctx| context::info(&ctx).to_string())
    }

    /// Tells `listener` when the peer cancels the request (at once if it has). The handler
    /// stops then, and may still log or report progress while its call settles.
    pub fn on_cancel(&self, listener: Arc<dyn CancelListener>) {
        let seen = {
            let mut slot = self.cancel.lock().unwrap_or_else(|e| e.into_inner());
            if !slot.seen && !slot.ended {
                slot.listener = Some(listener.clone());
            }
            slot.seen && !slot.ended
        };
        if seen {
            listener.cancelled();
        }
    }

    /// Whether the peer cancelled the request (or it is over).
    pub fn is_cancelled(&self) -> bool {
        self.request().map_or(true, |ctx| ctx.is_cancelled())
    }

    /// Sends progress, if the client asked for it.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Result<()> {
        ignore_gone(self.request().and_then(|ctx| ctx.report_progress(progress, total, message.as_deref())))
    }

    /// Sends a log message (`data` JSON) at `level` (`debug` ... `emergency`) if the
    /// client's level lets it through.
    pub fn log(&self, level: String, logger: Option<String>, data: String) -> Result<()> {
        ignore_gone(self.request().and_then(|ctx| context::log(&ctx, &level, logger.as_deref(), &data)))
    }

    /// Over Streamable HTTP, closes the SSE stream carrying this request while the handler
    /// goes on; the client resumes it and gets the rest (2025-11-25 polling). Elsewhere,
    /// and once the request is over, it does nothing.
    pub fn end_response_stream(&self) {
        if let Ok(ctx) = self.request() {
            ctx.end_response_stream();
        }
    }

    /// In an escalating tool: continues the call as a task (the client gets the task and
    /// follows it while the handler goes on); `true` once it is one, `false` when it stays
    /// inline (the client did not ask for a task).
    pub async fn escalate_to_task(&self) -> Result<bool> {
        let ctx = self.request()?;
        runtime::run(async move { Ok(ctx.escalate_to_task().await?) }).await
    }

    /// Reads one of this server's own resources as a client would, with this request's
    /// session; the `ReadResourceResult` JSON.
    pub async fn read_resource(&self, uri: String) -> Result<String> {
        let ctx = self.request()?;
        runtime::run(async move { Ok(context::read_resource(&ctx, &uri).await?) }).await
    }

    /// In a middleware's call: runs the rest of the chain with `params` JSON (`None`: the
    /// params the middleware got), once; the rest's result JSON.
    pub async fn next(&self, params: Option<String>) -> Result<String> {
        let ctx = self.request()?;
        runtime::run(async move { Ok(context::next(&ctx, params.as_deref()).await?) }).await
    }

    /// Asks the client: `sampling/createMessage`, `elicitation/create` or `roots/list`
    /// with `params` JSON; the client's result as JSON.
    pub async fn ask(&self, method: String, params: String) -> Result<String> {
        let ctx = self.request()?;
        runtime::run(async move { Ok(context::ask_client(&ctx, &method, &params).await?) }).await
    }
}
