//! `NativeClient`: the engine side of the JS `Client`. A call is started with an id the JS
//! layer chose and answered through the client's event dispatcher `(kind, id, slot, a, b)`:
//! its result or error, its progress, the server's notifications, and the server's
//! requests (sampling, elicitation, roots), which JS answers with `answer(id, json)` under
//! the engine's call id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use napi::bindgen_prelude::{within_runtime_if_available, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::client::Client;
use oxmcp::drive;
use oxmcp::host::client::{call, NotificationFn, RequestFn};
use oxmcp::host::{context, CallId, ClientHooks, ConnectOptions};
use oxmcp::protocol::methods;
use oxmcp::session::RequestOptions;
use oxmcp::telemetry::TraceContext;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::errors;
use crate::events::{call_id, Dispatcher, Events};
use crate::uv_loop::UvLoop;

/// Event kinds sent to the JS dispatcher of a client.
const RESULT: u32 = 1;
const ERROR: u32 = 2;
const PROGRESS: u32 = 3;
const NOTIFICATION: u32 = 4;
const REQUEST: u32 = 5;
const REQUEST_CANCEL: u32 = 6;

/// The server's requests go to JS as REQUEST events `(callId, params, method)`; the
/// server's cancel reaches the JS callback's signal as a REQUEST_CANCEL event; JS answers
/// through the hooks' table of calls.
fn hooks(events: &Events) -> ClientHooks {
    let mut hooks = ClientHooks::default();
    let (ev, table) = (events.clone(), hooks.calls().clone());
    let on_request: RequestFn = Arc::new(move |id, method, params| {
        let e = ev.clone();
        table.on_cancel(id, move || {
            e.send(REQUEST_CANCEL, id, 0, None, None);
        });
        ev.send(REQUEST, id, 0, Some(params), Some(method.to_string()))
    });
    let ev = events.clone();
    let on_notification: NotificationFn = Arc::new(move |method, params| {
        ev.send(NOTIFICATION, 0, 0, Some(method), Some(params));
    });
    hooks.on_request = Some(on_request);
    hooks.on_notification = Some(on_notification);
    hooks
}

/// What a client's JS side answers the engine's requests through, from the moment it
/// connects (an OAuth `authorize` comes before the connection is up): `dispatch(kind, id,
/// slot, a, b)` receives events.
#[napi]
pub struct Connector {
    events: Events,
    /// The engine's hooks (with the table JS answers through), one set for every connect.
    hooks: ClientHooks,
}

/// A connector whose events go to `dispatch`.
#[napi]
pub fn connector(env: &Env, dispatch: Dispatcher<'_>) -> napi::Result<Connector> {
    crate::start_telemetry(env);
    let events = Events::new(&dispatch)?;
    Ok(Connector { hooks: hooks(&events), events })
}

#[napi]
impl Connector {
    /// Connects as `options_json` says (`oxmcp::host::ConnectOptions`: a `command` with
    /// `args`, `env`, `cwd`, or a `url` with `headers` and `oauth`; `name`, `version`,
    /// `era`, and the requests JS `answers`).
    /// With `server` (a `NativeServer` of this process), connects to it in memory.
    #[napi]
    pub fn connect<'env>(
        &self,
        env: &'env Env,
        options_json: String,
        server: Option<&crate::server::NativeServer>,
    ) -> napi::Result<PromiseRaw<'env, NativeClient>> {
        let (events, mut hooks) = (self.events.clone(), self.hooks.clone());
        hooks.read_on = Some(UvLoop::of(env)?);
        let server = server.map(|s| s.server.clone());
        errors::promise(env, async move {
            let mut options = ConnectOptions::from_json(&options_json)?;
            options.name.get_or_insert_with(|| "oxmcp-node".into());
            let client = match server {
                Some(server) => oxmcp::host::client::connect_in_memory(&server, options, hooks).await?,
                None => oxmcp::host::client::connect(options, hooks).await?,
            };
            Ok(NativeClient { client: Arc::new(client), events, cancels: Default::default() })
        })
    }

    /// Answers the engine's request `id` (sampling, elicitation, roots, authorize) with a
    /// result.
    #[napi]
    pub fn answer(&self, id: i64, result_json: String) {
        self.hooks.calls().complete(call_id(id), Ok(result_json));
    }

    /// Answers the engine's request `id` with an error (`{"code"?, "message", "data"?}`).
    #[napi]
    pub fn answer_error(&self, id: i64, error_json: String) {
        self.hooks.calls().complete(call_id(id), Err(errors::from_js(&error_json)));
    }

    /// Ends the events of this connector and of the client it connected: called when the
    /// client is closed or its connection failed, so that both can be collected.
    #[napi]
    pub fn release(&self) {
        self.events.release();
    }
}

/// A connected client.
#[napi]
pub struct NativeClient {
    pub(crate) client: Arc<Client>,
    events: Events,
    /// The cancellable calls JS started, by its ids.
    cancels: Arc<Mutex<HashMap<CallId, CancellationToken>>>,
}

/// How JS wants a call made.
#[napi(object)]
pub struct CallOptions {
    /// The inactivity timeout (progress restarts it), in milliseconds.
    pub timeout_ms: Option<f64>,
    /// Send PROGRESS events.
    pub progress: bool,
    /// Let `cancel(id)` cancel the call.
    pub cancellable: bool,
    /// The application's current span as W3C text: the request continues its trace.
    pub traceparent: Option<String>,
    /// That span's `tracestate`, if any.
    pub tracestate: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// [`call`], except `logging/setLevel`: `call` sends it without request options, so it goes
/// as a plain request once its level is checked, and a per-call timeout or cancel applies.
async fn run(
    client: &Client,
    op: &str,
    a: Option<String>,
    b: Option<String>,
    options: RequestOptions,
) -> oxmcp::Result<Option<String>> {
    if op == methods::LOGGING_SET_LEVEL {
        let level = context::level(a.as_deref().unwrap_or_default())?;
        let params = json!({ "level": level }).to_string();
        return call(client, "request", Some(op), Some(&params), options).await;
    }
    call(client, op, a.as_deref(), b.as_deref(), options).await
}

impl NativeClient {
    /// The engine's options of call `id`.
    fn options(&self, id: CallId, o: &CallOptions) -> RequestOptions {
        let mut options = RequestOptions::default();
        // An infinite timeout is none (a Duration cannot hold it).
        if let Some(t) = o.timeout_ms.and_then(|ms| Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).ok()) {
            options = options.timeout(t);
        }
        if o.progress {
            let events = self.events.clone();
            options = options.on_progress(move |p| {
                let text = json!({"progress": p.progress, "total": p.total, "message": p.message}).to_string();
                events.send(PROGRESS, id, 0, Some(text), None);
            });
        }
        if let Some(traceparent) = &o.traceparent {
            let tracestate = o.tracestate.clone();
            options = options.trace(TraceContext { traceparent: traceparent.clone(), tracestate });
        }
        if o.cancellable {
            let token = CancellationToken::new();
            lock(&self.cancels).insert(id, token.clone());
            options = options.cancel_token(token);
        }
        options
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

    /// Starts call `id`, a client call by name as `oxmcp::host::client::call` takes it
    /// (`op`, its arguments `a` and `b`: `request` with a method and params JSON is any
    /// request, era-aware); its outcome (JSON, `null` for none) arrives as a RESULT or
    /// ERROR event with `id`.
    #[napi]
    pub fn call(&self, id: i64, op: String, a: Option<String>, b: Option<String>, options: CallOptions) {
        let id = call_id(id);
        let options = self.options(id, &options);
        let (client, events, cancels) = (self.client.clone(), self.events.clone(), self.cancels.clone());
        let work = async move {
            let outcome = run(&client, &op, a, b, options).await;
            lock(&cancels).remove(&id);
            match outcome {
                Ok(v) => events.send(RESULT, id, 0, Some(v.unwrap_or_else(|| "null".into())), None),
                Err(e) => events.send(ERROR, id, 0, Some(errors::to_json(&e)), None),
            };
        };
        // Polled first on this thread, so the request is written now without waking a
        // runtime thread; the response's reader goes on with it (see `oxmcp::drive`).
        within_runtime_if_available(|| drive::spawn(drive::Home::tokio(), work));
    }

    /// Tells the server the roots changed (session era; nothing to tell in the stateless era).
    #[napi]
    pub fn notify_roots_changed(&self, env: &Env) -> napi::Result<()> {
        self.client.notify_roots_changed().map_err(|e| errors::to_js(env, &e))
    }

    /// Cancels call `id` (the server is sent `notifications/cancelled`).
    #[napi]
    pub fn cancel(&self, id: i64) {
        let token = lock(&self.cancels).remove(&call_id(id));
        if let Some(token) = token {
            // The call's future goes on here and sends its cancel now, without waking a
            // runtime thread.
            within_runtime_if_available(|| drive::scope(|| token.cancel()));
        }
    }

    /// Sends a notification.
    #[napi]
    pub fn notify(&self, env: &Env, method: String, params_json: Option<String>) -> napi::Result<()> {
        let params = params_json
            .map(|p| serde_json::from_str::<Value>(&p))
            .transpose()
            .map_err(|e| errors::invalid(env, format!("invalid params: {e}")))?;
        self.client.peer().notify(&method, params).map_err(|e| errors::to_js(env, &e))
    }

    /// `[pending requests, in-flight requests]` (for leak checks).
    #[napi]
    pub fn stats(&self) -> Vec<u32> {
        let s = self.client.stats();
        [s.pending_requests, s.in_flight_requests].map(|n| u32::try_from(n).unwrap_or(u32::MAX)).to_vec()
    }

    /// Whether the connection is closed.
    #[napi]
    pub fn is_closed(&self) -> bool {
        self.client.peer().is_closed()
    }

    /// Keeps Node alive (while calls are pending) or lets it exit.
    #[napi]
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        self.events.set_ref(env, on)
    }

    /// Closes the connection; a child process is stopped.
    #[napi]
    pub fn close<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let c = self.client.clone();
        errors::promise(env, async move {
            c.shutdown().await;
            Ok(())
        })
    }
}
