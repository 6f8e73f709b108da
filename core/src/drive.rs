//! Futures polled by the thread that wakes them, when it can.
//!
//! A request handled for a host (a Python coroutine, a JavaScript promise) ends on the
//! host's thread: the host answers, and the engine's future waiting for that answer must
//! go on to serialize and write the response. On a tokio task, that is a wake-up of a
//! runtime thread per call. A future spawned here instead is polled right where it is
//! woken when the waking thread is inside a [`scope`] (the host's call into the engine),
//! and otherwise on its *home*: the tokio runtime, or the host's own loop (so a client
//! call started by a host ends on the host's thread, in one wake-up).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use oxmcp::drive;
//! let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
//! let (done_tx, done_rx) = std::sync::mpsc::channel();
//! drive::spawn(drive::Home::tokio(), async move {
//!     done_tx.send(rx.await.unwrap() + 1).unwrap();
//! });
//! // The answer arrives on this thread, inside a scope: the future finishes before
//! // `scope` returns, without a task switch.
//! drive::scope(|| tx.send(41).unwrap());
//! assert_eq!(done_rx.try_recv(), Ok(42));
//! # }
//! ```

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use tokio::runtime::Handle;

type Fut = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a task is polled when it is woken outside a [`scope`].
#[derive(Clone)]
pub struct Home {
    runtime: Handle,
    host: Option<Arc<dyn Fn(Runnable) + Send + Sync>>,
}

impl Home {
    /// The current tokio runtime (panics outside one, as `tokio::spawn` does).
    pub fn tokio() -> Self {
        Home { runtime: Handle::current(), host: None }
    }

    /// A host's loop: `schedule` must call [`Runnable::run`] soon on the host's thread.
    /// Timers and I/O the task uses belong to `runtime`.
    pub fn host(runtime: Handle, schedule: impl Fn(Runnable) + Send + Sync + 'static) -> Self {
        Home { runtime, host: Some(Arc::new(schedule)) }
    }

    fn schedule(&self, task: Runnable) {
        match &self.host {
            Some(schedule) => schedule(task),
            None => {
                self.runtime.spawn(async move { task.run() });
            }
        }
    }
}

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
/// Woken while running: poll again.
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;

struct Task {
    state: AtomicU8,
    future: Mutex<Option<Fut>>,
    home: Home,
}

/// A task ready to be polled; [`Runnable::run`] polls it once (or until it stops waking
/// itself). Dropped unrun (a host that is gone), it drops its future: nothing waits on a
/// task that will never run.
pub struct Runnable(Option<Arc<Task>>);

impl Drop for Runnable {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            if task.state.compare_exchange(SCHEDULED, DONE, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                let future = task.future.lock().unwrap_or_else(|e| e.into_inner()).take();
                drop(future);
            }
        }
    }
}

thread_local! {
    /// The tasks woken on this thread inside a [`scope`], polled when it ends.
    static WOKEN: RefCell<Option<VecDeque<Runnable>>> = const { RefCell::new(None) };
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            let next = match state {
                IDLE => SCHEDULED,
                RUNNING => NOTIFIED,
                _ => return, // already on its way, or finished
            };
            match self.state.compare_exchange(state, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) if next == SCHEDULED => break,
                Ok(_) => return,
                Err(now) => state = now,
            }
        }
        let task = Runnable(Some(self.clone()));
        let task = WOKEN.with(|woken| match woken.borrow_mut().as_mut() {
            Some(list) => {
                list.push_back(task);
                None
            }
            None => Some(task),
        });
        if let Some(task) = task {
            self.home.schedule(task);
        }
    }
}

impl Runnable {
    /// Polls the task on this thread, inside its runtime's context.
    pub fn run(mut self) {
        let Some(task) = self.0.take() else { return };
        if task.state.compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return;
        }
        let _runtime = task.home.runtime.enter();
        let waker = Waker::from(task.clone());
        let mut cx = Context::from_waker(&waker);
        let mut slot = task.future.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let Some(future) = slot.as_mut() else { return };
            let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
            if !matches!(polled, Ok(Poll::Pending)) {
                if let Err(panic) = polled {
                    tracing::error!(panic = ?panic.downcast_ref::<&str>(), "a driven task panicked");
                }
                *slot = None;
                task.state.store(DONE, Ordering::Release);
                return;
            }
            if task.state.compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                return;
            }
            // Woken while polling: poll again.
            task.state.store(RUNNING, Ordering::Release);
        }
    }
}

/// Starts `future` now, on this thread (inside the home's runtime context), and polls it
/// later wherever it is woken (see the module's documentation).
pub fn spawn(home: Home, future: impl Future<Output = ()> + Send + 'static) {
    let task = Arc::new(Task { state: AtomicU8::new(SCHEDULED), future: Mutex::new(Some(Box::pin(future))), home });
    scope(|| Runnable(Some(task)).run());
}

/// Like [`spawn`], but the first poll too happens on the home, not here.
pub fn spawn_on_home(home: Home, future: impl Future<Output = ()> + Send + 'static) {
    let task = Arc::new(Task { state: AtomicU8::new(SCHEDULED), future: Mutex::new(Some(Box::pin(future))), home: home.clone() });
    home.schedule(Runnable(Some(task)));
}

/// Like [`scope`], but only the tasks `f` wakes are polled here; what they wake in turn
/// goes to its home. For a host's call into the engine (an answer): finishing the answered
/// request here is the point, but starting the next queued request here would call the
/// host's handlers back from inside its own call.
pub fn scope_once<R>(f: impl FnOnce() -> R) -> R {
    let outermost = WOKEN.with(|woken| woken.borrow().is_none());
    if !outermost {
        return f();
    }
    let (out, woken) = {
        let mut woken = VecDeque::new();
        let out = scope_collect(f, &mut woken);
        (out, woken)
    };
    for task in woken {
        task.run();
    }
    out
}

/// Runs `f` in a scope and hands back what it woke, unpolled.
fn scope_collect<R>(f: impl FnOnce() -> R, into: &mut VecDeque<Runnable>) -> R {
    WOKEN.with(|woken| *woken.borrow_mut() = Some(VecDeque::new()));
    struct End<'a>(&'a mut VecDeque<Runnable>);
    impl Drop for End<'_> {
        fn drop(&mut self) {
            if let Some(list) = WOKEN.with(|woken| woken.borrow_mut().take()) {
                self.0.extend(list);
            }
        }
    }
    let end = End(into);
    let out = f();
    drop(end);
    out
}

/// Runs `f`; tasks it wakes on this thread are polled here before `scope` returns instead
/// of on their homes. Nested scopes poll at the outermost one's end.
pub fn scope<R>(f: impl FnOnce() -> R) -> R {
    let outermost = WOKEN.with(|woken| {
        let mut woken = woken.borrow_mut();
        let outermost = woken.is_none();
        if outermost {
            *woken = Some(VecDeque::new());
        }
        outermost
    });
    if !outermost {
        return f();
    }
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            // Even when `f` panicked: what it woke still runs, on its home.
            let left = WOKEN.with(|woken| woken.borrow_mut().take()).unwrap_or_default();
            for task in left {
                if let Some(home) = task.0.as_ref().map(|t| t.home.clone()) {
                    home.schedule(task);
                }
            }
        }
    }
    let end = End;
    let out = f();
    loop {
        // In the order they were woken (a notification read before a response goes first).
        let next = WOKEN.with(|woken| woken.borrow_mut().as_mut().and_then(VecDeque::pop_front));
        match next {
            Some(task) => task.run(),
            None => break,
        }
    }
    drop(end);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_future_woken_outside_a_scope_runs_on_its_home() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        spawn(Home::tokio(), async move {
            let _ = done_tx.send((rx.await.unwrap(), std::thread::current().id()));
        });
        let sender = std::thread::spawn(move || tx.send(7).unwrap());
        let (value, thread) = done_rx.await.unwrap();
        assert_eq!(value, 7);
        assert_ne!(thread, sender.thread().id());
        sender.join().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_future_woken_inside_a_scope_runs_there() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        spawn(Home::tokio(), async move {
            let v = rx.await.unwrap();
            done_tx.send((v, std::thread::current().id())).unwrap();
        });
        let here = std::thread::spawn(move || {
            scope(|| tx.send(9).unwrap());
            // Finished before the scope returned, on this very thread.
            let (v, thread) = done_rx.try_recv().expect("the future ran inside the scope");
            assert_eq!(v, 9);
            assert_eq!(thread, std::thread::current().id());
        });
        here.join().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_home_gets_the_wakes_and_timers_still_work() {
        let (queue_tx, queue_rx) = std::sync::mpsc::channel::<Runnable>();
        let queue_tx = Mutex::new(queue_tx);
        let home = Home::host(Handle::current(), move |task| queue_tx.lock().unwrap().send(task).unwrap());
        let polls = Arc::new(AtomicUsize::new(0));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let p = polls.clone();
        // The host thread starts the future: it registers a tokio timer from outside the runtime.
        let host = std::thread::spawn(move || {
            spawn(home, async move {
                p.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                done_tx.send(std::thread::current().id()).unwrap();
            });
            // The "loop": run what the home was handed until the future is done.
            while done_rx.try_recv().is_err() {
                if let Ok(task) = queue_rx.recv_timeout(Duration::from_secs(5)) {
                    task.run();
                } else {
                    panic!("the timer's wake never reached the host's loop");
                }
            }
        });
        host.join().unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_future_ends_its_task_only() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        spawn(Home::tokio(), async move {
            rx.await.unwrap();
            panic!("boom");
        });
        scope(|| tx.send(1).unwrap());
        // Still usable afterwards.
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        spawn(Home::tokio(), async move { done_tx.send(rx.await.unwrap()).unwrap() });
        scope(|| tx.send(2).unwrap());
        assert_eq!(done_rx.try_recv(), Ok(2));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn scope_once_polls_what_it_woke_but_not_what_that_woke() {
        let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
        let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let first_seen = seen_tx.clone();
        spawn(Home::tokio(), async move {
            first_rx.await.unwrap();
            first_seen.send(("first", std::thread::current().id())).unwrap();
            second_tx.send(()).unwrap();
        });
        spawn(Home::tokio(), async move {
            second_rx.await.unwrap();
            seen_tx.send(("second", std::thread::current().id())).unwrap();
        });
        let host = std::thread::spawn(move || {
            scope_once(|| first_tx.send(()).unwrap());
            std::thread::current().id()
        });
        let host = host.join().unwrap();
        let first = seen_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let second = seen_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(first, ("first", host), "what the call woke runs on the calling thread");
        assert_eq!(second.0, "second");
        assert_ne!(second.1, host, "what that woke in turn runs on its home, not inside the call");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scope_polls_in_the_order_of_waking() {
        let (a_tx, a_rx) = tokio::sync::oneshot::channel::<()>();
        let (b_tx, b_rx) = tokio::sync::oneshot::channel::<()>();
        let order = Arc::new(Mutex::new(Vec::new()));
        for (name, rx) in [("a", a_rx), ("b", b_rx)] {
            let order = order.clone();
            spawn(Home::tokio(), async move {
                rx.await.unwrap();
                order.lock().unwrap().push(name);
            });
        }
        scope(|| {
            a_tx.send(()).unwrap();
            b_tx.send(()).unwrap();
        });
        assert_eq!(*order.lock().unwrap(), vec!["a", "b"]);
    }

    #[test]
    fn a_runnable_dropped_unrun_drops_its_future() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let kept: Arc<Mutex<Option<Runnable>>> = Arc::default();
        let slot = kept.clone();
        let home = Home::host(rt.handle().clone(), move |task| *slot.lock().unwrap() = Some(task));
        let alive = Arc::new(());
        let held = alive.clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        spawn(home, async move {
            let _held = held;
            let _ = rx.await;
        });
        // Woken outside a scope: handed to the home, which drops it unrun (a host gone).
        tx.send(()).unwrap();
        drop(kept.lock().unwrap().take());
        assert_eq!(Arc::strong_count(&alive), 1, "the future was dropped with its task");
    }
}
