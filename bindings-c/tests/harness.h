/*
 * A tiny test harness for the C tests: checks counted per run, and a `Call` that waits
 * (condition variable) for an oxmcp completion callback and keeps a copy of its outcome.
 */
#ifndef OXMCP_TEST_HARNESS_H
#define OXMCP_TEST_HARNESS_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oxmcp.h"

#define UNUSED_OK __attribute__((unused))
static int g_passed, g_failed;

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (cond) {                                                              \
      g_passed++;                                                            \
    } else {                                                                 \
      g_failed++;                                                            \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
      fprintf(stderr, __VA_ARGS__);                                          \
      fputc('\n', stderr);                                                   \
    }                                                                        \
  } while (0)

/* Aborts the run when a step everything else depends on fails. */
#define REQUIRE(cond, ...)                                                   \
  do {                                                                       \
    int ok_ = (cond) ? 1 : 0;                                                \
    CHECK(ok_, __VA_ARGS__);                                                 \
    if (!ok_) {                                                              \
      fprintf(stderr, "%d passed, %d failed (aborted)\n", g_passed, g_failed); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

static UNUSED_OK const char *last_message(void) { return oxmcp_error_message(oxmcp_last_error()); }

static UNUSED_OK char *dup_bytes(const uint8_t *p, size_t n) {
  char *s = malloc(n + 1);
  if (n) memcpy(s, p, n);
  s[n] = 0;
  return s;
}

/* One asynchronous oxmcp call: its completion, progress count, and a copy of the outcome. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int completions; /* must end at exactly 1 */
  int progress;    /* progress callbacks seen */
  int progress_after_done;
  OxmcpStatus status;
  char *json;
  char *message;
  int has_code;
  int64_t code;
  char *data; /* the JSON-RPC error's data (JSON text), NULL for none */
  OxmcpRequest *req;
} Call;

static UNUSED_OK void call_init(Call *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
}

static UNUSED_OK void call_done(Call *c) {
  oxmcp_request_free(c->req);
  free(c->json);
  free(c->message);
  free(c->data);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
}

static UNUSED_OK void on_complete(void *ud, OxmcpStatus status, const uint8_t *json, size_t len, const OxmcpError *err) {
  Call *c = ud;
  pthread_mutex_lock(&c->mu);
  c->completions++;
  c->status = status;
  if (status == OXMCP_STATUS_OK) {
    free(c->json);
    c->json = dup_bytes(json, len);
  } else {
    const char *m = oxmcp_error_message(err);
    free(c->message);
    c->message = dup_bytes((const uint8_t *)m, strlen(m));
    c->has_code = oxmcp_error_code(err, &c->code);
    size_t data_len = 0;
    const uint8_t *data = oxmcp_error_data(err, &data_len);
    free(c->data);
    c->data = data ? dup_bytes(data, data_len) : NULL;
  }
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

static UNUSED_OK void on_progress(void *ud, double progress, bool has_total, double total, const char *message) {
  (void)progress; (void)has_total; (void)total; (void)message;
  Call *c = ud;
  pthread_mutex_lock(&c->mu);
  c->progress++;
  if (c->completions) c->progress_after_done++;
  pthread_mutex_unlock(&c->mu);
}

static UNUSED_OK void deadline_in(struct timespec *ts, int ms) {
  clock_gettime(CLOCK_REALTIME, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) { ts->tv_sec++; ts->tv_nsec -= 1000000000L; }
}

/* Waits (at most 30 s: a hang is a failure, not a timing assertion) for the completion. */
static UNUSED_OK int call_wait(Call *c) {
  struct timespec ts;
  deadline_in(&ts, 30000);
  pthread_mutex_lock(&c->mu);
  while (c->completions == 0) {
    if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT) break;
  }
  int n = c->completions;
  pthread_mutex_unlock(&c->mu);
  return n;
}

static UNUSED_OK void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

#endif
