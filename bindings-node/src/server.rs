//! `NativeServer`: the JS `Server` over the engine's [`StagedServer`]. The JS layer
//! registers a definition (JSON) with the index of its JS function (its slot); a call
//! travels to JS as an event `(kind, callId, slot, inputJson)` and JS answers with
//! `complete(callId, json)` or `fail(callId, errorJson)`. The call's context stays in the
//! engine under its id, so `ctx.progress()`, `ctx.log()`, `ctx.elicit()`... are calls by id.

use std::sync::Arc;

use napi::bindgen_prelude::{spawn, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use oxmcp::host::{context, CallId, HandlerKind, HostFn, HttpOptions, StagedServer};

use crate::errors;
use crate::events::{call_id, Dispatcher, Events};
use crate::uv_loop::UvLoop;

/// Event kinds sent to the JS dispatcher of a server.
const TOOL: u32 = 1;
const RESOURCE: u32 = 2;
const PROMPT: u32 = 3;
const COMPLETE: u32 = 4;
const CANCEL: u32 = 5;
const STDIO_CLOSED: u32 = 6;
const MIDDLEWARE: u32 = 7;

/// The engine side of the JS `Server`.
#[napi]
pub struct NativeServer {
    pub(crate) server: Arc<StagedServer>,
    events: Events,
}

impl Drop for NativeServer {
    /// Collected with its JS server (see `weakDispatcher` in lib/server.cjs): what the engine
    /// still starts (a task whose client has gone, for one) fails at once instead of waiting
    /// on a dispatcher nobody answers through.
    fn drop(&mut self) {
        self.events.release();
    }
}

impl NativeServer {
    /// The host function of the JS function at `slot`.
    fn host_fn(&self, kind: HandlerKind, slot: u32) -> HostFn {
        let event = match kind {
            HandlerKind::Tool => TOOL,
            HandlerKind::Resource | HandlerKind::ResourceTemplate => RESOURCE,
            HandlerKind::Prompt => PROMPT,
            HandlerKind::Completion => COMPLETE,
            HandlerKind::Middleware => MIDDLEWARE,
        };
        let (events, calls) = (self.events.clone(), self.server.calls().clone());
        Arc::new(move |id, input| {
            // Registered before JS hears of the call: the handler's ctx.signal fires on cancel.
            let e = events.clone();
            calls.on_cancel(id, move || {
                e.send(CANCEL, id, 0, None, None);
            });
            events.send(event, id, slot, Some(input), None)
        })
    }

    fn answer(&self, id: CallId, outcome: oxmcp::Result<String>) {
        // A late answer (the call was cancelled or already answered) is dropped: not an error.
        self.server.calls().complete(id, outcome);
    }
}

#[napi]
impl NativeServer {
    /// A server named `name` at `version`; `dispatch(kind, callId, slot, a, b)` receives
    /// the calls of its handlers.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        name: String,
        version: String,
        instructions: Option<String>,
        dispatch: Dispatcher<'_>,
    ) -> napi::Result<Self> {
        crate::start_telemetry(&env);
        let server = StagedServer::new(name, version);
        if let Some(text) = instructions {
            server.set_instructions(text).map_err(|e| errors::to_js(&env, &e))?;
        }
        Ok(Self { server, events: Events::new(&dispatch)? })
    }

    /// Registers a handler: `kind` is `tool`, `resource`, `resource template`, `prompt` or
    /// `completion`; `definition_json` its definition (ignored for completion); calls go to
    /// the JS function at `slot`. Each gets its input as JSON: a tool's or prompt's
    /// arguments, a resource's `{"uri", "variables"}`, the completion request's params.
    #[napi]
    pub fn register(&self, env: &Env, kind: String, definition_json: String, slot: u32) -> napi::Result<()> {
        let kind = HandlerKind::from_name(&kind).map_err(|e| errors::to_js(env, &e))?;
        self.server.register(kind, &definition_json, self.host_fn(kind, slot)).map_err(|e| errors::to_js(env, &e))
    }

    /// How tasks are kept (the core's task options, JSON); before serving.
    #[napi]
    pub fn set_task_options(&self, env: &Env, options_json: String) -> napi::Result<()> {
        self.server.set_task_options(&options_json).map_err(|e| errors::to_js(env, &e))
    }

    /// Checks access tokens of a protected HTTP listener with the JS function at `slot`
    /// (input `{"token"}`, result who the token speaks for).
    #[napi]
    pub fn verify_tokens(&self, slot: u32) {
        let events = self.events.clone();
        self.server.verify_tokens_with(Arc::new(move |id, input| events.send(TOOL, id, slot, Some(input), None)));
    }

    /// Serves a skill: `files_json` maps each file's path in it to its text.
    #[napi]
    pub fn add_skill(&self, env: &Env, skill_path: String, files_json: String) -> napi::Result<()> {
        self.server.add_skill(&skill_path, &files_json).map_err(|e| errors::to_js(env, &e))
    }

    /// Serves every skill under the directory `root`.
    #[napi]
    pub fn add_skills_dir(&self, env: &Env, root: String) -> napi::Result<()> {
        self.server.add_skills_dir(&root).map_err(|e| errors::to_js(env, &e))
    }

    /// Removes the tool or prompt named `key`, or the resource at `key` (`kind`: `tool`,
    /// `prompt`, `resource`), staged or live; returns whether it existed.
    #[napi]
    pub fn remove(&self, env: &Env, kind: String, key: String) -> napi::Result<bool> {
        HandlerKind::from_name(&kind).and_then(|kind| self.server.remove_named(kind, &key)).map_err(|e| errors::to_js(env, &e))
    }

    /// Serves `other`'s tools, prompts and resources under `prefix`.
    #[napi]
    pub fn mount(&self, env: &Env, prefix: String, other: &NativeServer) -> napi::Result<()> {
        self.server.mount(&prefix, &other.server).map_err(|e| errors::to_js(env, &e))
    }

    /// Serves what `client`'s server offers under `prefix`, forwarding each call.
    #[napi]
    pub fn mount_client<'env>(
        &self,
        env: &'env Env,
        prefix: String,
        client: &crate::client::NativeClient,
    ) -> napi::Result<PromiseRaw<'env, ()>> {
        let (server, client) = (self.server.clone(), client.client.clone());
        errors::promise(env, async move { server.mount_client(&prefix, client).await })
    }

    /// Tells subscribed clients that a resource changed.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.server.notify_resource_updated(&uri);
    }

    /// Live sessions.
    #[napi]
    pub fn session_count(&self) -> u32 {
        u32::try_from(self.server.session_count()).unwrap_or(u32::MAX)
    }

    /// Keeps Node alive (while listening) or lets it exit.
    #[napi]
    pub fn set_ref(&self, env: &Env, on: bool) -> napi::Result<()> {
        self.events.set_ref(env, on)
    }

    /// Serves one client on stdin/stdout. When stdin closes (or `close()` stops it) the
    /// dispatcher receives a stdio-closed event.
    #[napi]
    pub fn listen_stdio(&self, env: &Env) -> napi::Result<()> {
        let serve = self.server.serve_stdio_on(Some(UvLoop::of(env)?)).map_err(|e| errors::to_js(env, &e))?;
        let events = self.events.clone();
        spawn(async move {
            let _ = serve.await;
            events.send(STDIO_CLOSED, 0, 0, None, None);
        });
        Ok(())
    }

    /// Serves Streamable HTTP (and legacy SSE); resolves to the endpoint URL.
    /// `options_json` as `oxmcp::host::HttpOptions` reads it.
    #[napi]
    pub fn listen_http<'env>(&self, env: &'env Env, options_json: String) -> napi::Result<PromiseRaw<'env, String>> {
        let server = self.server.clone();
        errors::promise(env, async move { server.start_http(HttpOptions::from_json(&options_json)?).await })
    }

    /// Stops serving (stdio and HTTP; in-flight HTTP requests may finish).
    #[napi]
    pub fn close<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let server = self.server.clone();
        errors::promise(env, async move {
            server.close().await;
            Ok(())
        })
    }

    /// A handler's result (JSON) for call `id`.
    #[napi]
    pub fn complete(&self, id: i64, result_json: String) {
        self.answer(call_id(id), Ok(result_json));
    }

    /// A handler's failure (`{"code"?, "message", "data"?}`) for call `id`.
    #[napi]
    pub fn fail(&self, id: i64, error_json: String) {
        self.answer(call_id(id), Err(errors::from_js(&error_json)));
    }

    /// What handler call `id` asks of its request that is answered at once, by name
    /// (`info`, `cancelled`, `progress`, `log`, `end response stream`: see
    /// [`context::call_now`]); params and result are JSON (`null`: nothing to give back).
    #[napi]
    pub fn ctx_call_now(&self, env: &Env, id: i64, op: String, params_json: String) -> napi::Result<Option<String>> {
        context::call_now(self.server.calls(), call_id(id), &op, &params_json).map_err(|e| errors::to_js(env, &e))
    }

    /// What handler call `id` asks of its request, by name: every op of [`ctx_call_now`]
    /// and those that wait (`sampling/createMessage`, `elicitation/create`, `roots/list`,
    /// `resources/read`, `escalate`, `next`: see [`context::call`]); resolves to the result
    /// JSON. A new capability of the context is a new name there, not a new function here.
    #[napi]
    pub fn ctx_call<'env>(
        &self,
        env: &'env Env,
        id: i64,
        op: String,
        params_json: String,
    ) -> napi::Result<PromiseRaw<'env, Option<String>>> {
        errors::promise(env, context::call(self.server.calls(), call_id(id), &op, &params_json))
    }
}
