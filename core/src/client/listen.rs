//! The client's `subscriptions/listen` stream (stateless era, 2026-07-28).
//!
//! Servers of that era push nothing on their own: list changes and resource updates come
//! only on a listen request the client keeps open. So that `Client::subscribe` and the
//! notification callback behave as in the session era, the client keeps at most one such
//! stream, asking for the union of what it needs: the list changes the server advertises
//! (when the client has a notification callback) and the resources it subscribed to.
//!
//! Changing that set opens a new stream and waits for the server's acknowledgement before
//! closing the old one, so an update is never missed between the two (at worst it comes
//! twice); updates of a resource the client no longer subscribes to are dropped. The
//! acknowledgement is consumed here; the callback sees only the changes.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::inbox::Inbox;
use super::stateless::Stateless;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, ServerCapabilities, SubscriptionFilter};
use crate::session::{Peer, RequestOptions};

/// How long the server may take to acknowledge a listen request.
const ACK_TIMEOUT: Duration = Duration::from_secs(30);
/// A listen request lasts as long as the client wants it: no inactivity timeout (a year
/// stands in for "never", as an `Instant` cannot hold infinity).
const FOREVER: Duration = Duration::from_secs(365 * 24 * 3600);

/// What the stream asks for.
#[derive(Clone, Default, PartialEq)]
struct Wanted {
    list_changes: [bool; 3], // tools, prompts, resources
    uris: BTreeSet<String>,
}

impl Wanted {
    fn filter(&self) -> Option<SubscriptionFilter> {
        let flag = |on: bool| on.then_some(true);
        let [tools, prompts, resources] = self.list_changes;
        if !(tools || prompts || resources || !self.uris.is_empty()) {
            return None;
        }
        Some(SubscriptionFilter {
            tools_list_changed: flag(tools),
            prompts_list_changed: flag(prompts),
            resources_list_changed: flag(resources),
            resource_subscriptions: (!self.uris.is_empty()).then(|| self.uris.iter().cloned().collect()),
            task_ids: None,
            extra: Default::default(),
        })
    }
}

/// One client's listen stream.
pub(crate) struct Listen {
    inbox: Arc<Inbox>,
    /// What the open stream asked for, the token that closes it and what the server
    /// acknowledged. An async lock: one change at a time, held across the wait for the
    /// acknowledgement.
    open: tokio::sync::Mutex<(Wanted, Option<Stream>)>,
    /// Listen requests not yet ended (two for a moment while one replaces the other).
    streams: Arc<AtomicUsize>,
}

/// An open listen request.
struct Stream {
    /// Closes it.
    close: CancellationToken,
    /// Ends when the request has ended (its pending entry is gone).
    ended: tokio::task::JoinHandle<()>,
    /// What the server acknowledged.
    honoured: SubscriptionFilter,
}

impl Stream {
    /// Closes the stream and waits until its request has ended here, so a caller that
    /// replaced or dropped it sees nothing of it afterwards.
    async fn end(self) {
        self.close.cancel();
        let _ = self.ended.await;
    }
}

impl Listen {
    pub(crate) fn new(inbox: Arc<Inbox>) -> Self {
        Self { inbox, open: Default::default(), streams: Arc::default() }
    }

    /// Opens the stream for the list changes `caps` advertises.
    pub(crate) async fn list_changes(&self, peer: &Peer, s: &Arc<Stateless>, caps: &ServerCapabilities) -> Result<()> {
        let on = |c: Option<Option<bool>>| c.flatten() == Some(true);
        let list_changes = [
            on(caps.tools.as_ref().map(|c| c.list_changed)),
            on(caps.prompts.as_ref().map(|c| c.list_changed)),
            on(caps.resources.as_ref().map(|c| c.list_changed)),
        ];
        self.change(peer, s, |w| w.list_changes = list_changes).await.map(drop)
    }

    /// Adds `uri` to the stream; fails when the server does not take it.
    pub(crate) async fn subscribe(&self, peer: &Peer, s: &Arc<Stateless>, uri: &str) -> Result<()> {
        let honoured = self
            .change(peer, s, |w| {
                w.uris.insert(uri.to_string());
            })
            .await?;
        let taken = honoured.and_then(|f| f.resource_subscriptions).is_some_and(|uris| uris.iter().any(|u| u == uri));
        if taken {
            return Ok(());
        }
        // Keep the stream as it was: the server would not send these updates anyway.
        self.change(peer, s, |w| {
            w.uris.remove(uri);
        })
        .await?;
        Err(Error::new(ErrorKind::CapabilityMissing, format!("the server does not take a subscription to {uri}")))
    }

    /// Removes `uri` from the stream (closing it when nothing is left to listen to).
    pub(crate) async fn unsubscribe(&self, peer: &Peer, s: &Arc<Stateless>, uri: &str) -> Result<()> {
        self.change(peer, s, |w| {
            w.uris.remove(uri);
        })
        .await
        .map(drop)
    }

    /// How many of the session's pending requests are listen streams.
    pub(crate) fn open_streams(&self) -> usize {
        self.streams.load(Ordering::Relaxed)
    }

    /// Closes the stream.
    pub(crate) fn close(&self) {
        if let Ok(mut open) = self.open.try_lock() {
            if let Some(stream) = open.1.take() {
                stream.close.cancel();
            }
        }
    }

    /// Applies `edit` and replaces the stream when what it asks for changed. Returns the
    /// filter the server acknowledged (`None` when no stream is open).
    async fn change(
        &self,
        peer: &Peer,
        s: &Arc<Stateless>,
        edit: impl FnOnce(&mut Wanted),
    ) -> Result<Option<SubscriptionFilter>> {
        let mut open = self.open.lock().await;
        let mut wanted = open.0.clone();
        edit(&mut wanted);
        // A stream the server ended is reopened even when nothing changed.
        if let (true, Some(stream)) = (wanted == open.0, &open.1) {
            if !stream.ended.is_finished() {
                return Ok(Some(stream.honoured.clone()));
            }
        }
        // Updates of an added resource may come as soon as the server acknowledges; those
        // of a removed one must stop now. Restored if the new stream fails.
        self.inbox.set_subscribed(&wanted.uris);
        let Some(filter) = wanted.filter() else {
            if let Some(old) = open.1.take() {
                old.end().await;
            }
            open.0 = wanted;
            return Ok(None);
        };
        let stream = match self.start(peer, s, &filter).await {
            Ok(stream) => stream,
            Err(e) => {
                self.inbox.set_subscribed(&open.0.uris);
                return Err(e);
            }
        };
        let honoured = stream.honoured.clone();
        if let Some(old) = open.1.replace(stream) {
            old.end().await;
        }
        open.0 = wanted;
        Ok(Some(honoured))
    }

    /// Sends a listen request and waits for its acknowledgement.
    async fn start(&self, peer: &Peer, s: &Arc<Stateless>, filter: &SubscriptionFilter) -> Result<Stream> {
        let acked = self.inbox.next_ack();
        let token = CancellationToken::new();
        let options = RequestOptions::default().timeout(FOREVER).max_timeout(FOREVER).cancel_token(token.clone());
        let params = json!({ "notifications": filter });
        let (peer, s, streams) = (peer.clone(), s.clone(), self.streams.clone());
        streams.fetch_add(1, Ordering::Relaxed);
        let mut stream = tokio::spawn(async move {
            let ended = s.request(&peer, methods::SUBSCRIPTIONS_LISTEN, Some(params), options).await;
            streams.fetch_sub(1, Ordering::Relaxed);
            ended
        });
        let ack = tokio::select! {
            ack = acked => ack.ok(),
            ended = &mut stream => {
                let why = match ended {
                    Ok(Err(e)) => e,
                    Ok(Ok(_)) => Error::new(ErrorKind::Protocol, "the server answered subscriptions/listen without acknowledging it"),
                    Err(e) => Error::new(ErrorKind::Protocol, format!("the listen task failed: {e}")),
                };
                return Err(why);
            }
            _ = tokio::time::sleep(ACK_TIMEOUT) => None,
        };
        let Some(ack) = ack else {
            token.cancel();
            return Err(Error::new(
                ErrorKind::Timeout,
                format!("subscriptions/listen was not acknowledged within {ACK_TIMEOUT:?}"),
            ));
        };
        let honoured = match serde_json::from_value(ack.get("notifications").cloned().unwrap_or_default()) {
            Ok(h) => h,
            Err(e) => {
                token.cancel();
                return Err(Error::new(ErrorKind::Protocol, format!("malformed subscriptions/listen acknowledgement: {e}")));
            }
        };
        // The stream now runs on its own until cancelled or ended by the server.
        let ended = tokio::spawn(async move {
            match stream.await {
                Ok(Err(e)) if e.kind() != ErrorKind::Cancelled && e.kind() != ErrorKind::Closed => {
                    tracing::warn!("the subscriptions/listen stream failed: {e}")
                }
                Ok(Ok(_)) => tracing::debug!("the server ended the subscriptions/listen stream"),
                _ => {}
            }
        });
        Ok(Stream { close: token, ended, honoured })
    }
}
