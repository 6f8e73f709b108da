//! The HTTP server's connections: accepted under a cap, each living under limits a
//! hostile or broken client cannot stretch (a header-read timeout that also ends idle
//! keep-alive connections, a timeout on writes the client stopped reading), and written
//! without ever raising SIGPIPE, whatever the host process does with that signal.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
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

/// Accepts connections until `stop` fires, then lets each finish its current exchange.
pub(super) async fn serve(listener: TcpListener, router: Router, limits: Limits, stop: CancellationToken) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
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
        // Over the cap the connection is closed at once: a clear failure for the client,
        // where waiting in the kernel's backlog would look like a hang.
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::debug!("connection limit of {} reached; closing a new connection", limits.max_connections);
            drop(tcp);
            continue;
        };
        // Without it, clients on other stacks see 40 ms delayed-ACK stalls.
        let _ = tcp.set_nodelay(true);
        let io = TokioIo::new(Guarded { tcp, stall: limits.write_stall_timeout, stalled: None });
        let service = TowerToHyperService::new(router.clone());
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
        let conn = builder.serve_connection(io, service);
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
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
