/*
 * A C MCP server on the oxmcp C ABI, driven by the official TypeScript SDK client
 * (tests/ts/c_server.test.mjs).
 *
 *   server_test --stdio     serves on stdin/stdout; exits 0 when stdin closes
 *   server_test --http      binds 127.0.0.1:0, prints "LISTENING <port>" on stdout, serves
 *                           until stdin closes, then exits 0
 *
 * Tools: echo (completed inside the callback), slow (completed later by a worker thread;
 * cancel seen both through oxmcp_incoming_on_cancel and by polling
 * oxmcp_incoming_is_cancelled), cancelled_tags (the slow calls started and what the cancel
 * paths saw), progress, log,
 * fail (isError), rpc_fail (JSON-RPC error with data). A resource and a prompt.
 * Everything is released before exit, so a valgrind run can check for leaks.
 */
#include <stdatomic.h>
#include <unistd.h>

#include "harness.h"

#define MAX_TAGS 64
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static long g_cb_tags[MAX_TAGS], g_poll_tags[MAX_TAGS], g_started_tags[MAX_TAGS];
static int g_cb_count, g_poll_count, g_started_count;

static void record(long *tags, int *count, long tag) {
  pthread_mutex_lock(&g_mu);
  if (*count < MAX_TAGS) tags[(*count)++] = tag;
  pthread_mutex_unlock(&g_mu);
}

/* A tiny extractor for integer fields of the (compact, engine-made) arguments JSON. */
static long json_int(const uint8_t *json, size_t len, const char *key) {
  char *s = dup_bytes(json, len);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  char *p = strstr(s, pat);
  long v = p ? strtol(p + strlen(pat), NULL, 10) : 0;
  free(s);
  return v;
}

static void complete_text(OxmcpIncoming *req, const char *text) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}", text);
  if (oxmcp_incoming_complete(req, (const uint8_t *)buf, (size_t)n) != OXMCP_STATUS_OK)
    fprintf(stderr, "server_test: complete failed: %s\n", last_message());
}

static void echo_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  /* The arguments were validated against {"text": string}: wrap them as the result. */
  char *args = dup_bytes(params, len);
  size_t cap = len + 128;
  char *result = malloc(cap);
  int n = snprintf(result, cap, "{\"content\":[{\"type\":\"text\",\"text\":\"echo\"}],\"structuredContent\":%s}", args);
  oxmcp_incoming_complete(req, (const uint8_t *)result, (size_t)n);
  oxmcp_incoming_free(req);
  free(result);
  free(args);
}

typedef struct {
  OxmcpIncoming *req;
  long tag, ms, steps;
  atomic_int cancelled;
} Job;

static void on_job_cancel(void *ud) {
  Job *job = ud;
  atomic_store(&job->cancelled, 1);
  record(g_cb_tags, &g_cb_count, job->tag);
}

static void *slow_worker(void *arg) {
  Job *job = arg;
  int polled = 0;
  for (long waited = 0; waited < job->ms; waited += 10) {
    bool c = false;
    oxmcp_incoming_is_cancelled(job->req, &c);
    if (c && !polled) {
      polled = 1;
      record(g_poll_tags, &g_poll_count, job->tag);
    }
    if (c && atomic_load(&job->cancelled)) break;
    sleep_ms(10);
  }
  if (polled) {
    /* Completing a cancelled request is allowed: the result is dropped. */
    oxmcp_incoming_fail(job->req, "cancelled");
  } else {
    char text[64];
    snprintf(text, sizeof text, "slow %ld done", job->tag);
    complete_text(job->req, text);
  }
  oxmcp_incoming_free(job->req); /* after this, on_job_cancel cannot run: job may go */
  free(job);
  return NULL;
}

static void start_worker(void *(*fn)(void *), Job *job) {
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&t, &attr, fn, job);
  pthread_attr_destroy(&attr);
}

static void slow_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  Job *job = calloc(1, sizeof *job);
  job->req = req;
  job->tag = json_int(params, len, "tag");
  job->ms = json_int(params, len, "ms");
  /* What a client waits for before it cancels: a call cancelled before its handler ran never runs it. */
  record(g_started_tags, &g_started_count, job->tag);
  if (oxmcp_incoming_on_cancel(req, on_job_cancel, job) != OXMCP_STATUS_OK)
    fprintf(stderr, "server_test: on_cancel failed: %s\n", last_message());
  start_worker(slow_worker, job);
}

static void cancelled_tags_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  char list[3][512];
  long *lists[3] = {g_cb_tags, g_poll_tags, g_started_tags};
  int counts[3];
  pthread_mutex_lock(&g_mu);
  counts[0] = g_cb_count;
  counts[1] = g_poll_count;
  counts[2] = g_started_count;
  for (int k = 0; k < 3; k++) {
    long *tags = lists[k];
    int count = counts[k];
    int n = snprintf(list[k], sizeof list[k], "[");
    for (int i = 0; i < count; i++) n += snprintf(list[k] + n, sizeof list[k] - n, "%s%ld", i ? "," : "", tags[i]);
    snprintf(list[k] + n, sizeof list[k] - n, "]");
  }
  pthread_mutex_unlock(&g_mu);
  char buf[1800];
  int n = snprintf(buf, sizeof buf,
                   "{\"content\":[{\"type\":\"text\",\"text\":\"tags\"}],"
                   "\"structuredContent\":{\"callback\":%s,\"poll\":%s,\"started\":%s}}",
                   list[0], list[1], list[2]);
  oxmcp_incoming_complete(req, (const uint8_t *)buf, (size_t)n);
  oxmcp_incoming_free(req);
}

static void *progress_worker(void *arg) {
  Job *job = arg;
  for (long i = 1; i <= job->steps; i++) {
    char msg[32];
    snprintf(msg, sizeof msg, "step %ld", i);
    oxmcp_incoming_progress(job->req, (double)i, true, (double)job->steps, msg);
  }
  complete_text(job->req, "progress done");
  oxmcp_incoming_free(job->req);
  free(job);
  return NULL;
}

static void progress_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  Job *job = calloc(1, sizeof *job);
  job->req = req;
  job->steps = json_int(params, len, "steps");
  start_worker(progress_worker, job);
}

static void log_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *a = "\"first log\"", *b = "{\"n\":2}";
  oxmcp_incoming_log(req, "info", "host-server", (const uint8_t *)a, strlen(a));
  oxmcp_incoming_log(req, "warning", "host-server", (const uint8_t *)b, strlen(b));
  complete_text(req, "logged");
  oxmcp_incoming_free(req);
}

static void fail_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  oxmcp_incoming_fail(req, "it broke");
  oxmcp_incoming_free(req);
}

static void rpc_fail_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *data = "{\"detail\":1}";
  oxmcp_incoming_fail_rpc(req, -32042, "custom failure", (const uint8_t *)data, strlen(data));
  oxmcp_incoming_free(req);
}

static void bad_result_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  /* Not JSON (any JSON value is a tool's result by the engine's rule): refused, and the
   * request stays open for a proper answer. */
  const char *bad = "{\"content\": 5";
  OxmcpStatus st = oxmcp_incoming_complete(req, (const uint8_t *)bad, strlen(bad));
  char text[256];
  snprintf(text, sizeof text, "refused %s", oxmcp_status_name(st));
  complete_text(req, text);
  oxmcp_incoming_free(req);
}

/* Answers with the trace context the engine gives the request (`info`'s `traceparent`):
 * what a C host hands its own tracer to make its spans children of the request's. */
static void trace_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  char *info = NULL, text[64] = "none";
  if (oxmcp_incoming_info(req, &info, NULL) == OXMCP_STATUS_OK) {
    const char *key = "\"traceparent\":\"", *at = strstr(info, key);
    if (at) {
      at += strlen(key);
      size_t n = strcspn(at, "\"");
      if (n < sizeof text) snprintf(text, sizeof text, "%.*s", (int)n, at);
    }
    free(info);
  }
  complete_text(req, text);
  oxmcp_incoming_free(req);
}

static void hello_resource(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *r = "{\"contents\":[{\"uri\":\"c://hello\",\"mimeType\":\"text/plain\",\"text\":\"hello from C\"}]}";
  oxmcp_incoming_complete(req, (const uint8_t *)r, strlen(r));
  oxmcp_incoming_free(req);
}

static void greet_prompt(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud;
  char *args = dup_bytes(params, len); /* {"name":"..."} */
  char *name = strstr(args, "\"name\":\"");
  char who[64] = "?";
  if (name) sscanf(name + 8, "%63[^\"]", who);
  char buf[256];
  int n = snprintf(buf, sizeof buf, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hello, %s!\"}}]}", who);
  oxmcp_incoming_complete(req, (const uint8_t *)buf, (size_t)n);
  oxmcp_incoming_free(req);
  free(args);
}

static void add(OxmcpServer *s, const char *json, OxmcpHandlerFn h) {
  REQUIRE(oxmcp_server_add_tool(s, (const uint8_t *)json, strlen(json), h, NULL) == OXMCP_STATUS_OK, "add tool: %s",
          last_message());
}

static pthread_mutex_t g_done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER;
static int g_done;

static void on_served(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  (void)ud; (void)json; (void)len;
  if (st != OXMCP_STATUS_OK) fprintf(stderr, "server_test: serve ended: %s\n", oxmcp_error_message(err));
  pthread_mutex_lock(&g_done_mu);
  g_done = 1;
  pthread_cond_broadcast(&g_done_cv);
  pthread_mutex_unlock(&g_done_mu);
}

int main(int argc, char **argv) {
  int http = argc > 1 && strcmp(argv[1], "--http") == 0;
  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  OxmcpServer *s = NULL;
  REQUIRE(oxmcp_server_new(rt, "c-test-server", "1.2.3", &s) == OXMCP_STATUS_OK, "server");
  oxmcp_server_set_instructions(s, "A test server written in C.");
  add(s, "{\"name\":\"echo\",\"description\":\"Echoes its arguments\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}", echo_tool);
  add(s, "{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"integer\"},\"ms\":{\"type\":\"integer\"}},\"required\":[\"tag\",\"ms\"]}}", slow_tool);
  add(s, "{\"name\":\"cancelled_tags\",\"inputSchema\":{\"type\":\"object\"}}", cancelled_tags_tool);
  add(s, "{\"name\":\"progress\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}}}}", progress_tool);
  add(s, "{\"name\":\"log\",\"inputSchema\":{\"type\":\"object\"}}", log_tool);
  add(s, "{\"name\":\"fail\",\"inputSchema\":{\"type\":\"object\"}}", fail_tool);
  add(s, "{\"name\":\"rpc_fail\",\"inputSchema\":{\"type\":\"object\"}}", rpc_fail_tool);
  add(s, "{\"name\":\"bad_result\",\"inputSchema\":{\"type\":\"object\"}}", bad_result_tool);
  add(s, "{\"name\":\"trace\",\"inputSchema\":{\"type\":\"object\"}}", trace_tool);
  const char *bad_tool = "{\"name\": 3}";
  REQUIRE(oxmcp_server_add_tool(s, (const uint8_t *)bad_tool, strlen(bad_tool), echo_tool, NULL) == OXMCP_STATUS_INVALID_INPUT,
          "a malformed tool definition is refused");
  const char *res = "{\"uri\":\"c://hello\",\"name\":\"hello\",\"mimeType\":\"text/plain\"}";
  REQUIRE(oxmcp_server_add_resource(s, (const uint8_t *)res, strlen(res), hello_resource, NULL) == OXMCP_STATUS_OK, "resource");
  const char *prompt = "{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}";
  REQUIRE(oxmcp_server_add_prompt(s, (const uint8_t *)prompt, strlen(prompt), greet_prompt, NULL) == OXMCP_STATUS_OK, "prompt");

  if (http) {
    uint16_t port = 0;
    REQUIRE(oxmcp_server_start_http(s, "127.0.0.1:0", NULL, 0, &port) == OXMCP_STATUS_OK, "http: %s", last_message());
    printf("LISTENING %u\n", port);
    fflush(stdout);
    char buf[256];
    while (read(0, buf, sizeof buf) > 0) {
    }
    REQUIRE(oxmcp_server_stop_http(s) == OXMCP_STATUS_OK, "stop http: %s", last_message());
  } else {
    OxmcpRequest *serving = NULL;
    REQUIRE(oxmcp_server_serve_stdio(s, on_served, NULL, &serving) == OXMCP_STATUS_OK, "serve: %s", last_message());
    pthread_mutex_lock(&g_done_mu);
    while (!g_done) pthread_cond_wait(&g_done_cv, &g_done_mu);
    pthread_mutex_unlock(&g_done_mu);
    oxmcp_request_free(serving);
  }
  oxmcp_server_free(s);
  REQUIRE(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "shutdown");
  oxmcp_runtime_free(rt);
  fprintf(stderr, "server_test: clean exit\n");
  return 0;
}
