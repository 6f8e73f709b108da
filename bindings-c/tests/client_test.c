/*
 * A C client on the oxmcp C ABI against `oxmcp everything-server`.
 *
 *   client_test stdio /path/to/oxmcp [ERA]     (spawns `oxmcp everything-server --stdio`)
 *   client_test http  http://127.0.0.1:PORT/mcp [ERA]
 *   client_test c-stdio /path/to/server_test [ERA]   (the C test server, spawned with --stdio)
 *   client_test c-http  http://127.0.0.1:PORT/mcp [ERA]
 *
 * ERA (auto, session or stateless) goes to oxmcp_client_set_era(); without it the client
 * keeps the default (auto). The same suite runs in every era: both servers speak both, so
 * auto settles on stateless. Against the C test server (server_test.c) a shorter suite runs:
 * a tool call, progress, logs and a cancel its handler reports seeing.
 *
 * Covers: the era option (default, aliases, unknown names, too late once connected, the
 * settled era and the connect result's protocol version), connect, lists, tool calls (text, isError, JSON-RPC errors with codes), resources,
 * prompts, progress and log notifications, real cancellation (the server's handler logs
 * that it saw the cancel), exactly-once completions, argument errors through
 * oxmcp_last_error(), tasks (a call the server runs as a task, and its cancel; the task steps: start, get,
 * update with an input request answered by key, cancel), NULL frees,
 * and a runtime shutdown with a request in flight.
 * Ends with "N passed, M failed".
 */
#ifdef _WIN32 /* mingw, run under wine by scripts/wine-run.sh */
#include <winsock2.h>
#define close_socket closesocket
typedef int socklen_t;
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#define close_socket close
#endif

#include "harness.h"

/* Log lines (notifications/message data) the client received. */
static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_log_cv = PTHREAD_COND_INITIALIZER;
static char g_logs[64][256];
static int g_log_count;

static void on_notification(void *ud, const char *method, const uint8_t *params, size_t len) {
  (void)ud;
  if (strcmp(method, "notifications/message") != 0) return;
  pthread_mutex_lock(&g_log_mu);
  if (g_log_count < 64) {
    size_t n = len < 255 ? len : 255;
    memcpy(g_logs[g_log_count], params, n);
    g_logs[g_log_count][n] = 0;
    g_log_count++;
  }
  pthread_cond_broadcast(&g_log_cv);
  pthread_mutex_unlock(&g_log_mu);
}

/* Waits (bounded) until a received log contains `needle`. */
static int wait_for_log(const char *needle) {
  struct timespec ts;
  deadline_in(&ts, 15000);
  int found = 0;
  pthread_mutex_lock(&g_log_mu);
  for (;;) {
    for (int i = 0; i < g_log_count && !found; i++) found = strstr(g_logs[i], needle) != NULL;
    if (found || pthread_cond_timedwait(&g_log_cv, &g_log_mu, &ts) == ETIMEDOUT) break;
  }
  for (int i = 0; i < g_log_count && !found; i++) found = strstr(g_logs[i], needle) != NULL;
  pthread_mutex_unlock(&g_log_mu);
  return found;
}

static int count_logs(const char *needle) {
  int n = 0;
  pthread_mutex_lock(&g_log_mu);
  for (int i = 0; i < g_log_count; i++) n += strstr(g_logs[i], needle) != NULL;
  pthread_mutex_unlock(&g_log_mu);
  return n;
}

/* Calls a tool and waits for its completion. */
static void call_tool(OxmcpClient *client, Call *c, const char *name, const char *args) {
  call_init(c);
  OxmcpStatus st = oxmcp_client_call_tool(client, name, (const uint8_t *)args, args ? strlen(args) : 0, 0, on_progress,
                                          on_complete, c, &c->req);
  CHECK(st == OXMCP_STATUS_OK, "call_tool(%s) started: %s", name, last_message());
  if (st == OXMCP_STATUS_OK) CHECK(call_wait(c) == 1, "call_tool(%s) completed once", name);
}

static void test_calls(OxmcpClient *client) {
  Call c;

  call_init(&c);
  CHECK(oxmcp_client_list(client, OXMCP_LIST_TOOLS, on_complete, &c, NULL) == OXMCP_STATUS_OK, "list tools");
  call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "\"name\":\"echo\"") && strstr(c.json, "\"name\":\"slow\""),
        "tools/list has echo and slow: %s", c.json ? c.json : c.message);
  call_done(&c);

  call_tool(client, &c, "echo", "{\"text\":\"h\\u00e9llo from C\"}");
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "h\xc3\xa9llo from C"), "echo returns its text: %s", c.json);
  CHECK(c.json && !strstr(c.json, "\"isError\":true"), "echo is no error");
  call_done(&c);

  call_tool(client, &c, "test_error_handling", NULL);
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "\"isError\":true"), "a failing tool is an isError result: %s", c.json);
  call_done(&c);

  call_tool(client, &c, "no_such_tool", "{}");
  CHECK(c.status == OXMCP_STATUS_RPC, "unknown tool is a JSON-RPC error (status %s)", oxmcp_status_name(c.status));
  CHECK(c.has_code && c.code == -32602, "unknown tool: code -32602 (got %lld)", (long long)c.code);
  CHECK(c.message && strstr(c.message, "no_such_tool"), "the error message names the tool: %s", c.message);
  call_done(&c);

  call_tool(client, &c, "echo", "{\"text\": 42}");
  CHECK((c.status == OXMCP_STATUS_RPC && c.has_code && c.code == -32602) || (c.status == OXMCP_STATUS_OK && strstr(c.json, "\"isError\":true")), "schema-invalid arguments are refused: %s", c.json ? c.json : c.message);
  call_done(&c);

  call_tool(client, &c, "test_tool_with_progress", NULL);
  CHECK(c.status == OXMCP_STATUS_OK, "progress tool completes");
  CHECK(c.progress == 3, "three progress callbacks before the completion (got %d)", c.progress);
  CHECK(c.progress_after_done == 0, "no progress after the completion");
  call_done(&c);

  call_init(&c);
  CHECK(oxmcp_client_set_log_level(client, "debug", on_complete, &c, NULL) == OXMCP_STATUS_OK, "setLevel");
  call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK, "logging/setLevel ok");
  call_done(&c);
  call_tool(client, &c, "test_tool_with_logging", NULL);
  CHECK(c.status == OXMCP_STATUS_OK, "logging tool completes");
  CHECK(wait_for_log("\"level\":\"info\""), "log notifications reach the notification callback");
  call_done(&c);

  call_init(&c);
  oxmcp_client_read_resource(client, "test://template/42/data", on_complete, &c, NULL);
  call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "Data for ID: 42"), "read a templated resource: %s", c.json);
  call_done(&c);

  call_init(&c);
  const char *pargs = "{\"arg1\":\"a\",\"arg2\":\"b\"}";
  oxmcp_client_get_prompt(client, "test_prompt_with_arguments", (const uint8_t *)pargs, strlen(pargs), on_complete, &c, NULL);
  call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "arg1='a', arg2='b'"), "get a prompt with arguments: %s", c.json);
  call_done(&c);

  call_init(&c);
  const char *raw = "{}";
  oxmcp_client_request(client, "ping", (const uint8_t *)raw, 2, 0, NULL, on_complete, &c, NULL);
  call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK && strcmp(c.json, "{}") == 0, "raw ping request: %s", c.json);
  call_done(&c);
}

/* `server_logs_cancel`: whether the "slow tag=N cancelled" log can reach us at all. It cannot
 * in the stateless era over HTTP: there the cancel closes the request's response stream, the
 * very stream the handler's log would travel on (the c-http mode checks that era's cancel
 * through the C server's cancelled_tags tool instead). */
static void test_cancellation(OxmcpClient *client, int server_logs_cancel) {
  /* The slow tool sleeps unless cancelled; when its cancellation token fires on the server it
   * logs "slow tag=N cancelled": that log proves notifications/cancelled reached the peer. */
  Call c;
  call_init(&c);
  const char *args = "{\"tag\": 7101, \"ms\": 20000}";
  OxmcpStatus st = oxmcp_client_call_tool(client, "slow", (const uint8_t *)args, strlen(args), 0, NULL, on_complete, &c, &c.req);
  REQUIRE(st == OXMCP_STATUS_OK, "slow started: %s", last_message());
  sleep_ms(300); /* let the request reach the server's handler (not an assertion) */
  CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "cancel accepted");
  CHECK(call_wait(&c) == 1, "the cancelled call completes");
  CHECK(c.status == OXMCP_STATUS_CANCELLED, "status CANCELLED (got %s: %s)", oxmcp_status_name(c.status), c.message);
  if (server_logs_cancel) CHECK(wait_for_log("slow tag=7101 cancelled"), "the server's handler saw the cancel");
  CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "a second cancel is ignored");
  sleep_ms(50);
  CHECK(c.completions == 1, "still exactly one completion (got %d)", c.completions);
  call_done(&c);

  /* Not cancelled: completes normally, and a cancel after the end changes nothing. */
  call_tool(client, &c, "slow", "{\"tag\": 7102, \"ms\": 10}");
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "slow 7102 done"), "uncancelled slow completes: %s", c.json);
  CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "cancel after the end is accepted");
  sleep_ms(50);
  CHECK(c.completions == 1 && c.status == OXMCP_STATUS_OK, "cancel after the end changes nothing");
  CHECK(count_logs("slow tag=7102 cancelled") == 0, "the server never saw a cancel for 7102");
  call_done(&c);

  /* Timeout: a local timeout, reported as such. */
  call_init(&c);
  args = "{\"tag\": 7103, \"ms\": 20000}";
  oxmcp_client_call_tool(client, "slow", (const uint8_t *)args, strlen(args), 200, NULL, on_complete, &c, NULL);
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_TIMEOUT, "timeout_ms ends the call with TIMEOUT (got %s)",
        oxmcp_status_name(c.status));
  if (server_logs_cancel) CHECK(wait_for_log("slow tag=7103 cancelled"), "a timed-out request is cancelled on the server too");
  call_done(&c);
}

/* Tasks (the tasks extension): slow_compute runs as a task; the call still completes with
 * its result, the statuses reach the progress callback, a tool error is a result, and
 * cancelling the wait cancels the task. */
static void test_tasks(OxmcpClient *client) {
  Call c;
  call_init(&c);
  const char *args = "{\"seconds\":1,\"label\":\"c-task\"}";
  OxmcpStatus st = oxmcp_client_call_tool_as_task(client, "slow_compute", (const uint8_t *)args, strlen(args), on_progress,
                                                  on_complete, &c, &c.req);
  CHECK(st == OXMCP_STATUS_OK, "call_tool_as_task started: %s", last_message());
  if (st == OXMCP_STATUS_OK) {
    CHECK(call_wait(&c) == 1, "the task's call completed once");
    CHECK(c.status == OXMCP_STATUS_OK && c.json && strstr(c.json, "c-task: computed in 1 s"), "the task's result: %s",
          c.json ? c.json : c.message);
    CHECK(c.progress >= 2 && c.progress_after_done == 0, "statuses reached the progress callback first (%d)", c.progress);
  }
  call_done(&c);

  call_init(&c);
  st = oxmcp_client_call_tool_as_task(client, "failing_job", (const uint8_t *)"{}", 2, NULL, on_complete, &c, &c.req);
  if (st == OXMCP_STATUS_OK) call_wait(&c);
  CHECK(c.status == OXMCP_STATUS_OK && c.json && strstr(c.json, "\"isError\":true"), "a task-only tool's failure is a result: %s",
        c.json ? c.json : c.message);
  call_done(&c);

  call_init(&c);
  args = "{\"seconds\":60}";
  st = oxmcp_client_call_tool_as_task(client, "slow_compute", (const uint8_t *)args, strlen(args), NULL, on_complete, &c, &c.req);
  CHECK(st == OXMCP_STATUS_OK, "a long task started: %s", last_message());
  if (st == OXMCP_STATUS_OK) {
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "cancel the wait");
    CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_CANCELLED, "the wait ends cancelled (%s)", oxmcp_status_name(c.status));
  }
  call_done(&c);
}

/* Copies the string after `"<field>":"` in `json` (or the first key of the object after
 * `"<field>":{"`) into out; 0 when absent. */
static int json_field_text(const char *json, const char *prefix, char *out, size_t n) {
  const char *p = json ? strstr(json, prefix) : NULL;
  if (!p) return 0;
  p += strlen(prefix);
  size_t i = 0;
  while (p[i] && p[i] != '"' && i + 1 < n) {
    out[i] = p[i];
    i++;
  }
  out[i] = 0;
  return i > 0;
}

/* oxmcp_client_get_task() until the status is `until` (or a failure, or 10 s);
 * leaves the last task JSON in c (to call_done). */
static void poll_task(OxmcpClient *client, const char *id, const char *until, Call *c) {
  char want[64];
  snprintf(want, sizeof want, "\"status\":\"%s\"", until);
  for (int i = 0; i < 200; i++) {
    call_init(c);
    OxmcpStatus st = oxmcp_client_get_task(client, id, on_complete, c, NULL);
    if (st != OXMCP_STATUS_OK || call_wait(c) != 1 || c->status != OXMCP_STATUS_OK) return;
    if (strstr(c->json, want)) return;
    call_done(c);
    sleep_ms(50);
  }
  call_init(c);
}

/* The task steps: start a task and follow it with get, answer its input request with update,
 * cancel one; nothing polls or answers for the client. */
static void test_task_steps(OxmcpClient *client) {
  Call c;
  char id[128] = "", key[128] = "";
  call_init(&c);
  const char *args = "{\"seconds\":1,\"label\":\"c-steps\"}";
  OxmcpStatus st = oxmcp_client_start_tool_task(client, "slow_compute", (const uint8_t *)args, strlen(args), on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "start_tool_task: %s",
        c.json ? c.json : last_message());
  CHECK(c.json && strstr(c.json, "{\"task\":") && strstr(c.json, "\"status\":\"working\"") &&
            json_field_text(c.json, "\"taskId\":\"", id, sizeof id),
        "a task, working: %s", c.json ? c.json : c.message);
  call_done(&c);
  poll_task(client, id, "completed", &c);
  CHECK(c.json && strstr(c.json, "\"status\":\"completed\"") && strstr(c.json, "c-steps: computed in 1 s"),
        "get_task until completed, with the result: %s", c.json ? c.json : c.message);
  call_done(&c);

  /* A question becomes the task's input request, answered by key. */
  call_init(&c);
  args = "{\"filename\":\"c.txt\"}";
  st = oxmcp_client_start_tool_task(client, "confirm_delete", (const uint8_t *)args, strlen(args), on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && json_field_text(c.json, "\"taskId\":\"", id, sizeof id),
        "confirm_delete started as a task: %s", c.json ? c.json : c.message);
  call_done(&c);
  poll_task(client, id, "input_required", &c);
  CHECK(json_field_text(c.json, "\"inputRequests\":{\"", key, sizeof key), "input_required with an input request: %s",
        c.json ? c.json : c.message);
  call_done(&c);
  char answer[256];
  snprintf(answer, sizeof answer, "{\"%s\":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}", key);
  call_init(&c);
  st = oxmcp_client_update_task(client, id, (const uint8_t *)answer, strlen(answer), on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "update_task answered %s: %s", key,
        c.message ? c.message : "");
  call_done(&c);
  poll_task(client, id, "completed", &c);
  CHECK(c.json && strstr(c.json, "deleted c.txt"), "the answer reached the tool: %s", c.json ? c.json : c.message);
  call_done(&c);
  CHECK(oxmcp_client_update_task(client, id, (const uint8_t *)"[]", 2, on_complete, &c, NULL) == OXMCP_STATUS_INVALID_INPUT,
        "update_task refuses responses that are not an object");

  /* Cancel a long one. */
  call_init(&c);
  args = "{\"seconds\":60}";
  st = oxmcp_client_start_tool_task(client, "slow_compute", (const uint8_t *)args, strlen(args), on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && json_field_text(c.json, "\"taskId\":\"", id, sizeof id),
        "a long task started: %s", c.json ? c.json : c.message);
  call_done(&c);
  call_init(&c);
  st = oxmcp_client_cancel_task(client, id, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "cancel_task: %s", c.message ? c.message : "");
  call_done(&c);
  /* The 2026 era's tasks/cancel only acknowledges the intent: the task ends cancelled soon
   * after (a slow host, wine, showed it still working on the next get). */
  poll_task(client, id, "cancelled", &c);
  CHECK(c.json && strstr(c.json, "\"status\":\"cancelled\""), "get_task after the cancel: %s", c.json ? c.json : c.message);
  call_done(&c);

  call_init(&c);
  st = oxmcp_client_get_task(client, "no-such-task", on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && call_wait(&c) == 1 && c.status == OXMCP_STATUS_RPC && c.has_code && c.code == -32602,
        "an unknown task is -32602 (%s %lld)", oxmcp_status_name(c.status), (long long)c.code);
  call_done(&c);
}

static void test_argument_errors(OxmcpRuntime *rt, OxmcpClient *client) {
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_call(client, NULL, "echo", NULL, 0, 0, NULL, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT, "NULL op: INVALID_INPUT");
  CHECK(oxmcp_error_status(oxmcp_last_error()) == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "op"),
        "last error names the argument: %s", last_message());
  st = oxmcp_client_call(client, "tools/frobnicate", NULL, NULL, 0, 0, NULL, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "tools/frobnicate"), "an unknown op is refused: %s",
        last_message());
  const char *bad = "{not json";
  st = oxmcp_client_call_tool(client, "echo", (const uint8_t *)bad, strlen(bad), 0, NULL, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "JSON"), "bad JSON: %s", last_message());
  st = oxmcp_client_call_tool(client, "echo", (const uint8_t *)"{}", 2, 0, NULL, NULL, NULL, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT, "NULL callback is refused");
  sleep_ms(50);
  CHECK(c.completions == 0, "refused calls never call back");
  st = oxmcp_client_ping(client, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_OK && oxmcp_last_error() == NULL, "success clears the last error");
  call_wait(&c);
  call_done(&c);

  OxmcpClient *unconnected = NULL;
  CHECK(oxmcp_client_new(rt, "c", "1", &unconnected) == OXMCP_STATUS_OK, "new client");
  st = oxmcp_client_ping(unconnected, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "not connected"), "unconnected: %s", last_message());
  oxmcp_client_free(unconnected);

  CHECK(oxmcp_client_ping(NULL, on_complete, &c, NULL) == OXMCP_STATUS_INVALID_INPUT, "NULL client");
  CHECK(strcmp(oxmcp_status_name(OXMCP_STATUS_CANCELLED), "CANCELLED") == 0, "status names");
  CHECK(oxmcp_error_status(NULL) == OXMCP_STATUS_OK && strcmp(oxmcp_error_message(NULL), "") == 0, "NULL error accessors");

  oxmcp_runtime_free(NULL);
  oxmcp_client_free(NULL);
  oxmcp_server_free(NULL);
  oxmcp_request_free(NULL);
  oxmcp_incoming_free(NULL);
  CHECK(1, "every free accepts NULL");
}

/* Reads the client's era (a static string) or "?" when the call fails. */
static const char *era_of(OxmcpClient *client) {
  const char *era = NULL;
  return oxmcp_client_era(client, &era) == OXMCP_STATUS_OK && era ? era : "?";
}

/* The era option on an unconnected client: default, names, aliases, refusals. */
static void test_era_option(OxmcpRuntime *rt) {
  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-era", "1", &client) == OXMCP_STATUS_OK, "new client");
  CHECK(strcmp(era_of(client), "auto") == 0, "the default era is auto (got %s)", era_of(client));

  OxmcpStatus st = oxmcp_client_set_era(client, "sesion");
  CHECK(st == OXMCP_STATUS_INVALID_INPUT, "an unknown era is refused (%s)", oxmcp_status_name(st));
  CHECK(strstr(last_message(), "unknown era \"sesion\"") && strstr(last_message(), "stateless"),
        "the message names the era and the choices: %s", last_message());
  CHECK(strcmp(era_of(client), "auto") == 0, "a refused era changes nothing");
  CHECK(oxmcp_client_set_era(client, "") == OXMCP_STATUS_INVALID_INPUT, "an empty era is refused");
  CHECK(oxmcp_client_set_era(client, NULL) == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "era"),
        "a NULL era is refused: %s", last_message());
  CHECK(oxmcp_client_set_era(NULL, "auto") == OXMCP_STATUS_INVALID_INPUT, "a NULL client is refused");
  CHECK(oxmcp_client_era(client, NULL) == OXMCP_STATUS_INVALID_INPUT, "a NULL out_era is refused");

  /* Names are case-insensitive and come back canonical; legacy / modern are aliases. */
  const char *names[][2] = {{"STATELESS", "stateless"}, {"legacy", "session"}, {"modern", "stateless"}, {"Session", "session"}, {"auto", "auto"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    st = oxmcp_client_set_era(client, names[i][0]);
    CHECK(st == OXMCP_STATUS_OK && strcmp(era_of(client), names[i][1]) == 0, "era %s reads back as %s (got %s: %s)",
          names[i][0], names[i][1], era_of(client), last_message());
  }
  oxmcp_client_free(client);
}

/* A port nothing listens on: bound, read, closed. */
static int free_port(void) {
#ifdef _WIN32
  WSADATA wsa;
  if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) return 0;
#endif
  int fd = (int)socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close_socket(fd);
  return port;
}

/* An unreachable server is a TRANSPORT error naming its URL, in every era. */
static void test_unreachable(OxmcpRuntime *rt) {
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", free_port());
  const char *eras[] = {"auto", "session", "stateless"};
  for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++) {
    OxmcpClient *client = NULL;
    REQUIRE(oxmcp_client_new(rt, "c-unreachable", "1", &client) == OXMCP_STATUS_OK, "new client");
    REQUIRE(oxmcp_client_set_era(client, eras[i]) == OXMCP_STATUS_OK, "era %s", eras[i]);
    Call c;
    call_init(&c);
    REQUIRE(oxmcp_client_connect_http(client, url, on_complete, &c, NULL) == OXMCP_STATUS_OK, "connect started");
    REQUIRE(call_wait(&c) == 1, "connect completed");
    CHECK(c.status == OXMCP_STATUS_TRANSPORT && c.message && strstr(c.message, url),
          "%s: an unreachable server is TRANSPORT naming its URL (got %s: %s)", eras[i], oxmcp_status_name(c.status),
          c.message ? c.message : "");
    call_done(&c);
    oxmcp_client_free(client);
  }
}

/* Once connected: the settled era, the protocol version it implies, and no more changes. */
static const char *test_settled_era(OxmcpClient *client, const char *requested, const char *connect_result, const char *server) {
  /* Both test servers speak both eras, so everything but "session" ends up stateless. */
  const char *expected = requested && strcmp(requested, "session") == 0 ? "session" : "stateless";
  CHECK(strcmp(era_of(client), expected) == 0, "era %s settles on %s (got %s)", requested ? requested : "(default)",
        expected, era_of(client));
  int stateless_version = strstr(connect_result, "\"protocolVersion\":\"2026-07-28\"") != NULL;
  CHECK(stateless_version == (strcmp(expected, "stateless") == 0), "the connect result's protocol version fits the %s era: %s",
        expected, connect_result);
  char named[128];
  snprintf(named, sizeof named, "\"serverInfo\":{\"name\":\"%s\"", server);
  CHECK(strstr(connect_result, named), "the connect result names the server %s: %s", server, connect_result);

  OxmcpStatus st = oxmcp_client_set_era(client, strcmp(expected, "session") == 0 ? "stateless" : "session");
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "before connecting"),
        "setting the era once connected is refused (%s: %s)", oxmcp_status_name(st), last_message());
  CHECK(strcmp(era_of(client), expected) == 0, "and the era stays %s", expected);
  return expected;
}

/* Whether `tag` is in the array `key` of the C server's cancelled_tags result. */
static int tag_listed(const char *json, const char *key, long tag) {
  char open[64];
  snprintf(open, sizeof open, "\"%s\":[", key);
  const char *p = json ? strstr(json, open) : NULL;
  if (!p) return 0;
  for (p += strlen(open); *p && *p != ']'; p++) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end != p && v == tag) return 1;
    if (end != p) p = end - 1;
  }
  return 0;
}

/* The C test server (server_test.c) in the client's era: a tool call, progress, logs, and a
 * cancel its handler saw, both through its cancel callback and by polling. */
static void test_c_server(OxmcpClient *client, const char *era) {
  Call c;
  char args[128];
  snprintf(args, sizeof args, "{\"text\":\"hello in the %s era\"}", era);
  call_tool(client, &c, "echo", args);
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "\"structuredContent\"") && strstr(c.json, args + 1),
        "[%s] echo: %s", era, c.json ? c.json : c.message);
  call_done(&c);

  call_tool(client, &c, "progress", "{\"steps\":3}");
  CHECK(c.status == OXMCP_STATUS_OK && c.progress == 3, "[%s] three progress callbacks (got %d)", era, c.progress);
  call_done(&c);

  /* The caller's span as `_meta.traceparent` of a request: the handler's context names it
   * (the engine records nothing here, so it arrives as sent); without one, none. */
  const char *span = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  char params[256];
  int n = snprintf(params, sizeof params, "{\"name\":\"trace\",\"arguments\":{},\"_meta\":{\"traceparent\":\"%s\"}}", span);
  call_init(&c);
  CHECK(oxmcp_client_request(client, "tools/call", (const uint8_t *)params, (size_t)n, 0, NULL, on_complete, &c, NULL) == OXMCP_STATUS_OK,
        "[%s] traced request", era);
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK && strstr(c.json, span), "[%s] the handler has the caller's span: %s", era,
        c.json ? c.json : c.message);
  call_done(&c);
  /* The same through the client door: the op as an object naming the caller's span. */
  n = snprintf(params, sizeof params, "{\"op\":\"tools/call\",\"traceparent\":\"%s\",\"tracestate\":\"k=v\"}", span);
  call_init(&c);
  CHECK(oxmcp_client_call(client, params, "trace", (const uint8_t *)"{}", 2, 0, NULL, on_complete, &c, NULL) == OXMCP_STATUS_OK,
        "[%s] traced call through the door", era);
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK && strstr(c.json, span), "[%s] the door's traceparent reaches the handler: %s",
        era, c.json ? c.json : c.message);
  call_done(&c);
  const char *bad_ops[] = {"{\"op\":\"tools/call\",\"traceparent\":\"00-nonsense\"}", "{\"op\":\"tools/call\",\"colour\":1}", "{\"op\":"};
  for (size_t i = 0; i < sizeof bad_ops / sizeof *bad_ops; i++) {
    call_init(&c);
    CHECK(oxmcp_client_call(client, bad_ops[i], "trace", NULL, 0, 0, NULL, on_complete, &c, NULL) == OXMCP_STATUS_INVALID_INPUT,
          "[%s] the door refuses the op %s at once", era, bad_ops[i]);
    CHECK(c.completions == 0, "[%s] and never calls back for it", era);
    call_done(&c);
  }
  call_tool(client, &c, "trace", "{}");
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "\"none\""), "[%s] no span, no trace context: %s", era, c.json ? c.json : c.message);
  call_done(&c);

  call_init(&c);
  CHECK(oxmcp_client_set_log_level(client, "info", on_complete, &c, NULL) == OXMCP_STATUS_OK, "[%s] set log level", era);
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "[%s] log level set", era);
  call_done(&c);
  call_tool(client, &c, "log", "{}");
  CHECK(c.status == OXMCP_STATUS_OK && wait_for_log("first log"), "[%s] the handler's logs arrive", era);
  call_done(&c);

  /* A tag of this process: the HTTP server outlives one client and remembers every tag. */
  long tag = 900000 + (long)getpid() % 100000;
  call_init(&c);
  snprintf(args, sizeof args, "{\"tag\": %ld, \"ms\": 20000}", tag);
  OxmcpStatus st = oxmcp_client_call_tool(client, "slow", (const uint8_t *)args, strlen(args), 0, NULL, on_complete, &c, &c.req);
  REQUIRE(st == OXMCP_STATUS_OK, "slow started: %s", last_message());
  sleep_ms(300); /* let the request reach the handler (not an assertion) */
  CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "[%s] cancel accepted", era);
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_CANCELLED, "[%s] the cancelled call ends CANCELLED (got %s)", era,
        oxmcp_status_name(c.status));
  call_done(&c);
  int seen = 0;
  for (int i = 0; i < 100 && !seen; i++) {
    call_tool(client, &c, "cancelled_tags", "{}");
    seen = c.status == OXMCP_STATUS_OK && tag_listed(c.json, "callback", tag) && tag_listed(c.json, "poll", tag);
    call_done(&c);
    if (!seen) sleep_ms(100);
  }
  CHECK(seen, "[%s] the C handler saw the cancel of tag %ld (callback and polling)", era, tag);
}

/* The client's answers to the server's requests (sampling, elicitation), through
 * oxmcp_client_on_request(). In "hold" mode the callback keeps the request and registers a
 * cancel callback instead of answering. Results are recorded here and checked on the main
 * thread. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int asked, hold, cancelled;
  int second_refused, ask_refused;
  char method[64];
  OxmcpIncoming *held;
} g_ans = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, "", NULL};

static void on_server_cancel(void *ud) {
  (void)ud;
  pthread_mutex_lock(&g_ans.mu);
  g_ans.cancelled++;
  pthread_cond_broadcast(&g_ans.cv);
  pthread_mutex_unlock(&g_ans.mu);
}

static void on_server_request(void *ud, OxmcpIncoming *req, const char *method, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  pthread_mutex_lock(&g_ans.mu);
  g_ans.asked++;
  snprintf(g_ans.method, sizeof g_ans.method, "%s", method);
  if (g_ans.hold) {
    g_ans.held = req;
    oxmcp_incoming_on_cancel(req, on_server_cancel, NULL);
    pthread_cond_broadcast(&g_ans.cv);
    pthread_mutex_unlock(&g_ans.mu);
    return;
  }
  pthread_mutex_unlock(&g_ans.mu);
  const char *result;
  if (strcmp(method, "sampling/createMessage") == 0) {
    result = "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"c-model says hi\"},\"model\":\"c-test\"}";
  } else if (strcmp(method, "elicitation/create") == 0) {
    result = "{\"action\":\"accept\",\"content\":{\"username\":\"ada\",\"email\":\"ada@example.com\"}}";
  } else {
    result = "{\"roots\":[{\"uri\":\"file:///tmp/c-root\",\"name\":\"c-root\"}]}";
  }
  /* Only a server handler's request can ask the client (a client's has no request
   * context: the engine answers CLOSED): nothing starts, no callback. The answer's shape
   * is the engine's to check (a wrong one fails the server's request as a handler error). */
  int ask_refused = oxmcp_incoming_ask_client(req, "roots/list", NULL, 0, on_complete, NULL, NULL) == OXMCP_STATUS_CLOSED;
  oxmcp_incoming_complete(req, (const uint8_t *)result, strlen(result));
  int again = oxmcp_incoming_complete(req, (const uint8_t *)result, strlen(result)) == OXMCP_STATUS_INVALID_INPUT;
  oxmcp_incoming_free(req);
  pthread_mutex_lock(&g_ans.mu);
  g_ans.second_refused += again;
  g_ans.ask_refused += ask_refused;
  pthread_mutex_unlock(&g_ans.mu);
}

static void test_client_answers(OxmcpClient *client, const char *era) {
  Call c;
  call_tool(client, &c, "test_sampling", "{\"prompt\": \"hello\"}");
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "LLM response: c-model says hi"), "sampling answered by C: %s",
        c.json ? c.json : c.message);
  call_done(&c);
  call_tool(client, &c, "test_elicitation", "{\"message\": \"who?\"}");
  CHECK(c.status == OXMCP_STATUS_OK && strstr(c.json, "ada@example.com"), "elicitation answered by C: %s",
        c.json ? c.json : c.message);
  call_done(&c);
  pthread_mutex_lock(&g_ans.mu);
  CHECK(g_ans.asked == 2, "the request callback ran twice (%d)", g_ans.asked);
  CHECK(g_ans.second_refused == 2, "a second completion is refused");
  CHECK(g_ans.ask_refused == 2, "a client's incoming request cannot ask the client (oxmcp_incoming_ask_client)");
  pthread_mutex_unlock(&g_ans.mu);

  /* The server cancelling its sampling request reaches the C callback (session era: the
   * tool call's cancel makes the server cancel the request it is waiting on). */
  if (strcmp(era, "session") != 0) return;
  pthread_mutex_lock(&g_ans.mu);
  g_ans.hold = 1;
  pthread_mutex_unlock(&g_ans.mu);
  call_init(&c);
  const char *args = "{\"prompt\": \"wait\"}";
  OxmcpStatus st = oxmcp_client_call_tool(client, "test_sampling", (const uint8_t *)args, strlen(args), 0, NULL, on_complete, &c, &c.req);
  REQUIRE(st == OXMCP_STATUS_OK, "held sampling started");
  struct timespec ts;
  deadline_in(&ts, 30000);
  pthread_mutex_lock(&g_ans.mu);
  while (!g_ans.held && pthread_cond_timedwait(&g_ans.cv, &g_ans.mu, &ts) != ETIMEDOUT) {}
  pthread_mutex_unlock(&g_ans.mu);
  REQUIRE(g_ans.held, "the held sampling request arrived");
  CHECK(oxmcp_request_cancel(c.req) == OXMCP_STATUS_OK, "tool call cancelled");
  CHECK(call_wait(&c) == 1 && c.status == OXMCP_STATUS_CANCELLED, "the tool call ends CANCELLED");
  pthread_mutex_lock(&g_ans.mu);
  while (g_ans.cancelled == 0 && pthread_cond_timedwait(&g_ans.cv, &g_ans.mu, &ts) != ETIMEDOUT) {}
  int cancelled = g_ans.cancelled;
  OxmcpIncoming *held = g_ans.held;
  g_ans.held = NULL;
  g_ans.hold = 0;
  pthread_mutex_unlock(&g_ans.mu);
  CHECK(cancelled == 1, "the server's cancel reached the C request callback (%d)", cancelled);
  oxmcp_incoming_free(held);
  call_done(&c);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s stdio OXMCP_BIN [ERA] | http URL [ERA] | c-stdio SERVER_TEST [ERA] | c-http URL [ERA]\n", argv[0]);
    return 2;
  }
  int c_server = strncmp(argv[1], "c-", 2) == 0;
  int stdio = strcmp(argv[1] + (c_server ? 2 : 0), "stdio") == 0;
  const char *era = argc > 3 ? argv[3] : NULL;
  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  test_era_option(rt);
  test_unreachable(rt);
  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-client-test", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  REQUIRE(oxmcp_client_on_notification(client, on_notification, NULL) == OXMCP_STATUS_OK, "notification callback");
  CHECK(oxmcp_client_on_request(client, "sampling,tasks", on_server_request, NULL) == OXMCP_STATUS_INVALID_INPUT,
        "an unknown request kind is refused");
  REQUIRE(oxmcp_client_on_request(client, "sampling,elicitation,roots", on_server_request, NULL) == OXMCP_STATUS_OK,
          "request callback");
  if (era) REQUIRE(oxmcp_client_set_era(client, era) == OXMCP_STATUS_OK, "set era %s: %s", era, last_message());

  Call c;
  call_init(&c);
  OxmcpStatus st;
  if (stdio && c_server) {
    const char *args[] = {"--stdio"};
    st = oxmcp_client_connect_stdio(client, argv[2], args, 1, on_complete, &c, NULL);
  } else if (stdio) {
    const char *args[] = {"everything-server", "--stdio"};
    st = oxmcp_client_connect_stdio(client, argv[2], args, 2, on_complete, &c, NULL);
  } else {
    st = oxmcp_client_connect_http(client, argv[2], on_complete, &c, NULL);
  }
  REQUIRE(st == OXMCP_STATUS_OK, "connect started: %s", last_message());
  REQUIRE(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "connected: %s", c.message ? c.message : "");
  CHECK(strstr(c.json, "\"serverInfo\"") && strstr(c.json, "\"protocolVersion\""), "initialize result: %s", c.json);
  const char *settled = test_settled_era(client, era, c.json, c_server ? "c-test-server" : "oxmcp-everything");
  call_done(&c);

  if (c_server) {
    test_c_server(client, settled);
  } else {
    st = oxmcp_client_connect_http(client, "http://127.0.0.1:1/mcp", on_complete, &c, NULL);
    CHECK(st == OXMCP_STATUS_INVALID_INPUT, "a connected client cannot connect again");
    test_calls(client);
    test_cancellation(client, stdio || strcmp(settled, "session") == 0);
    test_tasks(client);
    test_task_steps(client);
    test_client_answers(client, settled);
    CHECK(oxmcp_client_on_request(client, "roots", on_server_request, NULL) == OXMCP_STATUS_INVALID_INPUT,
          "the request callback cannot change once connected");
    test_argument_errors(rt, client);
  }

  /* Shutdown with a request in flight: its callback runs once, with CLOSED. The C server over
   * HTTP outlives this client, and in the session era a dropped connection is no cancel, so
   * its handler runs to the end and the server's stop waits for it: keep that short. */
  call_init(&c);
  const char *args = c_server ? "{\"tag\": 7104, \"ms\": 2000}" : "{\"tag\": 7104, \"ms\": 20000}";
  st = oxmcp_client_call_tool(client, "slow", (const uint8_t *)args, strlen(args), 0, NULL, on_complete, &c, &c.req);
  CHECK(st == OXMCP_STATUS_OK, "slow before shutdown");
  sleep_ms(100);
  CHECK(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "runtime shutdown");
  CHECK(c.completions == 1, "the pending call completed exactly once by shutdown's return (%d)", c.completions);
  CHECK(c.status == OXMCP_STATUS_CLOSED || c.status == OXMCP_STATUS_CANCELLED, "pending call: CLOSED (got %s)",
        oxmcp_status_name(c.status));
  Call after;
  call_init(&after);
  st = oxmcp_client_ping(client, on_complete, &after, NULL);
  CHECK(st == OXMCP_STATUS_CLOSED || st == OXMCP_STATUS_INVALID_INPUT, "calls after shutdown fail (%s)", oxmcp_status_name(st));
  CHECK(after.completions == 0, "and never call back");
  call_done(&after);
  CHECK(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "shutdown is idempotent");
  call_done(&c);
  oxmcp_client_free(client);
  oxmcp_runtime_free(rt);

  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
