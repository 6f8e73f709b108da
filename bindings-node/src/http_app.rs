//! `NativeHttpApp`: the engine's HTTP server answering requests that a Node web framework
//! (Express, Fastify, Hono) hands in; lib/http.cjs does the framework side. JS names each
//! exchange by an id of its own (`oxmcp::host::HttpExchanges` keeps them).

use napi::bindgen_prelude::{Buffer, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::host::{HttpExchanges, HttpOptions};

use crate::errors;
use crate::server::NativeServer;

/// The engine side of `server.httpHandler()`.
#[napi]
pub struct NativeHttpApp {
    exchanges: HttpExchanges,
}

#[napi]
impl NativeHttpApp {
    /// `server`'s endpoint, as `options_json` says (`oxmcp::host::HttpOptions`; its host and
    /// port are the framework's business and ignored). The server's `close()` ends it.
    #[napi(constructor)]
    pub fn new(env: Env, server: &NativeServer, options_json: String) -> napi::Result<Self> {
        let options = HttpOptions::from_json(&options_json).map_err(|e| errors::to_js(&env, &e))?;
        let app = napi::bindgen_prelude::within_runtime_if_available(|| server.server.http_app(options))
            .map_err(|e| errors::to_js(&env, &e))?;
        Ok(Self { exchanges: HttpExchanges::new(app) })
    }

    /// Answers exchange `id` (a number JS picks, unused by any exchange still open): the
    /// request's `method`, `target` (the endpoint's path with the query), `headers` (names
    /// and values in turn) and whole `body`. Resolves to the answer's head, JSON
    /// `{"status", "headers": [[name, value]...], "maxBodyBytes"}`, whose body `next(id)`
    /// reads; or to `null` when `next(id, true)` ended the exchange first.
    #[napi]
    pub fn handle<'env>(
        &self,
        env: &'env Env,
        id: u32,
        method: String,
        target: String,
        headers: Vec<String>,
        body: Buffer,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        let headers: Vec<(String, String)> = headers.chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
        // Open from here on: a `next(id, true)` right after this call ends it.
        let answer = self.exchanges.handle(id.into(), &method, &target, &headers, body.to_vec());
        errors::promise(env, answer)
    }

    /// The next chunk of exchange `id`'s body, or `null` once it has ended. `stop: true`
    /// ends the exchange now (the client went away): the engine sees the connection closed,
    /// and a pending `handle` or `next` of it resolves to `null`.
    #[napi]
    pub fn next<'env>(&self, env: &'env Env, id: u32, stop: Option<bool>) -> napi::Result<PromiseRaw<'env, Option<Buffer>>> {
        let chunk = self.exchanges.next(id.into(), stop == Some(true));
        errors::promise(env, async move { Ok(chunk.await.map(|c| Buffer::from(c.to_vec()))) })
    }
}
