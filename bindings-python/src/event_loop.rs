//! Running work on an asyncio event loop from the engine's threads, without the GIL.
//!
//! `loop.call_soon_threadsafe` would need the GIL on a tokio thread for every hand-off
//! (blocking that thread while the loop runs Python) plus a Python-level callback object.
//! Instead each loop gets one [`LoopHandle`]: a queue of Rust closures and a descriptor the
//! loop watches with `add_reader` (`oxmcp::os::wake`). Engine threads push a closure and,
//! when the queue was empty, wake the descriptor; the loop wakes, and its reader callback
//! ([`Drainer`]) runs every queued closure with the GIL it already holds. Bursts cost one
//! wake-up. A loop that watches no descriptor (asyncio's proactor, Windows' default) is
//! woken with `call_soon_threadsafe` instead, once per burst too.

use std::cell::RefCell;

use oxmcp::drive::Home;
use oxmcp::os::pipe::{OwnedPipe, RawPipe};
use oxmcp::os::wake::Wake;
use oxmcp::transport::HostLoop;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

type Job = Box<dyn FnOnce(Python<'_>) + Send>;

struct Queue {
    jobs: Mutex<Jobs>,
    alarm: Alarm,
}

/// How the loop learns that jobs wait.
enum Alarm {
    /// A descriptor the loop watches: readable while jobs wait, drained by the callback.
    Fd(Wake),
    /// The loop's `call_soon_threadsafe` (a weak reference to the loop: a queue does not
    /// keep its loop alive).
    Threadsafe(Py<PyAny>),
}

impl Queue {
    fn push(self: &Arc<Self>, job: Job) {
        let wake = {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.queue.push(job);
            jobs.queue.len() == 1 && !jobs.draining
        };
        if wake {
            self.wake();
        }
    }

    /// Makes the loop's callback run.
    fn wake(self: &Arc<Self>) {
        match &self.alarm {
            Alarm::Fd(wake) => wake.wake(),
            Alarm::Threadsafe(weak_loop) => Python::attach(|py| {
                let event_loop = match weak_loop.bind(py).call0() {
                    Ok(l) if !l.is_none() => l,
                    _ => return, // the loop is gone: its jobs cannot run
                };
                let drainer = Bound::new(py, Drainer { queue: self.clone() });
                // A closed loop refuses (RuntimeError): its jobs are dropped unrun, as when a
                // stopped loop never reads its descriptor again.
                let _ = drainer.and_then(|d| event_loop.call_method1("call_soon_threadsafe", (d,)));
            }),
        }
    }

    /// Runs every queued job, and those queued while they run (a client call that ends
    /// on this thread queues its answer: it runs in this same pass, with no new wake-up),
    /// after `first` (a pipe's bytes read on this loop). Each batch runs in a scope of its
    /// own, so what it wakes goes on (and queues its jobs) before the queue is looked at
    /// again.
    fn drain(self: &Arc<Self>, py: Python<'_>, first: impl FnOnce()) {
        // Clear the descriptor before taking the jobs: a job pushed after the last take
        // while not draining finds the queue empty and wakes again, so no wake-up is lost.
        if let Alarm::Fd(wake) = &self.alarm {
            wake.clear();
        }
        // If a job panics, the next push must wake the loop again.
        struct Reset<'a>(&'a Arc<Queue>);
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

/// The loop's callback for the queue (its descriptor's reader, or a `call_soon_threadsafe`
/// callback): runs the queued closures.
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
    /// The running loop's, or `None` (the runtime's reactor reads pipes then) when the
    /// loop watches no descriptor or the interpreter is exiting.
    pub fn current(py: Python<'_>) -> PyResult<Option<Arc<dyn HostLoop>>> {
        let (handle, event_loop) = LoopHandle::current(py)?;
        if matches!(handle.queue.alarm, Alarm::Threadsafe(_)) {
            return Ok(None);
        }
        let Some(runtime) = crate::runtime::handle() else { return Ok(None) };
        Ok(Some(Arc::new(PyLoop { handle, event_loop: Arc::new(event_loop.unbind()), runtime })))
    }
}

impl HostLoop for PyLoop {
    fn watch(&self, fd: RawPipe, ready: Arc<dyn Fn() + Send + Sync>) {
        let (event_loop, queue) = (self.event_loop.clone(), self.handle.queue.clone());
        self.handle.run(move |py| {
            let added = Bound::new(py, PipeReady { ready, queue })
                .and_then(|cb| event_loop.bind(py).call_method1("add_reader", (fd, cb)));
            report(py, added);
        });
    }

    fn unwatch(&self, fd: RawPipe, close: Option<OwnedPipe>) {
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
    /// The handle of the running loop (registering its queue with it on first use), and
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
        let queue = match Wake::new() {
            Ok(wake) => {
                let fd = wake.fd();
                let queue = Arc::new(Queue { jobs: Mutex::default(), alarm: Alarm::Fd(wake) });
                let drainer = Bound::new(py, Drainer { queue: queue.clone() })?;
                match event_loop.call_method1("add_reader", (fd, &drainer)) {
                    Ok(_) => Some((queue, drainer)),
                    // A loop that watches no descriptor: woken the other way.
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyNotImplementedError>(py) => None,
                    Err(e) => return Err(e),
                }
            }
            Err(_) => None,
        };
        let (queue, drainer) = match queue {
            Some(made) => made,
            None => {
                let weak_loop = py.import("weakref")?.getattr("ref")?.call1((event_loop,))?.unbind();
                let queue = Arc::new(Queue { jobs: Mutex::default(), alarm: Alarm::Threadsafe(weak_loop) });
                let drainer = Bound::new(py, Drainer { queue: queue.clone() })?;
                (queue, drainer)
            }
        };
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
