//! The HTTP server's connections: accepted under a cap, each living under limits a
//! hostile or broken client cannot stretch (a header-read timeout that also ends idle
//! keep-alive connections, a timeout on writes the client stopped reading), and written
//! without ever raising SIGPIPE, whatever the host process does with that signal.
//!
//! At the cap a newcomer does not get refused while others only hold slots: the oldest
//! connection with no request under way (idle, or still sending its headers) gives way
//! to it. Only when every connection is busy with a request is the newcomer closed.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::Router;
use bytes::Bytes;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

/// The limits every connection lives under (from [`super::HttpServerConfig`]).
#[derive(Clone, Copy)]
pub(super) struct Limits {
    pub(super) max_connections: usize,
    pub(super) header_read_timeout: Duration,
    pub(super) write_stall_timeout: Duration,
}

/// One open connection, as the cap sees it.
struct Conn {
    opened: Instant,
    /// Requests under way (from their headers to the end of their response).
    busy: AtomicUsize,
    /// Fired to make it give way to a newcomer.
    evict: CancellationToken,
}

/// The open connections.
#[derive(Default)]
struct Open {
    next: u64,
    conns: HashMap<u64, Arc<Conn>>,
}

impl Open {
    fn add(this: &Mutex<Open>) -> (u64, Arc<Conn>) {
        let mut open = this.lock().unwrap_or_else(|e| e.into_inner());
        open.next += 1;
        let conn = Arc::new(Conn { opened: Instant::now(), busy: AtomicUsize::new(0), evict: CancellationToken::new() });
        let id = open.next;
        open.conns.insert(id, conn.clone());
        (id, conn)
    }

    /// Tells the oldest connection with no request under way to close; whether there was
    /// one.
    fn evict_oldest_idle(this: &Mutex<Open>) -> bool {
        let mut open = this.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = open
            .conns
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::SeqCst) == 0 && !c.evict.is_cancelled())
            .min_by_key(|(_, c)| c.opened)
            .map(|(&id, _)| id);
        let Some(conn) = oldest.and_then(|id| open.conns.remove(&id)) else { return false };
        conn.evict.cancel();
        true
    }
}

/// A request under way on `conn`, until its response body is done.
struct Busy(Arc<Conn>);

impl Busy {
    fn new(conn: Arc<Conn>) -> Busy {
        conn.busy.fetch_add(1, Ordering::SeqCst);
        Busy(conn)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body that holds its connection busy until it is done (an SSE stream that
/// lasts an hour is not idle).
struct Tracked {
    inner: Body,
    _busy: Busy,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Accepts connections until `stop` fires, then lets each finish its current exchange.
pub(super) async fn serve(listener: TcpListener, router: Router, limits: Limits, stop: CancellationToken) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let open = Arc::new(Mutex::new(Open::default()));
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.cancelled() => return,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // Out of file descriptors (or a connection aborted before accept): wait a
                // little instead of spinning; connections that end free descriptors.
                tracing::debug!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            // At the cap, an idle connection gives way (its slot comes free as it closes).
            Err(_) if Open::evict_oldest_idle(&open) => {
                match tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned()).await {
                    Ok(Ok(slot)) => slot,
                    _ => continue,
                }
            }
            // Every connection busy: the newcomer is closed at once, a clear failure for
            // the client where waiting in the kernel's backlog would look like a hang.
            Err(_) => {
                tracing::debug!("connection limit of {} reached; closing a new connection", limits.max_connections);
                drop(tcp);
                continue;
            }
        };
        let (id, conn) = Open::add(&open);
        // Without it, clients on other stacks see 40 ms delayed-ACK stalls.
        let _ = tcp.set_nodelay(true);
        let io = TokioIo::new(Guarded { tcp, stall: limits.write_stall_timeout, stalled: None });
        let service = {
            let (router, conn) = (router.clone(), conn.clone());
            TowerToHyperService::new(tower::service_fn(move |request: axum::http::Request<hyper::body::Incoming>| {
                use tower::ServiceExt as _;
                let busy = Busy::new(conn.clone());
                let answer = router.clone().oneshot(request);
                async move {
                    let response = answer.await?;
                    Ok::<_, std::convert::Infallible>(response.map(|inner| Body::new(Tracked { inner, _busy: busy })))
                }
            }))
        };
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
        let served = builder.serve_connection(io, service);
        let (stop, open) = (stop.clone(), open.clone());
        let evicted = conn.evict.clone();
        tokio::spawn(async move {
            let mut served = std::pin::pin!(served);
            tokio::select! {
                _ = served.as_mut() => {}
                _ = evicted.cancelled() => {} // dropped: closed at once
                _ = stop.cancelled() => {
                    served.as_mut().graceful_shutdown();
                    let _ = served.await;
                }
            }
            open.lock().unwrap_or_else(|e| e.into_inner()).conns.remove(&id);
            drop(slot);
        });
    }
}

/// A connection's socket. Writes go through `send(2)` with `MSG_NOSIGNAL` (what
/// `TcpStream::poll_write` does), never `writev(2)`, which raises SIGPIPE on a connection
/// the client closed: a host that left SIGPIPE at its default (a C program) would die.
/// A write the client leaves unread for `stall` fails, ending the connection.
struct Guarded {
    tcp: TcpStream,
    stall: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl AsyncRead for Guarded {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.tcp).poll_write(cx, buf) {
            Poll::Pending => {
                let stall = this.stall;
                let timer = this.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
                if timer.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading the response")));
                }
                Poll::Pending
            }
            done => {
                this.stalled = None;
                done
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    // Not vectored on purpose (see the type's comment); hyper then flattens its buffers.
    fn is_write_vectored(&self) -> bool {
        false
    }
}
