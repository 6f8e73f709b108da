//! `NativeServer`: the host layer's staged server with Kotlin handlers. A handler is a
//! Kotlin object answering one call (input JSON, result JSON, a `suspend fun`), run as a
//! host call ([`calls::answer`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use oxmcp::host::{HandlerKind, HostFn, HttpOptions, StagedServer};

use crate::calls;
use crate::context::RequestContext;
use crate::error::Result;
use crate::runtime;

/// A Kotlin handler: a tool, resource, resource template, prompt or completion. `input`
/// and the result are JSON (see [`HandlerKind`] for which).
#[uniffi::export(with_foreign)]
#[async_trait::async_trait]
pub trait Handler: Send + Sync {
    /// Answers one call; cancelled (the coroutine) when the peer cancels it.
    async fn handle(&self, input: String, context: Arc<RequestContext>) -> Result<String>;
}

/// A server: register handlers, then serve over stdio or Streamable HTTP.
#[derive(uniffi::Object)]
pub struct NativeServer {
    staged: Arc<StagedServer>,
    /// Set when the Kotlin server is freed: its handlers answer nothing from then on, also
    /// where another server mounts this one (the engine fails those calls).
    freed: Arc<AtomicBool>,
}

impl Drop for NativeServer {
    fn drop(&mut self) {
        self.freed.store(true, Ordering::Release);
    }
}

impl NativeServer {
    /// The engine's server.
    pub(crate) fn staged(&self) -> Arc<StagedServer> {
        self.staged.clone()
    }

    /// `handler` as the core calls a host: each call answered through the host-call table,
    /// with a context naming it.
    fn host_fn(&self, handler: Arc<dyn Handler>) -> HostFn {
        let (calls, freed) = (self.staged.calls().clone(), self.freed.clone());
        Arc::new(move |id, input| {
            if freed.load(Ordering::Acquire) {
                return false;
            }
            let (handler, context) = (handler.clone(), Arc::new(RequestContext::new(calls.clone(), id)));
            // The peer's cancel does not drop the handler: the Kotlin side registers its own
            // listener (`RequestContext::on_cancel`, replacing this one) and stops the
            // handler itself, which may still log on its way out.
            let on_cancel: Box<dyn FnOnce() + Send> = Box::new(|| {});
            calls::answer(&calls, id, Some(on_cancel), async move { handler.handle(input, context).await })
        })
    }
}

#[uniffi::export]
impl NativeServer {
    /// A server named `name` at `version`, serving nothing yet.
    #[uniffi::constructor]
    pub fn new(name: String, version: String) -> Arc<Self> {
        Arc::new(Self { staged: StagedServer::new(name, version), freed: Arc::default() })
    }

    /// Registers `definition` (JSON) of `kind` (`tool`, `resource`, `resource template`,
    /// `prompt`, `completion`) answered by `handler`; checked now, live at once while
    /// serving (templates and completion before).
    pub fn register(&self, kind: String, definition: String, handler: Arc<dyn Handler>) -> Result<()> {
        let kind = HandlerKind::from_name(&kind)?;
        Ok(self.staged.register(kind, &definition, self.host_fn(handler))?)
    }

    /// Serves `other`'s tools, prompts, resources and templates under `prefix` (names
    /// `prefix_name`, URIs with `prefix` as their first path segment).
    pub fn mount(&self, prefix: String, other: Arc<NativeServer>) -> Result<()> {
        Ok(self.staged.mount(&prefix, &other.staged)?)
    }

    /// Serves what `client`'s server offers under `prefix`, each call forwarded; this
    /// starts the engine's server (templates, completion and middleware before).
    pub async fn mount_client(&self, prefix: String, client: Arc<crate::client::NativeClient>) -> Result<()> {
        let (staged, client) = (self.staged.clone(), client.engine());
        runtime::run(async move { Ok(staged.mount_client(&prefix, client).await?) }).await
    }

    /// Checks a protected listener's access tokens with `handler` instead of JWTs: it gets
    /// `{"token": "..."}` and answers who the token speaks for (`{"subject", "clientId",
    /// "scopes", "expiresAt", "claims"}`, any left out), or fails to refuse it.
    pub fn verify_tokens(&self, handler: Arc<dyn Handler>) {
        self.staged.verify_tokens_with(self.host_fn(handler));
    }

    /// The instructions sent in `initialize`; before serving.
    pub fn set_instructions(&self, text: String) -> Result<()> {
        Ok(self.staged.set_instructions(text)?)
    }

    /// How tasks are kept (the core's task options JSON: `ttlMs`, `pollIntervalMs`,
    /// `maxTasks`, `maxRunning`); before serving.
    pub fn set_task_options(&self, options: String) -> Result<()> {
        Ok(self.staged.set_task_options(&options)?)
    }

    /// Serves a skill at `skill_path`: `files` maps each file's path in it to its text
    /// (`SKILL.md` first of all); checked now.
    pub fn add_skill(&self, skill_path: String, files: String) -> Result<()> {
        Ok(self.staged.add_skill(&skill_path, &files)?)
    }

    /// Serves every skill under the directory `root`; read and checked now.
    pub fn add_skills_dir(&self, root: String) -> Result<()> {
        Ok(self.staged.add_skills_dir(&root)?)
    }

    /// Removes the tool or prompt named `key`, or the resource at `key` (`kind`: `tool`,
    /// `prompt`, `resource`; clients are told while serving); whether it was there.
    pub fn remove(&self, kind: String, key: String) -> Result<bool> {
        Ok(self.staged.remove_named(HandlerKind::from_name(&kind)?, &key)?)
    }

    /// Tells subscribed clients that resource `uri` changed.
    pub fn notify_resource_updated(&self, uri: String) {
        self.staged.notify_resource_updated(&uri)
    }

    /// Live sessions.
    pub fn session_count(&self) -> u64 {
        self.staged.session_count() as u64
    }

    /// Serves one client on this process's stdin/stdout until stdin closes or
    /// [`close`](Self::close).
    pub async fn serve_stdio(&self) -> Result<()> {
        let serve = self.staged.serve_stdio()?;
        runtime::run(async move { Ok(serve.await?) }).await
    }

    /// Starts Streamable HTTP (and legacy HTTP+SSE) in the background with the listen
    /// options JSON (`host`, `port` (0: any free one), `path`, `stateless`, ...); returns
    /// the endpoint's URL.
    pub async fn start_http(&self, options: String) -> Result<String> {
        let options = HttpOptions::from_json(&options)?;
        let staged = self.staged.clone();
        runtime::run(async move { Ok(staged.start_http(options).await?) }).await
    }

    /// Stops serving (stdio, HTTP), letting requests in flight finish.
    pub async fn stop(&self) -> Result<()> {
        let staged = self.staged.clone();
        runtime::run(async move {
            staged.close().await;
            Ok(())
        })
        .await
    }
}
