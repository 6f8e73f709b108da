//! `OxmcpServer`: a server whose tools, resources, prompts and completions are host
//! callbacks, on the core's staged server. A callback receives an incoming-request handle
//! (see [`crate::incoming`]) and the input as JSON, returns at once, and the host completes
//! the request later from any thread.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use oxmcp::host::{HandlerKind, HttpOptions, StagedServer};
use oxmcp::Error;
use serde_json::Value;

use crate::callback::{Gate, OxmcpCompletionFn, UserData};
use crate::error::{bytes_arg, guard, invalid, out, quietly, str_arg, OxmcpStatus};
use crate::incoming::{handler_fn, verifier_fn, OxmcpHandlerFn, OxmcpTokenVerifierFn};
use crate::request::{start, OxmcpRequest};
use crate::runtime::{rt_arg, OxmcpRuntime, Rt};

/// Serve without sessions: every HTTP POST stands alone (no server-to-client requests).
pub const OXMCP_HTTP_STATELESS: u32 = 1;
/// Answer each HTTP POST with one JSON body instead of an SSE stream.
pub const OXMCP_HTTP_JSON_RESPONSE: u32 = 2;

/// A server: its tools, resources and prompts are host callbacks.
pub struct OxmcpServer {
    rt: Arc<Rt>,
    gate: Gate,
    staged: Arc<StagedServer>,
}

impl OxmcpServer {
    /// Files a definition (JSON pointer + length) of `kind` served by `handler`.
    fn register(
        &self,
        kind: HandlerKind,
        json: (*const u8, usize),
        handler: OxmcpHandlerFn,
        user_data: *mut c_void,
    ) -> Result<(), Error> {
        let callback = handler.ok_or_else(|| invalid("handler is NULL"))?;
        let text = std::str::from_utf8(bytes_arg(json.0, json.1, "definition_json")?)
            .map_err(|e| invalid(format!("the {} definition is not UTF-8: {e}", kind.name())))?;
        let f = handler_fn(kind, callback, UserData(user_data), self.staged.calls().clone(), self.rt.clone(), self.gate.clone());
        self.staged.register(kind, text, f)
    }
}

fn server_arg<'a>(server: *const OxmcpServer) -> Result<&'a OxmcpServer, Error> {
    // SAFETY: exported functions require a NULL or live server handle.
    unsafe { server.as_ref() }.ok_or_else(|| invalid("server is NULL"))
}

/// Creates a server named `name` / `version` on `runtime`, storing it in `*out_server`.
///
/// Ownership: the caller owns `*out_server` and releases it with oxmcp_server_free().
///
/// # Safety
/// `runtime` is a live runtime; `name` and `version` are NUL-terminated; `out_server` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_new(
    runtime: *const OxmcpRuntime,
    name: *const c_char,
    version: *const c_char,
    out_server: *mut *mut OxmcpServer,
) -> OxmcpStatus {
    guard(|| {
        let rt = rt_arg(runtime)?;
        let staged = StagedServer::new(str_arg(name, "name")?, str_arg(version, "version")?);
        let server = OxmcpServer { rt, gate: Gate::new(), staged };
        out(out_server, Box::into_raw(Box::new(server)), "out_server")
    })
}

/// Sets the instructions sent in the `initialize` result (before serving starts).
///
/// # Safety
/// `server` is a live server; `instructions` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_set_instructions(server: *const OxmcpServer, instructions: *const c_char) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        s.staged.set_instructions(str_arg(instructions, "instructions")?)
    })
}

/// Sets how the server keeps its tasks (tools whose definition has `"execution":
/// {"taskSupport": "optional"}` or `"required"`, run as tasks for clients of the tasks
/// extension): `options_json` is an object, camelCase, every member optional: `ttlMs` (how
/// long a task is kept after its creation; default an hour, `null`: no limit),
/// `pollIntervalMs` (how often clients are asked to poll; 500), `maxTasks` (how many are kept;
/// 10000) and `maxRunning` (how many run at once; 1000): past either limit, a call that would
/// start a task is refused. Before serving starts. Bad JSON, an unknown key or a bad value
/// fail with `OXMCP_STATUS_INVALID_INPUT` and change nothing.
///
/// ```c
/// const char *tasks = "{\"ttlMs\":60000,\"maxRunning\":8}";
/// oxmcp_server_set_task_options(server, (const uint8_t *)tasks, strlen(tasks));
/// ```
///
/// # Safety
/// `server` is a live server; `options_json` points to `options_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_set_task_options(
    server: *const OxmcpServer,
    options_json: *const u8,
    options_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let text = std::str::from_utf8(bytes_arg(options_json, options_len, "options_json")?)
            .map_err(|e| invalid(format!("options_json is not UTF-8: {e}")))?;
        s.staged.set_task_options(text)
    })
}

/// Serves a skill (the `io.modelcontextprotocol/skills` extension): `files_json` is a JSON
/// object mapping each file's path in the skill to its text, `"SKILL.md"` (with `name` and
/// `description` in its YAML frontmatter) among them. `skill_path` is where it is served
/// (`skill://<skill_path>/SKILL.md`, e.g. `"git-workflow"` or `"acme/billing/refunds"`); its
/// last segment must be the frontmatter's `name`. Clients find it with `skills/list` and read
/// its files as resources. Checked now (`OXMCP_STATUS_INVALID_INPUT` for a skill breaking
/// the extension's rules); may be called while serving (clients see it at once).
///
/// ```c
/// const char *files = "{\"SKILL.md\":\"---\\nname: git-workflow\\ndescription: Our Git conventions\\n---\\nBranch from main.\\n\","
///                     "\"references/naming.md\":\"feature/<ticket>-<slug>\\n\"}";
/// oxmcp_server_add_skill(server, "git-workflow", (const uint8_t *)files, strlen(files));
/// ```
///
/// # Safety
/// `server` is a live server; `skill_path` is NUL-terminated; `files_json` points to `files_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_skill(
    server: *const OxmcpServer,
    skill_path: *const c_char,
    files_json: *const u8,
    files_len: usize,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let path = str_arg(skill_path, "skill_path")?;
        let text = std::str::from_utf8(bytes_arg(files_json, files_len, "files_json")?)
            .map_err(|e| invalid(format!("files_json is not UTF-8: {e}")))?;
        s.staged.add_skill(path, text)
    })
}

/// Serves every skill under the directory `root`: each directory below it holding a
/// `SKILL.md`, at its path relative to `root` (`root/acme/refunds/SKILL.md` is served at
/// `skill://acme/refunds/SKILL.md`), with all its files (binary ones too). The files are read
/// and checked now (`OXMCP_STATUS_INVALID_INPUT` when none is found or one breaks the
/// extension's rules); later changes on disk are not seen. May be called while serving.
///
/// # Safety
/// `server` is a live server; `root` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_add_skills_dir(server: *const OxmcpServer, root: *const c_char) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        s.staged.add_skills_dir(str_arg(root, "root")?)
    })
}

/// Serves `other`'s tools, prompts, resources and templates under `prefix` (letters,
/// digits, `-` and `_`): names become `<prefix>_<name>`, and URIs take `prefix` as their
/// first path segment (`notes://a` is served as `notes://<prefix>/a`). What `other` has when
/// this server starts serving (or now, when it serves already) is what is served; its
/// handlers run as they do for `other` until oxmcp_server_free(other), after which their
/// calls fail. A server mounting itself, even through others, is
/// `OXMCP_STATUS_INVALID_INPUT`.
///
/// ```c
/// oxmcp_server_mount(main_server, "weather", weather_server); // tool weather_forecast
/// ```
///
/// # Safety
/// `server` and `other` are live servers; `prefix` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_mount(
    server: *const OxmcpServer,
    prefix: *const c_char,
    other: *const OxmcpServer,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let other = server_arg(other).map_err(|_| invalid("other is NULL"))?;
        s.staged.mount(str_arg(prefix, "prefix")?, &other.staged)
    })
}

/// Serves what the server at the other end of `client` (a connected client) offers, under
/// `prefix` as oxmcp_server_mount() does, each call forwarded through `client`. This starts
/// the engine's server: templates, completion and middleware must be registered before.
/// `callback` gets `null` once the server's lists were fetched. Same start rules as
/// oxmcp_client_call(). Closing or freeing the client later is safe: the calls
/// forwarded through it then fail as closed.
///
/// # Safety
/// `server` is a live server; `prefix` is NUL-terminated; `client` is a live, connected
/// client; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_mount_client(
    server: *const OxmcpServer,
    prefix: *const c_char,
    client: *const crate::client::OxmcpClient,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let prefix = str_arg(prefix, "prefix")?.to_owned();
        let client = crate::client::connected_arg(client)?;
        let staged = s.staged.clone();
        start(&s.rt, callback, user_data, out_request, move |_| async move {
            staged.mount_client(&prefix, client).await?;
            Ok(Value::Null)
        })
    })
}

/// The registration door: serves `definition_json` (JSON pointer + length) of the handler
/// kind `kind` (NUL-terminated) with `handler`. The engine checks the definition now
/// (`OXMCP_STATUS_INVALID_INPUT` names what is wrong, and nothing is registered):
///
/// | `kind` | definition | `handler` gets | it completes with |
/// |---|---|---|---|
/// | `"tool"` | `{"name", "description", "inputSchema", "outputSchema"?, "execution"?, "escalating"?}` | the arguments (validated against the input schema) | a `CallToolResult`, or any JSON value the engine makes one of (text, a block, a list of blocks, structured content) |
/// | `"resource"` | `{"uri", "name", "mimeType", ...}` | `{"uri", "variables": {}}` | a `ReadResourceResult` |
/// | `"resource template"` | `{"uriTemplate", "name", ...}` (RFC 6570) | `{"uri", "variables"}` | a `ReadResourceResult` |
/// | `"prompt"` | `{"name", "description", "arguments": [...]}` | the string arguments | a `GetPromptResult` |
/// | `"completion"` | ignored (NULL / 0) | the `completion/complete` params | a `Completion` (`{"values": [...]}`) |
/// | `"middleware"` | ignored (NULL / 0) | `{"method", "params"}` of every routed request | the request's result, any JSON |
///
/// A tool failing with oxmcp_incoming_fail() answers an `isError: true` result,
/// oxmcp_incoming_fail_rpc() a JSON-RPC error. An escalating tool (`"escalating": true`,
/// which clients do not see) needs `"execution": {"taskSupport": "optional"}` or
/// `"required"`. A middleware goes on with oxmcp_incoming_call() `"next"` (see
/// oxmcp_incoming_next()); the first registered is the outermost. Registering a tool,
/// resource, template or prompt again replaces it. Tools, resources and prompts may be
/// registered while serving (clients see them at once); templates, completion and
/// middleware before serving. `user_data` must stay valid until oxmcp_server_free()
/// returns. The header's inline helpers (oxmcp_server_add_tool(), ...) are written on this
/// door.
///
/// ```c
/// const char *tool = "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}";
/// oxmcp_server_register(server, "tool", (const uint8_t *)tool, strlen(tool), echo, NULL);
/// ```
///
/// # Safety
/// `server` is a live server; `kind` is NUL-terminated; `definition_json` points to `definition_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_register(
    server: *const OxmcpServer,
    kind: *const c_char,
    definition_json: *const u8,
    definition_len: usize,
    handler: OxmcpHandlerFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let kind = HandlerKind::from_name(str_arg(kind, "kind")?)?;
        s.register(kind, (definition_json, definition_len), handler, user_data)
    })
}

/// Removes what `key` names, staged or live (connected clients are told the list changed):
/// a `"tool"` or `"prompt"` by name, a `"resource"` by URI (other kinds are
/// `OXMCP_STATUS_INVALID_INPUT`). `*out_removed` (if not NULL) tells whether it existed.
///
/// # Safety
/// `server` is a live server; `kind` and `key` are NUL-terminated; `out_removed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_remove(
    server: *const OxmcpServer,
    kind: *const c_char,
    key: *const c_char,
    out_removed: *mut bool,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let kind = HandlerKind::from_name(str_arg(kind, "kind")?)?;
        let removed = s.staged.remove_named(kind, str_arg(key, "key")?)?;
        if !out_removed.is_null() {
            out(out_removed, removed, "out_removed")?;
        }
        Ok(())
    })
}

/// Tells the clients subscribed to `uri` that it changed (`notifications/resources/updated`;
/// nothing before serving).
///
/// # Safety
/// `server` is a live server; `uri` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_notify_resource_updated(server: *const OxmcpServer, uri: *const c_char) -> OxmcpStatus {
    guard(|| {
        server_arg(server)?.staged.notify_resource_updated(str_arg(uri, "uri")?);
        Ok(())
    })
}

/// Stores in `*out_count` how many clients are connected (sessions over stdio or HTTP; 0
/// before serving).
///
/// # Safety
/// `server` is a live server; `out_count` is writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_session_count(server: *const OxmcpServer, out_count: *mut usize) -> OxmcpStatus {
    guard(|| out(out_count, server_arg(server)?.staged.session_count(), "out_count"))
}

/// Checks the access tokens of a protected HTTP listener (oxmcp_server_start_http_options()
/// with `auth`) with `callback` instead of the built-in JWT check: it receives each bearer
/// token a client presents and accepts it with oxmcp_incoming_complete() and who the token
/// speaks for (`{"subject", "clientId", "scopes", "expiresAt", "claims"}`, any left out), or
/// refuses it with oxmcp_incoming_fail() (the client gets 401). The identity is what
/// handlers read in the `auth` member of oxmcp_incoming_call() `"info"`, and its scopes are checked against the
/// listener's required `scopes`. Set it before starting the listener. `user_data` must stay
/// valid until oxmcp_server_free() returns.
///
/// ```c
/// static void verify(void *ud, OxmcpIncoming *req, const char *token) {
///     if (strcmp(token, "s3cret") == 0) {
///         const char *who = "{\"subject\":\"alice\",\"scopes\":[\"mcp:read\"]}";
///         oxmcp_incoming_complete(req, (const uint8_t *)who, strlen(who));
///     } else {
///         oxmcp_incoming_fail(req, "unknown token");
///     }
///     oxmcp_incoming_free(req);
/// }
/// ...
/// oxmcp_server_verify_tokens(server, verify, NULL);
/// ```
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_verify_tokens(
    server: *const OxmcpServer,
    callback: OxmcpTokenVerifierFn,
    user_data: *mut c_void,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let callback = callback.ok_or_else(|| invalid("callback is NULL"))?;
        let f = verifier_fn(callback, UserData(user_data), s.staged.calls().clone(), s.rt.clone(), s.gate.clone());
        s.staged.verify_tokens_with(f);
        Ok(())
    })
}

/// Serves one client on this process's stdin/stdout. Returns at once; `callback` runs once
/// when stdin closes (`OXMCP_STATUS_OK`, JSON `null`), when the serve is cancelled through
/// `*out_request` (`OXMCP_STATUS_CANCELLED`), or at runtime shutdown. `*out_request` (may
/// be NULL) is owned by the caller (oxmcp_request_free()).
///
/// # Safety
/// `server` is a live server; `out_request` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_serve_stdio(
    server: *const OxmcpServer,
    callback: OxmcpCompletionFn,
    user_data: *mut c_void,
    out_request: *mut *mut OxmcpRequest,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let serving = s.staged.serve_stdio()?;
        start(&s.rt, callback, user_data, out_request, |_| async move {
            serving.await?;
            Ok(Value::Null)
        })
    })
}

/// Starts Streamable HTTP (and legacy HTTP+SSE) as `options_json` says: an object,
/// camelCase, every member optional: `host` (default `"127.0.0.1"`), `port` (0, the
/// default, picks a free one), `path` (`"/mcp"`), `stateless`, `jsonResponse`,
/// `allowedHosts`, `allowedOrigins`, `maxSessions`, and `auth` to require OAuth access
/// tokens: `{"issuer": URL, "audience": URL, "scopes": [...], "toolScopes": {"tool":
/// [...]}}`. With `auth`, the server publishes its protected resource metadata, answers
/// requests without a valid token with 401 (403 when a scope is missing, so the client can
/// ask for it), and checks JWT access tokens against the issuer's keys (its JWKS) for
/// `audience` (default: the endpoint's own URL, `http://HOST:PORT/PATH`); `scopes` are
/// needed by every request, `toolScopes` by a call of that tool besides. Handlers read who
/// the token speaks for in the `auth` member of oxmcp_incoming_call() `"info"`. `redis` (`"redis://HOST:PORT"`) shares
/// sessions, streams, tasks and the requestState key with every server started on the same
/// Redis, so that any number of them behind a load balancer act as one (give it on the
/// first start, before the server serves anything else). NULL / 0 means the defaults.
/// Blocks until the listener is bound; the bound port goes to `*out_port` (may be NULL). A
/// second start replaces the first listener. The header's inline oxmcp_server_start_http()
/// (bind address, path, `OXMCP_HTTP_*` flags) is written on it.
///
/// ```c
/// const char *opts = "{\"port\":0,\"auth\":{\"issuer\":\"https://auth.example.com\",\"scopes\":[\"mcp:read\"]}}";
/// uint16_t port;
/// oxmcp_server_start_http_options(server, (const uint8_t *)opts, strlen(opts), &port);
/// ```
///
/// Threading: a host thread, not an oxmcp callback (`OXMCP_STATUS_INVALID_INPUT`).
///
/// # Safety
/// `server` is a live server; `options_json` points to `options_len` bytes; `out_port` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_start_http_options(
    server: *const OxmcpServer,
    options_json: *const u8,
    options_len: usize,
    out_port: *mut u16,
) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let text = std::str::from_utf8(bytes_arg(options_json, options_len, "options_json")?)
            .map_err(|e| invalid(format!("options_json is not UTF-8: {e}")))?;
        let options = HttpOptions::from_json(text)?;
        let staged = s.staged.clone();
        s.rt.block_on(async move { staged.start_http(options).await })??;
        if !out_port.is_null() {
            let port = s.staged.http_addr().map_or(0, |a| a.port());
            out(out_port, port, "out_port")?;
        }
        Ok(())
    })
}

/// Stops the HTTP listener gracefully (in-flight requests get a few seconds), blocking until
/// it is closed. Nothing happens if none runs. Threading: a host thread, not a callback.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_stop_http(server: *const OxmcpServer) -> OxmcpStatus {
    guard(|| {
        let s = server_arg(server)?;
        let staged = s.staged.clone();
        s.rt.block_on(async move { staged.stop_http().await })
    })
}

/// Releases the server (NULL is ignored). When it returns, no handler callback of this
/// server runs or will start (requests arriving later fail), so handler user data may be
/// released. The HTTP listener closes in the background; a stdio serve goes on until
/// cancelled or stdin closes. Incoming requests the host holds stay valid until freed.
///
/// Threading: any thread, but not from inside one of this server's handler callbacks
/// (deadlock).
///
/// # Safety
/// `server` is NULL or a live server, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn oxmcp_server_free(server: *mut OxmcpServer) {
    if server.is_null() {
        return;
    }
    quietly(|| {
        // SAFETY: see the function's contract.
        let s = unsafe { Box::from_raw(server) };
        s.gate.close();
        let staged = s.staged.clone();
        let _ = s.rt.spawn(async move { staged.stop_http().await });
    });
}
