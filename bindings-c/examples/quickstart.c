/*
 * Quickstart: a C client that starts `oxmcp everything-server --stdio`, calls its `echo`
 * tool and prints the result.
 *
 *   cargo build -p oxmcp-c -p oxmcp-cli
 *   gcc -Ibindings-c/include bindings-c/examples/quickstart.c -Ltarget/debug -loxmcp -lpthread \
 *       -Wl,-rpath,$PWD/target/debug -o quickstart
 *   ./quickstart target/debug/oxmcp
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "oxmcp.h"

/* A completion the main thread waits for. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  OxmcpStatus status;
  char text[4096];
} Waiter;

static void on_done(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Waiter *w = ud;
  pthread_mutex_lock(&w->mu);
  w->status = status;
  if (status == OXMCP_STATUS_OK)
    snprintf(w->text, sizeof w->text, "%.*s", (int)len, (const char *)json);
  else
    snprintf(w->text, sizeof w->text, "%s", oxmcp_error_message(err)); /* err lives during the call only */
  w->done = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static void wait_for(Waiter *w) {
  pthread_mutex_lock(&w->mu);
  while (!w->done) pthread_cond_wait(&w->cv, &w->mu);
  w->done = 0;
  pthread_mutex_unlock(&w->mu);
}

int main(int argc, char **argv) {
  const char *oxmcp = argc > 1 ? argv[1] : "oxmcp";
  Waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, OXMCP_STATUS_OK, {0}};
  OxmcpRuntime *rt = NULL;
  OxmcpClient *client = NULL;
  if (oxmcp_runtime_new(0, &rt) != OXMCP_STATUS_OK || oxmcp_client_new(rt, "quickstart", "1.0.0", &client) != OXMCP_STATUS_OK) {
    fprintf(stderr, "setup failed: %s\n", oxmcp_error_message(oxmcp_last_error()));
    return 1;
  }

  const char *args[] = {"everything-server", "--stdio"};
  oxmcp_client_connect_stdio(client, oxmcp, args, 2, on_done, &w, NULL);
  wait_for(&w);
  if (w.status != OXMCP_STATUS_OK) {
    fprintf(stderr, "connect failed: %s\n", w.text);
    return 1;
  }

  const char *echo_args = "{\"text\": \"hello from C\"}";
  oxmcp_client_call_tool(client, "echo", (const uint8_t *)echo_args, strlen(echo_args), 0, NULL, on_done, &w, NULL);
  wait_for(&w);
  printf("%s: %s\n", oxmcp_status_name(w.status), w.text);

  oxmcp_client_free(client);    /* closes the connection (the child is stopped) */
  oxmcp_runtime_shutdown(rt);   /* stops and joins the runtime's threads */
  oxmcp_runtime_free(rt);
  return w.status == OXMCP_STATUS_OK ? 0 : 1;
}
