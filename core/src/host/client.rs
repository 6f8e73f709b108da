//! The client side of every host: connecting from options (JSON), the host's answers to
//! the server's requests (sampling, elicitation, roots) through the host-call table with
//! the server's cancellation reaching the host, and every client call by name.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};

use super::calls::{CallId, HostCalls};
#[cfg(feature = "http")]
use crate::auth::{AuthorizationRequest, FileStore, OAuth, OAuthOptions, UserAgent};
use crate::client::{Client, ClientBuilder, ClientContext, Era};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, CompleteRequestParams, CreateMessageResult, ElicitResult, ListRootsResult};
use crate::session::{RequestOptions, SessionConfig};
#[cfg(feature = "http")]
use crate::transport::http::HttpClientTransport;
use crate::transport::{ChildProcess, ChildStderr};

/// Hands a server request to the host: `(call id, method, params JSON)`; `false` when the
/// host is gone. The host answers with [`HostCalls::complete`] (result JSON).
pub type RequestFn = Arc<dyn Fn(CallId, &'static str, String) -> bool + Send + Sync>;

/// Hands a server notification to the host: `(method, params JSON)`.
pub type NotificationFn = Arc<dyn Fn(String, String) + Send + Sync>;

/// How a host client connects (JSON, camelCase keys, all optional but one of `command`
/// and `url`):
///
/// ```
/// let o = oxmcp::host::ConnectOptions::from_json(r#"{"url": "http://127.0.0.1:1/mcp", "answers": ["roots"]}"#).unwrap();
/// assert_eq!(o.url.as_deref(), Some("http://127.0.0.1:1/mcp"));
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ConnectOptions {
    /// The client's name and version in `initialize` / `_meta` (defaults: `oxmcp`, this
    /// crate's version).
    pub name: Option<String>,
    /// See `name`.
    pub version: Option<String>,
    /// `"auto"` (default), `"session"` or `"stateless"` (as [`Era::parse`] reads them).
    pub era: Option<String>,
    /// Default inactivity timeout of every request, in milliseconds.
    pub request_timeout_ms: Option<u64>,
    /// Which server requests the host answers: any of `"sampling"`, `"elicitation"`,
    /// `"roots"` (each declares its capability).
    pub answers: Vec<String>,
    /// stdio: the program, its arguments, extra environment, working directory.
    pub command: Option<String>,
    /// See `command`.
    pub args: Vec<String>,
    /// See `command`.
    pub env: BTreeMap<String, String>,
    /// See `command`.
    pub cwd: Option<String>,
    /// stdio: where the server's stderr goes: `"forward"` (default: this process's
    /// stderr) or `"discard"`.
    pub stderr: Option<String>,
    /// Streamable HTTP (or legacy HTTP+SSE): the endpoint URL and extra headers.
    pub url: Option<String>,
    /// See `url`.
    pub headers: BTreeMap<String, String>,
    /// HTTP: answer the server's authorization challenges with OAuth (see
    /// [`OAuthOptions`]). The authorization code grant needs `"authorize"` in `answers`:
    /// the host is then asked `authorize` with `{"url", "redirectUri"}` and answers with
    /// the URL the browser was sent back to (a JSON string).
    #[cfg(feature = "http")]
    pub oauth: Option<OAuthOptions>,
    /// Where to keep the OAuth tokens between runs (a file readable by its owner only);
    /// in memory when left out.
    #[cfg(feature = "http")]
    pub token_file: Option<String>,
}

impl ConnectOptions {
    /// Reads options from JSON text.
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid client options: {e}")))
    }
}

/// What the host gives the engine to answer the server: see [`connect`]. It owns the table
/// of the host's calls in flight ([`calls`](Self::calls)), with the client session's grace
/// period, where the host answers them.
#[derive(Clone)]
pub struct ClientHooks {
    /// Server requests (for the kinds named in [`ConnectOptions::answers`]).
    pub on_request: Option<RequestFn>,
    /// Server notifications.
    pub on_notification: Option<NotificationFn>,
    /// The host's event loop, to read a child server's stdout on (see
    /// [`HostLoop`](crate::transport::HostLoop)); `None` reads it on the runtime.
    pub read_on: Option<Arc<dyn crate::transport::HostLoop>>,
    calls: Arc<HostCalls>,
}

impl Default for ClientHooks {
    fn default() -> Self {
        ClientHooks {
            on_request: None,
            on_notification: None,
            read_on: None,
            calls: HostCalls::new(SessionConfig::default().cancelled_handler_grace),
        }
    }
}

impl ClientHooks {
    /// The host's calls in flight: answer each with [`HostCalls::complete`].
    pub fn calls(&self) -> &Arc<HostCalls> {
        &self.calls
    }
}

/// Asks the host and reads its answer as `T`.
async fn ask<T: serde::de::DeserializeOwned>(
    calls: &HostCalls,
    f: &RequestFn,
    method: &'static str,
    params: Value,
    cx: ClientContext,
) -> Result<T> {
    let params = params.to_string();
    let text = calls.run(cx.cancel, None, |id| f(id, method, params)).await?;
    serde_json::from_str(&text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {method} handler returned an invalid result: {e}")))
}

fn builder(options: &ConnectOptions, hooks: &ClientHooks) -> Result<ClientBuilder> {
    let calls = &hooks.calls;
    let name = options.name.clone().unwrap_or_else(|| "oxmcp".into());
    let version = options.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").into());
    let mut b = Client::builder(name, version);
    if let Some(era) = &options.era {
        b = b.era(Era::parse(era)?);
    }
    if let Some(ms) = options.request_timeout_ms {
        b = b.session_config(SessionConfig { request_timeout: Duration::from_millis(ms), ..Default::default() });
    }
    for kind in options.answers.iter().filter(|k| *k != AUTHORIZE) {
        let f = hooks
            .on_request
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::InvalidInput, format!("answering {kind:?} needs a request handler")))?;
        let calls = calls.clone();
        b = match kind.as_str() {
            "sampling" => b.on_sampling(move |p, cx| {
                let (calls, f) = (calls.clone(), f.clone());
                async move {
                    let p = serde_json::to_value(p)?;
                    ask::<CreateMessageResult>(&calls, &f, methods::SAMPLING_CREATE_MESSAGE, p, cx).await
                }
            }),
            "elicitation" => b.on_elicitation(move |p, cx| {
                let (calls, f) = (calls.clone(), f.clone());
                async move { ask::<ElicitResult>(&calls, &f, methods::ELICITATION_CREATE, serde_json::to_value(p)?, cx).await }
            }),
            "roots" => b.on_list_roots(move |_, cx| {
                let (calls, f) = (calls.clone(), f.clone());
                async move { ask::<ListRootsResult>(&calls, &f, methods::ROOTS_LIST, Value::Object(Default::default()), cx).await }
            }),
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("cannot answer {other:?}: say sampling, elicitation or roots"),
                ))
            }
        };
    }
    if let Some(f) = hooks.on_notification.clone() {
        b = b.on_notification(move |n| {
            let (method, params) = n.into_wire();
            f(method, params.to_string());
        });
    }
    Ok(b)
}

/// What the host answers to run the authorization code grant (see
/// [`ConnectOptions::oauth`]).
pub const AUTHORIZE: &str = "authorize";

/// How long the host's `authorize` may take (the user in a browser).
#[cfg(feature = "http")]
const AUTHORIZE_WAIT: Duration = Duration::from_secs(300);

/// The user agent of a host: the host shows the user the authorization URL (or opens a
/// browser) and answers with the URL the browser came back to.
#[cfg(feature = "http")]
fn host_agent(calls: Arc<HostCalls>, f: RequestFn) -> UserAgent {
    Arc::new(move |req: AuthorizationRequest| {
        let (calls, f) = (calls.clone(), f.clone());
        Box::pin(async move {
            let params = serde_json::json!({"url": req.url, "redirectUri": req.redirect_uri}).to_string();
            // A user who never comes back must not hold the client's authorization (and
            // every request waiting on it) for ever: the host's call is cancelled.
            let give_up = tokio_util::sync::CancellationToken::new();
            let timer = tokio::spawn({
                let t = give_up.clone();
                async move {
                    tokio::time::sleep(AUTHORIZE_WAIT).await;
                    t.cancel();
                }
            });
            let out = calls.run(give_up, None, |id| f(id, AUTHORIZE, params)).await;
            timer.abort();
            let text = out.map_err(|e| match e.kind() {
                ErrorKind::Cancelled => Error::new(
                    ErrorKind::Unauthorized,
                    format!("no authorization came back within {} s", AUTHORIZE_WAIT.as_secs()),
                ),
                _ => e,
            })?;
            serde_json::from_str::<String>(&text).map_err(|_| {
                Error::new(ErrorKind::Handler, "the authorize handler must answer with the URL the browser came back to")
            })
        })
    })
}

/// Connects as `options` say; the host answers the server's requests through the hooks'
/// [`calls`](ClientHooks::calls).
pub async fn connect(options: ConnectOptions, hooks: ClientHooks) -> Result<Client> {
    let b = builder(&options, &hooks)?;
    if let Some(command) = options.command {
        let mut child = ChildProcess::new(command.clone()).args(options.args);
        for (k, v) in options.env {
            child = child.env(k, v);
        }
        if let Some(dir) = options.cwd {
            child = child.current_dir(dir);
        }
        if let Some(host) = hooks.read_on.clone() {
            child = child.read_on(host);
        }
        child = child.stderr(match options.stderr.as_deref() {
            None | Some("forward") => ChildStderr::Forward,
            Some("discard") => ChildStderr::Discard,
            Some(other) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("stderr must be \"forward\" or \"discard\", not {other:?}"),
                ))
            }
        });
        // The error names the command already.
        let transport = child.spawn().map_err(|e| Error::caused(ErrorKind::Transport, e.to_string(), e))?;
        b.connect(transport).await
    } else if let Some(url) = options.url.clone() {
        connect_url(b, url, options, &hooks).await
    } else {
        Err(Error::new(ErrorKind::InvalidInput, "client options name neither a command nor a URL"))
    }
}

/// Streamable HTTP (or legacy HTTP+SSE) to `url`, with OAuth when the options ask.
#[cfg(feature = "http")]
async fn connect_url(b: ClientBuilder, url: String, options: ConnectOptions, hooks: &ClientHooks) -> Result<Client> {
    let mut transport = HttpClientTransport::new(url);
    for (k, v) in &options.headers {
        transport = transport.header(k, v);
    }
    if let Some(oauth) = options.oauth {
        let mut oauth = OAuth::new(oauth);
        if let Some(path) = options.token_file {
            oauth = oauth.store(Arc::new(FileStore::new(path)));
        }
        if options.answers.iter().any(|k| k == AUTHORIZE) {
            let f = hooks
                .on_request
                .clone()
                .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "answering \"authorize\" needs a request handler"))?;
            oauth = oauth.user_agent(host_agent(hooks.calls.clone(), f));
        }
        transport = transport.oauth(oauth);
    }
    b.connect(transport).await
}

/// Without the `http` feature there is no URL to connect to.
#[cfg(not(feature = "http"))]
async fn connect_url(_: ClientBuilder, url: String, _: ConnectOptions, _: &ClientHooks) -> Result<Client> {
    Err(Error::new(ErrorKind::InvalidInput, format!("{url}: oxmcp was built without its http feature")))
}

/// Connects to `server`, a staged server of this process, over an in-memory pipe: no
/// child process, no socket (tests of a server, in the host's own test runner). The
/// options' `command` and `url` are not used.
///
/// ```
/// # #[tokio::main] async fn main() -> oxmcp::Result<()> {
/// use std::sync::Arc;
/// use oxmcp::host::{client, ClientHooks, ConnectOptions, HandlerKind, StagedServer};
/// let server = StagedServer::new("demo", "1");
/// let calls = server.calls().clone();
/// let tool = r#"{"name": "hello", "inputSchema": {"type": "object"}}"#;
/// server.register(HandlerKind::Tool, tool, Arc::new(move |id, _input| {
///     calls.complete(id, Ok(r#"{"content": [{"type": "text", "text": "hi"}]}"#.into()))
/// }))?;
/// let options = ConnectOptions::default();
/// let c = client::connect_in_memory(&server, options, ClientHooks::default()).await?;
/// let result = client::call(&c, "tools/call", Some("hello"), Some("{}"), Default::default()).await?;
/// assert!(result.unwrap().contains("hi"));
/// c.close().await;
/// # Ok(()) }
/// ```
pub async fn connect_in_memory(server: &super::StagedServer, options: ConnectOptions, hooks: ClientHooks) -> Result<Client> {
    let b = builder(&options, &hooks)?;
    let (ours, theirs) = crate::transport::MemoryTransport::pair();
    server.serve_in_memory(theirs)?;
    b.connect(ours).await
}

/// The op that starts a tool call the server may run as a task ([`Client::start_tool_task`]).
pub const TOOLS_CALL_START_TASK: &str = "tools/call start task";

/// The op that loads a skill ([`Client::load_skill`]).
pub const SKILLS_LOAD: &str = "skills/load";
/// The op that reads a file of a skill ([`Client::read_skill_file`]).
pub const SKILLS_READ: &str = "skills/read";

fn skill_entry(v: Value) -> Result<crate::protocol::Skill> {
    serde_json::from_value(v).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid skill entry: {e}")))
}

/// The op of a tool call the server may run as a task ([`Client::call_tool_as_task`]).
pub const TOOLS_CALL_AS_TASK: &str = "tools/call as task";

/// [`Client::call_tool_as_task`] with a host's options: each status the task reports goes
/// to the progress callback (progress 1, 2, ... and the message `status` or `status:
/// statusMessage`), and the cancel token stops the wait, which cancels the task.
pub async fn call_tool_as_task(
    client: &Client,
    name: &str,
    arguments: Value,
    options: RequestOptions,
) -> Result<crate::protocol::CallToolResult> {
    let progress = options.on_progress.clone();
    let reports = std::sync::atomic::AtomicU64::new(0);
    let on_status = move |task: &crate::protocol::Task| {
        let Some(report) = &progress else { return };
        let n = reports.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let message = match &task.status_message {
            Some(m) => format!("{}: {m}", task.status.as_str()),
            None => task.status.as_str().to_string(),
        };
        report(crate::session::Progress { progress: n as f64, total: None, message: Some(message) });
    };
    let wait = client.call_tool_as_task(name, arguments, on_status);
    match options.cancel {
        Some(token) => tokio::select! {
            r = wait => r,
            _ = token.cancelled() => Err(Error::new(ErrorKind::Cancelled, format!("the call of {name} was cancelled"))),
        },
        None => wait.await,
    }
}

/// A client call by name, as hosts make them: `a` and `b` are its two text arguments
/// (see the table); the outcome is the result as JSON text (`None` for calls that return
/// nothing).
///
/// | op | `a` | `b` |
/// |---|---|---|
/// | `ping` | | |
/// | `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` (every page) | | |
/// | `tools/call` | tool name | arguments JSON |
/// | `tools/call as task` (the server may run it as a task: its statuses reach the progress callback) | tool name | arguments JSON |
/// | `resources/read`, `resources/subscribe`, `resources/unsubscribe` | URI | |
/// | `prompts/get` | prompt name | arguments JSON (an object of strings) |
/// | `completion/complete` | | params JSON |
/// | `logging/setLevel` | level name | |
/// | `skills/list` (every page), `skills/get` | , SKILL.md URI | |
/// | `resources/directory/read` (every page: the children) | directory URI | |
/// | `skills/load` (fetch `SKILL.md` and check it against the entry: `{skill, markdown}`) | SKILL.md URI | the held entry JSON (else `skills/get` fetches it) |
/// | `skills/read` (a file the entry lists, checked: its bytes as a base64 JSON string) | path in the skill, or URI | the held entry JSON |
/// | `tools/call start task` (the steps: `{"task": Task}` when the server runs it as a task, `{"result": CallToolResult}` when it answered at once) | tool name | arguments JSON |
/// | `tasks/get` (the task, its result, error or input requests inlined) | task id | |
/// | `tasks/update` (answers to its input requests) | task id | `{key: result}` JSON |
/// | `tasks/cancel` | task id | |
/// | `tasks/result` (a 2025-11-25 server's: waits for the outcome, the handlers answering the task's questions) | task id | |
/// | `tasks/list` (a 2025-11-25 server's: every page of this client's tasks) | | |
/// | `request` (any method) | method | params JSON |
///
/// An op with the call's own options, for a door that takes only the op's name (C's
/// `oxmcp_client_call`): the name alone, or a JSON object `{"op": name, "traceparent": text,
/// "tracestate": text}` whose trace context (the host's current span) becomes
/// [`RequestOptions::trace`]. A malformed object, or a `traceparent` that is not W3C, is
/// refused as [`ErrorKind::InvalidInput`] before anything is sent.
///
/// ```
/// use oxmcp::host::client::OpOptions;
/// let plain = OpOptions::parse("tools/call").unwrap();
/// assert_eq!((plain.op.as_str(), plain.trace.is_none()), ("tools/call", true));
/// let traced = OpOptions::parse(
///     r#"{"op": "tools/call", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#,
/// ).unwrap();
/// assert_eq!(traced.trace.unwrap().trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
/// assert!(OpOptions::parse(r#"{"op": "tools/call", "traceparent": "nonsense"}"#).is_err());
/// ```
#[derive(Debug)]
pub struct OpOptions {
    /// The op's name (the table of [`call`]).
    pub op: String,
    /// The parent of the requests the call sends.
    pub trace: Option<crate::telemetry::TraceContext>,
}

impl OpOptions {
    /// Reads `op` as a plain name or as the JSON object above.
    pub fn parse(op: &str) -> Result<OpOptions> {
        if !op.trim_start().starts_with('{') {
            return Ok(OpOptions { op: op.to_owned(), trace: None });
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Given {
            op: String,
            traceparent: Option<String>,
            tracestate: Option<String>,
        }
        let given: Given = serde_json::from_str(op)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid op object (op, traceparent, tracestate): {e}")))?;
        let trace = match given.traceparent {
            None => None,
            Some(traceparent) => {
                let trace = crate::telemetry::TraceContext { traceparent, tracestate: given.tracestate };
                if crate::telemetry::remote(&trace).is_none() {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        format!("traceparent {:?} is not a W3C trace context", trace.traceparent),
                    ));
                }
                Some(trace)
            }
        };
        Ok(OpOptions { op: given.op, trace })
    }
}

/// `options.trace` (the host's current span, as W3C text) is the parent of every request
/// the call sends, each page of a list included.
pub async fn call(
    client: &Client,
    op: &str,
    a: Option<&str>,
    b: Option<&str>,
    options: RequestOptions,
) -> Result<Option<String>> {
    match options.trace.as_ref().and_then(crate::telemetry::remote) {
        Some(cx) => opentelemetry::trace::FutureExt::with_context(call_op(client, op, a, b, options), cx).await,
        None => call_op(client, op, a, b, options).await,
    }
}

async fn call_op(client: &Client, op: &str, a: Option<&str>, b: Option<&str>, options: RequestOptions) -> Result<Option<String>> {
    let a = a.unwrap_or_default();
    let json = |b: Option<&str>, what: &str| -> Result<Value> {
        match b {
            None => Ok(Value::Null),
            Some(t) if t.trim().is_empty() => Ok(Value::Null),
            Some(t) => {
                serde_json::from_str(t).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid {what} JSON: {e}")))
            }
        }
    };
    fn out<T: serde::Serialize>(v: T) -> Result<Option<String>> {
        Ok(Some(serde_json::to_string(&v)?))
    }
    match op {
        methods::PING => client.ping_with(options).await.map(|()| None),
        methods::TOOLS_LIST => out(client.list_all_tools().await?),
        methods::RESOURCES_LIST => out(client.list_all_resources().await?),
        methods::RESOURCES_TEMPLATES_LIST => out(client.list_all_resource_templates().await?),
        methods::PROMPTS_LIST => out(client.list_all_prompts().await?),
        methods::TOOLS_CALL => out(client.call_tool_with(a, json(b, "arguments")?, options).await?),
        TOOLS_CALL_AS_TASK => out(call_tool_as_task(client, a, json(b, "arguments")?, options).await?),
        methods::RESOURCES_READ => out(client.read_resource(a).await?),
        methods::RESOURCES_SUBSCRIBE => client.subscribe(a).await.map(|()| None),
        methods::RESOURCES_UNSUBSCRIBE => client.unsubscribe(a).await.map(|()| None),
        methods::PROMPTS_GET => {
            let args: BTreeMap<String, String> = match json(b, "prompt arguments")? {
                Value::Null => BTreeMap::new(),
                v => serde_json::from_value(v).map_err(|e| {
                    Error::new(ErrorKind::InvalidInput, format!("invalid prompt arguments (an object of strings): {e}"))
                })?,
            };
            out(client.get_prompt(a, args).await?)
        }
        methods::COMPLETION_COMPLETE => {
            let params: CompleteRequestParams = serde_json::from_value(json(b, "completion")?)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid completion params: {e}")))?;
            out(client.complete(params).await?)
        }
        methods::LOGGING_SET_LEVEL => client.set_log_level_with(super::context::level(a)?, options).await.map(|()| None),
        TOOLS_CALL_START_TASK => match client.start_tool_task(a, json(b, "arguments")?).await? {
            crate::client::TaskStart::Task(task) => out(json!({ "task": task })),
            crate::client::TaskStart::Done(result) => out(json!({ "result": result })),
        },
        methods::TASKS_GET => out(client.get_task(a).await?),
        methods::TASKS_UPDATE => {
            let Value::Object(responses) = json(b, "input responses")? else {
                return Err(Error::new(ErrorKind::InvalidInput, "input responses must be a JSON object of results by key"));
            };
            client.update_task(a, responses).await.map(|()| None)
        }
        methods::TASKS_CANCEL => client.cancel_task(a).await.map(|()| None),
        methods::TASKS_RESULT => out(client.task_result(a).await?),
        methods::TASKS_LIST => out(client.list_all_tasks().await?),
        methods::SKILLS_LIST => out(client.list_all_skills().await?),
        methods::SKILLS_GET => out(client.get_skill(a).await?),
        methods::RESOURCES_DIRECTORY_READ => out(client.read_all_directory(a).await?),
        SKILLS_LOAD => {
            let skill = match json(b, "skill entry")? {
                Value::Null => client.get_skill(a).await?,
                v => skill_entry(v)?,
            };
            let loaded = client.load_skill(&skill).await?;
            out(json!({ "skill": loaded.skill, "markdown": loaded.markdown }))
        }
        SKILLS_READ => {
            let skill = skill_entry(json(b, "skill entry")?)?;
            out(STANDARD.encode(client.read_skill_file(&skill, a).await?))
        }
        "request" => {
            let params = match json(b, "params")? {
                Value::Null => None,
                v => Some(v),
            };
            out(client.request(a, params, options).await?)
        }
        other => Err(Error::new(ErrorKind::InvalidInput, format!("unknown client call {other:?}"))),
    }
}
