//! Running a Kotlin handler's future as one call of a host-call table (a server's calls to
//! its handlers, a client's calls to its sampling, elicitation and roots handlers).

use std::future::Future;
use std::sync::Arc;

use oxmcp::host::{CallId, HostCalls};
use oxmcp::{Error, ErrorKind};
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::runtime;

/// Runs `work` as call `id` of `calls`: its result answers the call. The peer's cancel, or
/// the engine no longer waiting (the request ended otherwise, the connection went), drops
/// it, and dropping a Kotlin handler's future cancels its coroutine. False when the
/// runtime is shut down.
pub(crate) fn answer(calls: &Arc<HostCalls>, id: CallId, work: impl Future<Output = Result<String>> + Send + 'static) -> bool {
    let stop = CancellationToken::new();
    let cancelled = stop.clone();
    calls.on_cancel(id, move || cancelled.cancel());
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
