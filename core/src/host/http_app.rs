//! The HTTP server for a host that owns the sockets (an ASGI server, a web framework): the
//! host hands in each request as plain values and streams the answer back, and the engine
//! answers exactly as its own listener would.

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;

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
