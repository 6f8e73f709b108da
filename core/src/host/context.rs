//! What a host handler does with its request, in host terms (names, JSON text): the same
//! parsing and the same protocol defaults for every host.

use serde_json::{json, Value};

use super::calls::{CallId, HostCalls};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, CreateMessageRequestParams, ElicitRequestParams, LoggingLevel};
use crate::server::RequestContext;

/// `maxTokens` for a sampling request that names none (the protocol requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 1000;

/// The facts a handler may want (JSON): `requestId`, `progressToken`, `clientInfo`,
/// `clientCapabilities`, `protocolVersion`, `cancelled`, `auth`, `headers` (the HTTP
/// request's, lower-case names, no `Authorization`), `traceparent` and `tracestate` (the
/// W3C trace context the handler's own spans nest under).
pub fn info(ctx: &RequestContext) -> Value {
    let trace = ctx.trace_context();
    json!({
        "requestId": ctx.request_id(),
        "progressToken": ctx.progress_token(),
        "clientInfo": ctx.client_info(),
        "clientCapabilities": ctx.client_capabilities(),
        "protocolVersion": ctx.protocol_version().map(|v| v.to_string()),
        "cancelled": ctx.is_cancelled(),
        "auth": ctx.auth(),
        "headers": ctx.headers(),
        "traceparent": trace.as_ref().map(|t| t.traceparent.as_str()),
        "tracestate": trace.as_ref().and_then(|t| t.tracestate.as_deref()),
    })
}

/// A logging level by name, any case (`"info"`, `"WARNING"`...).
///
/// ```
/// assert!(oxmcp::host::context::level("Warning").is_ok());
/// assert!(oxmcp::host::context::level("loud").is_err());
/// ```
pub fn level(name: &str) -> Result<LoggingLevel> {
    serde_json::from_value(Value::String(name.to_lowercase()))
        .map_err(|_| Error::new(ErrorKind::InvalidInput, format!("unknown log level {name:?}")))
}

/// Sends a log message with `data` (JSON text) if the client's level lets it through.
pub fn log(ctx: &RequestContext, level_name: &str, logger: Option<&str>, data_json: &str) -> Result<()> {
    let data: Value = serde_json::from_str(data_json)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid log data JSON: {e}")))?;
    ctx.log_with_logger(level(level_name)?, logger, data)
}

fn params<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid {what} params: {e}")))
}

/// A question for the client, checked before it is sent: `sampling/createMessage` (without
/// `maxTokens` it gets [`DEFAULT_MAX_TOKENS`]), `elicitation/create` or `roots/list`, with
/// its params parsed. A host that must refuse bad input before starting anything (C)
/// builds one first; [`ask_client`] does both steps.
pub enum Ask {
    /// `sampling/createMessage`.
    Sampling(Box<CreateMessageRequestParams>),
    /// `elicitation/create`.
    Elicitation(Box<ElicitRequestParams>),
    /// `roots/list`.
    Roots,
}

impl Ask {
    /// Reads `method` and its params (JSON text; empty means `{}`).
    pub fn new(method: &str, params_json: &str) -> Result<Self> {
        let mut p: Value = if params_json.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(params_json)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("invalid params JSON: {e}")))?
        };
        Ok(match method {
            methods::SAMPLING_CREATE_MESSAGE => {
                if let Value::Object(fields) = &mut p {
                    fields.entry("maxTokens").or_insert(json!(DEFAULT_MAX_TOKENS));
                }
                Ask::Sampling(Box::new(params("sampling", p)?))
            }
            methods::ELICITATION_CREATE => Ask::Elicitation(Box::new(params("elicitation", p)?)),
            methods::ROOTS_LIST => Ask::Roots,
            other => return Err(Error::new(ErrorKind::InvalidInput, format!("cannot ask the client {other:?}"))),
        })
    }

    /// Sends it during the request `ctx`; the result as JSON text.
    pub async fn send(self, ctx: &RequestContext) -> Result<String> {
        let out = match self {
            Ask::Sampling(p) => serde_json::to_string(&ctx.create_message(*p).await?),
            Ask::Elicitation(p) => serde_json::to_string(&ctx.elicit(*p).await?),
            Ask::Roots => serde_json::to_string(&ctx.list_roots().await?),
        };
        Ok(out?)
    }
}

/// Asks the client during a request: `method` is `sampling/createMessage`,
/// `elicitation/create` or `roots/list`; params and result are JSON text (empty params
/// mean `{}`). A sampling request without `maxTokens` gets [`DEFAULT_MAX_TOKENS`].
pub async fn ask_client(ctx: &RequestContext, method: &str, params_json: &str) -> Result<String> {
    Ask::new(method, params_json)?.send(ctx).await
}

/// In a middleware's call: runs the rest of the chain with `params_json` (`None`: the
/// params the middleware was given) and gives back its result (JSON text), or its
/// JSON-RPC error as an [`ErrorKind::Rpc`] error. Once per call; params that are not JSON
/// are refused without using it up.
///
/// The rest runs on its own: a host that stops waiting (its middleware cancelled when the
/// peer cancels the request) does not drop it, so the handler behind the middleware sees
/// the request's cancel and settles within its grace (logging on its way out, say) as it
/// would without a middleware.
pub async fn next(ctx: &RequestContext, params_json: Option<&str>) -> Result<String> {
    let changed = params_json
        .map(|text| {
            serde_json::from_str::<Option<Value>>(text)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("next: invalid params JSON: {e}")))
        })
        .transpose()?;
    let (next, given) = ctx
        .take_next()
        .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "next: not in a middleware's call, or already called"))?;
    let rest = next.run(changed.unwrap_or(given));
    let outcome = match tokio::runtime::Handle::try_current() {
        Ok(rt) => rt
            .spawn(rest)
            .await
            .map_err(|e| Error::new(ErrorKind::Handler, format!("next: the rest of the chain failed: {e}")))?,
        Err(_) => rest.await,
    };
    match outcome {
        Ok(v) => Ok(v.to_string()),
        Err(e) => Err(Error::from_rpc(e)),
    }
}

/// Reads one of the handler's own server's resources (see
/// [`RequestContext::read_resource`]); the result as JSON text.
pub async fn read_resource(ctx: &RequestContext, uri: &str) -> Result<String> {
    Ok(serde_json::to_string(&ctx.read_resource(uri).await?)?)
}

/// Continues the handler's call as a task (see [`RequestContext::escalate_to_task`]):
/// `"true"` once it is one, `"false"` when it stays inline.
pub async fn escalate_to_task(ctx: &RequestContext) -> Result<String> {
    Ok(ctx.escalate_to_task().await?.to_string())
}

/// The names of what a handler asks of its request through [`call_now`] and [`call`].
pub mod op {
    /// The request's facts ([`info`](super::info)); `null` once the request is over.
    pub const INFO: &str = "info";
    /// The W3C trace context of the request's span alone, `{"traceparent", "tracestate"}`
    /// (the two members of [`INFO`]): `null` when it has none or is over. A host joining its
    /// own tracer asks for this on every call, so it stays small.
    pub const TRACE: &str = "trace";
    /// Whether the peer cancelled the request (`true` once it is over).
    pub const CANCELLED: &str = "cancelled";
    /// Progress: `{"progress": n, "total"?: n, "message"?: text}`, sent if the client asked.
    pub const PROGRESS: &str = "progress";
    /// A log message: `{"level": name, "logger"?: text, "data": any}`.
    pub const LOG: &str = "log";
    /// Over Streamable HTTP, ends the SSE stream carrying the request while the handler goes
    /// on (the client resumes it); elsewhere nothing.
    pub const END_RESPONSE_STREAM: &str = "end response stream";
    /// Asks the client to sample (params as the protocol's; `maxTokens` defaults).
    pub const SAMPLING: &str = crate::protocol::methods::SAMPLING_CREATE_MESSAGE;
    /// Asks the client to fill in a form or visit a URL.
    pub const ELICITATION: &str = crate::protocol::methods::ELICITATION_CREATE;
    /// Asks the client for its roots.
    pub const ROOTS: &str = crate::protocol::methods::ROOTS_LIST;
    /// Reads one of the server's own resources: `{"uri": text}`.
    pub const READ_RESOURCE: &str = crate::protocol::methods::RESOURCES_READ;
    /// Continues an escalating tool's call as a task: `true` once it is one, `false` when it
    /// stays inline.
    pub const ESCALATE: &str = "escalate";
    /// In a middleware's call, the rest of the chain: params JSON (empty: the params the
    /// middleware was given); the rest's result.
    pub const NEXT: &str = "next";
}

/// What a handler asks of its open call `id`, answered at once: [`op::INFO`], [`op::TRACE`],
/// [`op::CANCELLED`], [`op::PROGRESS`], [`op::LOG`], [`op::END_RESPONSE_STREAM`]. Params and
/// result are JSON text (empty params mean none; `None`: nothing to give back). Once the
/// request is over, the facts are `null`, it counts as cancelled, and progress, logs and
/// the end of the stream are dropped without an error (a handler settling after a cancel
/// must not fail over them). Every host reaches its context through this door and
/// [`call`], so a new capability is a new name here, not a new native entry point.
///
/// ```
/// use oxmcp::host::{context, HostCalls};
/// let calls = HostCalls::new(Default::default());
/// // Call 7 is not open: its facts are null and its progress goes nowhere.
/// assert_eq!(context::call_now(&calls, 7, context::op::INFO, "").unwrap().as_deref(), Some("null"));
/// assert_eq!(context::call_now(&calls, 7, context::op::TRACE, "").unwrap().as_deref(), Some("null"));
/// assert!(context::call_now(&calls, 7, context::op::PROGRESS, r#"{"progress": 1}"#).unwrap().is_none());
/// assert!(context::call_now(&calls, 7, "bogus", "").is_err());
/// ```
pub fn call_now(calls: &HostCalls, id: CallId, op: &str, params_json: &str) -> Result<Option<String>> {
    let params = parse_params(op, params_json)?;
    let ctx = calls.context(id).ok();
    match op {
        op::INFO => Ok(Some(ctx.map_or(Value::Null, |c| info(&c)).to_string())),
        op::TRACE => Ok(Some(
            ctx.and_then(|c| c.trace_context())
                .map_or(Value::Null, |t| json!({"traceparent": t.traceparent, "tracestate": t.tracestate}))
                .to_string(),
        )),
        // Any open call, a client's handler too (it has no request context): the table knows.
        op::CANCELLED => Ok(Some((!calls.is_open(id) || calls.is_cancelled(id)).to_string())),
        op::PROGRESS => {
            #[derive(serde::Deserialize)]
            struct P {
                progress: f64,
                total: Option<f64>,
                message: Option<String>,
            }
            let p: P = from_params(op, params)?;
            gone_is_fine(ctx.map(|c| c.report_progress(p.progress, p.total, p.message.as_deref())))
        }
        op::LOG => {
            #[derive(serde::Deserialize)]
            struct L {
                level: String,
                logger: Option<String>,
                #[serde(default)]
                data: Value,
            }
            let l: L = from_params(op, params)?;
            let level = level(&l.level)?;
            gone_is_fine(ctx.map(|c| c.log_with_logger(level, l.logger.as_deref(), l.data)))
        }
        op::END_RESPONSE_STREAM => {
            if let Some(c) = ctx {
                c.end_response_stream();
            }
            Ok(None)
        }
        op::SAMPLING | op::ELICITATION | op::ROOTS | op::READ_RESOURCE | op::ESCALATE | op::NEXT => Err(Error::new(
            ErrorKind::InvalidInput,
            format!("the context call {op:?} answers later: make it through the asynchronous door"),
        )),
        other => Err(unknown(other)),
    }
}

/// What a handler asks of its open call `id`, by name, for every op (those of
/// [`call_now`] too): params are checked before anything is sent, so bad input is refused
/// at once and loses nothing. A request that is over refuses the asking ops with
/// [`ErrorKind::Closed`].
///
/// ```
/// # #[tokio::main] async fn main() {
/// use oxmcp::host::{context, HostCalls};
/// let calls = HostCalls::new(Default::default());
/// let e = context::call(&calls, 7, context::op::READ_RESOURCE, r#"{"uri": "file:///a"}"#).await.unwrap_err();
/// assert_eq!(e.kind(), oxmcp::ErrorKind::Closed);
/// # }
/// ```
pub fn call(
    calls: &HostCalls,
    id: CallId,
    op: &str,
    params_json: &str,
) -> futures::future::BoxFuture<'static, Result<Option<String>>> {
    use futures::FutureExt;
    let ready = |r: Result<Option<String>>| futures::future::ready(r).boxed();
    let asking = matches!(op, op::SAMPLING | op::ELICITATION | op::ROOTS | op::READ_RESOURCE | op::ESCALATE | op::NEXT);
    if !asking {
        return ready(call_now(calls, id, op, params_json));
    }
    let ask = match op {
        op::SAMPLING | op::ELICITATION | op::ROOTS => match Ask::new(op, params_json) {
            Ok(a) => Some(a),
            Err(e) => return ready(Err(e)),
        },
        _ => None,
    };
    let params = match parse_params(op, params_json) {
        Ok(p) => p,
        Err(e) => return ready(Err(e)),
    };
    let Ok(ctx) = calls.context(id) else {
        return ready(Err(Error::new(ErrorKind::Closed, format!("{op}: the request is over"))));
    };
    let op = op.to_string();
    // What the handler asks runs in its request's context: the requests it sends are
    // children of the server span.
    let trace = ctx.trace.clone();
    let asked = async move {
        match (op.as_str(), ask) {
            (_, Some(ask)) => ask.send(&ctx).await.map(Some),
            (op::READ_RESOURCE, _) => {
                #[derive(serde::Deserialize)]
                struct R {
                    uri: String,
                }
                let r: R = from_params(&op, params)?;
                read_resource(&ctx, &r.uri).await.map(Some)
            }
            (op::ESCALATE, _) => escalate_to_task(&ctx).await.map(Some),
            _ => {
                let given = params.map(|p| p.to_string());
                next(&ctx, given.as_deref()).await.map(Some)
            }
        }
    };
    match trace {
        Some(cx) => opentelemetry::trace::FutureExt::with_context(asked, cx).boxed(),
        None => asked.boxed(),
    }
}

fn unknown(op: &str) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("unknown context call {op:?}"))
}

/// Empty text is no params; anything else must be JSON.
fn parse_params(op: &str, text: &str) -> Result<Option<Value>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("{op}: invalid params JSON: {e}")))
}

fn from_params<T: serde::de::DeserializeOwned>(op: &str, params: Option<Value>) -> Result<T> {
    serde_json::from_value(params.unwrap_or_else(|| json!({})))
        .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("{op}: invalid params: {e}")))
}

/// Progress and logs after the request ended are nothing to fail over.
fn gone_is_fine(r: Option<Result<()>>) -> Result<Option<String>> {
    match r {
        None => Ok(None),
        Some(Err(e)) if e.kind() == ErrorKind::Closed => Ok(None),
        Some(r) => r.map(|()| None),
    }
}
