//! Where a staged server listens: its stdio session and its in-memory clients, and (with
//! the `http` feature) its HTTP listener and apps (`http_listener.rs`).

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};
use crate::server::Server;
use crate::transport::{HostLoop, MemoryTransport, StdioTransport};

/// A running stdio serve: `stop` ends it, `done` fires once it has ended.
struct Stdio {
    stop: CancellationToken,
    done: CancellationToken,
}

/// Fires `done` however the serve ends (finished, stopped, or its future dropped).
struct Done(CancellationToken);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[derive(Default)]
pub(crate) struct Listeners {
    stdio: Mutex<Option<Stdio>>,
    /// Ends the in-memory sessions open now (`close` cancels it and puts a fresh one in
    /// its place: a closed server can serve again, as it can over stdio and HTTP).
    in_memory: Mutex<CancellationToken>,
    /// The HTTP listener and the services handed to hosts that own the sockets.
    #[cfg(feature = "http")]
    pub(crate) http: super::http_listener::HttpListeners,
}

impl Listeners {
    pub(crate) fn serve_stdio(
        &self,
        server: Server,
        read_on: Option<Arc<dyn HostLoop>>,
    ) -> Result<BoxFuture<'static, Result<()>>> {
        let (stop, done) = (CancellationToken::new(), CancellationToken::new());
        {
            let mut slot = self.stdio.lock().unwrap_or_else(|e| e.into_inner());
            if slot.as_ref().is_some_and(|s| !s.done.is_cancelled()) {
                return Err(Error::new(ErrorKind::InvalidInput, "already serving stdio"));
            }
            *slot = Some(Stdio { stop: stop.clone(), done: done.clone() });
        }
        // Made before the future, so a future dropped before its first poll still fires it.
        let done = Done(done);
        Ok(Box::pin(async move {
            let _done = done;
            let transport = match read_on {
                Some(host) => StdioTransport::stdio_on(host),
                None => StdioTransport::stdio(),
            };
            let session = server.serve(transport);
            tokio::select! {
                _ = session.wait() => {}
                _ = stop.cancelled() => {}
            }
            session.close().await;
            Ok(())
        }))
    }

    /// Serves one in-process client on `transport` until either side ends it or the
    /// listeners close.
    pub(crate) fn serve_in_memory(&self, server: Server, transport: MemoryTransport) {
        let stop = self.in_memory.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let session = server.serve(transport);
        tokio::spawn(async move {
            tokio::select! {
                _ = session.wait() => {}
                _ = stop.cancelled() => {}
            }
            session.close().await;
        });
    }

    pub(crate) async fn close(&self) {
        #[cfg(feature = "http")]
        self.http.close_apps().await;
        std::mem::take(&mut *self.in_memory.lock().unwrap_or_else(|e| e.into_inner())).cancel();
        let stdio = self.stdio.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(s) = stdio {
            s.stop.cancel();
            s.done.cancelled().await;
        }
        #[cfg(feature = "http")]
        self.http.stop_http().await;
    }
}
