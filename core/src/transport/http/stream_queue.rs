//! What waits to go out on one SSE response: a queue whose bytes count against the
//! session's budget ([`StreamBudget`]). A client that stops reading its responses while
//! the server goes on writing to them (progress, logs, results) would otherwise grow the
//! server without bound; past the budget, the stream that received the message is cut:
//! what it queued is dropped at once and its response ends (a resumable stream keeps its
//! events in the event store, for the client's `Last-Event-ID`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::task::AtomicWaker;
use tokio::sync::Notify;

/// The bytes a session's response streams may hold queued, together.
#[derive(Debug)]
pub(crate) struct StreamBudget {
    queued: AtomicUsize,
    limit: usize,
    /// Told when queued bytes are taken or dropped.
    room: Notify,
}

impl StreamBudget {
    pub(crate) fn new(limit: usize) -> Arc<StreamBudget> {
        Arc::new(StreamBudget { queued: AtomicUsize::new(0), limit, room: Notify::new() })
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    fn charge(&self, n: usize) -> bool {
        crate::telemetry::count_queued("response_streams", n as i64);
        self.queued.fetch_add(n, Ordering::SeqCst) + n > self.limit
    }

    fn release(&self, n: usize) {
        crate::telemetry::count_queued("response_streams", -(n as i64));
        self.queued.fetch_sub(n, Ordering::SeqCst);
        self.room.notify_waiters();
    }

    /// Resolves once the queued bytes are within the budget.
    async fn room(&self) {
        loop {
            let freed = self.room.notified();
            if self.queued.load(Ordering::SeqCst) <= self.limit {
                return;
            }
            freed.await;
        }
    }

    /// Bytes queued now.
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }
}

struct Shared {
    state: Mutex<State>,
    budget: Arc<StreamBudget>,
    /// The receiver waiting for a message.
    waker: AtomicWaker,
    /// Senders left; none, and the queue ends once drained.
    senders: AtomicUsize,
    /// Told when the receiver goes.
    receiver_gone: Notify,
}

#[derive(Default)]
struct State {
    frames: VecDeque<Bytes>,
    bytes: usize,
    /// Cut (over the budget) or every sender gone: no more messages.
    ended: bool,
    receiver_gone: bool,
}

/// The writing end (cloneable).
pub(crate) struct QueueSender(Arc<Shared>);

/// The reading end: the response body.
pub(crate) struct QueueReceiver(Arc<Shared>);

/// Why a message was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Nobody reads the stream any more.
    Gone,
    /// Queued, then the stream was cut: the session's streams held more than the budget.
    OverBudget,
}

/// A queue whose bytes count against `budget`.
pub(crate) fn queue(budget: Arc<StreamBudget>) -> (QueueSender, QueueReceiver) {
    let shared = Arc::new(Shared {
        state: Mutex::default(),
        budget,
        waker: AtomicWaker::new(),
        senders: AtomicUsize::new(1),
        receiver_gone: Notify::new(),
    });
    (QueueSender(shared.clone()), QueueReceiver(shared))
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the queue, dropping what it holds.
    fn cut(&self, st: &mut State) {
        st.ended = true;
        st.frames.clear();
        self.budget.release(std::mem::take(&mut st.bytes));
        self.waker.wake();
    }
}

impl QueueSender {
    /// Queues `frame`. A message always goes in; if the session's streams then hold more
    /// than the budget, this stream is cut.
    pub(crate) fn send(&self, frame: Bytes) -> Result<(), Refused> {
        let mut st = self.0.lock();
        if st.ended || st.receiver_gone {
            return Err(Refused::Gone);
        }
        let n = frame.len();
        st.frames.push_back(frame);
        st.bytes += n;
        let over = self.0.budget.charge(n);
        if over && st.frames.len() > 1 {
            // Something was already waiting: the client is behind, not just handed a
            // large message.
            self.0.cut(&mut st);
            return Err(Refused::OverBudget);
        }
        drop(st);
        self.0.waker.wake();
        Ok(())
    }

    /// Queues `frame` whatever the budget holds (what is already in memory: a replay of
    /// stored events); its bytes count until read.
    pub(crate) fn push(&self, frame: Bytes) -> Result<(), Refused> {
        let mut st = self.0.lock();
        if st.ended || st.receiver_gone {
            return Err(Refused::Gone);
        }
        st.bytes += frame.len();
        self.0.budget.charge(frame.len());
        st.frames.push_back(frame);
        drop(st);
        self.0.waker.wake();
        Ok(())
    }

    /// Resolves once the budget has room, or the receiver is gone: for a writer that
    /// paces itself (a reader of a shared log reads on only when its client keeps up).
    pub(crate) async fn room(&self) {
        tokio::select! {
            _ = self.0.budget.room() => {}
            _ = self.closed() => {}
        }
    }

    /// Resolves once the receiver is gone.
    pub(crate) async fn closed(&self) {
        loop {
            let gone = self.0.receiver_gone.notified();
            if self.0.lock().receiver_gone {
                return;
            }
            gone.await;
        }
    }
}

impl Clone for QueueSender {
    fn clone(&self) -> Self {
        self.0.senders.fetch_add(1, Ordering::SeqCst);
        QueueSender(self.0.clone())
    }
}

impl Drop for QueueSender {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.lock().ended = true;
            self.0.waker.wake();
        }
    }
}

impl QueueReceiver {
    /// The next message; `None` once the queue ended and is drained.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(frame) = self.try_recv() {
            return Poll::Ready(Some(frame));
        }
        self.0.waker.register(cx.waker());
        match self.try_recv() {
            Some(frame) => Poll::Ready(Some(frame)),
            None if self.0.lock().ended => Poll::Ready(None),
            None => Poll::Pending,
        }
    }

    /// The next message, if one waits.
    pub(crate) fn try_recv(&mut self) -> Option<Bytes> {
        let mut st = self.0.lock();
        let frame = st.frames.pop_front()?;
        st.bytes -= frame.len();
        self.0.budget.release(frame.len());
        Some(frame)
    }

    /// The next message; `None` once the queue ended and is drained.
    pub(crate) async fn recv(&mut self) -> Option<Bytes> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }
}

impl Drop for QueueReceiver {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.receiver_gone = true;
        self.0.cut(&mut st);
        drop(st);
        self.0.receiver_gone.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stream_behind_its_budget_is_cut_and_its_bytes_given_back() {
        let budget = StreamBudget::new(100);
        let (reading, mut read) = queue(budget.clone());
        let (stuck, _unread) = queue(budget.clone());
        // One message larger than the budget goes in when nothing waits before it.
        assert_eq!(stuck.send(Bytes::from(vec![0; 150])), Ok(()));
        assert_eq!(stuck.send(Bytes::from_static(b"more")), Err(Refused::OverBudget));
        assert_eq!(budget.queued(), 0, "what the cut stream held is dropped at once");
        assert_eq!(stuck.send(Bytes::from_static(b"x")), Err(Refused::Gone));
        // A stream that is read goes on.
        for _ in 0..10 {
            reading.send(Bytes::from(vec![1; 60])).unwrap();
            assert_eq!(read.recv().await.unwrap().len(), 60);
        }
        drop(reading);
        assert_eq!(read.recv().await, None);
        assert_eq!(budget.queued(), 0);
    }

    #[tokio::test]
    async fn a_sender_learns_when_the_reader_goes() {
        let (tx, rx) = queue(StreamBudget::new(10));
        let waiting = tokio::spawn({
            let tx = tx.clone();
            async move { tx.closed().await }
        });
        tx.send(Bytes::from_static(b"abc")).unwrap();
        drop(rx);
        waiting.await.unwrap();
        assert_eq!(tx.send(Bytes::from_static(b"x")), Err(Refused::Gone));
    }
}
