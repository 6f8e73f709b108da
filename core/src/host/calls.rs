//! The pending host-call table: every invocation of a host function (a tool handler in
//! Python, a sampling callback in C...) gets a call id here, a cancellation token and a
//! one-shot reply. The host answers by id from any thread; the engine waits for that answer
//! or the peer's cancel, and the entry is gone once the engine stops waiting, whatever the
//! mix of outcomes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};
use crate::server::RequestContext;

/// A host call's id: unique per table, never 0, never reused.
pub type CallId = u64;

/// What a host call ends with: its result as JSON text, or an error.
pub type Outcome = Result<String>;

/// Run by the table when the peer cancels a call (at most once, never after completion).
pub type OnCancel = Box<dyn FnOnce() + Send>;

struct Entry {
    reply: Option<oneshot::Sender<Outcome>>,
    cancel: CancellationToken,
    ctx: Option<RequestContext>,
    on_cancel: Option<OnCancel>,
    /// The engine saw the cancel: a canceller registered from now on runs at once.
    cancel_seen: bool,
    /// Run when the entry leaves the table, however the call ended.
    on_end: Vec<OnCancel>,
}

/// The calls a host is working on. Shared by a staged server's handlers or a client's
/// callbacks; see the module docs.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use oxmcp::host::HostCalls;
/// use tokio_util::sync::CancellationToken;
///
/// # #[tokio::main] async fn main() {
/// let calls = HostCalls::new(Duration::from_secs(2));
/// let table = calls.clone();
/// // The "host" answers from elsewhere, by id.
/// let out = calls
///     .run(CancellationToken::new(), None, move |id| {
///         std::thread::spawn(move || table.complete(id, Ok("{\"ok\":true}".into())));
///         true
///     })
///     .await;
/// assert_eq!(out.unwrap(), "{\"ok\":true}");
/// assert_eq!(calls.len(), 0);
/// # }
/// ```
pub struct HostCalls {
    entries: Mutex<HashMap<CallId, Entry>>,
    next: AtomicU64,
    grace: Duration,
}

/// Removes a call's entry however its future ends (answered, cancelled, or dropped).
struct Forget<'a>(&'a HostCalls, CallId);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let entry = self.0.lock().remove(&self.1);
        for f in entry.map(|e| e.on_end).unwrap_or_default() {
            f();
        }
    }
}

impl HostCalls {
    /// An empty table. `grace` is how long a cancelled host call may take to settle before
    /// the engine moves on: pass the session's
    /// [`cancelled_handler_grace`](crate::session::SessionConfig::cancelled_handler_grace).
    pub fn new(grace: Duration) -> Arc<Self> {
        Arc::new(Self { entries: Mutex::new(HashMap::new()), next: AtomicU64::new(1), grace })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<CallId, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs one host call: files it, lets `start` hand the id to the host (`false` when the
    /// host is gone), then waits for [`complete`](Self::complete). When `cancel` fires first
    /// the host's canceller runs and the call gets the grace period to settle; the outcome
    /// is then [`ErrorKind::Cancelled`] whatever it says. A call whose `cancel` fired before
    /// it runs is not handed to the host at all.
    pub async fn run(
        &self,
        cancel: CancellationToken,
        ctx: Option<RequestContext>,
        start: impl FnOnce(CallId) -> bool,
    ) -> Outcome {
        if cancel.is_cancelled() {
            // Cancelled while queued (a task cancelled as soon as it was made): a handler
            // started now would only find its cancellation already there, which some hosts
            // cannot tell it (an AbortSignal already aborted fires no event).
            return Err(Error::new(ErrorKind::Cancelled, "cancelled by the peer"));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, mut rx) = oneshot::channel();
        let entry =
            Entry { reply: Some(tx), cancel: cancel.clone(), ctx, on_cancel: None, cancel_seen: false, on_end: Vec::new() };
        self.lock().insert(id, entry);
        let _forget = Forget(self, id);
        if !start(id) {
            return Err(Error::new(ErrorKind::Closed, "the host is gone"));
        }
        tokio::select! {
            biased;
            r = &mut rx => return r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the host call vanished"))),
            _ = cancel.cancelled() => {}
        }
        let on_cancel = self.lock().get_mut(&id).and_then(|e| {
            e.cancel_seen = true;
            e.on_cancel.take()
        });
        if let Some(f) = on_cancel {
            f();
        }
        let _ = tokio::time::timeout(self.grace, &mut rx).await;
        Err(Error::new(ErrorKind::Cancelled, "cancelled by the peer"))
    }

    /// Answers call `id`. Returns `false` if it was already answered or is no longer
    /// waited for (the answer is then dropped): exactly one answer ever counts.
    pub fn complete(&self, id: CallId, outcome: Outcome) -> bool {
        let reply = self.lock().get_mut(&id).and_then(|e| {
            e.on_cancel = None;
            e.reply.take()
        });
        // The engine's future waiting for this answer goes on here, on the host's thread
        // (it writes the response itself), instead of waking a runtime thread for it; what
        // that wakes in turn (a request queued behind the concurrency limit, which would
        // call the host's handler from inside this call) goes to its home.
        crate::drive::scope_once(|| reply.is_some_and(|tx| tx.send(outcome).is_ok()))
    }

    /// Whether call `id` is waiting for its answer.
    pub fn is_open(&self, id: CallId) -> bool {
        self.lock().get(&id).is_some_and(|e| e.reply.is_some())
    }

    /// Registers what tells the host that the peer cancelled call `id`. Runs `f` now if the
    /// cancel was already seen; never once the call is answered or gone. One per call: a
    /// later registration replaces an earlier one that has not run.
    pub fn on_cancel(&self, id: CallId, f: impl FnOnce() + Send + 'static) {
        let run_now = {
            let mut entries = self.lock();
            match entries.get_mut(&id) {
                Some(e) if e.reply.is_some() => {
                    if e.cancel_seen {
                        true
                    } else {
                        e.on_cancel = Some(Box::new(f));
                        return;
                    }
                }
                _ => return,
            }
        };
        if run_now {
            f();
        }
    }

    /// Runs `f` once call `id` leaves the table, however it ended (answered, cancelled,
    /// abandoned): the place to forget what a host filed under the call. Runs now if the
    /// call is already gone.
    pub fn on_end(&self, id: CallId, f: impl FnOnce() + Send + 'static) {
        {
            let mut entries = self.lock();
            if let Some(e) = entries.get_mut(&id) {
                e.on_end.push(Box::new(f));
                return;
            }
        }
        f();
    }

    /// Whether the peer cancelled call `id` (false once it is gone).
    pub fn is_cancelled(&self, id: CallId) -> bool {
        self.lock().get(&id).is_some_and(|e| e.cancel.is_cancelled())
    }

    /// Call `id`'s request context (server handlers only), while the call is open.
    pub fn context(&self, id: CallId) -> Result<RequestContext> {
        self.lock()
            .get(&id)
            .filter(|e| e.reply.is_some())
            .and_then(|e| e.ctx.clone())
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "this request has already completed"))
    }

    /// How many calls are filed (for leak checks).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no call is filed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether no call is filed, without waiting: `None` while another thread holds the
    /// table.
    pub fn try_is_empty(&self) -> Option<bool> {
        match self.entries.try_lock() {
            Ok(entries) => Some(entries.is_empty()),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner().is_empty()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A small deterministic generator (xorshift), so a failure replays from its seed.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Any mix of answers, errors, double answers, cancels before and after the host
    /// registers its canceller, late answers, hosts that are gone and futures dropped
    /// mid-wait leaves nothing in the table, answers each call exactly once, and runs a
    /// canceller only for calls that were cancelled and not answered first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn any_mix_of_outcomes_leaves_the_table_empty() {
        for seed in 1..=40u64 {
            let calls = HostCalls::new(Duration::from_millis(20));
            let cancellers_run = Arc::new(AtomicUsize::new(0));
            let ends = Arc::new(AtomicUsize::new(0));
            // Counted when the host is handed the call: a future aborted before its first
            // poll never starts one.
            let started = Arc::new(AtomicUsize::new(0));
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut tasks = Vec::new();
            let mut expect_cancelled = 0usize;
            for _ in 0..200 {
                let plan = rng.below(7);
                let delay = Duration::from_micros(rng.below(3000));
                let (calls2, ran, ends, started) = (calls.clone(), cancellers_run.clone(), ends.clone(), started.clone());
                let cancel = CancellationToken::new();
                if plan == 2 || plan == 3 {
                    expect_cancelled += 1;
                }
                let task = tokio::spawn({
                    let cancel = cancel.clone();
                    async move {
                        let host = calls2.clone();
                        calls2
                            .run(cancel.clone(), None, move |id| {
                                if plan == 6 {
                                    return false; // the host is gone
                                }
                                started.fetch_add(1, Ordering::SeqCst);
                                let ended = ends.clone();
                                host.on_end(id, move || {
                                    ended.fetch_add(1, Ordering::SeqCst);
                                });
                                tokio::spawn(async move {
                                    match plan {
                                        // answered (twice: the second must not count)
                                        0 => {
                                            tokio::time::sleep(delay).await;
                                            assert!(host.complete(id, Ok("1".into())));
                                            assert!(!host.complete(id, Ok("2".into())));
                                        }
                                        // failed
                                        1 => {
                                            tokio::time::sleep(delay).await;
                                            host.complete(id, Err(Error::new(ErrorKind::Handler, "no")));
                                        }
                                        // cancelled; the host settles after its canceller ran
                                        2 => {
                                            let (h, r) = (host.clone(), ran.clone());
                                            host.on_cancel(id, move || {
                                                r.fetch_add(1, Ordering::SeqCst);
                                                h.complete(id, Ok("late".into()));
                                            });
                                            cancel.cancel();
                                        }
                                        // cancelled before the canceller is registered; the host never answers
                                        3 => {
                                            cancel.cancel();
                                            tokio::time::sleep(delay).await;
                                            let r = ran.clone();
                                            host.on_cancel(id, move || {
                                                r.fetch_add(1, Ordering::SeqCst);
                                            });
                                        }
                                        // answered, then a canceller registered and a cancel: neither counts
                                        4 => {
                                            host.complete(id, Ok("3".into()));
                                            host.on_cancel(id, || panic!("a canceller ran after the answer"));
                                            cancel.cancel();
                                        }
                                        // never answered: the caller gives up (the future is dropped)
                                        _ => {}
                                    }
                                });
                                true
                            })
                            .await
                    }
                });
                tasks.push((plan, task));
            }
            for (plan, task) in tasks {
                let out = if plan == 5 {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    task.abort();
                    continue;
                } else {
                    task.await.unwrap()
                };
                match plan {
                    0 => assert_eq!(out.unwrap(), "1"),
                    1 => assert_eq!(out.unwrap_err().kind(), ErrorKind::Handler),
                    2 | 3 => assert_eq!(out.unwrap_err().kind(), ErrorKind::Cancelled),
                    4 => assert_eq!(out.unwrap(), "3"),
                    _ => assert_eq!(out.unwrap_err().kind(), ErrorKind::Closed),
                }
            }
            // Aborted tasks drop their futures asynchronously, on a worker: the entry leaves
            // the table just before its `on_end` runs.
            let started = started.load(Ordering::SeqCst);
            for _ in 0..100 {
                if calls.is_empty() && ends.load(Ordering::SeqCst) >= started {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            assert_eq!(calls.len(), 0, "seed {seed}: entries left behind");
            assert_eq!(cancellers_run.load(Ordering::SeqCst), expect_cancelled, "seed {seed}");
            assert_eq!(ends.load(Ordering::SeqCst), started, "seed {seed}: every started call ended exactly once");
        }
    }

    #[tokio::test]
    async fn a_call_cancelled_before_it_runs_never_reaches_the_host() {
        let calls = HostCalls::new(Duration::from_millis(10));
        let cancel = CancellationToken::new();
        cancel.cancel();
        let out = calls.run(cancel, None, |_| panic!("the host was handed a cancelled call")).await;
        assert_eq!(out.unwrap_err().kind(), ErrorKind::Cancelled);
        assert!(calls.is_empty());
    }

    #[tokio::test]
    async fn an_answer_after_the_grace_period_is_dropped() {
        let calls = HostCalls::new(Duration::from_millis(10));
        let cancel = CancellationToken::new();
        let canceller = cancel.clone();
        let out = calls.run(cancel, None, move |_| {
            canceller.cancel();
            true
        });
        assert_eq!(out.await.unwrap_err().kind(), ErrorKind::Cancelled);
        assert!(!calls.complete(1, Ok("late".into())));
        assert!(calls.is_empty());
        assert!(calls.context(1).is_err());
    }
}
