/*
 * A single-threaded C program on a "queued" runtime: a server and a client in one process over
 * Streamable HTTP, every callback (the tool handler, progress, completions) run by
 * oxmcp_runtime_run_pending() on the main thread, nothing before the program drains, and the
 * blocking oxmcp_client_call_wait(). Prints "N passed, M failed".
 */
#include "harness.h"

static pthread_t g_main;
static int g_off_main; /* callbacks that ran on another thread */

static void on_main(void) {
  if (!pthread_equal(pthread_self(), g_main)) g_off_main++;
}

/* `count`: reports progress 1..3, then answers "counted N". No lock anywhere: every
 * callback runs on the main thread. */
static void count_tool(void *user_data, OxmcpIncoming *request, const uint8_t *params, size_t len) {
  (void)params;
  (void)len;
  int *handled = (int *)user_data;
  on_main();
  (*handled)++;
  for (int i = 1; i <= 3; i++) oxmcp_incoming_progress(request, i, true, 3, NULL);
  char text[96];
  snprintf(text, sizeof text, "{\"content\":[{\"type\":\"text\",\"text\":\"counted %d\"}]}", *handled);
  oxmcp_incoming_complete(request, (const uint8_t *)text, strlen(text));
  oxmcp_incoming_free(request);
}

typedef struct {
  bool done;
  OxmcpStatus status;
  int progress_seen;
  int progress_after_done;
} Step;

static void step_done(void *user_data, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *error) {
  (void)json;
  (void)len;
  (void)error;
  Step *s = (Step *)user_data;
  on_main();
  s->status = status;
  s->done = true;
}

static void step_progress(void *user_data, double progress, bool has_total, double total, const char *message) {
  (void)progress;
  (void)has_total;
  (void)total;
  (void)message;
  Step *s = (Step *)user_data;
  on_main();
  s->progress_seen++;
  if (s->done) s->progress_after_done++;
}

int main(void) {
  g_main = pthread_self();

  OxmcpRuntime *bad = NULL;
  CHECK(oxmcp_runtime_create("{\"callbacks\":\"sideways\"}", &bad) == OXMCP_STATUS_INVALID_INPUT && bad == NULL,
        "unknown callbacks mode refused");
  OxmcpRuntime *threads = NULL;
  REQUIRE(oxmcp_runtime_create(NULL, &threads) == OXMCP_STATUS_OK, "%s", last_message());
  CHECK(oxmcp_runtime_run_pending(threads, 0, NULL) == OXMCP_STATUS_INVALID_INPUT &&
            strstr(last_message(), "queued") != NULL,
        "a threads runtime has nothing to drain: %s", last_message());
  oxmcp_runtime_shutdown(threads);
  oxmcp_runtime_free(threads);

  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_create("{\"callbacks\":\"queued\",\"workerThreads\":1}", &rt) == OXMCP_STATUS_OK, "%s",
          last_message());
  OxmcpServer *server = NULL;
  REQUIRE(oxmcp_server_new(rt, "queued", "1.0", &server) == OXMCP_STATUS_OK, "%s", last_message());
  int handled = 0;
  const char *tool = "{\"name\":\"count\",\"inputSchema\":{\"type\":\"object\"}}";
  REQUIRE(oxmcp_server_add_tool(server, (const uint8_t *)tool, strlen(tool), count_tool, &handled) == OXMCP_STATUS_OK,
          "%s", last_message());
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http(server, "127.0.0.1:0", NULL, 0, &port) == OXMCP_STATUS_OK, "%s", last_message());
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);

  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "queued-client", "1.0", &client) == OXMCP_STATUS_OK, "%s", last_message());
  Step connect = {0};
  REQUIRE(oxmcp_client_connect_http(client, url, step_done, &connect, NULL) == OXMCP_STATUS_OK, "%s", last_message());
  REQUIRE(oxmcp_runtime_run_until(rt, &connect.done) == OXMCP_STATUS_OK && connect.status == OXMCP_STATUS_OK,
          "connect: %s", oxmcp_status_name(connect.status));

  /* Started, then left alone: neither the handler nor the completion runs until the program
   * drains, however long it waits. */
  Step call = {0};
  const char *args = "{}";
  REQUIRE(oxmcp_client_call(client, "tools/call", "count", (const uint8_t *)args, 2, 0, step_progress, step_done,
                            &call, NULL) == OXMCP_STATUS_OK,
          "%s", last_message());
  struct timespec pause = {0, 300 * 1000 * 1000};
  nanosleep(&pause, NULL);
  CHECK(handled == 0 && !call.done, "nothing ran before draining (handled %d)", handled);
  REQUIRE(oxmcp_runtime_run_until(rt, &call.done) == OXMCP_STATUS_OK, "%s", last_message());
  CHECK(call.status == OXMCP_STATUS_OK && handled == 1, "the call ended: %s", oxmcp_status_name(call.status));
  CHECK(call.progress_seen == 3 && call.progress_after_done == 0, "progress in order, before the end: %d seen, %d late",
        call.progress_seen, call.progress_after_done);

  /* The blocking call. */
  OxmcpOutcome r;
  OxmcpStatus st = oxmcp_client_call_wait(rt, client, "tools/call", "count", "{}", 0, &r);
  CHECK(st == OXMCP_STATUS_OK && r.json && strstr(r.json, "counted 2"), "call_wait: %s %s",
        oxmcp_status_name(st), r.json ? r.json : r.message);
  oxmcp_outcome_free(&r);
  st = oxmcp_client_call_wait(rt, client, "tools/call", "nope", "{}", 0, &r);
  CHECK(st == OXMCP_STATUS_RPC && r.has_code && r.code == -32602 && r.message, "an unknown tool: %s %lld",
        oxmcp_status_name(st), (long long)r.code);
  oxmcp_outcome_free(&r);

  CHECK(g_off_main == 0, "%d callbacks ran off the main thread", g_off_main);

  /* Shutdown runs what is still queued (the close's completion) on this thread. */
  Step closed = {0};
  CHECK(oxmcp_client_close(client, step_done, &closed) == OXMCP_STATUS_OK, "%s", last_message());
  oxmcp_runtime_shutdown(rt);
  CHECK(closed.done, "the close's completion ran by the end of shutdown");
  oxmcp_client_free(client);
  oxmcp_server_free(server);
  oxmcp_runtime_free(rt);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
