/*
 * The C runner of the shared behaviour suite (tests/scenarios/README.md): reads
 * scenarios.json, spawns the scenario server over stdio in one protocol era, sends each
 * scenario's raw request with oxmcp_client_request() and checks `expect`.
 *
 *   scenario_client SCENARIOS_JSON ERA SERVER_COMMAND [ARGS...]
 *
 * ERA is "session" or "stateless"; scenarios whose `eras` leave it out are skipped. The
 * client answers the server's requests through oxmcp_client_on_request(): sampling with
 * "maxTokens=<the request's maxTokens>", elicitation with accept {"name": "ada"}, roots
 * with file:///scenario/root; a sampling prompt "hold" is kept unanswered until its cancel
 * arrives (oxmcp_incoming_on_cancel). Error kinds are oxmcp_status_name() lowercased: the
 * engine's kind names.
 *
 * Prints one line per scenario ("ok - <name> [<era>]" or "not ok - ...: why", the latter on
 * stderr too) and ends with "N passed, M failed".
 */
#include <ctype.h>

#include "harness.h"
#include "json.h"

static const char *g_era;

/* --- the client's answers to the server --------------------------------------------------------- */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  OxmcpIncoming *held; /* the "hold" sampling request, unanswered */
  int cancelled;       /* its cancel callback ran */
} g_hold = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

static void on_hold_cancel(void *ud) {
  (void)ud;
  pthread_mutex_lock(&g_hold.mu);
  g_hold.cancelled++;
  pthread_cond_broadcast(&g_hold.cv);
  pthread_mutex_unlock(&g_hold.mu);
}

/* The text of the first message of a sampling request (content: a block or a list). */
static const char *prompt_of(const J *params) {
  J *content = json_get(json_at(json_get(params, "messages"), 0), "content");
  if (content && content->t == J_ARR) content = json_at(content, 0);
  return json_str(content, "text");
}

static void on_server_request(void *ud, OxmcpIncoming *req, const char *method, const uint8_t *params_json, size_t len) {
  (void)ud;
  J *params = json_parse((const char *)params_json, len);
  char *result = NULL;
  if (strcmp(method, "sampling/createMessage") == 0) {
    const char *prompt = prompt_of(params);
    if (prompt && strcmp(prompt, "hold") == 0) {
      pthread_mutex_lock(&g_hold.mu);
      g_hold.held = req;
      if (oxmcp_incoming_on_cancel(req, on_hold_cancel, NULL) != OXMCP_STATUS_OK)
        fprintf(stderr, "scenario_client: on_cancel failed: %s\n", last_message());
      pthread_cond_broadcast(&g_hold.cv);
      pthread_mutex_unlock(&g_hold.mu);
      json_free(params);
      return; /* the runner frees it once the cancel was seen */
    }
    Sb text = {0}, b = {0};
    sb_puts(&text, "maxTokens=");
    json_write(&text, json_get(params, "maxTokens"));
    sb_puts(&b, "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":");
    json_quote(&b, text.p);
    sb_puts(&b, "},\"model\":\"scenario\"}");
    free(text.p);
    result = sb_take(&b);
  } else if (strcmp(method, "elicitation/create") == 0) {
    result = strdup("{\"action\":\"accept\",\"content\":{\"name\":\"ada\"}}");
  } else if (strcmp(method, "roots/list") == 0) {
    result = strdup("{\"roots\":[{\"uri\":\"file:///scenario/root\",\"name\":\"root\"}]}");
  }
  if (!result) {
    oxmcp_incoming_fail_rpc(req, -32601, "the scenario client does not answer this", NULL, 0);
  } else if (oxmcp_incoming_complete(req, (const uint8_t *)result, strlen(result)) != OXMCP_STATUS_OK) {
    fprintf(stderr, "scenario_client: completing %s failed: %s\n", method, last_message());
  }
  oxmcp_incoming_free(req);
  free(result);
  json_free(params);
}

/* --- one scenario ------------------------------------------------------------------------------ */
static void report(const char *name, const char *why) {
  if (why) {
    g_failed++;
    printf("not ok - %s [%s]: %s\n", name, g_era, why);
    fprintf(stderr, "not ok - %s [%s]: %s\n", name, g_era, why); /* run-tests.sh shows stderr */
  } else {
    g_passed++;
    printf("ok - %s [%s]\n", name, g_era);
  }
  fflush(stdout);
}

/* The result's text: tools join the text blocks of `content`, resources take
 * `contents[0].text`, prompts `messages[0].content.text`. A malloc'd string or NULL. */
static char *text_of(const char *method, const J *result) {
  if (strcmp(method, "tools/call") == 0) {
    J *content = json_get(result, "content");
    if (!content || content->t != J_ARR) return NULL;
    Sb b = {0};
    sb_puts(&b, "");
    for (size_t i = 0; i < content->count; i++) {
      const J *block = content->items[i];
      const char *type = json_str(block, "type"), *text = json_str(block, "text");
      if (type && strcmp(type, "text") == 0 && text) sb_puts(&b, text);
    }
    return sb_take(&b);
  }
  const char *t = NULL;
  if (strcmp(method, "resources/read") == 0) t = json_str(json_at(json_get(result, "contents"), 0), "text");
  else if (strcmp(method, "prompts/get") == 0) t = json_str(json_get(json_at(json_get(result, "messages"), 0), "content"), "text");
  return t ? strdup(t) : NULL;
}

/* A failure description (malloc'd) into *why, unless one is there already. */
static void why_set(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_set(char **why, const char *fmt, ...) {
  if (*why) return;
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *why = strdup(buf);
}

/* Whether the array at `path` of `result` has an item named `name` (-1: no array there). */
static int has_named(const J *result, const char *path, const char *name) {
  const J *arr = json_path(result, path);
  if (!arr || arr->t != J_ARR) return -1;
  for (size_t i = 0; i < arr->count; i++) {
    const char *n = json_str(arr->items[i], "name");
    if (n && strcmp(n, name) == 0) return 1;
  }
  return 0;
}

/* Checks a finished call against `expect`; a failure description or NULL. */
static char *judge(const char *method, const J *expect, const Call *c) {
  char *why = NULL;
  const J *error = json_get(expect, "error");
  if (error) {
    if (c->status == OXMCP_STATUS_OK) {
      why_set(&why, "expected an error, got the result %.300s", c->json);
      return why;
    }
    char kind[64];
    snprintf(kind, sizeof kind, "%s", oxmcp_status_name(c->status));
    for (char *k = kind; *k; k++) *k = (char)tolower((unsigned char)*k);
    const char *want_kind = json_str(error, "kind");
    if (want_kind && strcmp(kind, want_kind) != 0)
      why_set(&why, "error kind %s, expected %s (%s)", kind, want_kind, c->message);
    const J *code = json_get(error, "code");
    if (code && !(c->has_code && (double)c->code == code->n))
      why_set(&why, "error code %s%lld, expected %lld (%s)", c->has_code ? "" : "none: ", (long long)c->code,
              (long long)code->n, c->message);
    const J *data = json_get(error, "data");
    if (data) {
      J *got = c->data ? json_parse(c->data, strlen(c->data)) : NULL;
      if (!got || !json_equal(got, data)) {
        char *w = json_dump(data);
        why_set(&why, "error data %s, expected %s (%s)", c->data ? c->data : "(none)", w, c->message);
        free(w);
      }
      json_free(got);
    }
    const char *contains = json_str(error, "message_contains");
    if (contains && !(c->message && strstr(c->message, contains)))
      why_set(&why, "error message \"%s\" does not contain \"%s\"", c->message ? c->message : "(none)", contains);
    for (size_t i = 0; i < error->count; i++)
      if (strcmp(error->keys[i], "kind") && strcmp(error->keys[i], "code") && strcmp(error->keys[i], "data") &&
          strcmp(error->keys[i], "message_contains"))
        why_set(&why, "unknown error matcher %s", error->keys[i]);
    return why;
  }
  if (c->status != OXMCP_STATUS_OK) {
    why_set(&why, "failed with %s: %s", oxmcp_status_name(c->status), c->message);
    return why;
  }
  J *result = json_parse(c->json, strlen(c->json));
  if (!result) {
    why_set(&why, "the result is not JSON: %.300s", c->json);
    return why;
  }
  char *text = text_of(method, result);
  for (size_t i = 0; i < expect->count; i++) {
    const char *key = expect->keys[i];
    const J *want = expect->items[i];
    if (strcmp(key, "text") == 0) {
      if (!text || want->t != J_STR || strcmp(text, want->s) != 0)
        why_set(&why, "text %s%s%s, expected \"%s\"", text ? "\"" : "", text ? text : "(none)", text ? "\"" : "",
                want->t == J_STR ? want->s : "?");
    } else if (strcmp(key, "contains") == 0) {
      if (!text || want->t != J_STR || !strstr(text, want->s))
        why_set(&why, "text %s does not contain \"%s\"", text ? text : "(none)", want->t == J_STR ? want->s : "?");
    } else if (strcmp(key, "isError") == 0) {
      const J *got = json_get(result, "isError");
      int is_error = got && got->t == J_BOOL && got->b;
      if (want->t != J_BOOL || is_error != want->b) why_set(&why, "isError is %s", is_error ? "true" : "false");
    } else if (strcmp(key, "at") == 0) {
      for (size_t k = 0; k < want->count; k++) {
        const J *got = json_path(result, want->keys[k]);
        if (!json_equal(got, want->items[k])) {
          char *g = json_dump(got), *w = json_dump(want->items[k]);
          why_set(&why, "at %s: %s, expected %s", want->keys[k], got ? g : "(nothing)", w);
          free(g);
          free(w);
        }
      }
    } else if (strcmp(key, "count") == 0) {
      const J *path = json_at(want, 0), *n = json_at(want, 1);
      const J *arr = path && path->t == J_STR ? json_path(result, path->s) : NULL;
      if (!arr || arr->t != J_ARR || !n || (double)arr->count != n->n)
        why_set(&why, "count of %s: %llu, expected %lld", path && path->t == J_STR ? path->s : "?",
                (unsigned long long)(arr && arr->t == J_ARR ? arr->count : 0), n ? (long long)n->n : -1);
    } else if (strcmp(key, "present") == 0 || strcmp(key, "absent") == 0) {
      const J *path = json_at(want, 0), *name = json_at(want, 1);
      int want_present = key[0] == 'p';
      int has = path && name && path->t == J_STR && name->t == J_STR ? has_named(result, path->s, name->s) : -1;
      if (has < 0) why_set(&why, "%s: no array at the path", key);
      else if (has != want_present)
        why_set(&why, "%s %s is %s", path->s, name->s, has ? "present" : "absent");
    } else {
      why_set(&why, "unknown matcher %s", key);
    }
  }
  free(text);
  json_free(result);
  return why;
}

/* Waits (at most `ms`) until `cond` holds under g_hold.mu. */
#define WAIT_HOLD(cond, ms)                                                                   \
  do {                                                                                        \
    struct timespec ts_;                                                                      \
    deadline_in(&ts_, (ms));                                                                  \
    pthread_mutex_lock(&g_hold.mu);                                                           \
    while (!(cond) && pthread_cond_timedwait(&g_hold.cv, &g_hold.mu, &ts_) != ETIMEDOUT) {    \
    }                                                                                         \
    pthread_mutex_unlock(&g_hold.mu);                                                         \
  } while (0)

/* special "cancel_during_sampling": start the call, wait until the client's sampling handler
 * holds the "hold" request, cancel the call, and see whether the handler's cancel arrives
 * within 10 s. */
static char *cancel_during_sampling(OxmcpClient *client, const char *method, const char *params, const J *expect) {
  char *why = NULL;
  pthread_mutex_lock(&g_hold.mu);
  g_hold.held = NULL;
  g_hold.cancelled = 0;
  pthread_mutex_unlock(&g_hold.mu);
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_request(client, method, (const uint8_t *)params, strlen(params), 0, NULL, on_complete, &c, &c.req);
  if (st != OXMCP_STATUS_OK) {
    why_set(&why, "the call did not start: %s", last_message());
    call_done(&c);
    return why;
  }
  WAIT_HOLD(g_hold.held != NULL, 30000);
  pthread_mutex_lock(&g_hold.mu);
  int held = g_hold.held != NULL;
  pthread_mutex_unlock(&g_hold.mu);
  if (!held) {
    why_set(&why, "the sampling request never reached the client's handler");
  } else {
    oxmcp_request_cancel(c.req);
    WAIT_HOLD(g_hold.cancelled > 0, 10000);
  }
  pthread_mutex_lock(&g_hold.mu);
  int seen = g_hold.cancelled > 0;
  OxmcpIncoming *req = g_hold.held;
  g_hold.held = NULL;
  pthread_mutex_unlock(&g_hold.mu);
  oxmcp_incoming_free(req); /* after this its cancel callback cannot run */
  if (!held) oxmcp_request_cancel(c.req);
  call_wait(&c);
  for (size_t i = 0; i < expect->count; i++) {
    const J *want = expect->items[i];
    if (strcmp(expect->keys[i], "handler_cancelled") != 0) why_set(&why, "unknown matcher %s", expect->keys[i]);
    else if (want->t != J_BOOL || want->b != seen)
      why_set(&why, "handler_cancelled is %s", seen ? "true" : "false (no cancel within 10 s)");
  }
  call_done(&c);
  return why;
}

/* special "call_as_task": the tool call through oxmcp_client_call_tool_as_task(), which
 * waits for the task's end; the matchers judge its final result. */
static char *call_as_task(OxmcpClient *client, const char *method, const J *params, const J *expect) {
  char *why = NULL;
  const char *name = json_str(params, "name");
  const J *a = json_get(params, "arguments");
  char *args = a ? json_dump(a) : NULL;
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_call_tool_as_task(client, name ? name : "", (const uint8_t *)args, args ? strlen(args) : 0,
                                                  NULL, on_complete, &c, &c.req);
  if (st != OXMCP_STATUS_OK) why_set(&why, "the call did not start: %s", last_message());
  else if (call_wait(&c) == 1) why = judge(method, expect, &c);
  else {
    /* No timeout applies to a task: cancel it, and wait for the callback before `c` goes. */
    why_set(&why, "no completion within 30 s");
    oxmcp_request_cancel(c.req);
    if (call_wait(&c) != 1) {
      fprintf(stderr, "scenario_client: a cancelled task call never completed\n");
      abort();
    }
  }
  call_done(&c);
  free(args);
  return why;
}

/* special "set_level": oxmcp_client_call() "logging/setLevel" with the scenario's timeout. */
static char *set_level(OxmcpClient *client, const char *method, const J *scenario, const J *expect) {
  char *why = NULL;
  const char *level = json_str(json_get(scenario, "params"), "level");
  const J *timeout = json_get(scenario, "timeout_ms");
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_call(client, "logging/setLevel", level ? level : "", NULL, 0,
                                     timeout ? (uint32_t)timeout->n : 0, NULL, on_complete, &c, &c.req);
  if (st != OXMCP_STATUS_OK) why_set(&why, "the call did not start: %s", last_message());
  else if (call_wait(&c) != 1) why_set(&why, "no completion within 30 s");
  else why = judge(method, expect, &c);
  call_done(&c);
  return why;
}

/* special "connect_refused": a new client of the same runtime connects to params.url. */
static char *connect_refused(OxmcpRuntime *rt, const char *method, const J *params, const J *expect) {
  char *why = NULL;
  OxmcpClient *other = NULL;
  if (oxmcp_client_new(rt, "scenario-client", "1.0.0", &other) != OXMCP_STATUS_OK) {
    why_set(&why, "no client: %s", last_message());
    return why;
  }
  Sb options = {0};
  sb_printf(&options, "{\"url\":\"%s\",\"era\":\"%s\"}", json_str(params, "url") ? json_str(params, "url") : "", g_era);
  char *text = sb_take(&options);
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_connect(other, (const uint8_t *)text, strlen(text), on_complete, &c, &c.req);
  if (st != OXMCP_STATUS_OK) why_set(&why, "the connect did not start: %s", last_message());
  else if (call_wait(&c) != 1) why_set(&why, "no completion within 30 s");
  else why = judge(method, expect, &c);
  call_done(&c);
  free(text);
  oxmcp_client_free(other);
  return why;
}

static int in_eras(const J *scenario) {
  const J *eras = json_get(scenario, "eras");
  if (!eras) return strcmp(g_era, "session") == 0 || strcmp(g_era, "stateless") == 0;
  for (size_t i = 0; i < eras->count; i++)
    if (eras->items[i]->t == J_STR && strcmp(eras->items[i]->s, g_era) == 0) return 1;
  return 0;
}

static void run_scenario(OxmcpRuntime *rt, OxmcpClient *client, const J *scenario) {
  const char *name = json_str(scenario, "name");
  const char *method = json_str(scenario, "method");
  const char *special = json_str(scenario, "special");
  const J *expect = json_get(scenario, "expect");
  if (!name || !method || !expect || expect->t != J_OBJ) {
    report(name ? name : "(unnamed)", "malformed scenario (name, method and expect are required)");
    return;
  }
  const J *p = json_get(scenario, "params");
  char *params = p ? json_dump(p) : strdup("{}");
  char *why = NULL;
  if (special) {
    if (strcmp(special, "cancel_during_sampling") == 0) why = cancel_during_sampling(client, method, params, expect);
    else if (strcmp(special, "call_as_task") == 0) why = call_as_task(client, method, p, expect);
    else if (strcmp(special, "set_level") == 0) why = set_level(client, method, scenario, expect);
    else if (strcmp(special, "connect_refused") == 0) why = connect_refused(rt, method, p, expect);
    else why_set(&why, "unknown special %s", special);
  } else {
    Call c;
    call_init(&c);
    OxmcpStatus st = oxmcp_client_request(client, method, (const uint8_t *)params, strlen(params), 0, NULL, on_complete, &c, &c.req);
    if (st != OXMCP_STATUS_OK) why_set(&why, "the call did not start: %s", last_message());
    else if (call_wait(&c) != 1) why_set(&why, "no completion within 30 s");
    else why = judge(method, expect, &c);
    call_done(&c);
  }
  report(name, why);
  free(why);
  free(params);
}

/* --- main ----------------------------------------------------------------------------------------- */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Sb b = {0};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, n);
  fclose(f);
  *len = b.len;
  return sb_take(&b);
}

/* A failure before any scenario ran: counted once, and the run ends. */
static int give_up(const char *what) {
  fprintf(stderr, "scenario_client [%s]: %s\n", g_era, what);
  printf("%d passed, %d failed\n", g_passed, g_failed + 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SCENARIOS_JSON ERA SERVER_COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  g_era = argv[2];
  size_t len = 0;
  char *text = read_file(argv[1], &len);
  if (!text) return give_up("cannot read the scenarios file");
  J *doc = json_parse(text, len);
  free(text);
  J *scenarios = json_get(doc, "scenarios");
  if (!scenarios || scenarios->t != J_ARR || scenarios->count == 0) {
    json_free(doc);
    return give_up("the scenarios file has no scenarios");
  }

  OxmcpRuntime *rt = NULL;
  OxmcpClient *client = NULL;
  if (oxmcp_runtime_new(2, &rt) != OXMCP_STATUS_OK || oxmcp_client_new(rt, "scenario-client", "1.0.0", &client) != OXMCP_STATUS_OK ||
      oxmcp_client_on_request(client, "sampling,elicitation,roots", on_server_request, NULL) != OXMCP_STATUS_OK ||
      oxmcp_client_set_era(client, g_era) != OXMCP_STATUS_OK)
    return give_up(last_message());
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_connect_stdio(client, argv[3], (const char *const *)argv + 4, (size_t)(argc - 4), on_complete, &c, NULL);
  if (st != OXMCP_STATUS_OK) return give_up(last_message());
  if (call_wait(&c) != 1 || c.status != OXMCP_STATUS_OK) return give_up(c.message ? c.message : "connect timed out");
  call_done(&c);
  const char *settled = NULL;
  oxmcp_client_era(client, &settled);
  if (!settled || strcmp(settled, g_era) != 0) return give_up("the connection did not settle on the era asked for");

  for (size_t i = 0; i < scenarios->count; i++)
    if (in_eras(scenarios->items[i])) run_scenario(rt, client, scenarios->items[i]);

  call_init(&c);
  oxmcp_client_close(client, on_complete, &c);
  call_wait(&c);
  call_done(&c);
  oxmcp_client_free(client);
  oxmcp_runtime_shutdown(rt);
  oxmcp_runtime_free(rt);
  json_free(doc);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
