//! What a host handler does with its request, in host terms (names, JSON text): the same
//! parsing and the same protocol defaults for every host.

use serde_json::{json, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, CreateMessageRequestParams, ElicitRequestParams, LoggingLevel};
use crate::server::RequestContext;

/// `maxTokens` for a sampling request that names none (the protocol requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 1000;

/// The facts a handler may want (JSON): `requestId`, `progressToken`, `clientInfo`,
/// `clientCapabilities`, `protocolVersion`, `cancelled`, `auth`, `headers` (the HTTP
/// request's, lower-case names, no `Authorization`).
pub fn info(ctx: &RequestContext) -> Value {
    json!({
        "requestId": ctx.request_id(),
        "progressToken": ctx.progress_token(),
        "clientInfo": ctx.client_info(),
        "clientCapabilities": ctx.client_capabilities(),
        "protocolVersion": ctx.protocol_version().map(|v| v.to_string()),
        "cancelled": ctx.is_cancelled(),
        "auth": ctx.auth(),
        "headers": ctx.headers(),
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
