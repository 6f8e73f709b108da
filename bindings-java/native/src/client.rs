//! `McpClient`: connecting over stdio (a child process) or Streamable HTTP, and every
//! client call as an asynchronous call completing a Java future; cancelling that future
//! drops the engine's request, which sends `notifications/cancelled`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::EnvUnowned;
use oxmcp::client::{Client, ClientContext, Era, ServerNotification};
use oxmcp::protocol::{CompleteRequestParams, LoggingLevel};
use oxmcp::session::{RequestOptions, SessionConfig};
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;
use oxmcp::{Error, ErrorKind};
use serde_json::Value;

use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, jstring, rstring};
use crate::server::call_java;

static CLIENTS: Registry<Arc<Client>> = Registry::new();

fn notification_parts(n: ServerNotification) -> (String, String) {
    let (method, params) = n.into_wire();
    (method, params.to_string())
}

/// Connection settings shared by both transports (JSON from Java's `McpClient.Options`).
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Settings {
    name: Option<String>,
    version: Option<String>,
    /// Default inactivity timeout of every request, in milliseconds.
    request_timeout_ms: Option<u64>,
    /// "auto" (default), "session" or "stateless".
    era: Option<String>,
    /// Java listener id for server notifications (0: none).
    listener: i64,
    /// Java handler ids answering server-to-client requests (0: not supported).
    sampling: i64,
    elicitation: i64,
    roots: i64,
    /// stdio: the program, its arguments, extra environment, working directory.
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    /// HTTP: the endpoint URL and extra headers.
    url: Option<String>,
    headers: BTreeMap<String, String>,
}

fn parse_result<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> oxmcp::Result<T> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Handler, format!("the {what} handler returned an invalid result: {e}")))
}

fn invalid(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("invalid {what}: {e}"))
}

async fn connect(settings: Settings) -> oxmcp::Result<Done> {
    let mut b = Client::builder(
        settings.name.clone().unwrap_or_else(|| "oxmcp-java".into()),
        settings.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").into()),
    );
    if let Some(era) = &settings.era {
        b = b.era(Era::parse(era)?);
    }
    if let Some(ms) = settings.request_timeout_ms {
        b = b.session_config(SessionConfig { request_timeout: Duration::from_millis(ms), ..Default::default() });
    }
    if settings.sampling != 0 {
        let id = settings.sampling;
        b = b.on_sampling(move |params, cx: ClientContext| async move {
            let out =
                call_java(id, serde_json::to_string(&params)?, Some("sampling/createMessage".into()), cx.cancel, None).await?;
            parse_result("sampling", &out)
        });
    }
    if settings.elicitation != 0 {
        let id = settings.elicitation;
        b = b.on_elicitation(move |params, cx: ClientContext| async move {
            let out = call_java(id, serde_json::to_string(&params)?, Some("elicitation/create".into()), cx.cancel, None).await?;
            parse_result("elicitation", &out)
        });
    }
    if settings.roots != 0 {
        let id = settings.roots;
        b = b.on_list_roots(move |(), cx: ClientContext| async move {
            let out = call_java(id, "{}".into(), Some("roots/list".into()), cx.cancel, None).await?;
            parse_result("roots", &out)
        });
    }
    if settings.listener != 0 {
        let listener = settings.listener;
        b = b.on_notification(move |n| {
            let (method, params) = notification_parts(n);
            jvm::on_notification(listener, &method, &params);
        });
    }
    let client = if let Some(command) = settings.command {
        let mut child = ChildProcess::new(command).args(settings.args);
        for (k, v) in settings.env {
            child = child.env(k, v);
        }
        if let Some(dir) = settings.cwd {
            child = child.current_dir(dir);
        }
        b.connect(child.spawn()?).await?
    } else if let Some(url) = settings.url {
        let mut transport = HttpClientTransport::new(url);
        for (k, v) in &settings.headers {
            transport = transport.header(k, v);
        }
        b.connect(transport).await?
    } else {
        return Err(invalid("client options", "neither a command nor a URL"));
    };
    let init = serde_json::to_string(client.initialize_result())?;
    let handle = CLIENTS.insert(Arc::new(client));
    Ok(Done { json: Some(init), handle })
}

/// Connects (stdio or HTTP, from the settings JSON); completes with the `initialize`
/// result and the client handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientConnect<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    settings: JString<'l>,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let text = rstring(env, &settings)?.unwrap_or_default();
        spawn_call(call_id, async move {
            let settings: Settings = serde_json::from_str(&text).map_err(|e| invalid("client options", e))?;
            connect(settings).await
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// What `clientCall` runs (`op` codes match `McpClient`).
#[derive(Clone, Copy)]
enum Op {
    Ping,
    ListTools,
    ListResources,
    ListResourceTemplates,
    ListPrompts,
    CallTool,
    ReadResource,
    GetPrompt,
    Complete,
    SetLogLevel,
    Request,
    Subscribe,
    Unsubscribe,
}

impl Op {
    fn from_code(code: i32) -> Option<Op> {
        use Op::*;
        [
            Ping,
            ListTools,
            ListResources,
            ListResourceTemplates,
            ListPrompts,
            CallTool,
            ReadResource,
            GetPrompt,
            Complete,
            SetLogLevel,
            Request,
            Subscribe,
            Unsubscribe,
        ]
        .get(usize::try_from(code).ok()?)
        .copied()
    }
}

fn json_of<T: serde::Serialize>(v: &T) -> oxmcp::Result<Done> {
    Ok(Done::json(serde_json::to_string(v)?))
}

fn parse_json(what: &str, text: Option<&str>) -> oxmcp::Result<Value> {
    match text {
        None => Ok(Value::Null),
        Some(t) => serde_json::from_str(t).map_err(|e| invalid(&format!("{what} JSON"), e)),
    }
}

async fn run(client: Arc<Client>, op: Op, a: Option<String>, b: Option<String>, options: RequestOptions) -> oxmcp::Result<Done> {
    let a_str = || a.clone().unwrap_or_default();
    match op {
        Op::Ping => client.ping().await.map(|()| Done::empty()),
        Op::ListTools => json_of(&client.list_all_tools().await?),
        Op::ListResources => json_of(&client.list_all_resources().await?),
        Op::ListResourceTemplates => json_of(&client.list_all_resource_templates().await?),
        Op::ListPrompts => json_of(&client.list_all_prompts().await?),
        Op::CallTool => json_of(&client.call_tool_with(&a_str(), parse_json("arguments", b.as_deref())?, options).await?),
        Op::ReadResource => json_of(&client.read_resource(&a_str()).await?),
        Op::GetPrompt => {
            let args: BTreeMap<String, String> = match parse_json("prompt arguments", b.as_deref())? {
                Value::Null => BTreeMap::new(),
                v => serde_json::from_value(v).map_err(|e| invalid("prompt arguments (an object of strings)", e))?,
            };
            json_of(&client.get_prompt(&a_str(), args).await?)
        }
        Op::Complete => {
            let params: CompleteRequestParams =
                serde_json::from_value(parse_json("completion", b.as_deref())?).map_err(|e| invalid("completion params", e))?;
            json_of(&client.complete(params).await?)
        }
        Op::SetLogLevel => {
            let level: LoggingLevel =
                serde_json::from_value(Value::String(a_str().to_lowercase())).map_err(|_| invalid("log level", a_str()))?;
            client.set_log_level(level).await.map(|()| Done::empty())
        }
        Op::Request => {
            let params = match parse_json("params", b.as_deref())? {
                Value::Null => None,
                v => Some(v),
            };
            json_of(&client.request(&a_str(), params, options).await?)
        }
        Op::Subscribe => client.subscribe(&a_str()).await.map(|()| Done::empty()),
        Op::Unsubscribe => client.unsubscribe(&a_str()).await.map(|()| Done::empty()),
    }
}

/// One client call. `timeoutMs` <= 0: the session default; `progress`: report
/// `notifications/progress` of this request to the Java future's listener.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_oxmcp_Native_clientCall<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
    op: jint,
    a: JString<'l>,
    b: JString<'l>,
    timeout_ms: jlong,
    progress: jboolean,
    call_id: jlong,
) {
    env.with_env(|env| -> jni::errors::Result<()> {
        let a = rstring(env, &a)?;
        let b = rstring(env, &b)?;
        let c = CLIENTS.get(client);
        let mut options = RequestOptions::default();
        if timeout_ms > 0 {
            options = options.timeout(Duration::from_millis(timeout_ms as u64));
        }
        if progress {
            options = options.on_progress(move |p| jvm::on_progress(call_id, p.progress, p.total, p.message.as_deref()));
        }
        spawn_call(call_id, async move {
            let c = c.ok_or_else(|| Error::new(ErrorKind::Closed, "the client is closed"))?;
            let op = Op::from_code(op).ok_or_else(|| invalid("operation", op))?;
            run((*c).clone(), op, a, b, options).await
        });
        Ok(())
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Tells the server the roots changed (error message, or null).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientNotifyRootsChanged<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
) -> JObject<'l> {
    env.with_env(|env| -> jni::errors::Result<JObject<'l>> {
        let outcome = CLIENTS
            .get(client)
            .ok_or_else(|| Error::new(ErrorKind::Closed, "the client is closed"))
            .and_then(|c| c.notify_roots_changed());
        match outcome {
            Ok(()) => Ok(JObject::null()),
            Err(e) => jstring(env, Some(&format!("{}\n{}", jvm::kind_code(e.kind()), e.message()))),
        }
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Pending outgoing requests of the session (for leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientPending<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, client: jlong) -> jlong {
    CLIENTS.get(client).map_or(0, |c| c.stats().pending_requests as jlong)
}

/// The era the connection speaks: 1 for the stateless era (2026-07-28), 0 for the session
/// era (or a closed client).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientStateless<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
) -> jboolean {
    CLIENTS.get(client).is_some_and(|c| c.era() == oxmcp::client::Era::Stateless)
}

/// Closes the connection (a child process is stopped), then forgets the handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_clientClose<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    client: jlong,
    call_id: jlong,
) {
    let c = CLIENTS.remove(client);
    spawn_call(call_id, async move {
        if let Some(c) = c {
            c.shutdown().await;
        }
        Ok(Done::empty())
    });
}

/// Closes every open client (at shutdown): child processes are stopped, not orphaned.
pub async fn close_all() {
    let clients = CLIENTS.drain();
    futures::future::join_all(clients.iter().map(|c| c.shutdown())).await;
}
