//! Calls that become tasks midway (SEP-2663 with SEP-2322): an escalating tool's handler
//! runs as an ordinary call, asking the client through MRTR rounds (or plain requests in
//! the session era), until it calls [`RequestContext::escalate_to_task`]; the client then
//! gets a task handle and the same handler goes on in the background as that task.
//!
//! The handler runs on a task of its own from the start, so escalating moves nothing: the
//! dispatcher answers the request with the new task, and the task's runner adopts the
//! handler's outcome. Its questions switch from the round to the task's `inputRequests`
//! (the [`Escalation`] cell), and its cancellation from the request's to the task's (the
//! handler's token is its own, tied to one and then the other).
//!
//! [`RequestContext::escalate_to_task`]: crate::server::RequestContext::escalate_to_task

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::super::context::{Escalating, Inputs, RequestContext};
use super::super::next::Reply;
use super::Tasks;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::ErrorObject;

/// The acknowledgement of an escalation: whether the task was created.
type Ack = oneshot::Sender<std::result::Result<(), ErrorObject>>;

/// Where an escalating handler's questions go: the call's, then the task's.
pub(crate) struct Escalation {
    inputs: Mutex<Option<Inputs>>,
    ask: Mutex<Option<oneshot::Sender<Ack>>>,
}

impl std::fmt::Debug for Escalation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Escalation")
    }
}

impl Escalation {
    /// Where questions go now (`None`: plain requests to the client, the session era).
    pub(crate) fn inputs(&self) -> Option<Inputs> {
        self.inputs.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Asks the dispatcher to turn the call into a task; resolves once the task exists.
    pub(crate) async fn escalate(&self) -> Result<()> {
        let Some(ask) = self.ask.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return Ok(()); // escalated before: this is the task already
        };
        let (ack, acked) = oneshot::channel();
        let refused = || Error::new(ErrorKind::Cancelled, "the call ended before it could become a task");
        ask.send(ack).map_err(|_| refused())?;
        match acked.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::from_rpc(e)),
            Err(_) => Err(refused()),
        }
    }
}

/// The context switches an escalating handler's questions, and escalates it, through
/// this trait, naming no task.
impl Escalating for Escalation {
    fn current(&self) -> Option<Inputs> {
        self.inputs()
    }

    fn escalate(&self) -> futures::future::BoxFuture<'_, Result<()>> {
        Box::pin(Escalation::escalate(self))
    }
}

/// Runs an escalating tool for a client that declared the tasks extension: the tool's
/// outcome if it finishes inline, else the `CreateTaskResult` of the task it became.
/// `run` is the handler's whole call (arguments checked) given its context.
pub(crate) async fn escalating_call(
    tasks: &Arc<Tasks>,
    owner: Option<String>,
    ctx: RequestContext,
    run: impl FnOnce(RequestContext) -> futures::future::BoxFuture<'static, Reply> + Send + 'static,
) -> Reply {
    let request_cancel = ctx.cancel.clone();
    let token = CancellationToken::new();
    let (ask, mut asked) = oneshot::channel();
    let escalation = Arc::new(Escalation { inputs: Mutex::new(ctx.inputs.clone()), ask: Mutex::new(Some(ask)) });
    let ctx = RequestContext { cancel: token.clone(), inputs: Some(Inputs::Escalating(escalation.clone())), ..ctx };
    let (done, mut finished) = oneshot::channel();
    tokio::spawn(async move {
        let _ = done.send(run(ctx).await);
    });
    // Until it is a task, the handler lives as long as the request.
    let guard = token.clone().drop_guard();
    let lost = || Err(ErrorObject::internal("the tool's handler ended without an outcome"));
    enum Next {
        Finished(Reply),
        Cancelled,
        Escalate(Ack),
    }
    let next = tokio::select! {
        biased;
        r = &mut finished => Next::Finished(r.unwrap_or_else(|_| lost())),
        _ = request_cancel.cancelled() => Next::Cancelled,
        ack = &mut asked => match ack {
            Ok(ack) => Next::Escalate(ack),
            // The escalation cell is gone only with the handler: its outcome follows.
            Err(_) => Next::Finished((&mut finished).await.unwrap_or_else(|_| lost())),
        },
    };
    let ack = match next {
        Next::Finished(r) => return r,
        Next::Cancelled => {
            // The request's canceller (or the end of an MRTR round) waits for this.
            token.cancel();
            return (&mut finished).await.unwrap_or_else(|_| lost());
        }
        Next::Escalate(ack) => ack,
    };
    let cell = escalation.clone();
    let handler_token = token.clone();
    let created = tasks
        .start(owner, (super::TaskForm::Extension, None), move |cancel, inputs| {
            *cell.inputs.lock().unwrap_or_else(|e| e.into_inner()) = Some(Inputs::To(inputs));
            Box::pin(async move {
                tokio::select! {
                    r = &mut finished => r.unwrap_or_else(|_| lost()),
                    _ = cancel.cancelled() => {
                        handler_token.cancel();
                        finished.await.unwrap_or_else(|_| lost())
                    }
                }
            })
        })
        .await;
    match &created {
        Ok(_) => {
            guard.disarm();
            let _ = ack.send(Ok(()));
        }
        Err(e) => {
            let _ = ack.send(Err(e.clone()));
        }
    }
    created
}
