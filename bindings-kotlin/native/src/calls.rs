//! Running a Kotlin handler's future as one call of a host-call table (a server's calls to
//! its handlers, a client's calls to its sampling, elicitation and roots handlers).

use std::future::Future;
use std::sync::Arc;

use oxmcp::host::{CallId, HostCalls};
use oxmcp::{Error, ErrorKind};
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::runtime;

/// Runs `work` as call `id` of `calls`: its result answers the call. The engine no longer
/// waiting (the request ended otherwise, the connection went, a cancelled call's grace ran
/// out) drops it, and dropping a Kotlin handler's future cancels its coroutine. The peer's
/// cancel runs `on_cancel` when there is one: the host then stops its handler itself, which
/// may still log or report while the call settles within the grace (a dropped future's
/// handler would find its call already answered); without one, the cancel drops `work`.
/// False when the runtime is shut down.
pub(crate) fn answer(
    calls: &Arc<HostCalls>,
    id: CallId,
    on_cancel: Option<Box<dyn FnOnce() + Send>>,
    work: impl Future<Output = Result<String>> + Send + 'static,
) -> bool {
    let stop = CancellationToken::new();
    match on_cancel {
        Some(f) => calls.on_cancel(id, f),
        None => {
            let cancelled = stop.clone();
            calls.on_cancel(id, move || cancelled.cancel());
        }
    }
    let ended = stop.clone();
    calls.on_end(id, move || ended.cancel());
    let calls = calls.clone();
    runtime::spawn(async move {
        let outcome = tokio::select! {
            out = work => out.map_err(Error::from),
            _ = stop.cancelled() => Err(Error::new(ErrorKind::Cancelled, "cancelled by the peer")),
        };
        calls.complete(id, outcome);
    })
}
