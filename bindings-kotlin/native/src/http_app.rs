//! `NativeHttpApp`: the engine's HTTP server answering the requests a Kotlin web framework
//! (Ktor) hands in, exchange by exchange, named by ids Kotlin picks ([`HttpExchanges`]);
//! `dev.oxmcp.kotlin.ktor` does the framework side.

use std::sync::Arc;

use oxmcp::host::{HttpExchanges, HttpOptions};

use crate::error::Result;
use crate::runtime;
use crate::server::NativeServer;

/// A server's endpoint inside a web framework.
#[derive(uniffi::Object)]
pub struct NativeHttpApp {
    exchanges: HttpExchanges,
}

#[uniffi::export]
impl NativeServer {
    /// The endpoint for a web framework that owns the sockets, with the options JSON (as
    /// `start_http`'s; where it would bind is ignored).
    pub async fn http_app(&self, options: String) -> Result<Arc<NativeHttpApp>> {
        let options = HttpOptions::from_json(&options)?;
        let staged = self.staged();
        let app = runtime::run(async move { Ok(staged.http_app(options)?) }).await?;
        Ok(Arc::new(NativeHttpApp { exchanges: HttpExchanges::new(app) }))
    }
}

#[uniffi::export]
impl NativeHttpApp {
    /// Answers exchange `id` (unused by any open exchange): `headers` are names and values
    /// in turn, `body` the whole request body. The answer's head (JSON `{"status",
    /// "headers": [[name, value]...], "maxBodyBytes"}`), whose body [`next`](Self::next)
    /// reads; `None` when [`stop`](Self::stop) ended the exchange first. Cancelled (the
    /// coroutine), it ends the exchange.
    pub async fn handle(
        &self,
        id: u64,
        method: String,
        target: String,
        headers: Vec<String>,
        body: Vec<u8>,
    ) -> Result<Option<String>> {
        let headers: Vec<(String, String)> = headers.chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
        let exchanges = self.exchanges.clone();
        runtime::run(async move { Ok(exchanges.handle(id, &method, &target, &headers, body).await?) }).await
    }

    /// The next chunk of exchange `id`'s body; `None` once it has ended.
    pub async fn next(&self, id: u64) -> Option<Vec<u8>> {
        let chunk = self.exchanges.next(id, false);
        runtime::run(async move { Ok(chunk.await.map(|c| c.to_vec())) }).await.ok().flatten()
    }

    /// Ends exchange `id` now (the client went away): the engine sees the connection
    /// closed, and a pending `handle` or `next` of it answers `None`.
    pub fn stop(&self, id: u64) {
        drop(self.exchanges.next(id, true));
    }

    /// The largest request body the engine takes (read one byte more: it answers 413).
    pub fn max_body_bytes(&self) -> u64 {
        self.exchanges.app().max_body_bytes() as u64
    }

    /// Ends every session and stream (calls in flight get the grace period first).
    pub async fn shutdown(&self) {
        let exchanges = self.exchanges.clone();
        let _ = runtime::run(async move {
            exchanges.app().shutdown().await;
            Ok(())
        })
        .await;
    }
}
