//! The reader task: what the transport yields is routed to the pending map (responses,
//! progress), the in-flight map (requests, cancels) or the role (notifications).

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use super::incoming;
use super::peer::Peer;
use super::service::{IncomingNotification, Service};
use super::shared::Reply;
use crate::protocol::jsonrpc::{Incoming as Frame, Rejected};
use crate::protocol::{methods, ErrorObject, Message, ProtocolVersion};
use crate::transport::{Inbound, MessageReader, Outbound, RecvError, Route};

/// A notification on its way to the role, with the share of the queue's byte budget it
/// holds until it has been handled.
pub(super) type Queued = (Box<IncomingNotification>, Charge);

/// A notification's share of the budget, given back (and uncounted from the queued-bytes
/// metric) when dropped.
pub(super) struct Charge {
    _permit: OwnedSemaphorePermit,
    bytes: u32,
}

impl Charge {
    fn new(permit: OwnedSemaphorePermit, bytes: u32) -> Charge {
        crate::telemetry::count_queued("notifications", i64::from(bytes));
        Charge { _permit: permit, bytes }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        crate::telemetry::count_queued("notifications", -i64::from(self.bytes));
    }
}

/// The queue between the reader and [`notification_loop`]: its length is bounded by the
/// byte budget ([`SessionConfig::max_queued_notification_bytes`]), not by the channel.
/// A notification goes into the channel as soon as it is routed while the budget has room
/// (so it reaches the role before any response read after it, as without a budget); one
/// the budget cannot take is held, with all after it, until the frame is routed, and the
/// reader then waits for room before it reads on.
///
/// [`SessionConfig::max_queued_notification_bytes`]: super::SessionConfig::max_queued_notification_bytes
pub(super) struct NoteQueue {
    tx: mpsc::UnboundedSender<Queued>,
    budget: Arc<Semaphore>,
    size: u32,
    /// What a notification of the frame being routed is charged.
    charge: u32,
    /// Notifications the budget had no room for, in order, with their charge.
    held: Vec<(IncomingNotification, u32)>,
}

pub(super) fn notification_queue(config: &super::SessionConfig) -> (NoteQueue, mpsc::UnboundedReceiver<Queued>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let size = config.max_queued_notification_bytes.clamp(MIN_CHARGE, u32::MAX as usize) as u32;
    let budget = Arc::new(Semaphore::new(size as usize));
    (NoteQueue { tx, budget, size, charge: MIN_CHARGE as u32, held: Vec::new() }, rx)
}

/// The least a notification is charged, whatever its share of its frame: what it costs
/// beyond its bytes (its parsed tree, its box).
const MIN_CHARGE: usize = 256;

impl NoteQueue {
    /// Charges each notification of the next `count` messages its share of `len` bytes.
    fn charge(&mut self, len: usize, count: usize) {
        self.charge = (len / count.max(1)).clamp(MIN_CHARGE, self.size as usize) as u32;
    }

    /// Queues `note` now if the budget has room and nothing is held before it; else holds
    /// it for [`release_held`](Self::release_held).
    fn push(&mut self, note: IncomingNotification) {
        if self.held.is_empty() {
            if let Ok(permit) = self.budget.clone().try_acquire_many_owned(self.charge) {
                let _ = self.tx.send((Box::new(note), Charge::new(permit, self.charge)));
                return;
            }
        }
        self.held.push((note, self.charge));
    }

    /// Queues what was held, waiting for room for each: the handler is behind, and the
    /// reader reads nothing more until it has caught up. `false` if the session closed
    /// meanwhile.
    async fn release_held(&mut self, closed: &tokio_util::sync::CancellationToken) -> bool {
        for (note, charge) in std::mem::take(&mut self.held) {
            let permit = tokio::select! {
                biased;
                _ = closed.cancelled() => return false,
                p = self.budget.clone().acquire_many_owned(charge) => match p {
                    Ok(p) => p,
                    Err(_) => return false, // the budget is never closed
                },
            };
            let _ = self.tx.send((Box::new(note), Charge::new(permit, charge)));
        }
        true
    }
}

/// Reads frames and routes them until the transport ends or the session closes.
pub(super) async fn read_loop<R: MessageReader>(mut reader: R, peer: Peer, service: Arc<dyn Service>, mut notes: NoteQueue) {
    let shared = peer.shared.clone();
    loop {
        let inbound = tokio::select! {
            biased;
            _ = shared.closed.cancelled() => break,
            f = reader.recv_inbound() => f,
        };
        if let Ok(Inbound::Bytes(bytes) | Inbound::Parsed { bytes, .. }) = &inbound {
            notes.charge(bytes.len(), 1);
        }
        // In a scope: a handler this message wakes (a cancel reaching the future that waits
        // for it) goes on here and now, not after a wake-up of another runtime thread.
        let ended = crate::drive::scope(|| {
            match inbound {
                Ok(Inbound::Bytes(bytes)) => route_frame(&peer, &service, &mut notes, Message::parse(&bytes)),
                Ok(Inbound::Parsed { frame, .. }) => route_frame(&peer, &service, &mut notes, Ok(frame)),
                Ok(Inbound::Cancelled { request, reason }) => shared.incoming.cancel(request, &reason),
                Ok(Inbound::Failed { request, error }) => shared.outgoing.complete(&request, Err(*error)),
                Err(RecvError::TooLarge { limit }) => shared
                    .send_error(None, ErrorObject::invalid_request(format!("message exceeds the size limit of {limit} bytes"))),
                Err(RecvError::Closed(reason)) => {
                    shared.close(reason);
                    return true;
                }
            }
            false
        });
        if !notes.held.is_empty() && !notes.release_held(&shared.closed).await {
            break;
        }
        if ended {
            break;
        }
    }
}

fn route_frame(peer: &Peer, service: &Arc<dyn Service>, notes: &mut NoteQueue, frame: Result<Frame, Rejected>) {
    let shared = &peer.shared;
    match frame {
        Err(Rejected { id, error }) => shared.send_error(id, error),
        Ok(Frame::Single(message)) => {
            if let Some(reply) = route_message(peer, service, notes, message) {
                // Polled here first: a handler that needs no I/O (ping, a list, an echo) is
                // answered without a task or a thread hop. One that waits goes on where it
                // is woken: a host's thread answering it writes the response itself.
                crate::drive::spawn(crate::drive::Home::tokio(), async move { send_reply(reply.await) });
            }
        }
        Ok(Frame::Batch(items)) => {
            let allowed = peer.protocol_version().is_some_and(ProtocolVersion::supports_batches);
            if !allowed {
                let version = peer.protocol_version().map_or("this session".to_string(), |v| v.to_string());
                shared.send_error(None, ErrorObject::invalid_request(format!("JSON-RPC batches are not supported in {version}")));
                return;
            }
            let mut replies = Vec::new();
            let mut immediate = Vec::new();
            // The frame's charge (its length, within the budget), shared among its items.
            let whole = notes.charge as usize;
            notes.charge(whole, items.len());
            for item in items {
                match item {
                    Err(Rejected { id, error }) => immediate.push(Message::Error { id, error }),
                    Ok(m) if m.method() == Some(methods::INITIALIZE) => immediate.push(Message::Error {
                        id: m.id().cloned(),
                        error: ErrorObject::invalid_request("initialize must not be part of a batch"),
                    }),
                    Ok(m) => replies.extend(route_message(peer, service, notes, m)),
                }
            }
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut out: Vec<Message> = immediate;
                for r in futures::future::join_all(replies).await.into_iter().flatten() {
                    out.push(r.message);
                }
                if !out.is_empty() {
                    // A batch of requests is answered with one array of responses.
                    let ids = out.iter().filter_map(|m| m.id().cloned()).collect();
                    let body = serde_json::to_vec(&out).expect("responses serialize");
                    shared.send_outbound(Outbound { bytes: Bytes::from(body), route: Route::AnswersBatch(ids) });
                }
            });
        }
    }
}

fn send_reply(reply: Option<Reply>) {
    if let Some(r) = reply {
        r.send();
    }
}

/// Routes one message. Requests return the future of their reply; everything else is
/// handled here and now, in arrival order.
fn route_message(
    peer: &Peer,
    service: &Arc<dyn Service>,
    notes: &mut NoteQueue,
    message: Message,
) -> Option<futures::future::BoxFuture<'static, Option<Reply>>> {
    let shared = &peer.shared;
    match message {
        Message::Request { id, method, params } => incoming::dispatch(peer, service, id, method, params),
        Message::Response { id, result } => {
            shared.outgoing.complete(&id, Ok(result));
            None
        }
        Message::Error { id: Some(id), error } => {
            shared.outgoing.complete(&id, Err(crate::Error::from_rpc(error)));
            None
        }
        Message::Error { id: None, error } => {
            tracing::warn!(code = error.code, message = error.message.as_str(), "peer reported an error without an id");
            None
        }
        Message::Notification { method, params } => {
            match method.as_str() {
                methods::CANCELLED => shared.incoming.cancel_from_peer(params.as_ref()),
                methods::PROGRESS => shared.outgoing.progress(params.as_ref()),
                _ => {}
            }
            service.observe_notification(&method, params.as_ref());
            // Progress and cancellation are also offered to the role (e.g. for callbacks).
            notes.push(IncomingNotification { method, params, peer: peer.clone() });
            None
        }
    }
}

/// Delivers notifications to the service one at a time, in order, off the reader task (a
/// slow callback does not stop responses from being read until the notifications behind
/// it fill the budget; a handler that waits for an answer on its own session would then
/// wait until that request times out).
pub(super) async fn notification_loop(mut rx: mpsc::UnboundedReceiver<Queued>, service: Arc<dyn Service>, peer: Peer) {
    let closed = peer.closed_token();
    loop {
        let note = tokio::select! {
            biased;
            n = rx.recv() => n,
            _ = closed.cancelled() => None,
        };
        let Some((note, _budget)) = note else { break };
        service.handle_notification(*note).await;
    }
    service.on_closed(&peer);
}
