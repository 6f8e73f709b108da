//! The writer task: the session's queue of outgoing messages to the transport.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::shared::{Queued, Shared};
use crate::protocol::RequestId;
use crate::transport::{MessageWriter, Route};

/// Whether a message goes out in a write of its own, never sharing it with what follows:
/// a handler's notifications (progress, logs). Peers that run notification handlers later
/// than response handlers for messages that arrive together (the official TypeScript SDK,
/// typescript-sdk #2580) would otherwise drop a request's final progress, which comes
/// right before its response; that response also waits a millisecond, so the two reach
/// the peer in separate reads. Only calls whose handler notifies just before returning
/// pay it.
fn writes_alone(queued: &Queued) -> bool {
    matches!(queued.message.route, Route::During(_))
}

fn during_of(queued: &Queued) -> Option<RequestId> {
    match &queued.message.route {
        Route::During(id) => Some(id.clone()),
        _ => None,
    }
}

/// Hands one message to the transport, with its kind when the session knows it.
async fn send<W: MessageWriter>(writer: &mut W, queued: Queued) -> io::Result<()> {
    match queued.kind {
        Some(kind) => writer.send_kind(queued.message, kind).await,
        None => writer.send(queued.message).await,
    }
}

/// Writes queued messages, flushing once per burst, until the session closes; then
/// writes what is still queued (final responses, cancellation notices) and closes the
/// transport.
pub(super) async fn write_loop<W: MessageWriter>(mut writer: W, mut rx: mpsc::UnboundedReceiver<Queued>, shared: Arc<Shared>) {
    const BURST: usize = 512;
    let closed = shared.closed.clone();
    let mut last_alone: Option<RequestId> = None;
    loop {
        let first = tokio::select! {
            biased;
            m = rx.recv() => m,
            _ = closed.cancelled() => None,
        };
        let Some(first) = first else { break };
        if let (Some(during), Route::Answers(id)) = (&last_alone, &first.message.route) {
            if during == id {
                // The answer right behind its request's last notification: give the peer a
                // moment to read that notification on its own (see `writes_alone`).
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        let mut alone = writes_alone(&first);
        last_alone = if alone { during_of(&first) } else { None };
        let mut result = send(&mut writer, first).await;
        for _ in 0..BURST {
            if result.is_err() || alone {
                break;
            }
            match rx.try_recv() {
                Ok(m) => {
                    alone = writes_alone(&m);
                    last_alone = if alone { during_of(&m) } else { None };
                    result = send(&mut writer, m).await;
                }
                Err(_) => break,
            }
        }
        if let Err(e) = match result {
            Ok(()) => writer.flush().await,
            Err(e) => Err(e),
        } {
            // A failed write usually means the peer is gone; its read side then knows
            // more (a child's exit status and stderr). Let that reason win if it comes soon.
            let _ = tokio::time::timeout(Duration::from_secs(5), closed.cancelled()).await;
            shared.close(format!("writing to the transport failed: {e}"));
            break;
        }
    }
    while let Ok(m) = rx.try_recv() {
        if send(&mut writer, m).await.is_err() {
            break;
        }
    }
    let _ = writer.flush().await;
    writer.close().await;
}
