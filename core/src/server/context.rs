//! What a handler can do while it runs: report progress, log to the client, watch for
//! cancellation, and ask the client things (sampling, elicitation, roots).
//!
//! Every handler trait takes a [`RequestContext`], so this file sits low in the server:
//! the handlers stand on it, the registry and the dispatcher on them. What the context
//! needs from the features above it (where its questions go in the stateless era or in a
//! task, how a call becomes a task, how it reads its own server's resources) it names
//! through the small traits [`Questions`], [`Escalating`] and [`OwnResources`], which
//! those features implement: the context imports none of them.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    era, methods, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Implementation, ListRootsResult, LoggingLevel, Meta, ProgressToken, ProtocolVersion, RequestId,
};
use crate::session::{Peer, RequestOptions};

use super::next::Next;

/// What the server knows about one connected client.
#[derive(Debug, Default)]
pub struct ClientState {
    pub(crate) info: OnceLock<(Implementation, ClientCapabilities)>,
    /// The minimum level sent to the client; `u8::MAX` until `logging/setLevel` (send all).
    pub(crate) log_level: AtomicU8,
    pub(crate) subscriptions: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Where this state is kept for other server nodes (a shared HTTP server), if anywhere.
    pub(crate) saver: Option<crate::store::StateSaver>,
    /// A shared session: how many connections read its standalone stream on this node.
    /// Notifications every node hears go to the client from the node(s) where it reads.
    pub(crate) readers: Option<Arc<std::sync::atomic::AtomicUsize>>,
    /// A random key naming this session, set by `initialize` (and shared with the other
    /// nodes that serve it): the tasks it makes are its own. Unset for a stateless-era
    /// request, or a session-era one served without `initialize`, which have no session.
    pub(crate) session_key: OnceLock<String>,
}

/// A `log_level` above every level: send no log messages.
const SILENT: u8 = 200;

impl ClientState {
    pub(crate) fn new() -> Self {
        Self { log_level: AtomicU8::new(u8::MAX), ..Default::default() }
    }

    /// A stateless-era request's client, from its `_meta`: logs only when it asked for a
    /// level.
    pub(crate) fn for_request(meta: &crate::protocol::meta::RequestMeta) -> Self {
        let info = meta.client_info.clone().unwrap_or_else(|| Implementation::new("unknown", ""));
        let state = Self { log_level: AtomicU8::new(meta.log_level.map_or(SILENT, |l| l as u8)), ..Default::default() };
        let _ = state.info.set((info, meta.capabilities.clone()));
        state
    }

    /// What another node needs to serve this client: see [`ClientState::restore`].
    pub(crate) fn snapshot(&self, version: Option<ProtocolVersion>) -> Value {
        let (info, caps) = self.info.get().cloned().unzip();
        let mut subscriptions: Vec<String> = self.subscriptions.lock().unwrap().iter().cloned().collect();
        subscriptions.sort();
        json!({
            "protocolVersion": version.map(|v| v.as_str()),
            "clientInfo": info,
            "capabilities": caps,
            "logLevel": self.log_level.load(Ordering::Relaxed),
            "subscriptions": subscriptions,
            "sessionKey": self.session_key.get(),
        })
    }

    #[cfg(feature = "http")]
    /// Takes on a snapshot another node saved: the client it names (once), its log level
    /// and subscriptions. Returns the negotiated version it names. A snapshot that does
    /// not parse changes nothing.
    pub(crate) fn restore(&self, state: &Value) -> Option<ProtocolVersion> {
        if let (Some(info), Some(caps)) = (state.get("clientInfo"), state.get("capabilities")) {
            if let (Ok(info), Ok(caps)) = (serde_json::from_value(info.clone()), serde_json::from_value(caps.clone())) {
                let _ = self.info.set((info, caps));
            }
        }
        if let Some(key) = state.get("sessionKey").and_then(Value::as_str) {
            let _ = self.session_key.set(key.to_string());
        }
        if let Some(level) = state.get("logLevel").and_then(Value::as_u64).and_then(|l| u8::try_from(l).ok()) {
            self.log_level.store(level, Ordering::Relaxed);
        }
        if let Some(subs) = state.get("subscriptions").and_then(Value::as_array) {
            *self.subscriptions.lock().unwrap() = subs.iter().filter_map(Value::as_str).map(String::from).collect();
        }
        state.get("protocolVersion").and_then(Value::as_str).and_then(ProtocolVersion::parse)
    }

    /// Saves this state where other nodes find it (a no-op for a session no other node
    /// serves): done before the request that changed it is answered.
    pub(crate) async fn save(&self, version: Option<ProtocolVersion>) -> std::result::Result<(), crate::protocol::ErrorObject> {
        let Some(saver) = &self.saver else { return Ok(()) };
        saver.save(self.snapshot(version)).await.map_err(|e| crate::protocol::ErrorObject::internal(e.to_string()))
    }

    /// Gives an initialized session its key (once: a later call keeps the first).
    pub(crate) fn open_session(&self) {
        let _ = self.session_key.set(crate::random::random_id());
    }

    pub(crate) fn wants(&self, level: LoggingLevel) -> bool {
        let min = self.log_level.load(Ordering::Relaxed);
        min == u8::MAX || level as u8 >= min
    }
}

/// A middleware's way on: the rest of the chain and the params it was given.
type NextSlot = (Next, Option<Value>);

/// Where a handler's questions to the client go when they cannot be requests of their
/// own: the stateless era's round of input requests (`input_required.rs`), a task's
/// `inputRequests` (`tasks/inputs.rs`). The context only hands the questions on; this
/// trait lets those features take them without the context naming them.
pub(crate) trait Questions: Send + Sync {
    /// The client's answer to `method` with `params`, asked under `key` (else one numbered
    /// by the order of the asks); ends when `cancel` fires.
    fn ask<'a>(
        &'a self,
        key: Option<&'a str>,
        method: &'a str,
        params: Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Value>>;

    /// Whether the handler runs as a task already (escalating it is then a no-op).
    fn is_task(&self) -> bool {
        false
    }

    /// Takes a progress report's `message` and says where its notification goes.
    fn progress(self: Arc<Self>, _message: Option<&str>) -> ProgressTo {
        ProgressTo::Request
    }
}

/// Where a progress notification goes, as [`Questions::progress`] says.
pub(crate) enum ProgressTo {
    /// Along with the request (the request's progress token).
    Request,
    /// Nowhere: a task kept the message as its `statusMessage`, and its form of task has
    /// no progress notifications.
    Nowhere,
    /// The session's stream, tagged with the task's id (the request that started the
    /// task was answered).
    Task(String),
}

/// A call that may become a task midway (an escalating tool's, `tasks/escalate.rs`): where
/// its questions go changes when it does. A trait so the context can escalate without
/// naming the tasks that do it.
pub(crate) trait Escalating: Send + Sync {
    /// Where questions go now (`None`: plain requests to the client).
    fn current(&self) -> Option<Inputs>;

    /// Turns the call into a task; resolves once the task exists.
    fn escalate(&self) -> BoxFuture<'_, Result<()>>;
}

/// The server a request came to, as its context needs it: to read the server's own
/// resources. The server implements it (`dispatch.rs`), so the context, below the
/// dispatcher, names neither.
pub(crate) trait OwnResources: Send + Sync + std::fmt::Debug {
    /// Reads `uri` as a client's `resources/read` would, with `ctx`; no middleware runs.
    fn read_own<'a>(
        self: Arc<Self>,
        ctx: RequestContext,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<crate::protocol::ReadResourceResult>>;
}

/// Where a handler's questions to the client go instead of requests of their own.
#[derive(Clone)]
pub(crate) enum Inputs {
    /// The stateless era's round (an `InputRequiredResult` ends it, the client retries),
    /// or a task's `inputRequests`, answered through `tasks/update`.
    To(Arc<dyn Questions>),
    /// An escalating tool's call: where its questions go now (the call's, or once it
    /// became a task, the task's).
    Escalating(Arc<dyn Escalating>),
}

impl Inputs {
    /// Where questions go at this moment (`None`: plain requests to the client).
    fn current(&self) -> Option<Inputs> {
        match self {
            Inputs::Escalating(e) => e.current(),
            other => Some(other.clone()),
        }
    }
}

impl std::fmt::Debug for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Inputs::To(q) if q.is_task() => "Inputs::Task",
            Inputs::To(_) => "Inputs::Round",
            Inputs::Escalating(_) => "Inputs::Escalating",
        })
    }
}

/// The context handed to every handler, one per request.
///
/// ```
/// use oxmcp::server::{RequestContext, Arguments};
/// use oxmcp::protocol::{CallToolResult, LoggingLevel};
/// async fn long_job(_args: Arguments, ctx: RequestContext) -> oxmcp::Result<CallToolResult> {
///     for step in 0..=4 {
///         if ctx.is_cancelled() { break; }
///         ctx.report_progress(step as f64, Some(4.0), None)?;
///         ctx.log(LoggingLevel::Info, serde_json::json!(format!("step {step}")))?;
///     }
///     Ok(CallToolResult::text("done"))
/// }
/// ```
#[derive(Clone, Debug)]
pub struct RequestContext {
    pub(crate) id: RequestId,
    pub(crate) peer: Peer,
    pub(crate) cancel: CancellationToken,
    pub(crate) meta: Option<Meta>,
    pub(crate) client: Arc<ClientState>,
    /// The request's protocol version (per request in the stateless era).
    pub(crate) version: Option<ProtocolVersion>,
    /// Where questions to the client go when they cannot be requests of their own: the
    /// stateless era's round of input requests, or a task's `inputRequests`.
    pub(crate) inputs: Option<Inputs>,
    /// The key the next question to the client goes under (stateless era).
    pub(crate) input_key: Option<Arc<str>>,
    /// Who the request's access token speaks for (a protected HTTP server).
    pub(crate) auth: Option<Arc<crate::auth::AuthInfo>>,
    /// The HTTP request's headers (over HTTP).
    pub(crate) headers: Option<Arc<crate::transport::http::headers::Headers>>,
    /// The server the request came to (for [`read_resource`](Self::read_resource)).
    pub(crate) server: Option<Arc<dyn OwnResources>>,
    /// In a middleware's call: the rest of the chain, and the params it was given.
    pub(crate) next: Option<Arc<std::sync::Mutex<Option<NextSlot>>>>,
    /// The server span's context (telemetry on): what the handler's own work runs in.
    pub(crate) trace: Option<opentelemetry::Context>,
}

impl RequestContext {
    /// The client's id for this request.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }

    /// The W3C trace context a handler's own spans take as their parent: the engine's
    /// server span when telemetry is on, else what the request's `_meta` carried.
    pub fn trace_context(&self) -> Option<crate::telemetry::TraceContext> {
        match &self.trace {
            Some(cx) => crate::telemetry::trace_context_of(cx),
            None => self.meta.as_ref().and_then(crate::telemetry::passed_in),
        }
    }

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// The progress token the client attached, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        let token = self.meta.as_ref()?.get("progressToken")?;
        serde_json::from_value(token.clone()).ok()
    }

    /// Fires when the client cancels this request or disconnects.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Resolves when the client cancels this request.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// The client's name and version, from `initialize`.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client.info.get().map(|(i, _)| i)
    }

    /// The client's declared capabilities.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.client.info.get().map(|(_, c)| c)
    }

    /// The protocol version of this request: negotiated by `initialize` in the session
    /// era, carried by the request itself in the stateless era.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.version.or_else(|| self.peer.protocol_version())
    }

    /// Who the request's verified access token speaks for: its subject, client, scopes
    /// and claims. `None` unless the server is a protected HTTP server.
    pub fn auth(&self) -> Option<&crate::auth::AuthInfo> {
        self.auth.as_deref()
    }

    /// Reads one of this server's own resources (or templates), as a client's
    /// `resources/read` would, with this request's context (its auth and headers); no
    /// middleware runs. [`ErrorKind::Rpc`] with the protocol's code when there is none.
    pub async fn read_resource(&self, uri: &str) -> Result<crate::protocol::ReadResourceResult> {
        let server = self.server.clone().ok_or_else(|| Error::new(ErrorKind::InvalidInput, "no server to read from"))?;
        server.read_own(self.clone(), uri).await
    }

    /// This context for a middleware holding `next` (see [`RequestContext::take_next`]).
    pub fn with_next(&self, next: Next, params: Option<Value>) -> RequestContext {
        RequestContext { next: Some(Arc::new(std::sync::Mutex::new(Some((next, params))))), ..self.clone() }
    }

    /// In a middleware's call made through [`with_next`](Self::with_next): the rest of the
    /// chain and the params the middleware was given, once.
    pub fn take_next(&self) -> Option<(Next, Option<Value>)> {
        self.next.as_ref()?.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The headers of the HTTP request that carried this request (lower-case names; no
    /// `Authorization`: see [`auth`](Self::auth)); `None` over other transports.
    pub fn headers(&self) -> Option<&crate::transport::http::headers::Headers> {
        self.headers.as_deref()
    }

    /// The session, for notifications and requests of your own.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Over Streamable HTTP, closes the SSE connection carrying this request while the
    /// handler goes on; the client reconnects and receives the rest (2025-11-25 polling).
    /// Elsewhere it does nothing.
    pub fn end_response_stream(&self) {
        self.peer.end_connection_of(&self.id);
    }

    /// Sends `notifications/progress` (a no-op when the client attached no progress token,
    /// or has gone: progress is fire-and-forget, a handler need not guard it). In a task
    /// the message becomes the task's `statusMessage` instead.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> Result<()> {
        // In a task the message becomes the task's statusMessage, which tasks/get
        // reports. The extension's tasks have no progress notifications; a 2025-11-25
        // task's progress token lasts as long as the task.
        let task_id = match self.current_inputs() {
            Some(Inputs::To(questions)) => match questions.progress(message) {
                ProgressTo::Request => None,
                ProgressTo::Nowhere => return Ok(()),
                ProgressTo::Task(id) => Some(id),
            },
            _ => None,
        };
        let Some(token) = self.meta.as_ref().and_then(|m| m.get("progressToken")) else {
            return Ok(());
        };
        if self.peer.is_closed() {
            return Ok(());
        }
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message.filter(|_| self.protocol_version().is_none_or(era::progress_has_message)) {
            params["message"] = json!(message);
        }
        match task_id {
            // The request that started the task was answered: the session's stream.
            Some(id) => {
                params["_meta"] = json!({ crate::protocol::RELATED_TASK_META: { "taskId": id } });
                self.peer.notify(methods::PROGRESS, Some(params))
            }
            None => self.peer.notify_during(methods::PROGRESS, Some(params), &self.id),
        }
    }

    /// Sends `notifications/message` if the client's log level lets it through.
    pub fn log(&self, level: LoggingLevel, data: Value) -> Result<()> {
        self.log_with_logger(level, None, data)
    }

    /// Like [`RequestContext::log`], naming the logger. Like progress, a log message to a
    /// client that has gone is dropped quietly.
    pub fn log_with_logger(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> Result<()> {
        if !self.client.wants(level) || self.peer.is_closed() {
            return Ok(());
        }
        let mut params = json!({ "level": level, "data": data });
        if let Some(logger) = logger {
            params["logger"] = json!(logger);
        }
        self.peer.notify_during(methods::LOGGING_MESSAGE, Some(params), &self.id)
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub async fn create_message(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult> {
        self.require(|c| c.sampling.is_some(), "sampling")?;
        self.client_request(methods::SAMPLING_CREATE_MESSAGE, serde_json::to_value(params)?).await
    }

    /// Asks the user for input through the client (`elicitation/create`).
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult> {
        if let ElicitRequestParams::Form(form) = &params {
            // A form no client could render is the server's mistake: said first, whatever
            // the client declared, and never sent.
            crate::protocol::check_form_schema(&form.requested_schema, self.protocol_version())
                .map_err(|why| Error::new(ErrorKind::InvalidInput, format!("this elicitation form cannot be asked: {why}")))?;
        }
        let url = matches!(params, ElicitRequestParams::Url(_));
        let capable = |c: &ClientCapabilities| {
            c.elicitation.as_ref().is_some_and(|e| if url { e.supports_url() } else { e.supports_form() })
        };
        self.require(capable, if url { "elicitation (url mode)" } else { "elicitation" })?;
        if let Some(v) = self.protocol_version().filter(|v| !v.supports_elicitation()) {
            return Err(Error::new(ErrorKind::CapabilityMissing, format!("elicitation is not part of protocol {v}")));
        }
        self.client_request(methods::ELICITATION_CREATE, serde_json::to_value(params)?).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        self.require(|c| c.roots.is_some(), "roots")?;
        self.client_request(methods::ROOTS_LIST, json!({})).await
    }

    fn require(&self, has: impl Fn(&ClientCapabilities) -> bool, what: &str) -> Result<()> {
        match self.client_capabilities() {
            Some(c) if has(c) => Ok(()),
            // The handler sees the same kind in both eras; if it lets the error through,
            // the stateless era makes it the request's error (-32021, naming the
            // capability), since the client declares its capabilities per request.
            _ if self.current_inputs().is_some() => {
                let name = what.split_whitespace().next().unwrap_or(what);
                Err(Error::with_rpc(
                    ErrorKind::CapabilityMissing,
                    crate::protocol::ErrorObject::new(
                        crate::protocol::codes::MISSING_CLIENT_CAPABILITY,
                        format!("this request needs the client's {what} capability"),
                    )
                    .with_data(json!({ "requiredCapabilities": { name: {} } })),
                ))
            }
            _ if self.served_without_session() => {
                let why = "server-to-client requests need a session, and this request was served without one";
                Err(Error::new(ErrorKind::CapabilityMissing, format!("{what} is not available in stateless mode: {why}")))
            }
            _ => Err(Error::new(ErrorKind::CapabilityMissing, format!("the client did not declare the {what} capability"))),
        }
    }

    /// Whether this is a session-era request served without a session (by a stateless
    /// HTTP server, without `initialize`): the client's capabilities are unknown, and its
    /// answer to a request from here would reach no one, whatever it declared.
    fn served_without_session(&self) -> bool {
        self.client.session_key.get().is_none() && self.protocol_version().is_some_and(|v| !v.is_stateless())
    }

    /// Where this handler's questions to the client go at this moment.
    fn current_inputs(&self) -> Option<Inputs> {
        self.inputs.as_ref().and_then(Inputs::current)
    }

    /// Continues this call as a task (the tasks extension), for a tool registered with
    /// [`ServerBuilder::escalating_tool`]: the client is answered with a task handle now
    /// and this handler goes on in the background; its later questions become the task's
    /// `inputRequests`, and `tasks/cancel` reaches its cancellation. What it gathered
    /// before (MRTR rounds in the stateless era) stays with it. Returns `false`, and the
    /// call goes on inline, when it cannot become a task: the client did not declare the
    /// extension, or the tool is not an escalating one. Calling it again once a task is a
    /// no-op (`true`).
    ///
    /// [`ServerBuilder::escalating_tool`]: super::ServerBuilder::escalating_tool
    pub async fn escalate_to_task(&self) -> Result<bool> {
        match &self.inputs {
            Some(Inputs::Escalating(e)) => e.escalate().await.map(|()| true),
            Some(Inputs::To(q)) if q.is_task() => Ok(true),
            _ => Ok(false),
        }
    }

    /// This context with `key` naming its questions to the client. In the stateless era a
    /// question travels in an `InputRequiredResult` under a key the client answers by (see
    /// the module docs of multi round-trip requests); by default keys are numbered in the
    /// order of the asks. In the session era keys play no part.
    ///
    /// ```
    /// # use oxmcp::server::RequestContext;
    /// # use oxmcp::protocol::{ElicitRequestParams, ElicitResult};
    /// async fn ask_name(ctx: &RequestContext, params: ElicitRequestParams) -> oxmcp::Result<ElicitResult> {
    ///     ctx.keyed("user_name").elicit(params).await
    /// }
    /// ```
    pub fn keyed(&self, key: &str) -> RequestContext {
        RequestContext { input_key: Some(Arc::from(key)), ..self.clone() }
    }

    /// A request to the client that ends when this request is cancelled; in the stateless
    /// era, an input request of this round.
    /// What the handler asks continues the request's trace in both eras (the engine's span
    /// for it, or with telemetry off the caller's), so a client's handler runs in it.
    async fn client_request<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T> {
        let trace = self.trace_context();
        let value = match self.current_inputs() {
            Some(Inputs::To(questions)) => {
                // An input request is no request of its own: its params carry the context.
                let mut params = Some(params);
                if let Some(cx) = trace.as_ref().and_then(crate::telemetry::remote) {
                    crate::telemetry::inject_unless_present(&mut params, &cx);
                }
                questions.ask(self.input_key.as_deref(), method, params.unwrap_or_default(), &self.cancel).await?
            }
            Some(Inputs::Escalating(_)) | None => {
                let mut options = RequestOptions::default().cancel_token(self.cancel.child_token()).during(self.id.clone());
                // Telemetry on, the current span is the parent already.
                if let (None, Some(trace)) = (&self.trace, trace) {
                    options = options.trace(trace);
                }
                self.peer.request(method, Some(params), options).await?
            }
        };
        serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorKind::Protocol, format!("the client's {method} result is malformed: {e}")))
    }
}
