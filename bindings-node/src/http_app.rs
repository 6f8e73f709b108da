//! `NativeHttpApp`: the engine's HTTP server answering requests that a Node web framework
//! (Express, Fastify, Hono) hands in; lib/http.cjs does the framework side. The one class of
//! the endpoint: JS names each exchange (request and its answer) by an id of its own, so
//! that one door ends it whenever the client goes away, while the engine works on the
//! answer (a stateless-era call is cancelled that way) as while its body streams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{Buffer, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::host::{HttpApp, HttpBody, HttpOptions};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::server::NativeServer;

/// One exchange: what ends it, and its answer's body once there is one.
struct Exchange {
    stop: CancellationToken,
    body: Option<Arc<HttpBody>>,
}

type Exchanges = Arc<Mutex<HashMap<u32, Exchange>>>;

fn lock(exchanges: &Exchanges) -> std::sync::MutexGuard<'_, HashMap<u32, Exchange>> {
    exchanges.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine side of `server.httpHandler()`.
#[napi]
pub struct NativeHttpApp {
    app: HttpApp,
    exchanges: Exchanges,
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
        Ok(Self { app, exchanges: Arc::default() })
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
        let stop = CancellationToken::new();
        if lock(&self.exchanges).insert(id, Exchange { stop: stop.clone(), body: None }).is_some() {
            return Err(errors::invalid(env, format!("HTTP exchange {id} is open already")));
        }
        let headers: Vec<(String, String)> = headers.chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
        let (app, exchanges, body) = (self.app.clone(), self.exchanges.clone(), body.to_vec());
        errors::promise(env, async move {
            let reply = tokio::select! {
                _ = stop.cancelled() => return Ok(None),
                reply = app.handle(&method, &target, &headers, body) => reply,
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(e) => {
                    lock(&exchanges).remove(&id);
                    return Err(e);
                }
            };
            match lock(&exchanges).get_mut(&id) {
                Some(exchange) => exchange.body = Some(Arc::new(reply.body)),
                None => return Ok(None),
            }
            let head = json!({ "status": reply.status, "headers": reply.headers, "maxBodyBytes": app.max_body_bytes() });
            Ok(Some(head.to_string()))
        })
    }

    /// The next chunk of exchange `id`'s body, or `null` once it has ended. `stop: true`
    /// ends the exchange now (the client went away): the engine sees the connection closed,
    /// and a pending `handle` or `next` of it resolves to `null`.
    #[napi]
    pub fn next<'env>(&self, env: &'env Env, id: u32, stop: Option<bool>) -> napi::Result<PromiseRaw<'env, Option<Buffer>>> {
        let exchanges = self.exchanges.clone();
        let found = {
            let mut open = lock(&exchanges);
            if stop == Some(true) {
                if let Some(exchange) = open.remove(&id) {
                    exchange.stop.cancel();
                }
                None
            } else {
                open.get(&id).and_then(|e| e.body.clone().map(|body| (body, e.stop.clone())))
            }
        };
        errors::promise(env, async move {
            let Some((body, stop)) = found else { return Ok(None) };
            let chunk = tokio::select! {
                _ = stop.cancelled() => None,
                chunk = body.next_chunk() => chunk,
            };
            if chunk.is_none() {
                lock(&exchanges).remove(&id);
            }
            Ok(chunk.map(|c| Buffer::from(c.to_vec())))
        })
    }
}
