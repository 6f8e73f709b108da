//! `NativeClient`: the engine side of the JS `Client`. A call is started with an id the JS
//! layer chose and answered through the client's event dispatcher `(kind, id, slot, a, b)`:
//! its result or error, its progress, the server's notifications, and the server's
//! requests (sampling, elicitation, roots), which JS answers with `answer(id, json)`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::{spawn, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::client::{Client, ClientBuilder, ClientContext, Era, ServerNotification};
use oxmcp::protocol::{methods, CreateMessageResult, ElicitResult, ListRootsResult, LoggingLevel};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::events::{Dispatcher, Events};

/// Event kinds sent to the JS dispatcher of a client.
const RESULT: u32 = 1;
const ERROR: u32 = 2;
const PROGRESS: u32 = 3;
const NOTIFICATION: u32 = 4;
const REQUEST: u32 = 5;
const REQUEST_CANCEL: u32 = 6;

/// Slots of REQUEST events: which handler the server asks.
const SAMPLING: u32 = 1;
const ELICITATION: u32 = 2;
const ROOTS: u32 = 3;

/// The server's requests waiting for a JS answer.
struct Hooks {
    events: Events,
    waiting: Mutex<HashMap<u32, oneshot::Sender<Result<String, Error>>>>,
    next: AtomicU32,
}

impl Hooks {
    async fn ask<T: serde::de::DeserializeOwned>(&self, slot: u32, params: Value, ctx: ClientContext) -> oxmcp::Result<T> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, mut rx) = oneshot::channel();
        self.waiting.lock().unwrap().insert(id, tx);
        struct Forget<'a>(&'a Hooks, u32);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                self.0.waiting.lock().unwrap().remove(&self.1);
            }
        }
        let _forget = Forget(self, id);
        if !self.events.send(REQUEST, id, slot, Some(params.to_string()), None) {
            return Err(Error::new(ErrorKind::Closed, "the JavaScript environment is gone"));
        }
        let text = tokio::select! {
            r = &mut rx => r.unwrap_or_else(|_| Err(Error::new(ErrorKind::Handler, "the handler vanished")))?,
            _ = ctx.cancel.cancelled() => {
                self.events.send(REQUEST_CANCEL, id, slot, None, None);
                let _ = tokio::time::timeout(Duration::from_secs(2), &mut rx).await;
                return Err(Error::new(ErrorKind::Cancelled, "cancelled by the server"));
            }
        };
        serde_json::from_str(&text)
            .map_err(|e| Error::new(ErrorKind::Handler, format!("the handler returned an invalid result: {e}")))
    }
}

fn builder(hooks: &Arc<Hooks>, name: String, version: String, capabilities: &[String], era: Era) -> ClientBuilder {
    let mut b = Client::builder(name, version).era(era);
    let has = |c: &str| capabilities.iter().any(|x| x == c);
    if has("sampling") {
        let h = hooks.clone();
        b = b.on_sampling(move |params, ctx| {
            let h = h.clone();
            async move { h.ask::<CreateMessageResult>(SAMPLING, serde_json::to_value(params)?, ctx).await }
        });
    }
    if has("elicitation") {
        let h = hooks.clone();
        b = b.on_elicitation(move |params, ctx| {
            let h = h.clone();
            async move { h.ask::<ElicitResult>(ELICITATION, serde_json::to_value(params)?, ctx).await }
        });
    }
    if has("roots") {
        let h = hooks.clone();
        b = b.on_list_roots(move |_, ctx| {
            let h = h.clone();
            async move { h.ask::<ListRootsResult>(ROOTS, json!({}), ctx).await }
        });
    }
    if has("notifications") {
        let events = hooks.events.clone();
        b = b.on_notification(move |n| {
            let (method, params) = notification_parts(n);
            events.send(NOTIFICATION, 0, 0, Some(method), Some(params));
        });
    }
    b
}

fn notification_parts(n: ServerNotification) -> (String, String) {
    let (method, params) = n.into_wire();
    (method, params.to_string())
}

/// A connected client.
#[napi]
pub struct NativeClient {
    client: Arc<Client>,
    hooks: Arc<Hooks>,
    cancels: Arc<Mutex<HashMap<u32, CancellationToken>>>,
}

fn strings(json_text: &str, what: &str) -> napi::Result<Value> {
    serde_json::from_str(json_text).map_err(|e| errors::invalid(format!("invalid {what}: {e}")))
}

fn hooks(dispatch: &Dispatcher<'_>) -> napi::Result<Arc<Hooks>> {
    Ok(Arc::new(Hooks { events: Events::new(dispatch)?, waiting: Mutex::new(HashMap::new()), next: AtomicU32::new(1) }))
}

/// Starts `command` and connects to it over stdio. `options_json`: `{args, env, cwd,
/// name, version, capabilities, era}`; `dispatch(kind, id, slot, a, b)` receives events.
#[napi]
pub fn connect_stdio<'env>(
    env: &'env Env,
    command: String,
    options_json: String,
    dispatch: Dispatcher<'_>,
) -> napi::Result<PromiseRaw<'env, NativeClient>> {
    let o = strings(&options_json, "options")?;
    let era = era(&o)?;
    let hooks = hooks(&dispatch)?;
    let mut child = ChildProcess::new(command.clone());
    if let Some(args) = o["args"].as_array() {
        child = child.args(args.iter().map(|a| a.as_str().map(String::from).unwrap_or_else(|| a.to_string())));
    }
    if let Some(vars) = o["env"].as_object() {
        for (k, v) in vars {
            child = child.env(k, v.as_str().map(String::from).unwrap_or_else(|| v.to_string()));
        }
    }
    if let Some(cwd) = o["cwd"].as_str() {
        child = child.current_dir(cwd);
    }
    let b = builder(&hooks, name(&o), version(&o), &capabilities(&o), era);
    env.spawn_future(async move {
        let transport = child
            .spawn()
            .map_err(|e| errors::to_napi(Error::new(ErrorKind::Transport, format!("cannot start {command:?}: {e}"))))?;
        let client = b.connect(transport).await.map_err(errors::to_napi)?;
        Ok(NativeClient { client: Arc::new(client), hooks, cancels: Default::default() })
    })
}

/// Connects to a Streamable HTTP (or legacy HTTP+SSE) server. `options_json`: `{headers,
/// name, version, capabilities, era}`.
#[napi]
pub fn connect_http<'env>(
    env: &'env Env,
    url: String,
    options_json: String,
    dispatch: Dispatcher<'_>,
) -> napi::Result<PromiseRaw<'env, NativeClient>> {
    let o = strings(&options_json, "options")?;
    let era = era(&o)?;
    let hooks = hooks(&dispatch)?;
    let mut transport = HttpClientTransport::new(url);
    if let Some(headers) = o["headers"].as_object() {
        for (k, v) in headers {
            transport = transport.header(k, v.as_str().unwrap_or_default());
        }
    }
    let b = builder(&hooks, name(&o), version(&o), &capabilities(&o), era);
    env.spawn_future(async move {
        let client = b.connect(transport).await.map_err(errors::to_napi)?;
        Ok(NativeClient { client: Arc::new(client), hooks, cancels: Default::default() })
    })
}

/// The `era` option: `"auto"` (default), `"session"` or `"stateless"` (also `"legacy"` /
/// `"modern"`, as the engine parses them); anything else is an `InvalidInputError`.
fn era(o: &Value) -> napi::Result<Era> {
    match &o["era"] {
        Value::Null => Ok(Era::Auto),
        Value::String(s) => Era::parse(s).map_err(errors::to_napi),
        other => Err(errors::invalid(format!("the era option must be 'auto', 'session' or 'stateless', not {other}"))),
    }
}

fn name(o: &Value) -> String {
    o["name"].as_str().unwrap_or("oxmcp-node").to_string()
}

fn version(o: &Value) -> String {
    o["version"].as_str().unwrap_or(env!("CARGO_PKG_VERSION")).to_string()
}

fn capabilities(o: &Value) -> Vec<String> {
    o["capabilities"].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default()
}

impl NativeClient {
    /// The options of request `id`: inactivity timeout, PROGRESS events, cancellation.
    fn options(&self, id: u32, timeout_ms: Option<f64>, progress: bool, cancellable: bool) -> RequestOptions {
        let mut options = RequestOptions::default();
        if let Some(ms) = timeout_ms {
            options = options.timeout(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
        }
        if progress {
            let events = self.hooks.events.clone();
            options = options.on_progress(move |p| {
                let text = json!({"progress": p.progress, "total": p.total, "message": p.message}).to_string();
                events.send(PROGRESS, id, 0, Some(text), None);
            });
        }
        if cancellable {
            let token = CancellationToken::new();
            self.cancels.lock().unwrap().insert(id, token.clone());
            options = options.cancel_token(token);
        }
        options
    }

    /// Runs request `id` and sends its outcome as a RESULT or ERROR event.
    fn finish(&self, id: u32, cancellable: bool, work: impl std::future::Future<Output = oxmcp::Result<Value>> + Send + 'static) {
        let events = self.hooks.events.clone();
        let cancels = cancellable.then(|| self.cancels.clone());
        spawn(async move {
            let outcome = work.await;
            if let Some(c) = cancels {
                c.lock().unwrap().remove(&id);
            }
            match outcome {
                Ok(v) => events.send(RESULT, id, 0, Some(v.to_string()), None),
                Err(e) => events.send(ERROR, id, 0, Some(errors::encode(&e)), None),
            };
        });
    }
}

#[napi]
impl NativeClient {
    /// The server's `initialize` result (JSON).
    #[napi]
    pub fn initialize_result(&self) -> String {
        serde_json::to_string(self.client.initialize_result()).unwrap_or_else(|_| "{}".into())
    }

    /// The era the connection settled on: `"session"` or `"stateless"`.
    #[napi]
    pub fn era(&self) -> String {
        self.client.era().as_str().to_string()
    }

    /// Sends request `method` with `params_json` (era-aware: in the stateless era with the
    /// request `_meta`, the server's input requests answered by the handlers); its outcome
    /// arrives as a RESULT or ERROR event with `id`. `timeout_ms` is the inactivity timeout
    /// (progress restarts it); `progress` asks for PROGRESS events; `cancellable` lets
    /// `cancel(id)` cancel it.
    #[napi]
    pub fn request(
        &self,
        id: u32,
        method: String,
        params_json: String,
        timeout_ms: Option<f64>,
        progress: bool,
        cancellable: bool,
    ) {
        let options = self.options(id, timeout_ms, progress, cancellable);
        let c = self.client.clone();
        self.finish(id, cancellable, async move {
            let params = serde_json::from_str::<Value>(&params_json)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid params: {e}")))?;
            c.request(&method, Some(params), options).await
        });
    }

    /// `ping`, `logging/setLevel` (`arg` is the level) and `resources/subscribe` /
    /// `unsubscribe` (`arg` is the URI): the engine gives them their meaning in either
    /// era (see `Client::request`). Answered like `request`.
    #[napi]
    pub fn era_request(&self, id: u32, method: String, arg: Option<String>, timeout_ms: Option<f64>, cancellable: bool) {
        let options = self.options(id, timeout_ms, false, cancellable);
        let c = self.client.clone();
        self.finish(id, cancellable, async move {
            let arg = arg.unwrap_or_default();
            let params = match method.as_str() {
                methods::PING => json!({}),
                methods::LOGGING_SET_LEVEL => {
                    let level: LoggingLevel = serde_json::from_value(Value::String(arg.to_lowercase()))
                        .map_err(|_| Error::new(ErrorKind::InvalidInput, format!("unknown log level {arg:?}")))?;
                    json!({ "level": level })
                }
                methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => json!({ "uri": arg }),
                other => return Err(Error::new(ErrorKind::InvalidInput, format!("no such request {other:?}"))),
            };
            c.request(&method, Some(params), options).await.map(|_| json!({}))
        });
    }

    /// Tells the server the roots changed (session era; nothing to tell in the stateless era).
    #[napi]
    pub fn notify_roots_changed(&self) -> napi::Result<()> {
        self.client.notify_roots_changed().map_err(errors::to_napi)
    }

    /// Every item of a list (`tools`, `resources`, `resourceTemplates`, `prompts`),
    /// following cursors; the JSON array arrives as a RESULT event with `id`.
    #[napi]
    pub fn list_all(&self, id: u32, what: String) {
        let events = self.hooks.events.clone();
        let c = self.client.clone();
        spawn(async move {
            let outcome: oxmcp::Result<String> = async {
                let text = match what.as_str() {
                    "tools" => serde_json::to_string(&c.list_all_tools().await?),
                    "resources" => serde_json::to_string(&c.list_all_resources().await?),
                    "resourceTemplates" => serde_json::to_string(&c.list_all_resource_templates().await?),
                    "prompts" => serde_json::to_string(&c.list_all_prompts().await?),
                    other => return Err(Error::new(ErrorKind::InvalidInput, format!("unknown list {other:?}"))),
                };
                Ok(text?)
            }
            .await;
            match outcome {
                Ok(v) => events.send(RESULT, id, 0, Some(v), None),
                Err(e) => events.send(ERROR, id, 0, Some(errors::encode(&e)), None),
            };
        });
    }

    /// Cancels request `id` (the server is sent `notifications/cancelled`).
    #[napi]
    pub fn cancel(&self, id: u32) {
        if let Some(token) = self.cancels.lock().unwrap().remove(&id) {
            token.cancel();
        }
    }

    /// Answers the server's request `id` (sampling, elicitation, roots) with a result.
    #[napi]
    pub fn answer(&self, id: u32, result_json: String) {
        if let Some(tx) = self.hooks.waiting.lock().unwrap().remove(&id) {
            let _ = tx.send(Ok(result_json));
        }
    }

    /// Answers the server's request `id` with an error (`{"code"?, "message", "data"?}`).
    #[napi]
    pub fn answer_error(&self, id: u32, error_json: String) {
        if let Some(tx) = self.hooks.waiting.lock().unwrap().remove(&id) {
            let _ = tx.send(Err(errors::from_js(&error_json)));
        }
    }

    /// Sends a notification.
    #[napi]
    pub fn notify(&self, method: String, params_json: Option<String>) -> napi::Result<()> {
        let params = params_json.map(|p| strings(&p, "params")).transpose()?;
        self.client.peer().notify(&method, params).map_err(errors::to_napi)
    }

    /// `[pending requests, in-flight requests]` (for leak checks).
    #[napi]
    pub fn stats(&self) -> Vec<u32> {
        let s = self.client.stats();
        vec![s.pending_requests as u32, s.in_flight_requests as u32]
    }

    /// Whether the connection is closed.
    #[napi]
    pub fn is_closed(&self) -> bool {
        self.client.peer().is_closed()
    }

    /// Keeps Node alive (while calls are pending) or lets it exit.
    #[napi]
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        self.hooks.events.set_ref(env, on)
    }

    /// Closes the connection; a child process is stopped.
    #[napi]
    pub fn close<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let c = self.client.clone();
        env.spawn_future(async move {
            c.shutdown().await;
            Ok(())
        })
    }
}
