//! Where host callbacks run: on the runtime's threads (the default), or queued for the host's
//! own thread, which runs them in oxmcp_runtime_run_pending() (a C program with its own event
//! loop, or one that wants no threads in its handlers).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A callback waiting for the host's thread.
type Job = Box<dyn FnOnce() + Send>;

/// How a runtime delivers callbacks; cloned into everything that calls the host.
#[derive(Clone, Default)]
pub(crate) struct Deliver(Option<Arc<Queue>>);

impl Deliver {
    /// Callbacks queued for the host's thread, at most `bound` waiting before the engine's
    /// threads wait for the host (a host thread never waits: it is the one that drains).
    pub(crate) fn queued(bound: usize) -> Self {
        Self(Some(Arc::new(Queue { state: Mutex::new(State::default()), ready: Condvar::new(), room: Condvar::new(), bound })))
    }

    /// Runs `f` now (threads) or queues it for the host's thread.
    pub(crate) fn call(&self, f: impl FnOnce() + Send + 'static) {
        match &self.0 {
            None => f(),
            Some(q) => q.push(Box::new(f)),
        }
    }

    pub(crate) fn queue(&self) -> Option<&Queue> {
        self.0.as_deref()
    }
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    /// Set at shutdown: nobody waits for room any more (the host stops draining).
    closed: bool,
}

/// The callbacks waiting for the host's thread, in the order the engine produced them (so a
/// request's progress still comes before its completion).
pub(crate) struct Queue {
    state: Mutex<State>,
    ready: Condvar,
    room: Condvar,
    bound: usize,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, job: Job) {
        let mut s = self.lock();
        // The engine's threads wait while the host is behind (back-pressure on a slow host);
        // anyone else is the host itself, which would wait for its own draining.
        if tokio::runtime::Handle::try_current().is_ok() {
            while s.jobs.len() >= self.bound && !s.closed {
                s = self.room.wait(s).unwrap_or_else(|e| e.into_inner());
            }
        }
        s.jobs.push_back(job);
        self.ready.notify_one();
    }

    /// Runs what is queued, waiting up to `timeout` for the first; returns how many ran.
    /// Callbacks queued while these run wait for the next call.
    pub(crate) fn run(&self, timeout: Duration) -> usize {
        let deadline = Instant::now() + timeout;
        let jobs: Vec<Job> = {
            let mut s = self.lock();
            while s.jobs.is_empty() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return 0;
                }
                s = self.ready.wait_timeout(s, left).unwrap_or_else(|e| e.into_inner()).0;
            }
            s.jobs.drain(..).collect()
        };
        self.room.notify_all();
        let n = jobs.len();
        for job in jobs {
            job();
        }
        n
    }

    /// Stops making the engine wait for room (the runtime is stopping).
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.room.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn queued_callbacks_run_in_order_on_the_draining_thread_only() {
        let d = Deliver::queued(8);
        let seen = Arc::new(Mutex::new(Vec::new()));
        for i in 0..3 {
            let seen = seen.clone();
            d.call(move || seen.lock().unwrap().push((i, std::thread::current().id())));
        }
        assert!(seen.lock().unwrap().is_empty(), "nothing runs before the host drains");
        assert_eq!(d.queue().unwrap().run(Duration::from_millis(10)), 3);
        let me = std::thread::current().id();
        assert_eq!(*seen.lock().unwrap(), vec![(0, me), (1, me), (2, me)]);
        assert_eq!(d.queue().unwrap().run(Duration::from_millis(10)), 0, "an empty queue waits, then says none");
    }

    #[test]
    fn the_engine_waits_for_room_and_the_host_does_not() {
        let d = Deliver::queued(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (d2, r2) = (d.clone(), ran.clone());
        let engine = std::thread::spawn(move || {
            rt.block_on(async {
                for _ in 0..3 {
                    let r = r2.clone();
                    d2.call(move || {
                        r.fetch_add(1, Ordering::SeqCst);
                    });
                }
            })
        });
        let mut total = 0;
        while total < 3 {
            total += d.queue().unwrap().run(Duration::from_millis(100));
        }
        engine.join().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        // The host's own pushes go in past the bound.
        d.call(|| {});
        d.call(|| {});
        assert_eq!(d.queue().unwrap().run(Duration::ZERO), 2);
    }
}
