//! Running work on an asyncio event loop from the engine's threads, without the GIL.
//!
//! `loop.call_soon_threadsafe` would need the GIL on a tokio thread for every hand-off
//! (blocking that thread while the loop runs Python) plus a Python-level callback object.
//! Instead each loop gets one [`LoopHandle`]: a queue of Rust closures and an eventfd the
//! loop watches with `add_reader`. Engine threads push a closure and, when the queue was
//! empty, write the eventfd; the loop wakes, and its reader callback ([`Drainer`]) runs
//! every queued closure with the GIL it already holds. Bursts cost one wake-up.

use std::cell::RefCell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use oxmcp::drive::Home;
use oxmcp::transport::HostLoop;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

type Job = Box<dyn FnOnce(Python<'_>) + Send>;

struct Queue {
    jobs: Mutex<Jobs>,
    /// Readable while jobs wait; the loop's reader callback drains it.
    wake: OwnedFd,
}

impl Queue {
    fn new() -> PyResult<Self> {
        // SAFETY: eventfd has no pointer arguments; a valid descriptor is owned from here on.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        // SAFETY: `fd` was just created and is owned by nothing else.
        Ok(Self { jobs: Mutex::new(Jobs::default()), wake: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    fn push(&self, job: Job) {
        let wake = {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.queue.push(job);
            jobs.queue.len() == 1 && !jobs.draining
        };
        if wake {
            self.wake();
        }
    }

    /// Makes the loop's reader callback run.
    fn wake(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our own eventfd. It cannot fail short of
        // the counter overflowing, which a drained eventfd never reaches.
        unsafe { libc::write(self.wake.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Runs every queued job, and those queued while they run (a client call that ends
    /// on this thread queues its answer: it runs in this same pass, with no new wake-up),
    /// after `first` (a pipe's bytes read on this loop). Each batch runs in a scope of its
    /// own, so what it wakes goes on (and queues its jobs) before the queue is looked at
    /// again.
    fn drain(&self, py: Python<'_>, first: impl FnOnce()) {
        // Clear the eventfd before taking the jobs: a job pushed after the last take while
        // not draining finds the queue empty and writes again, so no wake-up is lost.
        let mut counter: u64 = 0;
        // SAFETY: reads at most 8 bytes into a live u64 (EAGAIN when already clear).
        unsafe { libc::read(self.wake.as_raw_fd(), (&mut counter as *mut u64).cast(), 8) };
        // If a job panics, the next push must wake the loop again.
        struct Reset<'a>(&'a Queue);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                let mut jobs = self.0.jobs.lock().unwrap_or_else(|e| e.into_inner());
                if std::mem::take(&mut jobs.draining) && !jobs.queue.is_empty() {
                    // Left by a panic with jobs queued: nothing else would wake the loop.
                    drop(jobs);
                    self.0.wake();
                }
            }
        }
        let _reset = Reset(self);
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).draining = true;
        oxmcp::drive::scope(first);
        loop {
            let batch = {
                let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
                // Checked and cleared under one lock: a push after this wakes the loop.
                jobs.draining = !jobs.queue.is_empty();
                std::mem::take(&mut jobs.queue)
            };
            if batch.is_empty() {
                return;
            }
            oxmcp::drive::scope(|| {
                for job in batch {
                    job(py);
                }
            });
        }
    }
}

/// The jobs waiting for the loop, and whether its reader callback is running them now
/// (pushes then need no wake-up: the callback looks again before it returns).
#[derive(Default)]
struct Jobs {
    queue: Vec<Job>,
    draining: bool,
}

/// The loop's reader callback for the eventfd: runs the queued closures.
#[pyclass(module = "oxmcp._oxmcp")]
struct Drainer {
    queue: Arc<Queue>,
}

#[pymethods]
impl Drainer {
    fn __call__(&self, py: Python<'_>) {
        self.queue.drain(py, || {});
    }
}

/// The loop's reader callback for a pipe the engine reads on the loop: the engine reads
/// and routes what came (see `oxmcp::transport::HostLoop`), then the queue is drained.
#[pyclass(module = "oxmcp._oxmcp")]
struct PipeReady {
    ready: Arc<dyn Fn() + Send + Sync>,
    queue: Arc<Queue>,
}

#[pymethods]
impl PipeReady {
    fn __call__(&self, py: Python<'_>) {
        self.queue.drain(py, || (self.ready)());
    }
}

/// The asyncio loop as the engine's `HostLoop`: pipes watched with `add_reader`, so the
/// engine reads them on the loop's thread (one wake-up per message).
pub struct PyLoop {
    handle: LoopHandle,
    event_loop: Arc<Py<PyAny>>,
    runtime: tokio::runtime::Handle,
}

impl PyLoop {
    /// The running loop's, or `None` once the interpreter is exiting.
    pub fn current(py: Python<'_>) -> PyResult<Option<Arc<dyn HostLoop>>> {
        let (handle, event_loop) = LoopHandle::current(py)?;
        let Some(runtime) = crate::runtime::handle() else { return Ok(None) };
        Ok(Some(Arc::new(PyLoop { handle, event_loop: Arc::new(event_loop.unbind()), runtime })))
    }
}

impl HostLoop for PyLoop {
    fn watch(&self, fd: RawFd, ready: Arc<dyn Fn() + Send + Sync>) {
        let (event_loop, queue) = (self.event_loop.clone(), self.handle.queue.clone());
        self.handle.run(move |py| {
            let added = Bound::new(py, PipeReady { ready, queue })
                .and_then(|cb| event_loop.bind(py).call_method1("add_reader", (fd, cb)));
            report(py, added);
        });
    }

    fn unwatch(&self, fd: RawFd, close: Option<OwnedFd>) {
        let event_loop = self.event_loop.clone();
        self.handle.run(move |py| {
            let _ = event_loop.bind(py).call_method1("remove_reader", (fd,));
            drop(close);
        });
    }

    fn home(&self) -> Home {
        let handle = self.handle.clone();
        Home::host(self.runtime.clone(), move |task| handle.run(move |_| task.run()))
    }
}

/// One asyncio event loop, as seen from the engine's threads.
#[derive(Clone)]
pub struct LoopHandle {
    queue: Arc<Queue>,
}

thread_local! {
    /// The loop last looked up on this thread, with its handle. Held strongly, so a new
    /// loop allocated where a freed one was cannot match it by address.
    static LAST: RefCell<Option<(Py<PyAny>, LoopHandle)>> = const { RefCell::new(None) };
}

/// Loop -> its `Drainer` (weak keys: a loop that is gone takes its queue with it).
static QUEUES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static GET_RUNNING_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The running asyncio loop (raises `RuntimeError` outside one, like asyncio does).
pub fn running_loop(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    GET_RUNNING_LOOP
        .get_or_try_init(py, || py.import("asyncio")?.getattr("get_running_loop").map(Bound::unbind))?
        .bind(py)
        .call0()
}

impl LoopHandle {
    /// The handle of the running loop (registering the eventfd with it on first use), and
    /// the loop itself.
    pub fn current(py: Python<'_>) -> PyResult<(LoopHandle, Bound<'_, PyAny>)> {
        let event_loop = running_loop(py)?;
        // Every engine call asks: the thread's last answer spares a weak-dictionary lookup.
        let last = LAST.with(|last| {
            last.borrow().as_ref().filter(|(lp, _)| lp.as_ptr() == event_loop.as_ptr()).map(|(_, handle)| handle.clone())
        });
        if let Some(handle) = last {
            return Ok((handle, event_loop));
        }
        let handle = Self::lookup(py, &event_loop)?;
        LAST.with(|last| *last.borrow_mut() = Some((event_loop.clone().unbind(), handle.clone())));
        Ok((handle, event_loop))
    }

    fn lookup(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<LoopHandle> {
        let queues =
            QUEUES.get_or_try_init(py, || py.import("weakref")?.call_method0("WeakKeyDictionary").map(Bound::unbind))?.bind(py);
        if let Ok(found) = queues.call_method1("get", (event_loop,))?.cast::<Drainer>() {
            return Ok(LoopHandle { queue: found.borrow().queue.clone() });
        }
        let queue = Arc::new(Queue::new()?);
        let drainer = Bound::new(py, Drainer { queue: queue.clone() })?;
        event_loop.call_method1("add_reader", (queue.wake.as_raw_fd(), &drainer))?;
        queues.set_item(event_loop, drainer)?;
        Ok(LoopHandle { queue })
    }

    /// Runs `job` on the loop's thread, with the GIL, soon. Never blocks; never takes the
    /// GIL here. If the loop has stopped for good, the job is dropped unrun.
    pub fn run(&self, job: impl FnOnce(Python<'_>) + Send + 'static) {
        self.queue.push(Box::new(job));
    }
}

/// Reports an exception from a callback the way asyncio reports one from `call_soon`: to
/// the loop's exception handler (it logs it), never silently.
pub fn report<T>(py: Python<'_>, result: PyResult<T>) {
    if let Err(e) = result {
        let context = pyo3::types::PyDict::new(py);
        let reported = (|| {
            context.set_item("message", "Exception in an oxmcp callback")?;
            context.set_item("exception", e.value(py))?;
            running_loop(py)?.call_method1("call_exception_handler", (context,))
        })();
        if reported.is_err() {
            e.print(py);
        }
    }
}
