//! Reading a pipe on a host's event loop instead of the runtime's reactor.
//!
//! When the runtime's reactor reads a Python or Node process's pipe, every message costs
//! two thread wake-ups: a runtime thread for the bytes, then the host's loop for what they
//! mean (a handler to run, a call's answer). When the host's loop watches the pipe itself
//! ([`HostLoop`]), the bytes are read, parsed and routed on the loop's thread: the session's
//! read loop is a [`drive`](crate::drive) task at home on that loop. One wake-up per
//! message, as a pure Python or JavaScript SDK has.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, ReadBuf};

use crate::drive::Home;
use crate::os::pipe::{self, OwnedPipe, RawPipe};

/// A host's event loop that can watch a file descriptor: Python's `loop.add_reader`, a
/// libuv poll handle.
pub trait HostLoop: Send + Sync + 'static {
    /// Calls `ready` on the loop's thread, inside a [`drive::scope`](crate::drive::scope),
    /// whenever `fd` is readable (level-triggered), until [`HostLoop::unwatch`]. Called
    /// from any thread.
    fn watch(&self, fd: RawPipe, ready: Arc<dyn Fn() + Send + Sync>);
    /// Stops watching `fd`, then drops `close` (the descriptor itself), on the loop's
    /// thread: the number cannot be reused while the loop still watches it.
    fn unwatch(&self, fd: RawPipe, close: Option<OwnedPipe>);
    /// Where a task reading on this loop is polled when it is woken elsewhere.
    fn home(&self) -> Home;
}

/// A non-blocking pipe read on a [`HostLoop`].
pub struct LoopFd {
    fd: Option<OwnedPipe>,
    raw: RawPipe,
    waker: Arc<Mutex<Option<Waker>>>,
    /// A read came back short: the pipe is empty until the loop says otherwise, so the
    /// next read would only meet EAGAIN (a system call per message saved).
    drained: Arc<AtomicBool>,
    host: Arc<dyn HostLoop>,
    watching: bool,
}

impl LoopFd {
    /// Watches `fd` (made non-blocking) on `host`.
    pub fn new(fd: OwnedPipe, host: Arc<dyn HostLoop>) -> io::Result<Self> {
        pipe::set_nonblocking(&fd)?;
        let raw = pipe::raw(&fd);
        let waker: Arc<Mutex<Option<Waker>>> = Arc::default();
        let drained: Arc<AtomicBool> = Arc::default();
        let (slot, readable) = (waker.clone(), drained.clone());
        host.watch(
            raw,
            Arc::new(move || {
                readable.store(false, Ordering::Release);
                let woken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(w) = woken {
                    w.wake();
                }
            }),
        );
        Ok(LoopFd { fd: Some(fd), raw, waker, drained, host, watching: true })
    }

    /// The loop's home, for the task that reads.
    pub fn home(&self) -> Home {
        self.host.home()
    }
}

impl AsyncRead for LoopFd {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if me.drained.load(Ordering::Acquire) {
            *me.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
            // Looked at again after storing the waker: a ready call in between cleared it.
            if me.drained.load(Ordering::Acquire) {
                return Poll::Pending;
            }
        }
        loop {
            let unfilled = buf.initialize_unfilled();
            let read = pipe::read(me.raw, unfilled);
            if let Ok(n @ 1..) = read {
                if n < unfilled.len() {
                    me.drained.store(true, Ordering::Release);
                }
                buf.advance(n);
                return Poll::Ready(Ok(()));
            }
            if let Ok(0) = read {
                // End of input stays readable: stop watching, or the loop would call back
                // on every turn until the reader is dropped.
                if std::mem::take(&mut me.watching) {
                    me.host.unwatch(me.raw, None);
                }
                return Poll::Ready(Ok(()));
            }
            let Err(e) = read else { unreachable!("1.. and 0 are handled above") };
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => {
                    // Level-triggered: bytes that arrive before the waker is stored still
                    // make the loop call back on its next turn.
                    *me.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                _ => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl Drop for LoopFd {
    fn drop(&mut self) {
        self.host.unwatch(self.raw, self.fd.take());
    }
}

/// A byte source read by the runtime's reactor or by a host's loop.
pub enum Source<R> {
    /// Read through the runtime's reactor.
    Reactor(R),
    /// Read on a host's loop.
    Loop(LoopFd),
}

impl<R> Source<R> {
    /// The host loop's home when read there.
    pub fn home(&self) -> Option<Home> {
        match self {
            Source::Reactor(_) => None,
            Source::Loop(fd) => Some(fd.home()),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Source<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Source::Reactor(r) => Pin::new(r).poll_read(cx, buf),
            Source::Loop(fd) => Pin::new(fd).poll_read(cx, buf),
        }
    }
}

// The test's loop polls descriptors: Unix only.
#[cfg(all(test, unix))]
mod tests {
    //! A host loop of the smallest kind (a thread polling its watched descriptors with
    //! poll(2)) under a real session over a real child process (`cat`, which sends every
    //! message back: the session answers its own request, and reads the answer).
    use super::*;
    use crate::drive::Runnable;
    use crate::protocol::ErrorObject;
    use crate::session::{IncomingRequest, RequestOptions, Service, Session, SessionConfig};
    use crate::transport::ChildProcess;
    use futures::future::BoxFuture;
    use serde_json::{json, Value};
    use std::os::fd::{OwnedFd, RawFd};
    use std::sync::mpsc;
    use std::thread::ThreadId;
    use std::time::Duration;

    enum Command {
        Watch(RawFd, Arc<dyn Fn() + Send + Sync>),
        Unwatch(RawFd, Option<OwnedFd>),
        Run(Runnable),
    }

    struct PollLoop {
        commands: Mutex<mpsc::Sender<Command>>,
        runtime: tokio::runtime::Handle,
    }

    impl HostLoop for PollLoop {
        fn watch(&self, fd: RawFd, ready: Arc<dyn Fn() + Send + Sync>) {
            let _ = self.commands.lock().unwrap().send(Command::Watch(fd, ready));
        }
        fn unwatch(&self, fd: RawFd, close: Option<OwnedFd>) {
            let _ = self.commands.lock().unwrap().send(Command::Unwatch(fd, close));
        }
        fn home(&self) -> Home {
            let commands = Mutex::new(self.commands.lock().unwrap().clone());
            Home::host(self.runtime.clone(), move |task| {
                let _ = commands.lock().unwrap().send(Command::Run(task));
            })
        }
    }

    /// Starts the loop thread; it ends when every sender is gone.
    fn start_loop(runtime: tokio::runtime::Handle) -> (Arc<PollLoop>, ThreadId, std::thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<Command>();
        let (id_tx, id_rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            id_tx.send(std::thread::current().id()).unwrap();
            let mut watched: Vec<(RawFd, Arc<dyn Fn() + Send + Sync>)> = Vec::new();
            loop {
                loop {
                    match rx.try_recv() {
                        Ok(Command::Watch(fd, ready)) => watched.push((fd, ready)),
                        Ok(Command::Unwatch(fd, close)) => {
                            watched.retain(|(w, _)| *w != fd);
                            drop(close);
                        }
                        Ok(Command::Run(task)) => task.run(),
                        Err(mpsc::TryRecvError::Empty) => break,
                        Err(mpsc::TryRecvError::Disconnected) => return,
                    }
                }
                let mut fds: Vec<libc::pollfd> =
                    watched.iter().map(|(fd, _)| libc::pollfd { fd: *fd, events: libc::POLLIN, revents: 0 }).collect();
                // SAFETY: poll(2) over a vector we own, with its length.
                unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 5) };
                for (p, (_, ready)) in fds.iter().zip(&watched) {
                    if p.revents != 0 {
                        crate::drive::scope(|| ready());
                    }
                }
            }
        });
        let id = id_rx.recv().unwrap();
        let host = Arc::new(PollLoop { commands: Mutex::new(tx), runtime });
        (host, id, thread)
    }

    /// Answers `whoami` with nothing, noting the thread that read the request.
    struct WhoAmI(Mutex<Vec<ThreadId>>);
    impl Service for WhoAmI {
        fn handle_request(&self, _req: IncomingRequest) -> BoxFuture<'static, std::result::Result<Value, ErrorObject>> {
            self.0.lock().unwrap().push(std::thread::current().id());
            Box::pin(async { Ok(json!({})) })
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_child_read_on_a_host_loop_is_read_and_routed_on_that_loop() {
        let (host, loop_thread, thread) = start_loop(tokio::runtime::Handle::current());
        let child = ChildProcess::new("cat").read_on(host.clone()).spawn().unwrap();
        let seen = Arc::new(WhoAmI(Mutex::new(Vec::new())));
        let session = Session::start(child, seen.clone(), SessionConfig::default());
        for _ in 0..20 {
            // Our own request comes back from `cat`: the session answers it, and the answer
            // comes back too, completing the request.
            let answer = session.peer().request("whoami", None, RequestOptions::default().timeout(Duration::from_secs(10)));
            assert_eq!(answer.await.unwrap(), json!({}));
        }
        let threads = seen.0.lock().unwrap().clone();
        assert_eq!(threads.len(), 20);
        assert!(threads.iter().all(|t| *t == loop_thread), "requests were read off the loop: {threads:?}");
        assert_eq!(session.peer().stats().pending_requests, 0);
        session.close().await;
        // The reader is gone (its last poll, on the loop thread, may still be ending), so its
        // descriptor is unwatched and closed, and the service released; then the loop ends.
        drop(host);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while Arc::strong_count(&seen) != 1 {
            assert!(std::time::Instant::now() < deadline, "the session still holds its service after close");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        while !thread.is_finished() {
            assert!(std::time::Instant::now() < deadline, "the pipe was never unwatched: the loop still runs");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}
