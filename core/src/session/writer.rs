//! The way out: a message goes to the transport straight from the sender's thread when the
//! transport is idle and nothing is queued ahead of it (no hop to another task), else
//! through the writer task's queue, which writes bursts and waits when the transport does.

use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::shared::{Queued, Shared};
use crate::protocol::RequestId;
use crate::transport::{MessageWriter, Outbound, Route, SendNow};

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

/// The transport's writer while the writer task does not hold it.
struct Slot<W> {
    /// `None` while the writer task writes with it, and for good once it closed.
    writer: Option<W>,
    /// The request whose notification was written last, alone (see `writes_alone`).
    last_alone: Option<RequestId>,
}

/// Where the writer waits between bursts, and the count of queued messages not yet
/// written: a message may skip the queue only when that count is zero, so messages from
/// one sender never overtake each other.
pub(super) struct Desk<W> {
    slot: Mutex<Slot<W>>,
    queued: AtomicUsize,
    /// The bytes of the queued messages.
    queued_bytes: AtomicUsize,
    /// When the writer last began or finished a burst (milliseconds since `born`): a
    /// peer that reads, however slowly, lets it finish one now and then.
    progressed: AtomicU64,
    born: Instant,
}

impl<W> Desk<W> {
    fn stamp(&self) {
        self.progressed.store(self.born.elapsed().as_millis() as u64, Ordering::Release);
    }
}

/// What [`Outbox`] needs of a [`Desk`], whatever the transport.
trait DirectWrite: Send + Sync {
    fn try_write(&self, queued: &Queued) -> SendNow;
    fn queued(&self) -> &AtomicUsize;
    fn queued_bytes(&self) -> &AtomicUsize;
    /// How long since the writer last began or finished a burst.
    fn stalled_for(&self) -> Duration;
}

impl<W: MessageWriter> DirectWrite for Desk<W> {
    fn try_write(&self, queued: &Queued) -> SendNow {
        if writes_alone(queued) || tokio::runtime::Handle::try_current().is_err() {
            // Alone-written messages keep the writer task's pacing; a thread outside the
            // runtime must not make a transport spawn work.
            return SendNow::NotNow;
        }
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if self.queued.load(Ordering::Acquire) != 0 || slot.last_alone.is_some() {
            return SendNow::NotNow;
        }
        match slot.writer.as_mut() {
            Some(writer) => writer.try_send_now(&queued.message),
            None => SendNow::NotNow,
        }
    }
    fn queued(&self) -> &AtomicUsize {
        &self.queued
    }
    fn queued_bytes(&self) -> &AtomicUsize {
        &self.queued_bytes
    }
    fn stalled_for(&self) -> Duration {
        let last = Duration::from_millis(self.progressed.load(Ordering::Acquire));
        self.born.elapsed().saturating_sub(last)
    }
}

impl<W> Desk<W> {
    fn take(&self) -> (Option<W>, Option<RequestId>) {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        (slot.writer.take(), slot.last_alone.take())
    }
    fn put_back(&self, writer: W, last_alone: Option<RequestId>, written: usize) {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        slot.writer = Some(writer);
        slot.last_alone = last_alone;
        self.queued.fetch_sub(written, Ordering::Release);
    }
}

/// The session's way out, shared by every sender.
pub(super) struct Outbox {
    queue: mpsc::UnboundedSender<Box<Queued>>,
    desk: Arc<dyn DirectWrite>,
    /// The most bytes that may wait for the transport.
    max_bytes: usize,
}

/// Why a message was not taken.
pub(super) enum Refused {
    /// The writer task has ended.
    Closed,
    /// More than the outbox's bytes wait for a peer that has read nothing for
    /// [`WRITE_GRACE`], or four times as many for any peer: the session must close.
    Unread {
        /// The bytes waiting.
        waiting: usize,
        /// Whether the peer reads at all (it is only too slow).
        reading: bool,
    },
}

impl Outbox {
    /// The outbox over `writer` (at most `max_bytes` queued), and what the writer task needs.
    pub(super) fn new<W: MessageWriter>(
        writer: W,
        max_bytes: usize,
    ) -> (Outbox, Arc<Desk<W>>, mpsc::UnboundedReceiver<Box<Queued>>) {
        let (queue, rx) = mpsc::unbounded_channel();
        let desk = Arc::new(Desk {
            slot: Mutex::new(Slot { writer: Some(writer), last_alone: None }),
            queued: AtomicUsize::new(0),
            queued_bytes: AtomicUsize::new(0),
            progressed: AtomicU64::new(0),
            born: Instant::now(),
        });
        (Outbox { queue, desk: desk.clone(), max_bytes }, desk, rx)
    }

    /// Writes `queued` now or queues it. Fails once the writer task has ended, and when
    /// the peer leaves too much unread (see [`Refused::Unread`]); a message finding
    /// nothing ahead of it is always taken, however large.
    pub(super) fn send(&self, queued: Queued) -> Result<(), Refused> {
        let queued = match self.desk.try_write(&queued) {
            SendNow::Written => return Ok(()),
            // The rest waits in the writer's buffer: an empty message makes the task flush it.
            SendNow::Buffered => Queued::from(Outbound { bytes: Bytes::new(), route: Route::Unrelated }),
            SendNow::NotNow => queued,
        };
        let size = queued.message.bytes.len();
        let ahead = self.desk.queued_bytes().fetch_add(size, Ordering::AcqRel);
        if ahead > self.max_bytes {
            let reading = self.desk.stalled_for() < WRITE_GRACE;
            if !reading || ahead > self.max_bytes.saturating_mul(4) {
                self.desk.queued_bytes().fetch_sub(size, Ordering::AcqRel);
                return Err(Refused::Unread { waiting: ahead, reading });
            }
        }
        self.desk.queued().fetch_add(1, Ordering::AcqRel);
        // Boxed: an unbounded channel allocates 32 slots up front, per session.
        self.queue.send(Box::new(queued)).map_err(|_| {
            self.desk.queued().fetch_sub(1, Ordering::AcqRel);
            self.desk.queued_bytes().fetch_sub(size, Ordering::AcqRel);
            Refused::Closed
        })
    }
}

/// How long the writer goes on once the session has closed: for a write the peer is not
/// reading, and for what is still queued. Then the transport is let go as it is.
const WRITE_GRACE: Duration = Duration::from_secs(5);

/// When the session has been closed for [`WRITE_GRACE`]: one deadline for every write
/// after the close, set by the first that waits for it.
struct Grace {
    closed: tokio_util::sync::CancellationToken,
    deadline: std::sync::OnceLock<tokio::time::Instant>,
}

impl Grace {
    async fn past(&self) {
        self.closed.cancelled().await;
        let deadline = *self.deadline.get_or_init(|| tokio::time::Instant::now() + WRITE_GRACE);
        tokio::time::sleep_until(deadline).await;
    }
}

/// What a write that ran out of [`WRITE_GRACE`] fails with.
#[derive(Debug)]
struct Unread;

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the peer read nothing for {WRITE_GRACE:?} after the session closed")
    }
}

impl std::error::Error for Unread {}

fn is_unread(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Unread>())
}

/// Runs one write, giving up once the session has been closed for [`WRITE_GRACE`].
async fn within_grace(write: impl std::future::Future<Output = io::Result<()>>, grace: &Grace) -> io::Result<()> {
    tokio::select! {
        // Written at once (the usual case): the grace is not even looked at.
        biased;
        r = write => r,
        _ = grace.past() => Err(io::Error::other(Unread)),
    }
}

/// Hands one message to the transport, with its kind when the session knows it, and
/// takes its bytes off the queue's count. Gives up once the session has been closed for
/// [`WRITE_GRACE`]: a peer that reads nothing must not hold the writer for ever.
async fn send<W: MessageWriter>(writer: &mut W, queued: Box<Queued>, desk: &Desk<W>, grace: &Grace) -> io::Result<()> {
    let queued = *queued;
    desk.queued_bytes.fetch_sub(queued.message.bytes.len(), Ordering::AcqRel);
    let write = async {
        match queued.kind {
            Some(kind) => writer.send_kind(queued.message, kind).await,
            None => writer.send(queued.message).await,
        }
    };
    within_grace(write, grace).await
}

/// Writes queued messages, flushing once per burst, until the session closes; then
/// writes what is still queued (final responses, cancellation notices) and closes the
/// transport. A peer that reads nothing gets [`WRITE_GRACE`] from the close for all of
/// that; then the transport is dropped as it is instead.
pub(super) async fn write_loop<W: MessageWriter>(
    desk: Arc<Desk<W>>,
    mut rx: mpsc::UnboundedReceiver<Box<Queued>>,
    shared: Arc<Shared>,
) {
    const BURST: usize = 512;
    let closed = shared.closed.clone();
    let grace = Grace { closed: closed.clone(), deadline: std::sync::OnceLock::new() };
    let mut failed: Option<W> = None;
    // A write the peer never read: nothing more can go out, and a polite close (which
    // flushes first) would wait as long.
    let mut stuck = false;
    loop {
        let first = tokio::select! {
            biased;
            m = rx.recv() => m,
            _ = closed.cancelled() => None,
        };
        let Some(first) = first else { break };
        let (Some(mut writer), mut last_alone) = desk.take() else { break };
        desk.stamp(); // a burst begins: a stall is counted from here
        if let (Some(during), Route::Answers(id)) = (&last_alone, &first.message.route) {
            if during == id {
                // The answer right behind its request's last notification: give the peer a
                // moment to read that notification on its own (see `writes_alone`).
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        let mut alone = writes_alone(&first);
        last_alone = if alone { during_of(&first) } else { None };
        let mut result = send(&mut writer, first, &desk, &grace).await;
        let mut written = 1;
        for _ in 0..BURST {
            if result.is_err() || alone {
                break;
            }
            match rx.try_recv() {
                Ok(m) => {
                    alone = writes_alone(&m);
                    last_alone = if alone { during_of(&m) } else { None };
                    result = send(&mut writer, m, &desk, &grace).await;
                    written += 1;
                }
                Err(_) => break,
            }
        }
        let flushed = match result {
            Ok(()) => within_grace(writer.flush(), &grace).await,
            Err(e) => Err(e),
        };
        if let Err(e) = flushed {
            // A failed write usually means the peer is gone; its read side then knows
            // more (a child's exit status and stderr). Let that reason win if it comes soon.
            let _ = tokio::time::timeout(Duration::from_secs(5), closed.cancelled()).await;
            shared.close(format!("writing to the transport failed: {e}"));
            stuck = is_unread(&e);
            failed = Some(writer);
            break;
        }
        desk.stamp();
        desk.put_back(writer, last_alone, written);
    }
    // From here on nothing is written directly: the writer leaves the desk for good.
    let Some(mut writer) = failed.or_else(|| desk.take().0) else { return };
    if !stuck {
        let drained = tokio::time::timeout(WRITE_GRACE, async {
            while let Ok(m) = rx.try_recv() {
                send(&mut writer, m, &desk, &grace).await?;
            }
            writer.flush().await
        })
        .await;
        stuck = match drained {
            Ok(Err(e)) => is_unread(&e),
            Ok(Ok(())) => false,
            Err(_) => true,
        };
    }
    if stuck {
        // The transport is dropped as it is (a child process is killed).
        tracing::debug!("the peer stopped reading; its transport is dropped");
        return;
    }
    writer.close().await;
}
