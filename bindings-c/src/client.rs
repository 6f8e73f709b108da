//! `OxmcpClient`: a client connected over stdio (a child process) or Streamable HTTP.
//! Every call is asynchronous: it returns an `OxmcpRequest` handle at once and reports its
//! outcome through a completion callback, exactly once.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::auth::OAuthOptions;
use oxmcp::client::{Client, Era};
use oxmcp::host::{client as host, ClientHooks, ConnectOptions, HostCalls};
use oxmcp::protocol::{methods, LoggingLevel};
use oxmcp::session::{RequestOptions, SessionConfig};
use oxmcp::Error;
use serde_json::{json, Value};

use crate::callback::{c_string, Gate, OxmcpCompletionFn, OxmcpNotificationFn, OxmcpProgressFn, UserData};
use crate::error::{bytes_arg, guard, invalid, json_arg, opt_json_text, opt_str_arg, out, quietly, str_arg, OxmcpStatus};
use crate::incoming::{client_request_fn, OxmcpClientRequestFn};
use crate::request::{start, OxmcpRequest};
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
    name: String,
    version: String,
    notifications: Mutex<Option<(NotifyFn, UserData)>>,
    /// What answers the server's sampling, elicitation and roots requests.
    answers: Mutex<Option<Answers>>,
    /// The era oxmcp_client_set_era() asked for (Auto by default); read when connecting.
    era: Mutex<Era>,
    /// What oxmcp_client_set_oauth() configured (options, token file); read when connecting
    /// over HTTP.
    oauth: Mutex<Option<(OAuthOptions, Option<String>)>>,
    /// What oxmcp_client_set_headers() configured; sent with every HTTP request.
    headers: Mutex<BTreeMap<String, String>>,
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
            .ok_or_else(|| invalid("the client is not connected (oxmcp_client_connect_* first)"))
    }

    /// Connects over `transport` (made inside the runtime); the result is the server's
    /// `initialize` result (in the stateless era, the engine's `InitializeResult`-shaped
    /// view of the `server/discover` answer).
    fn connect(
        &self,
        callback: OxmcpCompletionFn,
        user_data: *mut c_void,
        out_request: *mut *mut OxmcpRequest,
        mut options: ConnectOptions,
    ) -> Result<(), Error> {
        if self.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("the client is already connected"));
        }
        let era = *self.era.lock().unwrap_or_else(|e| e.into_inner());
        options.name = Some(self.name.clone());
        options.version = Some(self.version.clone());
        options.era = Some(era.as_str().to_owned());
        if options.url.is_some() {
            if let Some((oauth, token_file)) = self.oauth.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                options.oauth = Some(oauth);
                options.token_file = token_file;
            }
            options.headers = self.headers.lock().unwrap_or_else(|e| e.into_inner()).clone();
        }
        let calls = HostCalls::new(SessionConfig::default().cancelled_handler_grace);
        let mut hooks = ClientHooks::default();
        if let Some((cb, ud)) = *self.notifications.lock().unwrap_or_else(|e| e.into_inner()) {
            let gate = self.gate.clone();
            hooks.on_notification = Some(Arc::new(move |method: String, params: String| {
                let method = c_string(&method);
                // SAFETY: the host registered the callback with this user data.
                gate.run(|| unsafe { cb(ud.ptr(), method.as_ptr(), params.as_ptr(), params.len()) });
            }));
        }
        if let Some((cb, ud, kinds)) = self.answers.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            options.answers = kinds;
            hooks.on_request = Some(client_request_fn(cb, ud, calls.clone(), self.rt.clone(), self.gate.clone()));
        }
        let slot = self.client.clone();
        start(&self.rt, callback, user_data, out_request, move |_| async move {
            let client = host::connect(options, hooks, &calls).await?;
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

    /// Runs `call` on the connected client as an asynchronous operation.
    fn call<F, Fut>(
        &self,
        callback: OxmcpCompletionFn,
        user_data: *mut c_void,
        out_request: *mut *mut OxmcpRequest,
        call: F,
    ) -> Result<(), Error>
    where
        F: FnOnce(Arc<Client>, RequestOptions) -> Fut,
        Fut: std::future::Future<Output = Result<Value, Error>> + Send + 'static,
    {
        let client = self.connected()?;
        start(&self.rt, callback, user_data, out_request, |token| call(client, RequestOptions::default().cancel_token(token)))
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
            name: str_arg(name, "name")?.to_owned(),
            version: str_arg(version, "version")?.to_owned(),
            notifications: Mutex::new(None),
            answers: Mutex::new(None),
            era: Mutex::new(Era::Auto),
            oauth: Mutex::new(None),
            headers: Mutex::new(BTreeMap::new()),
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
/// and `"authorize"` for the OAuth authorization code grant (see oxmcp_client_set_oauth()).
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

/// Sets how the client authorizes at a protected HTTP server (OAuth 2.1, as the MCP
/// authorization spec has it): `oauth_json` is an object of options, camelCase, all
/// optional: `grant` (`"authorization_code"`, the default, or `"client_credentials"`),
/// `clientId` and `clientSecret` (a client registered beforehand; without `clientId` the
/// client registers itself dynamically), `scope`, `clientName`, `redirectUri`,
/// `clientMetadataUrl`, `privateKeyPem` and `signingAlg` (`private_key_jwt`), `issuer` (pins
/// the configured credentials to that authorization server: recommended with a secret or a
/// key, so a hostile server cannot send them to another one). `token_file`
/// (NULL: tokens kept in memory) keeps the tokens between runs, in a file readable by its
/// owner only. NULL / 0 for `oauth_json` removes OAuth. Read by oxmcp_client_connect_http()
/// (a stdio connection ignores it); call it before connecting. Unknown keys or a bad value
/// fail with `OXMCP_STATUS_INVALID_INPUT` and change nothing.
///
/// The engine then discovers the authorization server from the server's 401 challenge,
/// registers, gets tokens, refreshes them and asks for more scope when the server wants it.
/// The authorization code grant needs the user's browser: name `"authorize"` in
/// oxmcp_client_on_request(), whose callback then gets the method `"authorize"` with
/// `{"url": <authorization URL>, "redirectUri": ...}`; show the user `url` (or open a
/// browser) and complete the request with the URL the browser was sent back to, as a JSON
/// string (e.g. `"\"http://127.0.0.1:8765/callback?code=...&state=...\""`). Its `state`
/// is checked before the code is used. When the server refuses the client and no token
/// can be had, the connect or call fails with `OXMCP_STATUS_UNAUTHORIZED`.
///
/// ```c
/// const char *machine = "{\"grant\":\"client_credentials\",\"clientId\":\"machine\",\"clientSecret\":\"s3cret\","
///                       "\"issuer\":\"https://auth.example.com\"}";
/// oxmcp_client_set_oauth(client, (const uint8_t *)machine, strlen(machine), NULL);
/// oxmcp_client_connect_http(client, "http://127.0.0.1:3000/mcp", on_connected, &state, NULL);
/// ```
///
/// # Safety
/// `client` is a live client; `oauth_json` points to `oauth_len` bytes; `token_file` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_set_oauth(
    client: *const OxmcpClient,
    oauth_json: *const u8,
    oauth_len: usize,
    token_file: *const c_char,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let bytes = bytes_arg(oauth_json, oauth_len, "oauth_json")?;
        let token_file = opt_str_arg(token_file, "token_file")?.map(str::to_owned);
        let oauth = if bytes.is_empty() {
            None
        } else {
            let options: OAuthOptions =
                serde_json::from_slice(bytes).map_err(|e| invalid(format!("invalid OAuth options: {e}")))?;
            Some((options, token_file))
        };
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("set OAuth before connecting: the client is already connected"));
        }
        *c.oauth.lock().unwrap_or_else(|e| e.into_inner()) = oauth;
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

/// Sets extra HTTP headers sent with every request of an HTTP connection: `headers_json` is
/// a JSON object of strings (e.g. `{"Authorization": "Bearer ..."}` for a token the host got
/// itself); NULL / 0 removes them. Read when connecting (a connected client fails with
/// `OXMCP_STATUS_INVALID_INPUT`); ignored over stdio.
///
/// ```c
/// const char *headers = "{\"Authorization\":\"Bearer s3cret\"}";
/// oxmcp_client_set_headers(client, (const uint8_t *)headers, strlen(headers));
/// ```
///
/// # Safety
/// `client` is a live client; `headers_json` points to `headers_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_set_headers(
    client: *const OxmcpClient,
    headers_json: *const u8,
    headers_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let bytes = bytes_arg(headers_json, headers_len, "headers_json")?;
        let headers = if bytes.is_empty() {
            BTreeMap::new()
        } else {
            serde_json::from_slice(bytes).map_err(|e| invalid(format!("the headers must be a JSON object of strings: {e}")))?
        };
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("set the headers before connecting: the client is already connected"));
        }
        *c.headers.lock().unwrap_or_else(|e| e.into_inner()) = headers;
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

/// Chooses the protocol era the client speaks (NUL-terminated, case-insensitive):
/// - `"auto"` (the default): probe the server with `server/discover` and speak the
///   stateless era (2026-07-28) when it does, else fall back to `initialize` (session era);
/// - `"session"` (alias `"legacy"`): `initialize` and a session (protocol versions up to
///   2025-11-25);
/// - `"stateless"` (alias `"modern"`): 2026-07-28 only; connecting to a server that does not
///   speak it fails with `OXMCP_STATUS_PROTOCOL`.
///
/// Call it before connecting: the era is read when oxmcp_client_connect_stdio() /
/// oxmcp_client_connect_http() is called. On a connected client, and for an unknown name, it
/// fails with `OXMCP_STATUS_INVALID_INPUT` and changes nothing. oxmcp_client_era() tells
/// which era the connection settled on.
///
/// # Safety
/// `client` is a live client; `era` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_set_era(client: *const OxmcpClient, era: *const c_char) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let name = str_arg(era, "era")?;
        let parsed = Era::parse(name)?;
        if c.client.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Err(invalid("set the era before connecting: the client is already connected"));
        }
        *c.era.lock().unwrap_or_else(|e| e.into_inner()) = parsed;
        Ok(())
    })
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
        let era = connected.unwrap_or_else(|| *c.era.lock().unwrap_or_else(|e| e.into_inner()));
        out(out_era, era_name(era).as_ptr(), "out_era")
    })
}

/// Starts `command` with `argc` arguments `args` as a child process and connects to it over
/// stdio, in the era oxmcp_client_set_era() chose (`"auto"` by default). `callback` gets the
/// server's `initialize` result (JSON) once connected, or the error (the child's last stderr
/// lines are in the message when it died). In the stateless era there is no `initialize`:
/// the result is the `server/discover` answer in the same shape (`protocolVersion`
/// `"2026-07-28"`, `capabilities`, `serverInfo`, `instructions`). The child is stopped when
/// the client closes. `*out_request` (may be NULL) cancels the connect.
///
/// # Safety
/// `client` is a live client; `command` and the `argc` entries of `args` are NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_connect_stdio(
    client: *const OxmcpClient,
    command: *const c_char,
    args: *const *const c_char,
    argc: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let command = str_arg(command, "command")?.to_owned();
        if args.is_null() && argc > 0 {
            return Err(invalid("args is NULL"));
        }
        let mut list = Vec::with_capacity(argc);
        for i in 0..argc {
            // SAFETY: the caller passes `argc` string pointers.
            list.push(str_arg(unsafe { *args.add(i) }, "args[i]")?.to_owned());
        }
        let options = ConnectOptions { command: Some(command), args: list, ..Default::default() };
        c.connect(callback, user_data, out_request, options)
    })
}

/// Connects to a Streamable HTTP server at `url` (falls back to legacy HTTP+SSE when the
/// server only speaks that), authorizing with OAuth when oxmcp_client_set_oauth() set it
/// up (a protected server refusing a client without it fails with
/// `OXMCP_STATUS_UNAUTHORIZED`). Same callback and request rules as
/// oxmcp_client_connect_stdio().
///
/// # Safety
/// `client` is a live client; `url` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_connect_http(
    client: *const OxmcpClient,
    url: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let options = ConnectOptions { url: Some(str_arg(url, "url")?.to_owned()), ..Default::default() };
        c.connect(callback, user_data, out_request, options)
    })
}

fn with_timeout(options: RequestOptions, timeout_ms: u32) -> RequestOptions {
    if timeout_ms == 0 {
        options
    } else {
        options.timeout(Duration::from_millis(u64::from(timeout_ms)))
    }
}

fn with_progress(options: RequestOptions, on_progress: OxmcpProgressFn, user_data: *mut c_void) -> RequestOptions {
    let Some(cb) = on_progress else { return options };
    let ud = UserData(user_data);
    options.on_progress(move |p| {
        let message = p.message.as_deref().map(c_string);
        let ptr = message.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
        // SAFETY: the host registered the callback with this user data.
        unsafe { cb(ud.ptr(), p.progress, p.total.is_some(), p.total.unwrap_or(0.0), ptr) }
    })
}

/// Calls the tool `name` with `args_json` (a JSON object; NULL / 0 for none). `callback`
/// gets the `CallToolResult` (a tool failure is a result with `isError: true`, not an
/// error). `timeout_ms` (0 = the default 60 s, reset by progress) bounds waiting;
/// `on_progress` (may be NULL) gets progress with the same `user_data`, always before the
/// completion. oxmcp_request_cancel() on `*out_request` sends `notifications/cancelled`.
///
/// Rule for every asynchronous call: if the function returns a failure status, nothing was
/// started and the callback is never called; otherwise it is called exactly once.
///
/// # Safety
/// `client` is a live client; `name` is NUL-terminated; `args_json` points to `args_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_call_tool(
    client: *const OxmcpClient,
    name: *const c_char,
    args_json: *const u8,
    args_len: usize,
    timeout_ms: u32,
    on_progress: OxmcpProgressFn,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    call_tool(client, name, (args_json, args_len), Some(timeout_ms), on_progress, callback, user_data, out_request)
}

/// Calls the tool `name` as oxmcp_client_call_tool() does, but lets the server run the
/// call as a task (the tasks extension): `callback` still gets the final
/// `CallToolResult`. The engine polls the task at the server's pace, answers what it asks
/// with the client's request callback (oxmcp_client_on_request()), and reports each
/// status to `on_progress` (progress 1, 2, ...; the message is `working`,
/// `input_required`, `completed`... or `status: statusMessage`). oxmcp_request_cancel()
/// cancels the task. No timeout applies.
///
/// # Safety
/// As oxmcp_client_call_tool().
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_call_tool_as_task(
    client: *const OxmcpClient,
    name: *const c_char,
    args_json: *const u8,
    args_len: usize,
    on_progress: OxmcpProgressFn,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    call_tool(client, name, (args_json, args_len), None, on_progress, callback, user_data, out_request)
}

/// Both tool calls: with a timeout, a plain call; without, one the server may run as a
/// task.
#[allow(clippy::too_many_arguments)]
unsafe fn call_tool(
    client: *const OxmcpClient,
    name: *const c_char,
    (args_json, args_len): (*const u8, usize),
    timeout_ms: Option<u32>,
    on_progress: OxmcpProgressFn,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let name = str_arg(name, "name")?.to_owned();
        let args = json_arg(args_json, args_len, "args_json", Value::Null)?;
        c.call(callback, user_data, out_request, |client, options| {
            let options = with_progress(options, on_progress, user_data);
            async move {
                let result = match timeout_ms {
                    Some(ms) => client.call_tool_with(&name, args, with_timeout(options, ms)).await?,
                    None => host::call_tool_as_task(&client, &name, args, options).await?,
                };
                Ok(serde_json::to_value(result)?)
            }
        })
    })
}

/// Sends any request: `method` with `params_json` (NULL / 0 for none); `callback` gets the
/// raw result JSON. Timeout, progress and cancellation as in oxmcp_client_call_tool().
/// In the stateless era the engine adds the request's `_meta` and answers the server's
/// input requests; `ping` and `logging/setLevel` mean what oxmcp_client_ping() and
/// oxmcp_client_set_log_level() say, and `resources/subscribe` / `unsubscribe` reopen the
/// client's `subscriptions/listen` stream (that era has no such methods; the updates reach
/// the notification callback as in a session).
///
/// # Safety
/// As oxmcp_client_call_tool().
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_request(
    client: *const OxmcpClient,
    method: *const c_char,
    params_json: *const u8,
    params_len: usize,
    timeout_ms: u32,
    on_progress: OxmcpProgressFn,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let method = str_arg(method, "method")?.to_owned();
        let params = json_arg(params_json, params_len, "params_json", Value::Null)?;
        let params = if params.is_null() { None } else { Some(params) };
        c.call(callback, user_data, out_request, |client, options| {
            let options = with_progress(with_timeout(options, timeout_ms), on_progress, user_data);
            async move { client.request(&method, params, options).await }
        })
    })
}

/// Which list an oxmcp_client_list() call fetches.
#[repr(i32)]
#[derive(Debug, Clone, Copy)]
pub enum OxmcpList {
    /// `tools/list`: the result is `{"tools": [...]}`.
    Tools = 0,
    /// `resources/list`: `{"resources": [...]}`.
    Resources = 1,
    /// `resources/templates/list`: `{"resourceTemplates": [...]}`.
    ResourceTemplates = 2,
    /// `prompts/list`: `{"prompts": [...]}`.
    Prompts = 3,
    /// `skills/list` (the skills extension): `{"skills": [...]}`, each an entry (`uri` of its
    /// `SKILL.md`, `frontmatter`, `resources`), no file fetched.
    Skills = 4,
}

/// Lists every item of `what` (an `OxmcpList` value), following pagination cursors; the
/// result is one object holding the whole array.
///
/// # Safety
/// `client` is a live client; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_list(
    client: *const OxmcpClient,
    what: i32,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let what = match what {
            0 => OxmcpList::Tools,
            1 => OxmcpList::Resources,
            2 => OxmcpList::ResourceTemplates,
            3 => OxmcpList::Prompts,
            4 => OxmcpList::Skills,
            other => return Err(invalid(format!("unknown list {other}"))),
        };
        c.call(callback, user_data, out_request, move |client, _| async move {
            Ok(match what {
                OxmcpList::Tools => json!({ "tools": client.list_all_tools().await? }),
                OxmcpList::Resources => json!({ "resources": client.list_all_resources().await? }),
                OxmcpList::ResourceTemplates => json!({ "resourceTemplates": client.list_all_resource_templates().await? }),
                OxmcpList::Prompts => json!({ "prompts": client.list_all_prompts().await? }),
                OxmcpList::Skills => json!({ "skills": client.list_all_skills().await? }),
            })
        })
    })
}

/// Reads the resource at `uri`; `callback` gets the `ReadResourceResult`.
///
/// # Safety
/// `client` is a live client; `uri` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_read_resource(
    client: *const OxmcpClient,
    uri: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let uri = str_arg(uri, "uri")?.to_owned();
        c.call(callback, user_data, out_request, move |client, _| async move {
            Ok(serde_json::to_value(client.read_resource(&uri).await?)?)
        })
    })
}

/// Gets the prompt `name` with `args_json` (an object of strings; NULL / 0 for none);
/// `callback` gets the `GetPromptResult`.
///
/// # Safety
/// `client` is a live client; `name` is NUL-terminated; `args_json` points to `args_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_get_prompt(
    client: *const OxmcpClient,
    name: *const c_char,
    args_json: *const u8,
    args_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let name = str_arg(name, "name")?.to_owned();
        let args: std::collections::BTreeMap<String, String> =
            serde_json::from_value(json_arg(args_json, args_len, "args_json", json!({}))?)
                .map_err(|e| invalid(format!("prompt arguments must be an object of strings: {e}")))?;
        c.call(callback, user_data, out_request, move |client, _| async move {
            Ok(serde_json::to_value(client.get_prompt(&name, args).await?)?)
        })
    })
}

/// Runs the engine's client op `op` (see `oxmcp::host::client::call`) with its two text
/// arguments; the result is its JSON (`null` when it returns nothing).
fn host_call(
    c: &OxmcpClient,
    op: &'static str,
    a: String,
    b: Option<String>,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> Result<(), Error> {
    c.call(callback, user_data, out_request, move |client, options| async move {
        match host::call(&client, op, Some(&a), b.as_deref(), options).await? {
            Some(text) => Ok(serde_json::from_str(&text)?),
            None => Ok(Value::Null),
        }
    })
}

/// Gets the entry of the skill whose `SKILL.md` is at `uri` (`skills/get`, the skills
/// extension): `callback` gets it (`{"uri", "frontmatter", "resources"}`) without any file
/// fetched. A server serving no such skill answers the JSON-RPC error -32602
/// (`OXMCP_STATUS_RPC`).
///
/// # Safety
/// `client` is a live client; `uri` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_get_skill(
    client: *const OxmcpClient,
    uri: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let uri = str_arg(uri, "uri")?.to_owned();
        host_call(c, methods::SKILLS_GET, uri, None, callback, user_data, out_request)
    })
}

/// Starts a call of the tool `name` as a task and returns at once (the first of the task
/// steps, the tasks extension): `callback` gets `{"task": Task}` when the server runs it as
/// a task, or `{"result": CallToolResult}` when it answered at once. Nothing polls or answers
/// for the client: follow the task with oxmcp_client_get_task(), answer its input requests
/// with oxmcp_client_update_task(), cancel it with oxmcp_client_cancel_task().
/// `args_json` as in oxmcp_client_call_tool() (NULL / 0 for none).
///
/// # Safety
/// `client` is a live client; `name` is NUL-terminated; `args_json` points to `args_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_start_tool_task(
    client: *const OxmcpClient,
    name: *const c_char,
    args_json: *const u8,
    args_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let name = str_arg(name, "name")?.to_owned();
        json_arg(args_json, args_len, "args_json", Value::Null)?;
        let args = opt_json_text(args_json, args_len, "args_json")?;
        host_call(c, host::TOOLS_CALL_START_TASK, name, args, callback, user_data, out_request)
    })
}

/// Gets the task `task_id` (`tasks/get`): `callback` gets the task (`taskId`, `status`
/// (`working`, `input_required`, `completed`, `failed`, `cancelled`), `statusMessage`,
/// `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`, and `result` / `error` /
/// `inputRequests` (the requests by key) as its status brings). An unknown task is the
/// JSON-RPC error -32602 (`OXMCP_STATUS_RPC`).
///
/// # Safety
/// `client` is a live client; `task_id` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_get_task(
    client: *const OxmcpClient,
    task_id: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let id = str_arg(task_id, "task_id")?.to_owned();
        host_call(c, methods::TASKS_GET, id, None, callback, user_data, out_request)
    })
}

/// Answers input requests of the task `task_id` (`tasks/update`): `responses_json` is an
/// object of answers by the keys of the task's `inputRequests` (e.g.
/// `{"elicitation-1": {"action": "accept", "content": {...}}}`). `callback` gets `null`.
///
/// # Safety
/// `client` is a live client; `task_id` is NUL-terminated; `responses_json` points to `responses_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_update_task(
    client: *const OxmcpClient,
    task_id: *const c_char,
    responses_json: *const u8,
    responses_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let id = str_arg(task_id, "task_id")?.to_owned();
        if !json_arg(responses_json, responses_len, "responses_json", Value::Null)?.is_object() {
            return Err(invalid("responses_json must be a JSON object of answers by key"));
        }
        let responses = opt_json_text(responses_json, responses_len, "responses_json")?;
        host_call(c, methods::TASKS_UPDATE, id, responses, callback, user_data, out_request)
    })
}

/// Cancels the task `task_id` (`tasks/cancel`): `callback` gets `null` once the server
/// took the cancel; oxmcp_client_get_task() then shows it `cancelled`.
///
/// # Safety
/// `client` is a live client; `task_id` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_cancel_task(
    client: *const OxmcpClient,
    task_id: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let id = str_arg(task_id, "task_id")?.to_owned();
        host_call(c, methods::TASKS_CANCEL, id, None, callback, user_data, out_request)
    })
}

/// Reads the directory resource at `uri` (`resources/directory/read`, e.g. a skill's root
/// `skill://git-workflow` or one of its subdirectories), following pagination cursors:
/// `callback` gets `{"resources": [...]}`, its direct children (a subdirectory has the
/// `mimeType` `"inode/directory"`).
///
/// # Safety
/// `client` is a live client; `uri` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_read_directory(
    client: *const OxmcpClient,
    uri: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let uri = str_arg(uri, "uri")?.to_owned();
        c.call(callback, user_data, out_request, move |client, options| async move {
            let children = host::call(&client, methods::RESOURCES_DIRECTORY_READ, Some(&uri), None, options).await?;
            let children: Value = serde_json::from_str(children.as_deref().unwrap_or("[]"))?;
            Ok(json!({ "resources": children }))
        })
    })
}

/// Loads a skill: fetches its `SKILL.md` and checks it against the entry (size, sha256
/// digest and frontmatter, as the skills extension asks). `skill_json` is the entry the
/// client holds (from oxmcp_client_list() with `OXMCP_LIST_SKILLS` or
/// oxmcp_client_get_skill()); NULL / 0 fetches it with `skills/get` first. `callback` gets
/// `{"skill": <entry>, "markdown": <the SKILL.md text>}`. A `SKILL.md` that does not match
/// the entry fails with `OXMCP_STATUS_PROTOCOL` (refresh the entry with
/// oxmcp_client_get_skill() to recover from a stale one).
///
/// # Safety
/// `client` is a live client; `uri` is NUL-terminated; `skill_json` points to `skill_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_load_skill(
    client: *const OxmcpClient,
    uri: *const c_char,
    skill_json: *const u8,
    skill_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let uri = str_arg(uri, "uri")?.to_owned();
        let entry = opt_json_text(skill_json, skill_len, "skill_json")?;
        host_call(c, host::SKILLS_LOAD, uri, entry, callback, user_data, out_request)
    })
}

/// Reads one file of a skill: `path` is its path in the skill (`"references/naming.md"`) or
/// its URI, and `skill_json` the skill's entry (required). `callback` gets the file's bytes
/// as a JSON string of their base64 (`"ZmVhdHVyZS8..."`), like every result a JSON value;
/// decode it to get the bytes. A file the entry does not list is refused without a request,
/// and one whose size or digest differs from the entry's is refused too: both fail with
/// `OXMCP_STATUS_PROTOCOL`.
///
/// # Safety
/// `client` is a live client; `path` is NUL-terminated; `skill_json` points to `skill_len` bytes; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_read_skill_file(
    client: *const OxmcpClient,
    path: *const c_char,
    skill_json: *const u8,
    skill_len: usize,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let path = str_arg(path, "path")?.to_owned();
        let entry = opt_json_text(skill_json, skill_len, "skill_json")?
            .ok_or_else(|| invalid("skill_json is empty: pass the skill's entry"))?;
        host_call(c, host::SKILLS_READ, path, Some(entry), callback, user_data, out_request)
    })
}

/// Sends `ping`; `callback` gets `{}`. The stateless era has no `ping`: a `server/discover`
/// round trip stands in for it.
///
/// # Safety
/// `client` is a live client; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_ping(
    client: *const OxmcpClient,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        c.call(callback, user_data, out_request, |client, _| async move {
            client.ping().await?;
            Ok(json!({}))
        })
    })
}

/// Sets the server's minimum log level (`logging/setLevel`; `level` as in
/// oxmcp_incoming_log()); `callback` gets `{}`. In the stateless era, which has no
/// `logging/setLevel`, every later request asks for that level instead (without it, the
/// server sends no log messages).
///
/// # Safety
/// `client` is a live client; `level` is NUL-terminated; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_client_set_log_level(
    client: *const OxmcpClient,
    level: *const c_char,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let c = client_arg(client)?;
        let name = str_arg(level, "level")?;
        let level: LoggingLevel = serde_json::from_value(Value::String(name.to_lowercase()))
            .map_err(|_| invalid(format!("unknown log level {name:?}")))?;
        c.call(callback, user_data, out_request, move |client, _| async move {
            client.set_log_level(level).await?;
            Ok(json!({}))
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
