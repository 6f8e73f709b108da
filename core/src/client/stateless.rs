//! The client's side of the stateless era (2026-07-28): no `initialize`, so every request
//! carries the client's version, capabilities and info in `_meta`; a server that needs
//! the user or the model first answers with an `InputRequiredResult`, which this client
//! answers with its sampling / elicitation / roots handlers before sending the request
//! again (a new id, the answers in `inputResponses`, the server's `requestState` echoed);
//! list and read results may be reused for the `ttlMs` the server allows.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::handlers::Handlers;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    meta, methods, ClientCapabilities, DiscoverResult, Implementation, InitializeResult, InputRequiredResult, LoggingLevel,
    ProtocolVersion, RESULT_COMPLETE, RESULT_INPUT_REQUIRED, RESULT_TASK, TASKS_EXTENSION,
};
use crate::session::{Peer, RequestOptions};

/// How many times one request may come back asking for input before the client gives
/// up (a server that never finishes would otherwise loop forever).
const MAX_INPUT_ROUNDS: usize = 16;

/// Which protocol era a client speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Era {
    /// Probe with `server/discover`; fall back to `initialize` when the server is older.
    #[default]
    Auto,
    /// `initialize` and a session (protocol versions up to 2025-11-25).
    Session,
    /// 2026-07-28: `server/discover`, then every request on its own.
    Stateless,
}

impl Era {
    /// Parses `auto`, `session` (or `legacy`) and `stateless` (or `modern`), case
    /// ignored, as every binding accepts them; anything else is InvalidInput saying so.
    ///
    /// ```
    /// use oxmcp::client::Era;
    /// assert_eq!(Era::parse("Stateless").unwrap(), Era::Stateless);
    /// assert_eq!(Era::parse("sesion").unwrap_err().kind(), oxmcp::ErrorKind::InvalidInput);
    /// ```
    pub fn parse(s: &str) -> Result<Era> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Era::Auto),
            "session" | "legacy" => Ok(Era::Session),
            "stateless" | "modern" => Ok(Era::Stateless),
            _ => Err(Error::new(
                ErrorKind::InvalidInput,
                format!("unknown era {s:?}: expected \"auto\", \"session\" or \"stateless\""),
            )),
        }
    }

    /// The era's name: `auto`, `session` or `stateless` (what the bindings report).
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Auto => "auto",
            Era::Session => "session",
            Era::Stateless => "stateless",
        }
    }
}

/// How long a client trusts what it learnt of a server's era: long enough that clients
/// reconnecting to an older server skip the `server/discover` probe (up to the discover
/// timeout against a server that ignores unknown methods), short enough to notice an
/// upgrade.
const ERA_MEMORY: Duration = Duration::from_secs(3600);

/// The servers this process found to speak only the session era, by endpoint.
static SESSION_ONLY: LazyLock<Mutex<HashMap<String, Instant>>> = LazyLock::new(Mutex::default);

/// Whether the server at `endpoint` was found to be session-only within [`ERA_MEMORY`].
pub(crate) fn known_session_only(endpoint: Option<&str>) -> bool {
    let Some(endpoint) = endpoint else { return false };
    let mut known = SESSION_ONLY.lock().unwrap();
    known.retain(|_, since| since.elapsed() < ERA_MEMORY);
    known.contains_key(endpoint)
}

/// Records what `server/discover` told about `endpoint`'s era.
pub(crate) fn remember_era(endpoint: Option<&str>, session_only: bool) {
    let Some(endpoint) = endpoint else { return };
    let mut known = SESSION_ONLY.lock().unwrap();
    if session_only {
        known.insert(endpoint.to_string(), Instant::now());
    } else {
        known.remove(endpoint);
    }
}

/// The `_meta` every stateless-era request carries.
pub(crate) fn base_meta(info: &Implementation, capabilities: &ClientCapabilities) -> Map<String, Value> {
    Map::from_iter([
        (meta::PROTOCOL_VERSION.to_string(), json!(ProtocolVersion::STATELESS.as_str())),
        (meta::CLIENT_CAPABILITIES.to_string(), serde_json::to_value(capabilities).unwrap_or_else(|_| json!({}))),
        (meta::CLIENT_INFO.to_string(), serde_json::to_value(info).unwrap_or_else(|_| json!({}))),
    ])
}

/// Sends `server/discover`. `Ok(None)`: the server answered, but not in the stateless
/// era (an error, or no 2026-07-28 among its versions), so it is an older server.
///
/// A server that has not answered after `liveness` is either still starting (a `uvx`
/// launch on a cold cache takes longer) or an older one that ignores unknown methods. A
/// `ping` tells them apart: a live server answers it (an error is an answer too), and
/// one still starting answers neither yet. So the probe goes on until the server answers
/// it, or answers the ping without it, or the session's request timeout passes: a slow
/// server is never taken for an older one and then offered the other era.
pub(crate) async fn discover(peer: &Peer, base: &Map<String, Value>, liveness: Duration) -> Result<Option<DiscoverResult>> {
    let params = json!({ "_meta": base });
    let probe = peer.request(methods::SERVER_DISCOVER, Some(params.clone()), RequestOptions::default());
    tokio::pin!(probe);
    let mut answer = tokio::select! {
        answer = &mut probe => answer,
        _ = tokio::time::sleep(liveness) => {
            let ping = peer.request(methods::PING, None, RequestOptions::default());
            tokio::pin!(ping);
            tokio::select! {
                biased;
                answer = &mut probe => answer,
                pong = &mut ping => match pong {
                    Ok(_) => return ignored_probe(),
                    Err(e) if e.rpc().is_some() => return ignored_probe(),
                    Err(_) => probe.await, // no answer to either: the probe's own outcome
                },
            }
        }
    };
    // -32022 lists the versions the server speaks. When ours is among them the refusal
    // was not about the version we sent (a gateway routing by version, a server
    // restarting with a new list): ask once more rather than give up the newer era.
    if let Err(e) = &answer {
        if lists_our_version(e) {
            tracing::debug!(
                "server/discover refused with -32022 although it lists {}: asking again",
                ProtocolVersion::STATELESS.as_str()
            );
            answer = peer.request(methods::SERVER_DISCOVER, Some(params), RequestOptions::default()).await;
        }
    }
    match answer {
        // An answer that is no DiscoverResult comes from a server that does not know the
        // method but answers anything (some older servers do): an older server too.
        Ok(v) => match serde_json::from_value::<DiscoverResult>(v) {
            Ok(d) => Ok(d.supported_versions.iter().any(|v| v == ProtocolVersion::STATELESS.as_str()).then_some(d)),
            Err(e) => {
                tracing::debug!("server/discover answered with no DiscoverResult ({e}): an older server");
                Ok(None)
            }
        },
        // Closed connections, an unreachable server and our own cancellations are real
        // failures, not an answer.
        Err(e) if matches!(e.kind(), ErrorKind::Closed | ErrorKind::Cancelled | ErrorKind::Transport) => Err(e),
        Err(e) => {
            tracing::debug!("server/discover failed ({e}): an older server");
            Ok(None)
        }
    }
}

/// A live server that left `server/discover` unanswered: an older one.
fn ignored_probe() -> Result<Option<DiscoverResult>> {
    tracing::debug!("the server answers ping but not server/discover: an older server");
    Ok(None)
}

/// Whether `e` is an unsupported-version error (-32022) whose `data.supported` names the
/// stateless version this client speaks.
fn lists_our_version(e: &Error) -> bool {
    let Some(rpc) = e.rpc() else { return false };
    rpc.code == crate::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION
        && rpc
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|v| v.as_str() == Some(ProtocolVersion::STATELESS.as_str())))
}

/// Removes from a `tools/list` result the tools whose `x-mcp-header` annotations are
/// invalid: the spec has clients exclude them (the headers could not be sent right), and
/// one malformed tool must not cost the others.
fn drop_tools_with_bad_headers(result: &mut Value) {
    let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return };
    tools.retain(|tool| {
        let Some(schema) = tool.get("inputSchema") else { return true };
        match crate::protocol::mirrored_headers::header_params(schema) {
            Ok(_) => true,
            Err(why) => {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                tracing::warn!(tool = name, "left out of tools/list: {why}");
                false
            }
        }
    });
}

/// The discover result in the shape the session era's accessors return.
pub(crate) fn as_initialize_result(d: &DiscoverResult) -> InitializeResult {
    let info = d
        .meta
        .as_ref()
        .and_then(|m| m.get(meta::SERVER_INFO))
        .and_then(|v| serde_json::from_value::<Implementation>(v.clone()).ok())
        .unwrap_or_else(|| Implementation::new("unknown", ""));
    let mut init = InitializeResult::new(ProtocolVersion::STATELESS.as_str(), d.capabilities.clone(), info);
    init.instructions = d.instructions.clone();
    init
}

/// A stateless-era client's per-connection state.
pub(crate) struct Stateless {
    base: Map<String, Value>,
    log_level: Mutex<Option<LoggingLevel>>,
    handlers: Handlers,
    /// Results the server let us reuse, by method and params, until their deadline.
    cache: Mutex<HashMap<String, (Instant, Value)>>,
}

/// Methods whose results carry caching hints.
fn cacheable(method: &str) -> bool {
    matches!(
        method,
        methods::TOOLS_LIST
            | methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST
            | methods::RESOURCES_READ
            | methods::PROMPTS_LIST
    )
}

impl Stateless {
    pub(crate) fn new(base: Map<String, Value>, handlers: Handlers) -> Self {
        Self { base, log_level: Mutex::new(None), handlers, cache: Mutex::default() }
    }

    /// The stateless era has no `logging/setLevel`: the level rides on each request.
    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *self.log_level.lock().unwrap() = Some(level);
    }

    fn with_meta(&self, params: Option<Value>) -> Result<Map<String, Value>> {
        let mut p = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(Error::new(ErrorKind::InvalidInput, format!("request params must be a JSON object, not {other}")))
            }
        };
        let m = p.entry("_meta").or_insert_with(|| json!({}));
        let Value::Object(m) = m else {
            return Err(Error::new(ErrorKind::InvalidInput, "params._meta must be a JSON object"));
        };
        for (k, v) in &self.base {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
        if let Some(level) = *self.log_level.lock().unwrap() {
            m.entry(meta::LOG_LEVEL).or_insert_with(|| json!(level));
        }
        Ok(p)
    }

    /// Sends one request, answering the server's questions round after round.
    pub(crate) async fn request(
        &self,
        peer: &Peer,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<Value> {
        let key = cacheable(method).then(|| format!("{method} {}", params.as_ref().map(Value::to_string).unwrap_or_default()));
        if let Some(key) = &key {
            let mut cache = self.cache.lock().unwrap();
            match cache.get(key) {
                Some((until, v)) if Instant::now() < *until => return Ok(v.clone()),
                Some(_) => {
                    cache.remove(key);
                }
                None => {}
            }
        }
        let first = self.with_meta(params)?;
        let mut answers: Option<(Map<String, Value>, Option<String>)> = None;
        for _ in 0..MAX_INPUT_ROUNDS {
            let mut p = first.clone();
            if let Some((responses, state)) = answers.take() {
                p.insert("inputResponses".into(), Value::Object(responses));
                if let Some(state) = state {
                    p.insert("requestState".into(), Value::String(state));
                }
            }
            let mut result = peer.request(method, Some(Value::Object(p)), options.clone()).await?;
            if method == methods::TOOLS_LIST {
                drop_tools_with_bad_headers(&mut result);
            }
            match result.get("resultType") {
                None => return Ok(self.remember(key, result)),
                Some(Value::String(t)) if t == RESULT_COMPLETE => return Ok(self.remember(key, result)),
                Some(Value::String(t)) if t == RESULT_INPUT_REQUIRED => {
                    let asked: InputRequiredResult = serde_json::from_value(result).map_err(|e| {
                        Error::new(ErrorKind::Protocol, format!("malformed InputRequiredResult for {method}: {e}"))
                    })?;
                    let responses = self.answer(peer, asked.input_requests.unwrap_or_default()).await?;
                    answers = Some((responses, asked.request_state));
                }
                // A task handle, where the extension allows one: the caller follows it.
                Some(Value::String(t)) if t == RESULT_TASK && method == methods::TOOLS_CALL && declares_tasks(&first) => {
                    return Ok(result)
                }
                Some(other) => {
                    return Err(Error::new(ErrorKind::Protocol, format!("{method}: unknown resultType {other} from the server")))
                }
            }
        }
        Err(Error::new(
            ErrorKind::Protocol,
            format!("{method}: the server asked for input {MAX_INPUT_ROUNDS} times without finishing"),
        ))
    }

    fn remember(&self, key: Option<String>, result: Value) -> Value {
        let ttl = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
        if let (Some(key), true) = (key, ttl > 0) {
            self.cache.lock().unwrap().insert(key, (Instant::now() + Duration::from_millis(ttl), result.clone()));
        }
        result
    }

    /// Answers every input request with the registered handlers, concurrently.
    async fn answer(&self, peer: &Peer, requests: Map<String, Value>) -> Result<Map<String, Value>> {
        super::handlers::answer_input_requests(&self.handlers, peer, requests).await
    }
}

/// Whether a request's `_meta` declares the tasks extension.
fn declares_tasks(params: &Map<String, Value>) -> bool {
    params
        .get("_meta")
        .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .is_some_and(|e| e.get(TASKS_EXTENSION).is_some())
}
