/*
 * Typed helpers, written in C on the four doors: oxmcp_server_register() /
 * oxmcp_server_remove(), oxmcp_client_call() and oxmcp_incoming_call(). They are
 * `static inline`, compiled into the caller: not entry points of the library, so a new
 * feature adds no export. (build.rs appends this file, bindings-c/src/helpers.h, to the
 * generated header.) JSON they build from C strings is escaped by oxmcp_json_string_().
 */
#ifndef OXMCP_HELPERS_H
#define OXMCP_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building JSON from C strings --------------------------------------------------------- */

/* `s` as a JSON string (quotes included, `"`, `\` and control characters escaped; other
 * bytes, UTF-8 included, as they are): malloc'd and NUL-terminated, NULL when out of
 * memory. Free it with free(). */
static inline char *oxmcp_json_string_(const char *s) {
  size_t n = 2;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    n += (*p == '"' || *p == '\\') ? 2 : (*p < 0x20 ? 6 : 1);
  char *out = (char *)malloc(n + 1);
  if (!out) return NULL;
  char *o = out;
  *o++ = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      *o++ = '\\';
      *o++ = (char)*p;
    } else if (*p < 0x20) {
      o += snprintf(o, 7, "\\u%04x", *p);
    } else {
      *o++ = (char)*p;
    }
  }
  *o++ = '"';
  *o = '\0';
  return out;
}

/* A JSON number for `x` (17 significant digits) into `buf` (at least 32 bytes), in the
 * C locale's spelling whatever the process's locale (a decimal comma becomes a point). */
static inline void oxmcp_json_number_(double x, char *buf) {
  snprintf(buf, 32, "%.17g", x);
  for (char *p = buf; *p; p++)
    if (*p == ',') *p = '.';
}

/* Concatenates up to 8 pieces (NULL pieces skipped) into a malloc'd string; NULL when out
 * of memory. */
static inline char *oxmcp_concat_(const char *const *pieces, size_t count) {
  size_t n = 1;
  for (size_t i = 0; i < count; i++)
    if (pieces[i]) n += strlen(pieces[i]);
  char *out = (char *)malloc(n);
  if (!out) return NULL;
  out[0] = '\0';
  for (size_t i = 0; i < count; i++)
    if (pieces[i]) strcat(out, pieces[i]);
  return out;
}

/* ---- the server: registering handlers ----------------------------------------------------- */

/* Registers a tool (oxmcp_server_register() with "tool"). */
static inline OxmcpStatus oxmcp_server_add_tool(const struct OxmcpServer *server, const uint8_t *tool_json,
                                                size_t tool_len, OxmcpHandlerFn handler, void *user_data) {
  return oxmcp_server_register(server, "tool", tool_json, tool_len, handler, user_data);
}

/* Registers a resource (oxmcp_server_register() with "resource"). */
static inline OxmcpStatus oxmcp_server_add_resource(const struct OxmcpServer *server, const uint8_t *resource_json,
                                                    size_t resource_len, OxmcpHandlerFn handler, void *user_data) {
  return oxmcp_server_register(server, "resource", resource_json, resource_len, handler, user_data);
}

/* Registers a resource template before serving (oxmcp_server_register() with "resource template"). */
static inline OxmcpStatus oxmcp_server_add_resource_template(const struct OxmcpServer *server,
                                                             const uint8_t *template_json, size_t template_len,
                                                             OxmcpHandlerFn handler, void *user_data) {
  return oxmcp_server_register(server, "resource template", template_json, template_len, handler, user_data);
}

/* Registers a prompt (oxmcp_server_register() with "prompt"). */
static inline OxmcpStatus oxmcp_server_add_prompt(const struct OxmcpServer *server, const uint8_t *prompt_json,
                                                  size_t prompt_len, OxmcpHandlerFn handler, void *user_data) {
  return oxmcp_server_register(server, "prompt", prompt_json, prompt_len, handler, user_data);
}

/* Sets the completion handler before serving (oxmcp_server_register() with "completion"). */
static inline OxmcpStatus oxmcp_server_set_completion(const struct OxmcpServer *server, OxmcpHandlerFn handler,
                                                      void *user_data) {
  return oxmcp_server_register(server, "completion", NULL, 0, handler, user_data);
}

/* Adds a middleware before serving (oxmcp_server_register() with "middleware"): it goes on
 * with oxmcp_incoming_next(). */
static inline OxmcpStatus oxmcp_server_add_middleware(const struct OxmcpServer *server, OxmcpHandlerFn handler,
                                                      void *user_data) {
  return oxmcp_server_register(server, "middleware", NULL, 0, handler, user_data);
}

/* Removes the tool `name` (oxmcp_server_remove() with "tool"). */
static inline OxmcpStatus oxmcp_server_remove_tool(const struct OxmcpServer *server, const char *name,
                                                   bool *out_removed) {
  return oxmcp_server_remove(server, "tool", name, out_removed);
}

/* Removes the prompt `name` (oxmcp_server_remove() with "prompt"). */
static inline OxmcpStatus oxmcp_server_remove_prompt(const struct OxmcpServer *server, const char *name,
                                                     bool *out_removed) {
  return oxmcp_server_remove(server, "prompt", name, out_removed);
}

/* Removes the resource at `uri` (oxmcp_server_remove() with "resource"). */
static inline OxmcpStatus oxmcp_server_remove_resource(const struct OxmcpServer *server, const char *uri,
                                                       bool *out_removed) {
  return oxmcp_server_remove(server, "resource", uri, out_removed);
}

/* Starts Streamable HTTP on `bind` ("127.0.0.1:0" picks a free port; a host name is
 * resolved; "[::1]:0" for IPv6) at `path` (NULL = "/mcp"), with `flags` (a sum of
 * OXMCP_HTTP_*): oxmcp_server_start_http_options() with {"host", "port", "path",
 * "stateless", "jsonResponse"}. Blocks until bound; the port goes to `*out_port` (may be
 * NULL). */
static inline OxmcpStatus oxmcp_server_start_http(const struct OxmcpServer *server, const char *bind,
                                                  const char *path, uint32_t flags, uint16_t *out_port) {
  if (!bind) return oxmcp_server_start_http_options(server, NULL, 1, out_port); /* "bind is NULL" */
  const char *colon = strrchr(bind, ':');
  size_t host_len = colon ? (size_t)(colon - bind) : strlen(bind);
  char *host_text = (char *)malloc(host_len + 1);
  if (!host_text) return OXMCP_STATUS_INTERNAL;
  const char *h = bind;
  size_t n = host_len;
  if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
    h++;
    n -= 2;
  }
  memcpy(host_text, h, n);
  host_text[n] = '\0';
  const char *port_text = colon ? colon + 1 : "";
  int digits = *port_text != '\0' && strlen(port_text) <= 5;
  for (const char *p = port_text; *p; p++)
    if (*p < '0' || *p > '9') digits = 0;
  char *host = oxmcp_json_string_(host_text);
  free(host_text);
  char *port = digits ? NULL : oxmcp_json_string_(bind); /* not host:port: the engine says so */
  char *route = path ? oxmcp_json_string_(path) : NULL;
  if (!host || (!digits && !port) || (path && !route)) {
    free(host);
    free(port);
    free(route);
    return OXMCP_STATUS_INTERNAL;
  }
  const char *pieces[] = {"{\"host\":", host, ",\"port\":", digits ? port_text : port,
                          route ? ",\"path\":" : NULL, route,
                          (flags & OXMCP_HTTP_STATELESS) ? ",\"stateless\":true" : NULL,
                          (flags & OXMCP_HTTP_JSON_RESPONSE) ? ",\"jsonResponse\":true}" : "}"};
  char *json = oxmcp_concat_(pieces, 8);
  free(host);
  free(port);
  free(route);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_server_start_http_options(server, (const uint8_t *)json, strlen(json), out_port);
  free(json);
  return st;
}

/* ---- a handler's request -------------------------------------------------------------------- */

/* Fails the request as a handler failure with `message` (oxmcp_incoming_fail_rpc() with
 * OXMCP_NO_CODE): a tool answers an `isError: true` result with that text, other kinds a
 * JSON-RPC -32603 error. */
static inline OxmcpStatus oxmcp_incoming_fail(const struct OxmcpIncoming *request, const char *message) {
  return oxmcp_incoming_fail_rpc(request, OXMCP_NO_CODE, message, NULL, 0);
}

/* Sends progress (oxmcp_incoming_call() "progress"): `total` when `has_total`, `message`
 * NULL for none. Nothing if the client asked for no progress. */
static inline OxmcpStatus oxmcp_incoming_progress(const struct OxmcpIncoming *request, double progress,
                                                  bool has_total, double total, const char *message) {
  char p[32], t[32];
  oxmcp_json_number_(progress, p);
  oxmcp_json_number_(total, t);
  char *m = message ? oxmcp_json_string_(message) : NULL;
  if (message && !m) return OXMCP_STATUS_INTERNAL;
  const char *pieces[] = {"{\"progress\":", p, has_total ? ",\"total\":" : NULL, has_total ? t : NULL,
                          m ? ",\"message\":" : NULL, m, "}"};
  char *json = oxmcp_concat_(pieces, 7);
  free(m);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_incoming_call(request, "progress", (const uint8_t *)json, strlen(json), NULL, NULL, NULL);
  free(json);
  return st;
}

/* Sends a log message (oxmcp_incoming_call() "log"): `level` ("debug" ... "emergency"),
 * `logger` NULL for none, `data_json` any JSON value (NULL / 0: null). */
static inline OxmcpStatus oxmcp_incoming_log(const struct OxmcpIncoming *request, const char *level,
                                             const char *logger, const uint8_t *data_json, size_t data_len) {
  if (!level) level = "";
  char *l = oxmcp_json_string_(level);
  char *g = logger ? oxmcp_json_string_(logger) : NULL;
  char *d = (char *)malloc(data_len + 1);
  if (!l || (logger && !g) || !d) {
    free(l), free(g), free(d);
    return OXMCP_STATUS_INTERNAL;
  }
  if (data_len) memcpy(d, data_json, data_len);
  d[data_len] = '\0';
  const char *pieces[] = {"{\"level\":", l, g ? ",\"logger\":" : NULL, g, ",\"data\":", data_len ? d : "null", "}"};
  char *json = oxmcp_concat_(pieces, 7);
  free(l), free(g), free(d);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_incoming_call(request, "log", (const uint8_t *)json, strlen(json), NULL, NULL, NULL);
  free(json);
  return st;
}

/* Asks the client (oxmcp_incoming_call() with `method`: "sampling/createMessage",
 * "elicitation/create" or "roots/list"). */
static inline OxmcpStatus oxmcp_incoming_ask_client(const struct OxmcpIncoming *request, const char *method,
                                                    const uint8_t *params_json, size_t params_len,
                                                    OxmcpCompletionFn callback, void *user_data,
                                                    struct OxmcpRequest **out_request) {
  return oxmcp_incoming_call(request, method, params_json, params_len, callback, user_data, out_request);
}

/* Continues an escalating tool's call as a task (oxmcp_incoming_call() "escalate"):
 * `true` once it is one, `false` when it stays inline. */
static inline OxmcpStatus oxmcp_incoming_escalate_to_task(const struct OxmcpIncoming *request,
                                                          OxmcpCompletionFn callback, void *user_data,
                                                          struct OxmcpRequest **out_request) {
  return oxmcp_incoming_call(request, "escalate", NULL, 0, callback, user_data, out_request);
}

/* Reads one of this server's own resources (oxmcp_incoming_call() "resources/read"). */
static inline OxmcpStatus oxmcp_incoming_read_resource(const struct OxmcpIncoming *request, const char *uri,
                                                       OxmcpCompletionFn callback, void *user_data,
                                                       struct OxmcpRequest **out_request) {
  char *u = oxmcp_json_string_(uri ? uri : "");
  if (!u) return OXMCP_STATUS_INTERNAL;
  const char *pieces[] = {"{\"uri\":", u, "}"};
  char *json = oxmcp_concat_(pieces, 3);
  free(u);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_incoming_call(request, "resources/read", (const uint8_t *)json, strlen(json), callback,
                                       user_data, out_request);
  free(json);
  return st;
}

/* In a middleware's call, runs the rest of the chain (oxmcp_incoming_call() "next") with
 * `params_json` (NULL / 0: the params the middleware got). */
static inline OxmcpStatus oxmcp_incoming_next(const struct OxmcpIncoming *request, const uint8_t *params_json,
                                              size_t params_len, OxmcpCompletionFn callback, void *user_data,
                                              struct OxmcpRequest **out_request) {
  return oxmcp_incoming_call(request, "next", params_json, params_len, callback, user_data, out_request);
}

/* Ends the SSE stream the request answers on (oxmcp_incoming_call() "end response stream"). */
static inline OxmcpStatus oxmcp_incoming_end_response_stream(const struct OxmcpIncoming *request) {
  return oxmcp_incoming_call(request, "end response stream", NULL, 0, NULL, NULL, NULL);
}

/* Where oxmcp_incoming_info() copies the facts. */
typedef struct {
  char *json;
  size_t len;
} OxmcpCopy_;

static inline void oxmcp_copy_(void *user_data, OxmcpStatus status, const uint8_t *json, size_t len,
                               const OxmcpError *error) {
  OxmcpCopy_ *c = (OxmcpCopy_ *)user_data;
  (void)error;
  if (status != OXMCP_STATUS_OK) return;
  c->json = (char *)malloc(len + 1);
  if (!c->json) return;
  memcpy(c->json, json, len);
  c->json[len] = '\0';
  c->len = len;
}

/* The request's facts (oxmcp_incoming_call() "info", answered at once): `*out_json` gets a
 * malloc'd, NUL-terminated copy (free it with free()), `*out_len` (may be NULL) its length.
 * Who the request's access token speaks for is its `auth` member. */
static inline OxmcpStatus oxmcp_incoming_info(const struct OxmcpIncoming *request, char **out_json,
                                              size_t *out_len) {
  OxmcpCopy_ c = {NULL, 0};
  OxmcpStatus st = oxmcp_incoming_call(request, "info", NULL, 0, oxmcp_copy_, &c, NULL);
  if (st != OXMCP_STATUS_OK) return st;
  if (!c.json) return OXMCP_STATUS_INTERNAL;
  *out_json = c.json;
  if (out_len) *out_len = c.len;
  return OXMCP_STATUS_OK;
}

/* Stores in `*out_cancelled` whether the peer cancelled the request (or disconnected)
 * (oxmcp_incoming_call() "cancelled", answered at once). */
static inline OxmcpStatus oxmcp_incoming_is_cancelled(const struct OxmcpIncoming *request, bool *out_cancelled) {
  OxmcpCopy_ c = {NULL, 0};
  OxmcpStatus st = oxmcp_incoming_call(request, "cancelled", NULL, 0, oxmcp_copy_, &c, NULL);
  if (st != OXMCP_STATUS_OK) return st;
  if (!c.json) return OXMCP_STATUS_INTERNAL;
  if (out_cancelled) *out_cancelled = strcmp(c.json, "true") == 0;
  free(c.json);
  return out_cancelled ? OXMCP_STATUS_OK : OXMCP_STATUS_INVALID_INPUT;
}

/* ---- a client's connection ------------------------------------------------------------------ */

/* Chooses the protocol era ("auto", "session" or "stateless"; oxmcp_client_configure() with
 * {"era": era}) before connecting. */
static inline OxmcpStatus oxmcp_client_set_era(const struct OxmcpClient *client, const char *era) {
  char *name = era ? oxmcp_json_string_(era) : NULL;
  if (era && !name) return OXMCP_STATUS_INTERNAL;
  const char *pieces[] = {"{\"era\":", name ? name : "0", "}"}; /* NULL: the engine refuses 0 */
  char *json = oxmcp_concat_(pieces, 3);
  free(name);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_client_configure(client, (const uint8_t *)json, strlen(json));
  free(json);
  return st;
}

/* Sets how the client authorizes at a protected HTTP server (oxmcp_client_configure() with
 * {"oauth": oauth_json, "tokenFile": token_file}; NULL / 0 for `oauth_json` removes OAuth). */
static inline OxmcpStatus oxmcp_client_set_oauth(const struct OxmcpClient *client, const uint8_t *oauth_json,
                                                 size_t oauth_len, const char *token_file) {
  char *oauth = NULL;
  char *file = NULL;
  if (oauth_json && oauth_len > 0) {
    oauth = (char *)malloc(oauth_len + 1);
    if (!oauth) return OXMCP_STATUS_INTERNAL;
    memcpy(oauth, oauth_json, oauth_len);
    oauth[oauth_len] = '\0';
    if (token_file && !(file = oxmcp_json_string_(token_file))) {
      free(oauth);
      return OXMCP_STATUS_INTERNAL;
    }
  }
  const char *pieces[] = {"{\"oauth\":", oauth ? oauth : "null", ",\"tokenFile\":", file ? file : "null", "}"};
  char *json = oxmcp_concat_(pieces, 5);
  free(oauth);
  free(file);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_client_configure(client, (const uint8_t *)json, strlen(json));
  free(json);
  return st;
}

/* Sets extra HTTP headers, a JSON object of strings (oxmcp_client_configure() with
 * {"headers": headers_json}; NULL / 0 removes them). */
static inline OxmcpStatus oxmcp_client_set_headers(const struct OxmcpClient *client, const uint8_t *headers_json,
                                                   size_t headers_len) {
  char *headers = NULL;
  if (headers_json && headers_len > 0) {
    headers = (char *)malloc(headers_len + 1);
    if (!headers) return OXMCP_STATUS_INTERNAL;
    memcpy(headers, headers_json, headers_len);
    headers[headers_len] = '\0';
  }
  const char *pieces[] = {"{\"headers\":", headers ? headers : "null", "}"};
  char *json = oxmcp_concat_(pieces, 3);
  free(headers);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_client_configure(client, (const uint8_t *)json, strlen(json));
  free(json);
  return st;
}

/* Starts `command` with `argc` arguments `args` as a child process and connects to it over
 * stdio (oxmcp_client_connect() with {"command", "args"}). */
static inline OxmcpStatus oxmcp_client_connect_stdio(const struct OxmcpClient *client, const char *command,
                                                     const char *const *args, size_t argc,
                                                     OxmcpCompletionFn callback, void *user_data,
                                                     struct OxmcpRequest **out_request) {
  if (!command || (!args && argc > 0)) /* the engine refuses a command that is not a string */
    return oxmcp_client_connect(client, (const uint8_t *)"{\"command\":0}", 13, callback, user_data, out_request);
  size_t n = 32;
  char **quoted = (char **)calloc(argc + 1, sizeof(char *));
  if (!quoted) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = OXMCP_STATUS_OK;
  for (size_t i = 0; i <= argc && st == OXMCP_STATUS_OK; i++) {
    const char *s = i == 0 ? command : args[i - 1];
    if (!s || !(quoted[i] = oxmcp_json_string_(s)))
      st = s ? OXMCP_STATUS_INTERNAL : OXMCP_STATUS_INVALID_INPUT;
    else
      n += strlen(quoted[i]) + 1;
  }
  char *json = st == OXMCP_STATUS_OK ? (char *)malloc(n) : NULL;
  if (st == OXMCP_STATUS_OK && !json) st = OXMCP_STATUS_INTERNAL;
  if (json) {
    char *o = json;
    o += sprintf(o, "{\"command\":%s,\"args\":[", quoted[0]);
    for (size_t i = 1; i <= argc; i++) o += sprintf(o, "%s%s", i > 1 ? "," : "", quoted[i]);
    strcpy(o, "]}");
    st = oxmcp_client_connect(client, (const uint8_t *)json, strlen(json), callback, user_data, out_request);
    free(json);
  }
  for (size_t i = 0; i <= argc; i++) free(quoted[i]);
  free(quoted);
  return st;
}

/* Connects to a Streamable HTTP server at `url` (oxmcp_client_connect() with {"url"}). */
static inline OxmcpStatus oxmcp_client_connect_http(const struct OxmcpClient *client, const char *url,
                                                    OxmcpCompletionFn callback, void *user_data,
                                                    struct OxmcpRequest **out_request) {
  char *u = url ? oxmcp_json_string_(url) : NULL;
  if (url && !u) return OXMCP_STATUS_INTERNAL;
  const char *pieces[] = {"{\"url\":", u ? u : "0", "}"}; /* NULL: the engine refuses 0 */
  char *json = oxmcp_concat_(pieces, 3);
  free(u);
  if (!json) return OXMCP_STATUS_INTERNAL;
  OxmcpStatus st = oxmcp_client_connect(client, (const uint8_t *)json, strlen(json), callback, user_data, out_request);
  free(json);
  return st;
}

/* ---- a client's calls ----------------------------------------------------------------------- */

/* Which list oxmcp_client_list() fetches; each result is one array of every page's items. */
typedef enum {
  OXMCP_LIST_TOOLS = 0,
  OXMCP_LIST_RESOURCES = 1,
  OXMCP_LIST_RESOURCE_TEMPLATES = 2,
  OXMCP_LIST_PROMPTS = 3,
  OXMCP_LIST_SKILLS = 4,
} OxmcpList;

/* Lists every item of `what` (oxmcp_client_call() "tools/list", ...): the result is one
 * array. */
static inline OxmcpStatus oxmcp_client_list(const struct OxmcpClient *client, OxmcpList what,
                                            OxmcpCompletionFn callback, void *user_data,
                                            struct OxmcpRequest **out_request) {
  static const char *const ops[] = {"tools/list", "resources/list", "resources/templates/list", "prompts/list",
                                    "skills/list"};
  const char *op = ((int)what >= 0 && (int)what < 5) ? ops[what] : "unknown list";
  return oxmcp_client_call(client, op, NULL, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Calls the tool `name` (oxmcp_client_call() "tools/call"). */
static inline OxmcpStatus oxmcp_client_call_tool(const struct OxmcpClient *client, const char *name,
                                                 const uint8_t *args_json, size_t args_len, uint32_t timeout_ms,
                                                 OxmcpProgressFn on_progress, OxmcpCompletionFn callback,
                                                 void *user_data, struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tools/call", name, args_json, args_len, timeout_ms, on_progress, callback,
                           user_data, out_request);
}

/* Calls the tool `name`, letting the server run it as a task (oxmcp_client_call()
 * "tools/call as task"): the final CallToolResult; statuses go to `on_progress`. */
static inline OxmcpStatus oxmcp_client_call_tool_as_task(const struct OxmcpClient *client, const char *name,
                                                         const uint8_t *args_json, size_t args_len,
                                                         OxmcpProgressFn on_progress, OxmcpCompletionFn callback,
                                                         void *user_data, struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tools/call as task", name, args_json, args_len, 0, on_progress, callback,
                           user_data, out_request);
}

/* Sends any request `method` (oxmcp_client_call() "request"): the raw result. */
static inline OxmcpStatus oxmcp_client_request(const struct OxmcpClient *client, const char *method,
                                               const uint8_t *params_json, size_t params_len, uint32_t timeout_ms,
                                               OxmcpProgressFn on_progress, OxmcpCompletionFn callback,
                                               void *user_data, struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "request", method, params_json, params_len, timeout_ms, on_progress, callback,
                           user_data, out_request);
}

/* Reads the resource at `uri` (oxmcp_client_call() "resources/read"). */
static inline OxmcpStatus oxmcp_client_read_resource(const struct OxmcpClient *client, const char *uri,
                                                     OxmcpCompletionFn callback, void *user_data,
                                                     struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "resources/read", uri, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Gets the prompt `name` with string arguments (oxmcp_client_call() "prompts/get"). */
static inline OxmcpStatus oxmcp_client_get_prompt(const struct OxmcpClient *client, const char *name,
                                                  const uint8_t *args_json, size_t args_len,
                                                  OxmcpCompletionFn callback, void *user_data,
                                                  struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "prompts/get", name, args_json, args_len, 0, NULL, callback, user_data,
                           out_request);
}

/* Gets a skill's entry by its SKILL.md URI (oxmcp_client_call() "skills/get"). */
static inline OxmcpStatus oxmcp_client_get_skill(const struct OxmcpClient *client, const char *uri,
                                                 OxmcpCompletionFn callback, void *user_data,
                                                 struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "skills/get", uri, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Reads a directory resource's children (oxmcp_client_call() "resources/directory/read"):
 * one array. */
static inline OxmcpStatus oxmcp_client_read_directory(const struct OxmcpClient *client, const char *uri,
                                                      OxmcpCompletionFn callback, void *user_data,
                                                      struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "resources/directory/read", uri, NULL, 0, 0, NULL, callback, user_data,
                           out_request);
}

/* Loads a skill (oxmcp_client_call() "skills/load"): `skill_json` the held entry, NULL / 0
 * to fetch it. */
static inline OxmcpStatus oxmcp_client_load_skill(const struct OxmcpClient *client, const char *uri,
                                                  const uint8_t *skill_json, size_t skill_len,
                                                  OxmcpCompletionFn callback, void *user_data,
                                                  struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "skills/load", uri, skill_json, skill_len, 0, NULL, callback, user_data,
                           out_request);
}

/* Reads a file of a skill (oxmcp_client_call() "skills/read"): its bytes as base64 JSON. */
static inline OxmcpStatus oxmcp_client_read_skill_file(const struct OxmcpClient *client, const char *path,
                                                       const uint8_t *skill_json, size_t skill_len,
                                                       OxmcpCompletionFn callback, void *user_data,
                                                       struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "skills/read", path, skill_json, skill_len, 0, NULL, callback, user_data,
                           out_request);
}

/* Starts a tool call as a task and returns at once (oxmcp_client_call() "tools/call start task"). */
static inline OxmcpStatus oxmcp_client_start_tool_task(const struct OxmcpClient *client, const char *name,
                                                       const uint8_t *args_json, size_t args_len,
                                                       OxmcpCompletionFn callback, void *user_data,
                                                       struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tools/call start task", name, args_json, args_len, 0, NULL, callback,
                           user_data, out_request);
}

/* Gets a task (oxmcp_client_call() "tasks/get"). */
static inline OxmcpStatus oxmcp_client_get_task(const struct OxmcpClient *client, const char *task_id,
                                                OxmcpCompletionFn callback, void *user_data,
                                                struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tasks/get", task_id, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Answers a task's input requests (oxmcp_client_call() "tasks/update"): result null. */
static inline OxmcpStatus oxmcp_client_update_task(const struct OxmcpClient *client, const char *task_id,
                                                   const uint8_t *responses_json, size_t responses_len,
                                                   OxmcpCompletionFn callback, void *user_data,
                                                   struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tasks/update", task_id, responses_json, responses_len, 0, NULL, callback,
                           user_data, out_request);
}

/* Cancels a task (oxmcp_client_call() "tasks/cancel"): result null. */
static inline OxmcpStatus oxmcp_client_cancel_task(const struct OxmcpClient *client, const char *task_id,
                                                   OxmcpCompletionFn callback, void *user_data,
                                                   struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "tasks/cancel", task_id, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Sends ping (oxmcp_client_call() "ping"): result null. */
static inline OxmcpStatus oxmcp_client_ping(const struct OxmcpClient *client, OxmcpCompletionFn callback,
                                            void *user_data, struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "ping", NULL, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* Sets the server's minimum log level (oxmcp_client_call() "logging/setLevel"): result null. */
static inline OxmcpStatus oxmcp_client_set_log_level(const struct OxmcpClient *client, const char *level,
                                                     OxmcpCompletionFn callback, void *user_data,
                                                     struct OxmcpRequest **out_request) {
  return oxmcp_client_call(client, "logging/setLevel", level, NULL, 0, 0, NULL, callback, user_data, out_request);
}

/* ---- waiting on the host's thread (a "queued" runtime) ------------------------------------ */

/* Runs a "queued" runtime's callbacks (oxmcp_runtime_create() with {"callbacks":"queued"})
 * on this thread until `*done` is true: set by one of those callbacks, so a plain bool
 * suffices. A runtime whose callbacks run on its threads: OXMCP_STATUS_INVALID_INPUT. */
static inline OxmcpStatus oxmcp_runtime_run_until(const struct OxmcpRuntime *runtime, const bool *done) {
  while (!*done) {
    OxmcpStatus st = oxmcp_runtime_run_pending(runtime, 1000, NULL);
    if (st != OXMCP_STATUS_OK) return st;
  }
  return OXMCP_STATUS_OK;
}

/* What oxmcp_client_call_wait() got: on OXMCP_STATUS_OK the result (`json`, malloc'd and
 * NUL-terminated, `len` bytes); otherwise the error's `message` (malloc'd) and, for a
 * JSON-RPC error, its `code` (`has_code`). Release with oxmcp_outcome_free(). */
typedef struct {
  OxmcpStatus status;
  char *json;
  size_t len;
  char *message;
  int64_t code;
  bool has_code;
  bool done;
} OxmcpOutcome;

static inline char *oxmcp_strdup_(const char *s, size_t len) {
  char *out = (char *)malloc(len + 1);
  if (!out) return NULL;
  memcpy(out, s, len);
  out[len] = '\0';
  return out;
}

static inline void oxmcp_outcome_(void *user_data, OxmcpStatus status, const uint8_t *json, size_t len,
                                  const OxmcpError *error) {
  OxmcpOutcome *o = (OxmcpOutcome *)user_data;
  o->status = status;
  if (status == OXMCP_STATUS_OK) {
    o->json = oxmcp_strdup_((const char *)json, len);
    o->len = len;
  } else if (error) {
    const char *m = oxmcp_error_message(error);
    o->message = oxmcp_strdup_(m, strlen(m));
    o->has_code = oxmcp_error_code(error, &o->code);
  }
  o->done = true;
}

/* Frees what an outcome holds (not the outcome itself). */
static inline void oxmcp_outcome_free(OxmcpOutcome *outcome) {
  free(outcome->json);
  free(outcome->message);
  outcome->json = outcome->message = NULL;
}

/* oxmcp_client_call() that blocks: starts the call (`b_json` NUL-terminated or NULL), then
 * runs `runtime`'s queued callbacks on this thread (other requests' too, in order) until
 * this call ends; returns its status, with the result or error in `*out`. `runtime` is the
 * client's, created with {"callbacks":"queued"}.
 *
 *     OxmcpOutcome r;
 *     if (oxmcp_client_call_wait(rt, client, "tools/call", "echo", "{\"text\":\"hi\"}", 0, &r) == OXMCP_STATUS_OK)
 *       printf("%s\n", r.json);
 *     oxmcp_outcome_free(&r);
 */
static inline OxmcpStatus oxmcp_client_call_wait(const struct OxmcpRuntime *runtime, const struct OxmcpClient *client,
                                                 const char *op, const char *a, const char *b_json,
                                                 uint32_t timeout_ms, OxmcpOutcome *out) {
  memset(out, 0, sizeof *out);
  OxmcpStatus st = oxmcp_client_call(client, op, a, (const uint8_t *)b_json, b_json ? strlen(b_json) : 0, timeout_ms,
                                     NULL, oxmcp_outcome_, out, NULL);
  if (st != OXMCP_STATUS_OK) return st;
  st = oxmcp_runtime_run_until(runtime, &out->done);
  return st != OXMCP_STATUS_OK ? st : out->status;
}

#endif /* OXMCP_HELPERS_H */
