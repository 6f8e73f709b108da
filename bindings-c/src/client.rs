//! `OxmcpClient`: a client connected over stdio (a child process) or Streamable HTTP.
//! Every call is asynchronous: it returns an `OxmcpRequest` handle at once and reports its
//! outcome through a completion callback, exactly once.

use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::client::{Client, Era};
use oxmcp::host::{client as host, ClientHooks, ConnectOptions};
use oxmcp::session::RequestOptions;
use oxmcp::{Error, ErrorKind};
use serde_json::{Map, Value};

use crate::callback::{c_string, Gate, OxmcpCompletionFn, OxmcpNotificationFn, OxmcpProgressFn, UserData};
use crate::deliver::Deliver;
use crate::error::{bytes_arg, guard, invalid, opt_json_text, opt_str_arg, out, quietly, str_arg, OxmcpStatus};
use crate::incoming::{client_request_fn, OxmcpClientRequestFn};
use crate::request::{door_value, start, start_now, OxmcpRequest};
use crate::runtime::{rt_arg, OxmcpRuntime, Rt};

/// The non-NULL notification callback.
type NotifyFn = unsafe extern "C" fn(*mut c_void, *const c_char, *const u8, usize);

/// The non-NULL request callback and the server requests it answers.
type Answers = (
    unsafe extern "C" fn(*mut c_void, *mut crate::incoming::OxmcpIncoming, *const c_char, *const u8, usize),
    UserData,
    Vec<String>,
);

/// A client: created unconnected, then connected once over stdio or HTTP.
pub struct OxmcpClient {
    rt: Arc<Rt>,
    gate: Gate,
    /// The connection options oxmcp_client_configure() gathered (`ConnectOptions` JSON,
    /// name and version included); read when connecting.
    options: Mutex<Map<String, Value>>,
    notifications: Mutex<Option<(NotifyFn, UserData)>>,
    /// What answers the server's sampling, elicitation and roots requests.
    answers: Mutex<Option<Answers>>,
    /// `None` until connected.
    client: Arc<Mutex<Option<Arc<Client>>>>,
}

fn client_arg<'a>(client: *const OxmcpClient) -> Result<&'a OxmcpClient, Error> {
    // SAFETY: exported functions require a NULL or live client handle.
    unsafe { client.as_ref() }.ok_or_else(|| invalid("client is NULL"))
}

/// The engine client of a connected client handle (for a server mounting it).
pub(crate) fn connected_arg(client: *const OxmcpClient) -> Result<Arc<Client>, Error> {
    client_arg(client)?.connected()
}

impl OxmcpClient {
    /// The connected engine client.
    fn connected(&self) -> Result<Arc<Client>, Error> {
        self.client
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| invalid("the client is not connected (oxmcp_client_connect() first)"))
    }

    /// Connects with the configured options and `transport` merged over them; the result is the server's
    /// `initialize` result (in the stateless era, the engine's `InitializeResult`-shaped
    /// view of the `server/discover` answer).
    fn connect(
        &self,
        callback: OxmcpCompletionFn,
        user_data: *mut c_void,
        out_request: *mut *mut OxmcpRequest,
        transport: Map<String, Value>,
    ) -> Result<(), Error> {
        if self.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("the client is already connected"));
        }
        let mut merged = self.options.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if transport.contains_key("command") || transport.contains_key("url") {
            for key in ["command", "args", "env", "cwd", "stderr", "url"] {
                merged.remove(key);
            }
        }
        merge(&mut merged, transport);
        if !merged.contains_key("url") {
            // Only an HTTP connection reads them.
            for key in ["oauth", "tokenFile", "headers"] {
                merged.remove(key);
            }
        }
        let mut options = connect_options(merged)?;
        let mut hooks = ClientHooks::default();
        let calls = hooks.calls().clone();
        if let Some((cb, ud)) = *self.notifications.lock().unwrap_or_else(|e| e.into_inner()) {
            let (gate, deliver) = (self.gate.clone(), self.rt.deliver.clone());
            hooks.on_notification = Some(Arc::new(move |method: String, params: String| {
                let method = c_string(&method);
                let gate = gate.clone();
                // SAFETY: the host registered the callback with this user data.
                deliver.call(move || {
                    let _ = gate.run(|| unsafe { cb(ud.ptr(), method.as_ptr(), params.as_ptr(), params.len()) });
                });
            }));
        }
        if let Some((cb, ud, kinds)) = self.answers.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            options.answers = kinds;
            hooks.on_request = Some(client_request_fn(cb, ud, calls.clone(), self.rt.clone(), self.gate.clone()));
        }
        let slot = self.client.clone();
        start(&self.rt, callback, user_data, out_request, move |_| async move {
            let client = host::connect(options, hooks).await?;
            let init = serde_json::to_value(client.initialize_result())?;
            let client = Arc::new(client);
            let raced = {
                let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                let raced = slot.is_some();
                if !raced {
                    *slot = Some(client.clone());
                }
                raced
            };
            if raced {
                client.shutdown().await;
                return Err(invalid("the client is already connected"));
            }
            Ok(init)
        })
    }
}

/// Creates an unconnected client named `name` / `version` on `runtime`.
///
/// Ownership: the caller owns `*out_client` and releases it with oxmcp_client_free().
///
/// # Safety
/// `runtime` is a live runtime; `name`/`version` are NUL-terminated; `out_client` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_new(
    runtime: *const OxmcpRuntime,
    name: *const c_char,
    version: *const c_char,
    out_client: *mut *mut OxmcpClient,
) -> OxmcpStatus {
    guard(|| {
        let c = OxmcpClient {
            rt: rt_arg(runtime)?,
            gate: Gate::new(),
            options: Mutex::new(Map::from_iter([
                ("name".to_owned(), Value::from(str_arg(name, "name")?)),
                ("version".to_owned(), Value::from(str_arg(version, "version")?)),
            ])),
            notifications: Mutex::new(None),
            answers: Mutex::new(None),
            client: Arc::new(Mutex::new(None)),
        };
        out(out_client, Box::into_raw(Box::new(c)), "out_client")
    })
}

/// Sets the callback for the server's notifications (log messages, progress, list
/// changes). Call it before connecting. It is not called after oxmcp_client_free()
/// returned. `user_data` must stay valid until then.
///
/// # Safety
/// `client` is a live client.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_on_notification(
    client: *const OxmcpClient,
    callback: OxmcpNotificationFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("set the notification callback before connecting"));
        }
        *c.notifications.lock().unwrap_or_else(|e| e.into_inner()) = callback.map(|cb| (cb, UserData(user_data)));
        Ok(())
    })
}

/// Sets the callback answering the server's requests: `answers` is a comma-separated list
/// of `"sampling"`, `"elicitation"` and `"roots"` (each declares its client capability),
/// and `"authorize"` for the OAuth authorization code grant (see oxmcp_client_configure() `oauth`).
/// The callback gets an `OxmcpIncoming` per request, which the host completes with the
/// result JSON (any thread, now or later) and frees; oxmcp_incoming_on_cancel() tells when
/// the server cancels. Call it before connecting. It is not called after
/// oxmcp_client_free() returned; `user_data` must stay valid until then.
///
/// # Safety
/// `client` is a live client; `answers` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_on_request(
    client: *const OxmcpClient,
    answers: *const c_char,
    callback: OxmcpClientRequestFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let cb = callback.ok_or_else(|| invalid("callback is NULL"))?;
        let kinds: Vec<String> =
            str_arg(answers, "answers")?.split(',').map(|k| k.trim().to_owned()).filter(|k| !k.is_empty()).collect();
        if let Some(bad) = kinds.iter().find(|k| !["sampling", "elicitation", "roots", host::AUTHORIZE].contains(&k.as_str())) {
            return Err(invalid(format!("cannot answer {bad:?}: say sampling, elicitation, roots or authorize")));
        }
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("set the request callback before connecting"));
        }
        *c.answers.lock().unwrap_or_else(|e| e.into_inner()) = Some((cb, UserData(user_data), kinds));
        Ok(())
    })
}

/// Tells the server that the client's roots changed
/// (`notifications/roots/list_changed`); the server asks for them again when it needs them.
///
/// # Safety
/// `client` is a live client.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_notify_roots_changed(client: *const OxmcpClient) -> OxmcpStatus {
    guard(|| client_arg(client)?.connected()?.notify_roots_changed())
}

/// Merges `update` into `options`, key by key: a `null` value removes the key.
fn merge(options: &mut Map<String, Value>, update: Map<String, Value>) {
    for (key, value) in update {
        if value.is_null() {
            options.remove(&key);
        } else {
            options.insert(key, value);
        }
    }
}

/// The engine's connect options read from `options` (unknown keys and bad values refused).
fn connect_options(options: Map<String, Value>) -> Result<ConnectOptions, Error> {
    let read = |options: Map<String, Value>| serde_json::from_value::<ConnectOptions>(Value::Object(options));
    let options = read(options.clone()).map_err(|e| {
        // Name the key at fault when one alone is refused.
        let key = options.iter().find(|(k, v)| read(Map::from_iter([((*k).clone(), (*v).clone())])).is_err());
        let at = key.map_or(String::new(), |(k, _)| format!(" ({k:?})"));
        invalid(format!("invalid client options{at}: {e}"))
    })?;
    if let Some(era) = &options.era {
        Era::parse(era)?;
    }
    Ok(options)
}

/// A JSON object argument (NULL / 0: an empty one).
fn object_arg(json: *const u8, len: usize, what: &str) -> Result<Map<String, Value>, Error> {
    let bytes = bytes_arg(json, len, what)?;
    if bytes.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid(format!("{what} must be a JSON object"))),
        Err(e) => Err(invalid(format!("{what} is not JSON: {e}"))),
    }
}

/// Sets connection options before connecting: `options_json` is an object of the engine's
/// client options (`host::ConnectOptions`, camelCase), merged key by key into what earlier
/// calls set (`null` removes a key; NULL / 0 changes nothing):
/// - `name`, `version`: the client's (oxmcp_client_new() set them);
/// - `era`: `"auto"` (the default: probe with `server/discover` and speak the stateless
///   era, 2026-07-28, when the server does, else `initialize`), `"session"` (alias
///   `"legacy"`: `initialize` and a session, protocol versions up to 2025-11-25) or
///   `"stateless"` (alias `"modern"`: 2026-07-28 only; a server that does not speak it
///   fails the connect with `OXMCP_STATUS_PROTOCOL`), case-insensitive;
/// - `requestTimeoutMs`: every request's default inactivity timeout;
/// - HTTP only (a stdio connection ignores them): `headers` (an object of strings sent with
///   every request, e.g. `{"Authorization": "Bearer ..."}`), `oauth` and `tokenFile`
///   (below);
/// - the transport, usually given to oxmcp_client_connect() instead: `command`, `args`,
///   `env`, `cwd`, `stderr` (`"forward"` or `"discard"`) or `url`.
///
/// `oauth` sets how the client authorizes at a protected HTTP server (OAuth 2.1, as the MCP
/// authorization spec has it), an object, camelCase, all optional: `grant`
/// (`"authorization_code"`, the default, or `"client_credentials"`), `clientId` and
/// `clientSecret` (a client registered beforehand; without `clientId` the client registers
/// itself dynamically), `scope`, `clientName`, `redirectUri`, `clientMetadataUrl`,
/// `privateKeyPem` and `signingAlg` (`private_key_jwt`), `issuer` (pins the configured
/// credentials to that authorization server: recommended with a secret or a key, so a
/// hostile server cannot send them to another one). `tokenFile` (none: tokens kept in
/// memory) keeps the tokens between runs, in a file readable by its owner only. The engine
/// then discovers the authorization server from the server's 401 challenge, registers, gets
/// tokens, refreshes them and asks for more scope when the server wants it. The
/// authorization code grant needs the user's browser: name `"authorize"` in
/// oxmcp_client_on_request(), whose callback then gets the method `"authorize"` with
/// `{"url": <authorization URL>, "redirectUri": ...}`; show the user `url` (or open a
/// browser) and complete the request with the URL the browser was sent back to, as a JSON
/// string (e.g. `"\"http://127.0.0.1:8765/callback?code=...&state=...\""`). Its `state` is
/// checked before the code is used. When the server refuses the client and no token can be
/// had, the connect or call fails with `OXMCP_STATUS_UNAUTHORIZED`.
///
/// Unknown keys, a bad value and a connected client fail with
/// `OXMCP_STATUS_INVALID_INPUT` and change nothing. The header's inline helpers
/// oxmcp_client_set_era(), oxmcp_client_set_oauth() and oxmcp_client_set_headers() are
/// written on it.
///
/// ```c
/// const char *machine = "{\"era\":\"stateless\",\"oauth\":{\"grant\":\"client_credentials\",\"clientId\":\"machine\","
///                       "\"clientSecret\":\"s3cret\",\"issuer\":\"https://auth.example.com\"}}";
/// oxmcp_client_configure(client, (const uint8_t *)machine, strlen(machine));
/// ```
///
/// # Safety
/// `client` is a live client; `options_json` points to `options_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_configure(
    client: *const OxmcpClient,
    options_json: *const u8,
    options_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let update = object_arg(options_json, options_len, "options_json")?;
        let mut options = c.options.lock().unwrap_or_else(|e| e.into_inner());
        let mut merged = options.clone();
        merge(&mut merged, update);
        connect_options(merged.clone())?;
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("configure the client before connecting: it is already connected"));
        }
        *options = merged;
        Ok(())
    })
}

/// The canonical name of an era, as oxmcp_client_era() hands it out (static strings, so the
/// caller never frees them).
fn era_name(era: Era) -> &'static CStr {
    match era {
        Era::Auto => c"auto",
        Era::Session => c"session",
        Era::Stateless => c"stateless",
    }
}

/// Writes the client's era to `*out_era`: a static NUL-terminated string owned by oxmcp
/// (never freed, valid for the life of the process). While connected it is the era the
/// connection settled on, `"session"` or `"stateless"` (with `"auto"`, whichever the server
/// answered to: `"stateless"` for an oxmcp server, `"session"` for an older one); while not
/// connected (before connecting, after closing) it is the era the next connect asks for:
/// `"auto"`, `"session"` or `"stateless"`.
///
/// # Safety
/// `client` is a live client; `out_era` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_era(client: *const OxmcpClient, out_era: *mut *const c_char) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let connected = c.client.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|engine| engine.era());
        let era = match connected {
            Some(era) => era,
            None => match c.options.lock().unwrap_or_else(|e| e.into_inner()).get("era").and_then(Value::as_str) {
                Some(name) => Era::parse(name)?,
                None => Era::Auto,
            },
        };
        out(out_era, era_name(era).as_ptr(), "out_era")
    })
}

/// Connects, with the options oxmcp_client_configure() set and `options_json` merged over
/// them for this connect (same keys; NULL / 0 for none): usually the transport, either
/// `{"command": program, "args": [...], "env"?: {...}, "cwd"?: dir, "stderr"?: "discard"}`
/// to start a child process and speak stdio with it (the child is stopped when the client
/// closes), or `{"url": endpoint}` for Streamable HTTP (falling back to legacy HTTP+SSE when
/// the server only speaks that; authorizing with `oauth` when it is set, a protected server
/// refusing a client without it fails with `OXMCP_STATUS_UNAUTHORIZED`). A transport given
/// here replaces a configured one. Bad options fail with `OXMCP_STATUS_INVALID_INPUT`.
///
/// `callback` gets the server's `initialize` result (JSON) once connected, or the error (the
/// child's last stderr lines are in the message when it died). In the stateless era there is
/// no `initialize`: the result is the `server/discover` answer in the same shape
/// (`protocolVersion` `"2026-07-28"`, `capabilities`, `serverInfo`, `instructions`).
/// `*out_request` (may be NULL) cancels the connect. The header's inline helpers
/// oxmcp_client_connect_stdio() and oxmcp_client_connect_http() are written on it.
///
/// ```c
/// const char *server = "{\"command\":\"python3\",\"args\":[\"server.py\"]}";
/// oxmcp_client_connect(client, (const uint8_t *)server, strlen(server), on_connected, &state, NULL);
/// ```
///
/// # Safety
/// `client` is a live client; `options_json` points to `options_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_connect(
    client: *const OxmcpClient,
    options_json: *const u8,
    options_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let transport = object_arg(options_json, options_len, "options_json")?;
        c.connect(callback, user_data, out_request, transport)
    })
}

/// The client door: makes the client call `op` (NUL-terminated) by name, with its two
/// arguments `a` (text, NUL-terminated; NULL for none) and `b` (JSON, pointer + length; NULL
/// / 0 for none), as the engine's `host::client::call` reads them. `callback` gets the
/// result JSON (`null` for calls that return nothing).
///
/// | `op` | `a` | `b` | result |
/// |---|---|---|---|
/// | `"ping"` | | | `null` (the stateless era has no `ping`: a `server/discover` round trip stands in) |
/// | `"tools/list"`, `"resources/list"`, `"resources/templates/list"`, `"prompts/list"`, `"skills/list"` | | | every page's items, one array |
/// | `"tools/call"` | tool name | arguments object | `CallToolResult` (a tool failure is `isError: true`, not an error) |
/// | `"tools/call as task"` | tool name | arguments object | the final `CallToolResult`; the server may run it as a task: the engine polls it, answers its questions with oxmcp_client_on_request()'s callback, and reports each status to `on_progress` (progress 1, 2, ...; message `working`, `input_required`... or `status: statusMessage`); cancelling cancels the task; no timeout |
/// | `"tools/call start task"` | tool name | arguments object | `{"task": Task}` when the server runs it as a task, `{"result": CallToolResult}` when it answered at once; nothing polls |
/// | `"tasks/get"` | task id | | the task (`result`, `error` or `inputRequests` inlined as its status brings) |
/// | `"tasks/update"` | task id | `{key: answer}` to its `inputRequests` | `null` |
/// | `"tasks/cancel"` | task id | | `null` |
/// | `"tasks/result"`, `"tasks/list"` | task id, | | a 2025-11-25 server's task result, every page of this client's tasks |
/// | `"resources/read"` | URI | | `ReadResourceResult` |
/// | `"resources/subscribe"`, `"resources/unsubscribe"` | URI | | `null` |
/// | `"resources/directory/read"` | directory URI | | its children (every page), one array |
/// | `"prompts/get"` | prompt name | arguments, an object of strings | `GetPromptResult` |
/// | `"completion/complete"` | | its params | `CompleteResult` |
/// | `"logging/setLevel"` | level (`"debug"` ... `"emergency"`, any case) | | `null` (in the stateless era every later request asks for it) |
/// | `"skills/get"` | `SKILL.md` URI | | the skill's entry |
/// | `"skills/load"` | `SKILL.md` URI | the held entry (none: `skills/get` fetches it) | `{"skill", "markdown"}`, checked against the entry (`OXMCP_STATUS_PROTOCOL` when it does not match) |
/// | `"skills/read"` | path in the skill, or URI | the skill's entry | the file's bytes as a base64 JSON string (a file the entry does not list, or one that does not match it: `OXMCP_STATUS_PROTOCOL`) |
/// | `"request"` | any method | its params | the raw result (in the stateless era the engine adds `_meta` and answers input requests) |
///
/// `op` may also be a JSON object naming the op with the call's trace context, the W3C text
/// of the caller's current span, which becomes the parent of every request the call sends:
/// `{"op": "tools/call", "traceparent": "00-…-…-01", "tracestate": "k=v"}` (`tracestate`
/// optional; a malformed object or `traceparent` is `OXMCP_STATUS_INVALID_INPUT`).
///
/// `timeout_ms` (0 = the default 60 s, reset by progress) bounds waiting where the call
/// takes options (`"tools/call"`, `"request"`, `"ping"`, `"logging/setLevel"`);
/// `on_progress` (may be NULL) gets progress with the same `user_data`, always before the
/// completion. oxmcp_request_cancel() on `*out_request` (may be NULL) cancels the call
/// (`notifications/cancelled` on the wire).
///
/// Rule for every asynchronous call: if the function returns a failure status, nothing was
/// started and the callback is never called; otherwise it is called exactly once. Bad input
/// (an unknown op, bad JSON, arguments the engine refuses before sending, a client not
/// connected) is the returned status, `OXMCP_STATUS_INVALID_INPUT`. The header's inline helpers (oxmcp_client_call_tool(),
/// oxmcp_client_list(), ...) are written on this door.
///
/// ```c
/// const char *args = "{\"text\":\"hi\"}";
/// oxmcp_client_call(client, "tools/call", "echo", (const uint8_t *)args, strlen(args), 0, NULL, on_done, &state, &req);
/// ```
///
/// # Safety
/// `client` is a live client; `op` is NUL-terminated; `a` is NULL or NUL-terminated; `b` points to `b_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_call(
    client: *const OxmcpClient,
    op: *const c_char,
    a: *const c_char,
    b: *const u8,
    b_len: usize,
    timeout_ms: u32,
    on_progress: OxmcpProgressFn,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let host::OpOptions { op, trace } = host::OpOptions::parse(str_arg(op, "op")?)?;
        let a = opt_str_arg(a, "a")?.map(str::to_owned);
        let b = opt_json_text(b, b_len, "b")?;
        let client = c.connected()?;
        let deliver = c.rt.deliver.clone();
        // Bad input is the caller's to hear at once; every other outcome is the callback's.
        let refuses = |kind| kind == ErrorKind::InvalidInput;
        start_now(&c.rt, callback, user_data, out_request, refuses, move |token| {
            let mut options = RequestOptions::default().cancel_token(token);
            if timeout_ms != 0 {
                options = options.timeout(Duration::from_millis(u64::from(timeout_ms)));
            }
            if let Some(trace) = trace {
                options = options.trace(trace);
            }
            let options = with_progress(options, on_progress, user_data, &deliver);
            async move { door_value(host::call(&client, &op, a.as_deref(), b.as_deref(), options).await?) }
        })
    })
}

fn with_progress(
    options: RequestOptions,
    on_progress: OxmcpProgressFn,
    user_data: *mut c_void,
    deliver: &Deliver,
) -> RequestOptions {
    let Some(cb) = on_progress else { return options };
    let (ud, deliver) = (UserData(user_data), deliver.clone());
    options.on_progress(move |p| {
        let message = p.message.as_deref().map(c_string);
        let (progress, total) = (p.progress, p.total);
        deliver.call(move || {
            let ptr = message.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
            // SAFETY: the host registered the callback with this user data.
            unsafe { cb(ud.ptr(), progress, total.is_some(), total.unwrap_or(0.0), ptr) }
        })
    })
}

/// Closes the connection (pending requests fail with `OXMCP_STATUS_CLOSED`; a child
/// process gets stdin closed, then SIGTERM, then SIGKILL); `callback` (may be NULL) runs
/// once it is closed. Nothing to close is not an error.
///
/// # Safety
/// `client` is a live client.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_close(
    client: *const OxmcpClient,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let taken = c.client.lock().unwrap_or_else(|e| e.into_inner()).take();
        let work = async move {
            if let Some(client) = taken {
                client.shutdown().await;
            }
            Ok::<_, Error>(Value::Null)
        };
        if callback.is_some() {
            start(&c.rt, callback, user_data, std::ptr::null_mut(), |_| work)
        } else {
            c.rt.spawn(async move {
                let _ = work.await;
            })
        }
    })
}

/// Releases the client (NULL is ignored). When it returns, the notification callback is not
/// called any more; a still-open connection is closed in the background. Requests in
/// flight still complete (with `OXMCP_STATUS_CLOSED` if the connection closes first).
/// Not from inside this client's notification callback (deadlock).
///
/// # Safety
/// `client` is NULL or a live client, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_free(client: *mut OxmcpClient) {
    if client.is_null() {
        return;
    }
    quietly(|| {
        // SAFETY: see the function's contract.
        let c = unsafe { Box::from_raw(client) };
        c.gate.close();
        let taken = c.client.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(engine) = taken {
            let _ = c.rt.spawn(async move { engine.shutdown().await });
        }
    });
}
