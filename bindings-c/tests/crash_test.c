/*
 * A child server that crashes in the middle of several calls, on the oxmcp C ABI:
 *
 *   crash_test /path/to/oxmcp     (spawns `oxmcp everything-server --stdio --with-crash-tool`)
 *
 * Session era. Three `slow` calls (20 s each) and one `crash` call (after 200 ms the server
 * writes "fatal: crash requested" to stderr and exits with status 3) are started together
 * with oxmcp_client_call_tool(). Every one completes exactly once with OXMCP_STATUS_CLOSED, its
 * message carrying "exit status: 3" and that stderr line, within 5 s; a call made after the
 * crash fails with OXMCP_STATUS_CLOSED too (refused at once, or completed with it). Every wait
 * is bounded (call_wait: 30 s).
 *
 * Then forty servers that exit at once: the client's writes meet closed pipes, and this
 * process, which keeps SIGPIPE at its default like any C program, must survive each.
 *
 * Not run under valgrind: the child's supervisor is a fork of this process (see
 * core/src/transport/child/supervisor.rs), so valgrind checks that copy's leaks when it
 * exits with the server's status, and its --error-exitcode replaces the 3 this test expects.
 * Ends with "N passed, M failed".
 */
#include "harness.h"

/* Milliseconds on the monotonic clock. */
static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_every_pending_call_fails_with_the_exit_status_and_stderr_when_the_server_crashes(OxmcpRuntime *rt,
                                                                                                const char *oxmcp_bin) {
  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-crash-test", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  REQUIRE(oxmcp_client_set_era(client, "session") == OXMCP_STATUS_OK, "set era: %s", last_message());
  Call c;
  call_init(&c);
  const char *args[] = {"everything-server", "--stdio", "--with-crash-tool"};
  OxmcpStatus st = oxmcp_client_connect_stdio(client, oxmcp_bin, args, 3, on_complete, &c, NULL);
  REQUIRE(st == OXMCP_STATUS_OK, "connect started: %s", last_message());
  REQUIRE(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "connected: %s", c.message ? c.message : "");
  call_done(&c);

  enum { N = 4 };
  const char *names[N] = {"slow", "slow", "slow", "crash"};
  const char *arguments[N] = {"{\"tag\": 1, \"ms\": 20000}", "{\"tag\": 2, \"ms\": 20000}", "{\"tag\": 3, \"ms\": 20000}",
                              "{\"ms\": 200}"};
  Call calls[N];
  int started[N];
  long long t0 = now_ms();
  for (int i = 0; i < N; i++) {
    call_init(&calls[i]);
    st = oxmcp_client_call_tool(client, names[i], (const uint8_t *)arguments[i], strlen(arguments[i]), 0, NULL,
                                on_complete, &calls[i], &calls[i].req);
    started[i] = st == OXMCP_STATUS_OK;
    CHECK(started[i], "call %d (%s) started: %s", i, names[i], last_message());
  }
  for (int i = 0; i < N; i++) {
    if (!started[i]) continue;
    CHECK(call_wait(&calls[i]) == 1, "call %d (%s) completed once (got %d)", i, names[i], calls[i].completions);
    CHECK(calls[i].status == OXMCP_STATUS_CLOSED, "call %d (%s) ends CLOSED (got %s: %s)", i, names[i],
          oxmcp_status_name(calls[i].status), calls[i].message ? calls[i].message : calls[i].json);
    CHECK(calls[i].message && strstr(calls[i].message, "exit status: 3") && strstr(calls[i].message, "fatal: crash requested"),
          "call %d (%s): the message carries the exit status and the stderr line: %s", i, names[i],
          calls[i].message ? calls[i].message : "(none)");
  }
  long long took = now_ms() - t0;
  CHECK(took < 5000, "every pending call failed within 5 s (took %lld ms)", took);

  /* A later call: refused at once (no callback) or started and completed with CLOSED. */
  Call after;
  call_init(&after);
  const char *echo = "{\"text\": \"x\"}";
  st = oxmcp_client_call_tool(client, "echo", (const uint8_t *)echo, strlen(echo), 5000, NULL, on_complete, &after,
                              &after.req);
  if (st == OXMCP_STATUS_OK) {
    CHECK(call_wait(&after) == 1 && after.status == OXMCP_STATUS_CLOSED, "a call after the crash ends CLOSED (got %s: %s)",
          oxmcp_status_name(after.status), after.message ? after.message : after.json);
  } else {
    CHECK(st == OXMCP_STATUS_CLOSED, "a call after the crash is refused with CLOSED (got %s: %s)", oxmcp_status_name(st),
          last_message());
    CHECK(after.completions == 0, "and never calls back");
  }
  call_done(&after);
  for (int i = 0; i < N; i++) call_done(&calls[i]);
  oxmcp_client_free(client);
}

/* A server that exits before reading anything, many times over: the client's first write to
 * its stdin finds the pipe closed. A C program keeps SIGPIPE at its default action (death),
 * so this process survives only if the library never raises it; each connect must report
 * the exit status and the stderr line instead. */
static void test_a_server_that_exits_at_once_is_reported_and_the_host_survives(OxmcpRuntime *rt) {
  const char *args[] = {"-c", "echo boom >&2; exit 3"};
  int reported = 0;
  for (int i = 0; i < 40; i++) {
    OxmcpClient *client = NULL;
    REQUIRE(oxmcp_client_new(rt, "c-crash-test", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
    REQUIRE(oxmcp_client_set_era(client, "session") == OXMCP_STATUS_OK, "set era: %s", last_message());
    Call c;
    call_init(&c);
    OxmcpStatus st = oxmcp_client_connect_stdio(client, "sh", args, 2, on_complete, &c, NULL);
    if (st == OXMCP_STATUS_OK && call_wait(&c) == 1 && c.status == OXMCP_STATUS_CLOSED && c.message &&
        strstr(c.message, "exit status: 3") && strstr(c.message, "boom")) {
      reported++;
    } else if (i == 0 || reported < i) {
      fprintf(stderr, "connect %d: %s %s\n", i, oxmcp_status_name(c.status), c.message ? c.message : last_message());
    }
    call_done(&c);
    oxmcp_client_free(client);
  }
  CHECK(reported == 40, "every connect reported the exit status and stderr (%d of 40)", reported);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OXMCP_BIN\n", argv[0]);
    return 2;
  }
  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  test_every_pending_call_fails_with_the_exit_status_and_stderr_when_the_server_crashes(rt, argv[1]);
  test_a_server_that_exits_at_once_is_reported_and_the_host_survives(rt);
  CHECK(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "runtime shutdown");
  oxmcp_runtime_free(rt);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
