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
pub(super) type Queued = (Box<IncomingNotification>, OwnedSemaphorePermit);

/// The queue between the reader and [`notification_loop`]: its length is bounded by the
/// byte budget ([`SessionConfig::max_queued_notification_bytes`]), which the reader waits
/// for, not by the channel.
///
/// [`SessionConfig::max_queued_notification_bytes`]: super::SessionConfig::max_queued_notification_bytes
pub(super) struct NoteQueue {
    tx: mpsc::UnboundedSender<Queued>,
    budget: Arc<Semaphore>,
    size: u32,
}

pub(super) fn notification_queue(config: &super::SessionConfig) -> (NoteQueue, mpsc::UnboundedReceiver<Queued>) {
    let (tx, rx) = mpsc::unbounded_channel();
    // A notification is charged its share of the frame it came in, at least this much:
    // what it costs beyond its bytes (its parsed tree, its box).
    let size = config.max_queued_notification_bytes.clamp(MIN_CHARGE, u32::MAX as usize) as u32;
    (NoteQueue { tx, budget: Arc::new(Semaphore::new(size as usize)), size }, rx)
}

/// The least a notification is charged, whatever its share of its frame.
const MIN_CHARGE: usize = 256;

impl NoteQueue {
    /// Queues `notes` (the notifications of one frame of `frame_len` bytes), first waiting
    /// until the budget has room for each. `false` when the session closed meanwhile.
    async fn push(
        &self,
        notes: Vec<IncomingNotification>,
        frame_len: usize,
        closed: &tokio_util::sync::CancellationToken,
    ) -> bool {
        let share = (frame_len / notes.len().max(1)).max(MIN_CHARGE);
        let charge = share.min(self.size as usize) as u32;
        for note in notes {
            let permit = match self.budget.clone().try_acquire_many_owned(charge) {
                Ok(p) => p,
                // The handler is behind: read nothing more until it has caught up.
                Err(_) => tokio::select! {
                    biased;
                    _ = closed.cancelled() => return false,
                    p = self.budget.clone().acquire_many_owned(charge) => match p {
                        Ok(p) => p,
                        Err(_) => return false, // never closed
                    },
                },
            };
            let _ = self.tx.send((Box::new(note), permit));
        }
        true
    }
}

/// Reads frames and routes them until the transport ends or the session closes.
pub(super) async fn read_loop<R: MessageReader>(mut reader: R, peer: Peer, service: Arc<dyn Service>, notes: NoteQueue) {
    let shared = peer.shared.clone();
    let mut routed = Vec::new();
    loop {
        let inbound = tokio::select! {
            biased;
            _ = shared.closed.cancelled() => break,
            f = reader.recv_inbound() => f,
        };
        let frame_len = match &inbound {
            Ok(Inbound::Bytes(bytes) | Inbound::Parsed { bytes, .. }) => bytes.len(),
            _ => 0,
        };
        // In a scope: a handler this message wakes (a cancel reaching the future that waits
        // for it) goes on here and now, not after a wake-up of another runtime thread.
        let ended = crate::drive::scope(|| {
            match inbound {
                Ok(Inbound::Bytes(bytes)) => route_frame(&peer, &service, &mut routed, Message::parse(&bytes)),
                Ok(Inbound::Parsed { frame, .. }) => route_frame(&peer, &service, &mut routed, Ok(frame)),
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
        if !routed.is_empty() && !notes.push(std::mem::take(&mut routed), frame_len, &shared.closed).await {
            break;
        }
        if ended {
            break;
        }
    }
}

fn route_frame(peer: &Peer, service: &Arc<dyn Service>, notes: &mut Vec<IncomingNotification>, frame: Result<Frame, Rejected>) {
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
    notes: &mut Vec<IncomingNotification>,
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
/// slow callback must not stop responses from being read).
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
