//! The HTTP server for a host that owns the sockets (an ASGI server, a web framework): the
//! host hands in each request as plain values and streams the answer back, and the engine
//! answers exactly as its own listener would.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};
use crate::transport::http::HttpService;

/// Requests in, answers out; made by [`StagedServer::http_app`](super::StagedServer::http_app).
#[derive(Clone)]
pub struct HttpApp {
    pub(super) service: Arc<HttpService>,
}

/// An answer: status, headers, and a body that may stay open (an SSE stream).
pub struct HttpReply {
    /// The HTTP status.
    pub status: u16,
    /// Header names and values, in order (a name may repeat).
    pub headers: Vec<(String, String)>,
    /// The body, read chunk by chunk.
    pub body: HttpBody,
}

/// A response body. Dropping it (the client went away) ends the stream on the engine's
/// side as a closed connection would.
pub struct HttpBody(tokio::sync::Mutex<axum::body::BodyDataStream>);

impl HttpBody {
    /// The next chunk; `None` once the body has ended (or failed: an SSE stream the
    /// engine closed ends the same way).
    pub async fn next_chunk(&self) -> Option<Bytes> {
        match self.0.lock().await.next().await {
            Some(Ok(chunk)) => Some(chunk),
            _ => None,
        }
    }
}

fn invalid(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("invalid {what}: {e}"))
}

impl HttpApp {
    /// Answers one request: `target` is the path (the endpoint's, e.g. `/mcp`, not the
    /// prefix a framework mounted it under) with its query; `body` is the whole body. A
    /// host reading bodies stops after [`max_body_bytes`](Self::max_body_bytes) + 1
    /// bytes: the engine answers 413 to anything longer.
    ///
    /// ```
    /// use oxmcp::host::{HttpOptions, StagedServer};
    ///
    /// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
    /// let app = StagedServer::new("demo", "1.0").http_app(HttpOptions::default())?;
    /// let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    /// let headers = [("host", "localhost"), ("content-type", "application/json"), ("accept", "application/json, text/event-stream")]
    ///     .map(|(n, v)| (n.to_string(), v.to_string()));
    /// let reply = app.handle("POST", "/mcp", &headers, init.as_bytes().to_vec()).await?;
    /// assert_eq!(reply.status, 200);
    /// assert!(reply.headers.iter().any(|(n, _)| n == "mcp-session-id"));
    /// let first = reply.body.next_chunk().await.unwrap();
    /// assert!(String::from_utf8_lossy(&first).contains("serverInfo"));
    /// # Ok(()) }
    /// ```
    pub async fn handle(&self, method: &str, target: &str, headers: &[(String, String)], body: Vec<u8>) -> Result<HttpReply> {
        let mut request = http::Request::builder()
            .method(http::Method::from_bytes(method.as_bytes()).map_err(|e| invalid("method", e))?)
            .uri(target);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request.body(axum::body::Body::from(body)).map_err(|e| invalid("request", e))?;
        let response = self.service.handle(request).await;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let body = HttpBody(tokio::sync::Mutex::new(response.into_body().into_data_stream()));
        Ok(HttpReply { status, headers, body })
    }

    /// The largest request body the engine takes.
    pub fn max_body_bytes(&self) -> usize {
        self.service.max_body_bytes()
    }

    /// Number of open sessions.
    pub fn session_count(&self) -> usize {
        self.service.session_count()
    }

    /// Ends every session and stream (in-flight requests get the grace period first).
    pub async fn shutdown(&self) {
        self.service.shutdown().await;
    }
}

/// One exchange: what ends it, and its answer's body once there is one.
struct Exchange {
    stop: CancellationToken,
    body: Option<Arc<HttpBody>>,
}

/// An [`HttpApp`] whose exchanges (a request and its answer) a host names by ids of its
/// own, so that one call ends an exchange whenever its client goes away, while the engine
/// still works on the answer (a stateless-era call is cancelled that way) as while its body
/// streams. What a binding whose host cannot hold a Rust future or body (Node, the JVM)
/// drives a web framework's requests through.
///
/// ```
/// use oxmcp::host::{HttpExchanges, HttpOptions, StagedServer};
///
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// let app = StagedServer::new("demo", "1.0").http_app(HttpOptions::default())?;
/// let exchanges = HttpExchanges::new(app);
/// let headers = [("host", "localhost"), ("content-type", "application/json"), ("accept", "application/json, text/event-stream")]
///     .map(|(n, v)| (n.to_string(), v.to_string()));
/// let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
/// let head = exchanges.handle(7, "POST", "/mcp", &headers, init.as_bytes().to_vec()).await?.unwrap();
/// assert!(head.contains("\"status\":200"));
/// let first = exchanges.next(7, false).await.unwrap();
/// assert!(String::from_utf8_lossy(&first).contains("serverInfo"));
/// exchanges.next(7, true).await; // the client went away
/// assert!(exchanges.next(7, false).await.is_none());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct HttpExchanges {
    app: HttpApp,
    open: Arc<Mutex<HashMap<u64, Exchange>>>,
}

impl HttpExchanges {
    /// The exchanges of `app`, none open.
    pub fn new(app: HttpApp) -> Self {
        Self { app, open: Arc::default() }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Exchange>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers exchange `id` (any number no open exchange uses) as [`HttpApp::handle`]
    /// does. Resolves to the answer's head, JSON `{"status", "headers": [[name, value]...],
    /// "maxBodyBytes"}`, whose body [`next`](Self::next) reads; or to `None` when
    /// `next(id, true)` ended the exchange first. The exchange is open from this call on
    /// (not from the future's first poll), so a `next(id, true)` right after it ends it.
    pub fn handle(
        &self,
        id: u64,
        method: &str,
        target: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> impl std::future::Future<Output = Result<Option<String>>> + Send + 'static {
        let stop = CancellationToken::new();
        let opened = match self.lock().entry(id) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(Exchange { stop: stop.clone(), body: None });
                true
            }
        };
        // Until the answer's body is kept, the exchange ends with the future: when it
        // fails, and when the host drops it (a cancelled call) without `next(id, true)`.
        let pending = opened.then(|| Unanswered { exchanges: self.clone(), id: Some(id) });
        let (method, target, headers) = (method.to_owned(), target.to_owned(), headers.to_vec());
        let this = self.clone();
        async move {
            let Some(mut pending) = pending else {
                return Err(Error::new(ErrorKind::InvalidInput, format!("HTTP exchange {id} is open already")));
            };
            let reply = tokio::select! {
                _ = stop.cancelled() => {
                    pending.id = None; // `next(id, true)` removed it
                    return Ok(None);
                }
                reply = this.app.handle(&method, &target, &headers, body) => reply?,
            };
            pending.id = None;
            match this.lock().get_mut(&id) {
                Some(exchange) => exchange.body = Some(Arc::new(reply.body)),
                None => return Ok(None),
            }
            let head = serde_json::json!({ "status": reply.status, "headers": reply.headers, "maxBodyBytes": this.app.max_body_bytes() });
            Ok(Some(head.to_string()))
        }
    }

    /// The next chunk of exchange `id`'s body, or `None` once it has ended. `stop: true`
    /// ends the exchange now (the client went away): the engine sees the connection
    /// closed, and a pending `handle` or `next` of it resolves to `None`. What ends the
    /// exchange is decided when this is called, not when its future is first polled.
    pub fn next(&self, id: u64, stop: bool) -> impl std::future::Future<Output = Option<Bytes>> + Send + 'static {
        let found = {
            let mut open = self.lock();
            if stop {
                if let Some(exchange) = open.remove(&id) {
                    exchange.stop.cancel();
                }
                None
            } else {
                open.get(&id).and_then(|e| e.body.clone().map(|body| (body, e.stop.clone())))
            }
        };
        let this = self.clone();
        async move {
            let (body, stop) = found?;
            let chunk = tokio::select! {
                _ = stop.cancelled() => None,
                chunk = body.next_chunk() => chunk,
            };
            if chunk.is_none() {
                this.lock().remove(&id);
            }
            chunk
        }
    }

    /// How many exchanges are open (a leak check for tests).
    pub fn open_count(&self) -> usize {
        self.lock().len()
    }

    /// The app they are exchanges of.
    pub fn app(&self) -> &HttpApp {
        &self.app
    }
}

/// Removes exchange `id` when dropped (unless `id` was taken).
struct Unanswered {
    exchanges: HttpExchanges,
    id: Option<u64>,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.exchanges.lock().remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::host::{HandlerKind, HttpOptions, StagedServer};

    fn headers() -> Vec<(String, String)> {
        [("host", "localhost"), ("content-type", "application/json"), ("accept", "application/json, text/event-stream")]
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .to_vec()
    }

    /// A host that drops `handle` (its call was cancelled) while the engine works on the
    /// answer leaves no exchange behind, and the id is free again.
    #[tokio::test]
    async fn a_dropped_handle_ends_its_exchange() {
        let server = StagedServer::new("t", "1");
        let never_answers = Arc::new(|_, _| true);
        server.register(HandlerKind::Tool, r#"{"name":"wait","inputSchema":{"type":"object"}}"#, never_answers).unwrap();
        let options = HttpOptions { stateless: true, json_response: true, ..Default::default() };
        let exchanges = HttpExchanges::new(server.http_app(options).unwrap());
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}"#;
        let headers = headers();
        let waiting = exchanges.handle(1, "POST", "/mcp", &headers, call.as_bytes().to_vec());
        assert!(tokio::time::timeout(Duration::from_millis(200), waiting).await.is_err(), "the tool never answers");
        assert_eq!(exchanges.open_count(), 0);
        // An exchange is open from the call on: ended before its future first runs, it
        // answers nothing and leaves nothing behind.
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let early = exchanges.handle(3, "POST", "/mcp", &headers, init.as_bytes().to_vec());
        assert_eq!(exchanges.open_count(), 1);
        exchanges.next(3, true).await;
        assert_eq!(early.await.unwrap(), None);
        assert_eq!(exchanges.open_count(), 0);
        // An id in use is refused without touching the exchange that has it.
        let first = exchanges.handle(4, "POST", "/mcp", &headers, call.as_bytes().to_vec());
        assert!(exchanges.handle(4, "POST", "/mcp", &headers, Vec::new()).await.is_err());
        assert_eq!(exchanges.open_count(), 1);
        drop(first);
        assert_eq!(exchanges.open_count(), 0);
        // A failed request ends its exchange too.
        assert!(exchanges.handle(2, "\u{1}", "/mcp", &headers, Vec::new()).await.is_err());
        assert_eq!(exchanges.open_count(), 0);
    }
}
