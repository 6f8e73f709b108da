/*
 * The scenario server (tests/scenarios/README.md) on the oxmcp C ABI: the tools, resources,
 * prompt and completion that `server` in scenarios.json describes, written with the C API
 * (never read from the JSON). Serves one client on stdin/stdout and exits 0 when stdin
 * closes; scenario_client.c spawns it.
 *
 * Handlers that ask the client (ask_sampling, ask_elicitation, ask_roots) do it with
 * oxmcp_incoming_ask_client() and complete their request from its completion callback. In
 * the stateless era the first run of such a handler ends its round (the ask completes
 * CANCELLED and the request is dropped); the engine runs it again with the client's answer.
 */
#include <ctype.h>

#include "harness.h"
#include "json.h"

static const char *AS_TEXT = "text/plain";

/* Completes `req` with a CallToolResult of one text block, then frees it. */
static void answer_text(OxmcpIncoming *req, const char *text) {
  Sb b = {0};
  sb_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
  json_quote(&b, text);
  sb_puts(&b, "}]}");
  if (oxmcp_incoming_complete(req, (const uint8_t *)b.p, b.len) != OXMCP_STATUS_OK)
    fprintf(stderr, "scenario_server: complete failed: %s\n", last_message());
  free(b.p);
  oxmcp_incoming_free(req);
}

static void fail_with(OxmcpIncoming *req, const char *message) {
  oxmcp_incoming_fail(req, message);
  oxmcp_incoming_free(req);
}

/* --- tools -------------------------------------------------------------------------------- */
static void echo_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *args = json_parse((const char *)params, len);
  const char *text = json_str(args, "text");
  if (text) answer_text(req, text);
  else fail_with(req, "echo: no text");
  json_free(args);
}

/* What oxmcp_server_remove_tool("gone"), _remove_prompt("gone") and
 * _remove_resource("fixed://gone") answered before serving. */
static bool g_removed[3];

static void staged_removal_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  char text[32];
  snprintf(text, sizeof text, "%s,%s,%s", g_removed[0] ? "true" : "false", g_removed[1] ? "true" : "false",
           g_removed[2] ? "true" : "false");
  answer_text(req, text);
}

static OxmcpServer *g_server;

static void session_count_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  size_t n = 0;
  char text[32];
  if (oxmcp_server_session_count(g_server, &n) != OXMCP_STATUS_OK) { fail_with(req, "session count failed"); return; }
  snprintf(text, sizeof text, "%zu", n);
  answer_text(req, text);
}

/* The server's own fixed://note, read through the request: its text answers the call. */
static void on_own_note(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  OxmcpIncoming *req = ud;
  if (status != OXMCP_STATUS_OK) {
    fail_with(req, oxmcp_error_message(err));
    return;
  }
  J *r = json_parse((const char *)json, len);
  const char *text = json_str(json_at(json_get(r, "contents"), 0), "text");
  answer_text(req, text ? text : "(no text)");
  json_free(r);
}

static void read_own_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  if (oxmcp_incoming_read_resource(req, "fixed://note", on_own_note, req, NULL) != OXMCP_STATUS_OK)
    fail_with(req, last_message());
}

/* The protocol version the request's facts name. */
static void protocol_version_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  char *json = NULL;
  size_t n = 0;
  if (oxmcp_incoming_info(req, &json, &n) != OXMCP_STATUS_OK) {
    fail_with(req, last_message());
    return;
  }
  J *facts = json_parse(json, n);
  free(json);
  const char *version = json_str(facts, "protocolVersion");
  answer_text(req, version ? version : "none");
  json_free(facts);
}

static void gone_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  answer_text(req, "gone was called");
}

typedef enum { ASK_SAMPLING, ASK_ELICITATION, ASK_ROOTS } AskKind;

typedef struct {
  OxmcpIncoming *req;
  AskKind kind;
} Ask;

/* The client's answer (or the failure) completes the tool call. */
static void on_answer(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Ask *ask = ud;
  if (status != OXMCP_STATUS_OK) {
    /* CANCELLED: the call was cancelled, or (stateless era) its round ended. */
    fail_with(ask->req, oxmcp_error_message(err));
    free(ask);
    return;
  }
  J *r = json_parse((const char *)json, len);
  Sb b = {0};
  if (ask->kind == ASK_SAMPLING) {
    J *content = json_get(r, "content");
    if (content && content->t == J_ARR) content = json_at(content, 0); /* a list of blocks */
    const char *text = json_str(content, "text");
    sb_printf(&b, "sampled: %s", text ? text : "(no text)");
  } else if (ask->kind == ASK_ELICITATION) {
    const char *action = json_str(r, "action");
    const char *name = json_str(json_get(r, "content"), "name");
    sb_printf(&b, "elicited: %s %s", action ? action : "?", name ? name : "");
  } else {
    J *roots = json_get(r, "roots");
    sb_puts(&b, "roots: ");
    for (size_t i = 0; roots && i < roots->count; i++) {
      const char *uri = json_str(json_at(roots, i), "uri");
      sb_printf(&b, "%s%s", i ? "," : "", uri ? uri : "?");
    }
  }
  char *text = sb_take(&b);
  answer_text(ask->req, text);
  free(text);
  json_free(r);
  free(ask);
}

static void ask(OxmcpIncoming *req, AskKind kind, const char *method, const char *params) {
  Ask *a = calloc(1, sizeof *a);
  a->req = req;
  a->kind = kind;
  OxmcpStatus st = oxmcp_incoming_ask_client(req, method, (const uint8_t *)params, params ? strlen(params) : 0, on_answer, a, NULL);
  if (st != OXMCP_STATUS_OK) {
    /* Nothing started: the callback will not run. */
    char *why = strdup(last_message());
    fail_with(req, why);
    free(why);
    free(a);
  }
}

static void ask_sampling_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *args = json_parse((const char *)params, len);
  const char *prompt = json_str(args, "prompt");
  Sb b = {0};
  /* No maxTokens: the engine fills the protocol default. */
  sb_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
  json_quote(&b, prompt ? prompt : "");
  sb_puts(&b, "}}]}");
  ask(req, ASK_SAMPLING, "sampling/createMessage", b.p);
  free(b.p);
  json_free(args);
}

static void ask_elicitation_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  ask(req, ASK_ELICITATION, "elicitation/create",
      "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\","
      "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}");
}

static void ask_roots_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  ask(req, ASK_ROOTS, "roots/list", NULL);
}

static void fail_rpc_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *data = "{\"why\":\"scenario\"}";
  oxmcp_incoming_fail_rpc(req, -32042, "custom failure", (const uint8_t *)data, strlen(data));
  oxmcp_incoming_free(req);
}

/* The shape_* tools: complete with the JSON value their user data holds, as a host's
 * return value; the engine's one rule makes it a result. */
static void shape_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)params; (void)len;
  const char *value = ud;
  if (oxmcp_incoming_complete(req, (const uint8_t *)value, strlen(value)) != OXMCP_STATUS_OK)
    oxmcp_incoming_fail(req, last_message());
  oxmcp_incoming_free(req);
}

/* What registering the escalating tool "never" (no taskSupport) raised before serving:
 * the status's name lowercased (the engine's error kind name), or "accepted". */
static char g_refused[32] = "accepted";

static void refused_escalation_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  answer_text(req, g_refused);
}

static void fail_plain_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  fail_with(req, "plain failure");
}

/* "escalate": asks a name (inline), escalates, then asks the model "after"; each step runs
 * in the callback of the one before. A step completing CANCELLED ended the call or (stateless
 * era) its round: the engine runs the handler again with the answers. */
typedef struct {
  OxmcpIncoming *req;
  char name[64];
  char became[8];
} Escalate;

static void escalate_failed(Escalate *e, const OxmcpError *err) {
  fail_with(e->req, oxmcp_error_message(err));
  free(e);
}

static void on_after(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Escalate *e = ud;
  if (status != OXMCP_STATUS_OK) { escalate_failed(e, err); return; }
  J *r = json_parse((const char *)json, len);
  J *content = json_get(r, "content");
  if (content && content->t == J_ARR) content = json_at(content, 0);
  const char *text = json_str(content, "text");
  char answer[256];
  snprintf(answer, sizeof answer, "escalated: %s %s %s", e->name, e->became, text ? text : "(no text)");
  answer_text(e->req, answer);
  json_free(r);
  free(e);
}

static void on_escalated(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Escalate *e = ud;
  if (status != OXMCP_STATUS_OK) { escalate_failed(e, err); return; }
  snprintf(e->became, sizeof e->became, "%.*s", (int)len, (const char *)json);
  const char *q = "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"after\"}}]}";
  if (oxmcp_incoming_ask_client(e->req, "sampling/createMessage", (const uint8_t *)q, strlen(q), on_after, e, NULL) !=
      OXMCP_STATUS_OK) {
    fail_with(e->req, last_message());
    free(e);
  }
}

static void on_named(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Escalate *e = ud;
  if (status != OXMCP_STATUS_OK) { escalate_failed(e, err); return; }
  J *r = json_parse((const char *)json, len);
  const char *name = json_str(json_get(r, "content"), "name");
  snprintf(e->name, sizeof e->name, "%s", name ? name : "?");
  json_free(r);
  if (oxmcp_incoming_escalate_to_task(e->req, on_escalated, e, NULL) != OXMCP_STATUS_OK) {
    fail_with(e->req, last_message());
    free(e);
  }
}

static void escalate_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  Escalate *e = calloc(1, sizeof *e);
  e->req = req;
  const char *q = "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\","
                  "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}";
  if (oxmcp_incoming_ask_client(req, "elicitation/create", (const uint8_t *)q, strlen(q), on_named, e, NULL) !=
      OXMCP_STATUS_OK) {
    fail_with(req, last_message());
    free(e);
  }
}

/* --- resources, prompt, completion ----------------------------------------------------------- */
static void complete_resource(OxmcpIncoming *req, const char *uri, const char *text) {
  Sb b = {0};
  sb_puts(&b, "{\"contents\":[{\"uri\":");
  json_quote(&b, uri);
  sb_puts(&b, ",\"mimeType\":");
  json_quote(&b, AS_TEXT);
  sb_puts(&b, ",\"text\":");
  json_quote(&b, text);
  sb_puts(&b, "}]}");
  if (oxmcp_incoming_complete(req, (const uint8_t *)b.p, b.len) != OXMCP_STATUS_OK)
    fprintf(stderr, "scenario_server: complete failed: %s\n", last_message());
  free(b.p);
  oxmcp_incoming_free(req);
}

/* Resource handlers get {"uri": ..., "variables": {...}}. */
static void note_resource(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *in = json_parse((const char *)params, len);
  const char *uri = json_str(in, "uri");
  complete_resource(req, uri ? uri : "fixed://note", "a note");
  json_free(in);
}

static void greeting_template(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *in = json_parse((const char *)params, len);
  const char *uri = json_str(in, "uri");
  const char *name = json_str(json_get(in, "variables"), "name");
  if (!uri || !name) {
    fail_with(req, "the template handler got no uri or no name variable");
  } else {
    Sb b = {0};
    sb_printf(&b, "hello %s from %s", name, uri);
    complete_resource(req, uri, b.p);
    free(b.p);
  }
  json_free(in);
}

static void greet_prompt(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *args = json_parse((const char *)params, len);
  const char *name = json_str(args, "name");
  Sb text = {0}, b = {0};
  sb_printf(&text, "Hello, %s!", name ? name : "");
  sb_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
  json_quote(&b, text.p);
  sb_puts(&b, "}}]}");
  if (oxmcp_incoming_complete(req, (const uint8_t *)b.p, b.len) != OXMCP_STATUS_OK)
    fprintf(stderr, "scenario_server: complete failed: %s\n", last_message());
  oxmcp_incoming_free(req);
  free(text.p);
  free(b.p);
  json_free(args);
}

/* Every value of n000..n149 that starts with the argument's value: the engine caps it. */
static void completion(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  J *p = json_parse((const char *)params, len);
  const char *prefix = json_str(json_get(p, "argument"), "value");
  if (!prefix) prefix = "";
  Sb b = {0};
  sb_puts(&b, "{\"values\":[");
  int n = 0;
  for (int i = 0; i < 150; i++) {
    char v[8];
    snprintf(v, sizeof v, "n%03d", i);
    if (strncmp(v, prefix, strlen(prefix)) != 0) continue;
    sb_printf(&b, "%s\"%s\"", n++ ? "," : "", v);
  }
  sb_puts(&b, "]}");
  if (oxmcp_incoming_complete(req, (const uint8_t *)b.p, b.len) != OXMCP_STATUS_OK)
    fprintf(stderr, "scenario_server: complete failed: %s\n", last_message());
  oxmcp_incoming_free(req);
  free(b.p);
  json_free(p);
}

/* --- middleware and a mounted server ----------------------------------------------------------- */
/* The rest's outcome completes the middleware's request unchanged. */
static void on_rest(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  OxmcpIncoming *req = ud;
  int64_t code = 0;
  if (status == OXMCP_STATUS_OK) {
    oxmcp_incoming_complete(req, json, len);
  } else if (oxmcp_error_code(err, &code)) {
    size_t data_len = 0;
    const uint8_t *data = oxmcp_error_data(err, &data_len);
    oxmcp_incoming_fail_rpc(req, code, oxmcp_error_message(err), data, data_len);
  } else {
    oxmcp_incoming_fail(req, oxmcp_error_message(err));
  }
  oxmcp_incoming_free(req);
}

/* Changes one request's params on their way, answers another itself, holds a setLevel, lets
 * the rest go on. */
static void steer_middleware(void *ud, OxmcpIncoming *req, const uint8_t *request, size_t len) {
  (void)ud;
  J *r = json_parse((const char *)request, len);
  const char *method = json_str(r, "method");
  J *params = json_get(r, "params");
  const char *name = json_str(params, "name");
  const char *text = json_str(json_get(params, "arguments"), "text");
  int is_call = method && strcmp(method, "tools/call") == 0;
  OxmcpStatus st;
  if (is_call && name && strcmp(name, "answered_by_middleware") == 0) {
    json_free(r);
    answer_text(req, "answered by the middleware");
    return;
  }
  /* Held before it goes on, so a setLevel with a shorter timeout times out (on an engine
   * thread: the other requests go on meanwhile). */
  if (method && strcmp(method, "logging/setLevel") == 0) sleep_ms(2000);
  if (is_call && name && strcmp(name, "echo") == 0 && text && strcmp(text, "through middleware") == 0) {
    const char *changed = "{\"name\":\"echo\",\"arguments\":{\"text\":\"changed by the middleware\"}}";
    st = oxmcp_incoming_next(req, (const uint8_t *)changed, strlen(changed), on_rest, req, NULL);
  } else {
    st = oxmcp_incoming_next(req, NULL, 0, on_rest, req, NULL);
  }
  json_free(r);
  if (st != OXMCP_STATUS_OK) fail_with(req, last_message());
}

static void hello_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  answer_text(req, "hello from the mounted server");
}

/* --- serving ---------------------------------------------------------------------------------- */
static void tool(OxmcpServer *s, const char *name, const char *description, const char *schema, OxmcpHandlerFn h) {
  Sb b = {0};
  sb_puts(&b, "{\"name\":");
  json_quote(&b, name);
  sb_puts(&b, ",\"description\":");
  json_quote(&b, description);
  sb_printf(&b, ",\"inputSchema\":%s}", schema);
  REQUIRE(oxmcp_server_add_tool(s, (const uint8_t *)b.p, b.len, h, NULL) == OXMCP_STATUS_OK, "add tool %s: %s", name,
          last_message());
  free(b.p);
}

static pthread_mutex_t g_done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
static int g_done;

static void on_served(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  (void)ud; (void)json; (void)len;
  if (st != OXMCP_STATUS_OK) fprintf(stderr, "scenario_server: serve ended: %s\n", oxmcp_error_message(err));
  pthread_mutex_lock(&g_done_mu);
  g_done = 1;
  pthread_cond_broadcast(&g_done_cv);
  pthread_mutex_unlock(&g_done_mu);
}

int main(void) {
  const char *OBJECT = "{\"type\":\"object\"}";
  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  OxmcpServer *s = NULL;
  REQUIRE(oxmcp_server_new(rt, "scenario-server", "1.0.0", &s) == OXMCP_STATUS_OK, "server");

  tool(s, "echo", "Answers its text.",
       "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}", echo_tool);
  tool(s, "gone", "Registered, then removed before serving.", OBJECT, gone_tool);
  tool(s, "staged_removal", "What the three removals answered before serving, joined with commas.", OBJECT,
       staged_removal_tool);
  tool(s, "read_own", "Reads the server's own resource fixed://note through its request's context; answers its text.",
       OBJECT, read_own_tool);
  tool(s, "protocol_version", "Answers the protocol version its request's context names.", OBJECT, protocol_version_tool);
  g_server = s;
  tool(s, "session_count", "How many clients the server has connected, as the host's session count says.", OBJECT,
       session_count_tool);
  tool(s, "ask_sampling", "Asks the client's model (no maxTokens given); answers \"sampled: \" + the model's text.",
       "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}",
       ask_sampling_tool);
  tool(s, "ask_elicitation", "Asks the user for a name; answers \"elicited: \" + action + \" \" + content.name.", OBJECT,
       ask_elicitation_tool);
  tool(s, "ask_roots", "Lists the client's roots; answers \"roots: \" + the URIs joined by \",\".", OBJECT,
       ask_roots_tool);
  tool(s, "fail_rpc", "Fails with JSON-RPC error -32042 \"custom failure\" and data {\"why\": \"scenario\"}.", OBJECT,
       fail_rpc_tool);
  tool(s, "refused_escalation",
       "Before serving, the host registered the escalating tool \"never\" with no taskSupport (its own options for it) "
       "and kept what happened: answers the engine's error kind name its error reported (\"invalid_input\"), or "
       "\"accepted\".",
       OBJECT, refused_escalation_tool);
  /* The shape_* tools, registered through the door with the value each returns. */
  const char *shapes[][3] = {
      {"shape_text", "Returns the host's string \"plain\" (the engine makes it one text block).", "\"plain\""},
      {"shape_object", "Returns the host's map, object or record {\"city\": \"Paris\"} (structured content, and its "
                       "JSON as text).", "{\"city\":\"Paris\"}"},
      {"shape_whole", "Returns a whole result, in the host's own result type where it has one: one text block "
                      "\"whole\" and isError true (taken as it is).",
       "{\"content\":[{\"type\":\"text\",\"text\":\"whole\"}],\"isError\":true}"},
      {"shape_list", "Returns the host's list of strings [\"one\", \"two\"] (one text block each).", "[\"one\",\"two\"]"},
      {"shape_number", "Returns the host's number 42 (its JSON text).", "42"},
      {"shape_nothing", "Returns nothing: the host's null, None, undefined, void or Unit (no content).", "null"},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    Sb b = {0};
    sb_puts(&b, "{\"name\":");
    json_quote(&b, shapes[i][0]);
    sb_puts(&b, ",\"description\":");
    json_quote(&b, shapes[i][1]);
    sb_printf(&b, ",\"inputSchema\":%s}", OBJECT);
    REQUIRE(oxmcp_server_register(s, "tool", (const uint8_t *)b.p, b.len, shape_tool, (void *)shapes[i][2]) ==
                OXMCP_STATUS_OK,
            "%s: %s", shapes[i][0], last_message());
    free(b.p);
  }
  const char *never = "{\"name\":\"never\",\"inputSchema\":{\"type\":\"object\"},\"escalating\":true}";
  OxmcpStatus refused = oxmcp_server_register(s, "tool", (const uint8_t *)never, strlen(never), fail_plain_tool, NULL);
  if (refused != OXMCP_STATUS_OK) {
    snprintf(g_refused, sizeof g_refused, "%s", oxmcp_status_name(refused));
    for (char *k = g_refused; *k; k++) *k = (char)tolower((unsigned char)*k);
  }
  tool(s, "fail_plain", "Fails with a plain host error \"plain failure\" (an isError result).", OBJECT, fail_plain_tool);
  const char *escalate = "{\"name\":\"escalate\",\"description\":\"Escalating: asks a name inline, goes on as a task "
                         "if it may, then asks the model.\",\"inputSchema\":{\"type\":\"object\"},"
                         "\"execution\":{\"taskSupport\":\"optional\"},\"escalating\":true}";
  REQUIRE(oxmcp_server_add_tool(s, (const uint8_t *)escalate, strlen(escalate), escalate_tool, NULL) == OXMCP_STATUS_OK,
          "escalate: %s", last_message());
  /* The prompt and resource "gone" reuse greet's and the note's handlers: removed before
   * serving, they are never called. */
  const char *gone_prompt = "{\"name\":\"gone\"}";
  REQUIRE(oxmcp_server_add_prompt(s, (const uint8_t *)gone_prompt, strlen(gone_prompt), greet_prompt, NULL) == OXMCP_STATUS_OK,
          "prompt gone: %s", last_message());
  const char *gone_resource = "{\"uri\":\"fixed://gone\",\"name\":\"gone\",\"mimeType\":\"text/plain\"}";
  REQUIRE(oxmcp_server_add_resource(s, (const uint8_t *)gone_resource, strlen(gone_resource), note_resource, NULL) ==
              OXMCP_STATUS_OK,
          "resource gone: %s", last_message());
  REQUIRE(oxmcp_server_remove_tool(s, "gone", &g_removed[0]) == OXMCP_STATUS_OK, "remove gone: %s", last_message());
  REQUIRE(oxmcp_server_remove_prompt(s, "gone", &g_removed[1]) == OXMCP_STATUS_OK, "remove prompt: %s", last_message());
  REQUIRE(oxmcp_server_remove_resource(s, "fixed://gone", &g_removed[2]) == OXMCP_STATUS_OK, "remove resource: %s",
          last_message());

  const char *note = "{\"uri\":\"fixed://note\",\"name\":\"note\",\"mimeType\":\"text/plain\"}";
  REQUIRE(oxmcp_server_add_resource(s, (const uint8_t *)note, strlen(note), note_resource, NULL) == OXMCP_STATUS_OK,
          "resource: %s", last_message());
  const char *greeting = "{\"uriTemplate\":\"greet://{name}\",\"name\":\"greeting\",\"mimeType\":\"text/plain\"}";
  REQUIRE(oxmcp_server_add_resource_template(s, (const uint8_t *)greeting, strlen(greeting), greeting_template, NULL) ==
              OXMCP_STATUS_OK,
          "template: %s", last_message());
  const char *prompt = "{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}";
  REQUIRE(oxmcp_server_add_prompt(s, (const uint8_t *)prompt, strlen(prompt), greet_prompt, NULL) == OXMCP_STATUS_OK,
          "prompt: %s", last_message());
  REQUIRE(oxmcp_server_set_completion(s, completion, NULL) == OXMCP_STATUS_OK, "completion: %s", last_message());
  REQUIRE(oxmcp_server_add_middleware(s, steer_middleware, NULL) == OXMCP_STATUS_OK, "middleware: %s", last_message());
  OxmcpServer *sub = NULL;
  REQUIRE(oxmcp_server_new(rt, "sub-server", "1.0.0", &sub) == OXMCP_STATUS_OK, "sub-server");
  tool(sub, "hello", "Answers \"hello from the mounted server\".", OBJECT, hello_tool);
  REQUIRE(oxmcp_server_mount(s, "sub", sub) == OXMCP_STATUS_OK, "mount: %s", last_message());

  OxmcpRequest *serving = NULL;
  REQUIRE(oxmcp_server_serve_stdio(s, on_served, NULL, &serving) == OXMCP_STATUS_OK, "serve: %s", last_message());
  pthread_mutex_lock(&g_done_mu);
  while (!g_done) pthread_cond_wait(&g_done_cv, &g_done_mu);
  pthread_mutex_unlock(&g_done_mu);
  oxmcp_request_free(serving);
  oxmcp_server_free(s);
  oxmcp_server_free(sub);
  REQUIRE(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "shutdown");
  oxmcp_runtime_free(rt);
  return 0;
}
