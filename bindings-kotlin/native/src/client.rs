//! `NativeClient`: a client connected as the host layer's options say (a child process
//! over stdio, or Streamable HTTP), every call by name ([`oxmcp::host::client::call`]),
//! and the Kotlin handler answering the server's sampling, elicitation and roots requests
//! and hearing its notifications.

use std::sync::Arc;
use std::time::Duration;

use oxmcp::client::{Client, Era};
use oxmcp::host::{client, ClientHooks, ConnectOptions};
use oxmcp::session::RequestOptions;
use oxmcp::telemetry::TraceContext;
use oxmcp::Error;

use crate::calls;
use crate::error::Result;
use crate::runtime;

/// What the Kotlin client answers and hears.
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait ClientHandler: Send + Sync {
    /// A server request (`sampling/createMessage`, `elicitation/create`, `roots/list`, as
    /// the connect options' `answers` declared); `params` and the result are JSON.
    /// Cancelled (the coroutine) when the server cancels it.
    async fn request(&self, method: String, params: String) -> Result<String>;
    /// A server notification; `params` is JSON.
    fn notification(&self, method: String, params: String);
}

/// Told of each progress notification of one call.
#[uniffi::export(with_foreign)]
pub trait ProgressListener: Send + Sync {
    /// `total` and `message` when the server sent them.
    fn on_progress(&self, progress: f64, total: Option<f64>, message: Option<String>);
}

/// A connected client.
#[derive(uniffi::Object)]
pub struct NativeClient {
    client: Arc<Client>,
}

impl NativeClient {
    /// The engine client (for a server mounting this one).
    pub(crate) fn engine(&self) -> Arc<Client> {
        self.client.clone()
    }
}

/// Connects as `options` (the host layer's connect options JSON: `command`/`args` or
/// `url`, `era`, `answers`, ...) say; `handler` answers what `answers` names.
#[uniffi::export]
pub async fn connect(options: String, handler: Option<Arc<dyn ClientHandler>>) -> Result<Arc<NativeClient>> {
    let options = ConnectOptions::from_json(&options)?;
    runtime::run(async move {
        // This client's own table of the handler's calls.
        let mut hooks = ClientHooks::default();
        let calls = hooks.calls().clone();
        if let Some(handler) = handler {
            let table = calls.clone();
            let answering = handler.clone();
            hooks.on_request = Some(Arc::new(move |id, method, params| {
                let handler = answering.clone();
                calls::answer(&table, id, None, async move { handler.request(method.to_string(), params).await })
            }));
            hooks.on_notification = Some(Arc::new(move |method, params| handler.notification(method, params)));
        }
        let client = client::connect(options, hooks).await?;
        Ok(Arc::new(NativeClient { client: Arc::new(client) }))
    })
    .await
}

#[uniffi::export]
impl NativeClient {
    /// The `initialize` result (or its stateless-era equivalent) as JSON.
    pub fn initialize_result(&self) -> Result<String> {
        Ok(serde_json::to_string(self.client.initialize_result()).map_err(Error::from)?)
    }

    /// `session` or `stateless`: the protocol era this connection speaks.
    pub fn era(&self) -> String {
        match self.client.era() {
            Era::Stateless => "stateless".into(),
            _ => "session".into(),
        }
    }

    /// Calls `op` (a method name, or one of the host layer's steps such as
    /// `tools/call start task`) with its arguments `a` and `b` (see
    /// [`oxmcp::host::client::call`]); the result as JSON, if it has one. `timeout_ms`
    /// 0 keeps the default. `traceparent` and `tracestate`: the W3C trace context of the
    /// caller's current span, the parent of every request the call sends
    /// ([`RequestOptions::trace`]). Cancelling the coroutine cancels the request at the server.
    #[allow(clippy::too_many_arguments)]
    pub async fn call(
        &self,
        op: String,
        a: Option<String>,
        b: Option<String>,
        timeout_ms: u64,
        progress: Option<Arc<dyn ProgressListener>>,
        traceparent: Option<String>,
        tracestate: Option<String>,
    ) -> Result<Option<String>> {
        let mut options = RequestOptions::default();
        if let Some(traceparent) = traceparent {
            options = options.trace(TraceContext { traceparent, tracestate });
        }
        if timeout_ms > 0 {
            options = options.timeout(Duration::from_millis(timeout_ms));
        }
        if let Some(listener) = progress {
            options = options.on_progress(move |p| listener.on_progress(p.progress, p.total, p.message.clone()));
        }
        let c = self.client.clone();
        runtime::run(async move { Ok(client::call(&c, &op, a.as_deref(), b.as_deref(), options).await?) }).await
    }

    /// Tells the server that the client's roots changed.
    pub fn notify_roots_changed(&self) -> Result<()> {
        Ok(self.client.notify_roots_changed()?)
    }

    /// Closes the connection (a child server is stopped: stdin closed, then signals).
    /// (`stop`: Kotlin objects have an `AutoCloseable.close` of their own.)
    pub async fn stop(&self) -> Result<()> {
        let c = self.client.clone();
        runtime::run(async move {
            c.shutdown().await;
            Ok(())
        })
        .await
    }
}
