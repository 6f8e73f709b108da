/*
 * OAuth on the C ABI, with real parts: an oidc-provider authorization server
 * (tests/auth/provider.mjs) and `oxmcp everything-server --auth-issuer ISSUER --auth-scopes
 * mcp:read` (its `whoami` tool answers who the token speaks for).
 *
 *   oauth_test ISSUER PROTECTED_URL NODE BROWSER_MJS TOKEN_FILE
 *
 * Covers: client credentials (oxmcp_client_set_oauth) -> whoami is `machine`, pinned to their
 * issuer (and refused when pinned to another); no OAuth
 * against the protected server -> OXMCP_STATUS_UNAUTHORIZED; the authorization code grant
 * through the "authorize" request (oxmcp_client_on_request), answered from another thread by
 * a browser played with NODE and tests/auth/browser.mjs, its tokens kept 0600 in TOKEN_FILE
 * and reused by the next client without asking again; a forged redirect refused; option and
 * answer checks; a C server protected with oxmcp_server_start_http_options() whose tool reads
 * oxmcp_incoming_auth(), called with client credentials (and refused without); a C server
 * whose tokens a host function checks (oxmcp_server_verify_tokens()), called by clients
 * sending `Authorization: Bearer` (oxmcp_client_set_headers()): alice with the accepted
 * token, OXMCP_STATUS_UNAUTHORIZED with another.
 * Ends with "N passed, M failed".
 */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "json.h"

static const char *g_issuer, *g_node, *g_browser;

#define REDIRECT "http://127.0.0.1:9/callback"

static const char *MACHINE = "{\"grant\":\"client_credentials\",\"clientId\":\"machine\",\"clientSecret\":\"machine-secret\"}";

/* --- the authorize answer ------------------------------------------------------------------- */

/* What the "authorize" callback saw and how it answers. */
typedef struct {
  pthread_mutex_t mu;
  int asked;            /* authorize requests received */
  int other;            /* requests of any other method */
  char url[2048];       /* the last authorization URL */
  const char *forge;    /* answer with this (a JSON string) instead of playing the browser */
} Authorizer;

/* The value of the JSON string member "url" of `params` (no escapes expected in a URL). */
static void json_url(const uint8_t *params, size_t len, char *out, size_t cap) {
  char *text = dup_bytes(params, len);
  const char *p = strstr(text, "\"url\":\"");
  out[0] = 0;
  if (p) {
    p += 7;
    size_t n = 0;
    while (p[n] && p[n] != '"' && n + 1 < cap) n++;
    memcpy(out, p, n);
    out[n] = 0;
  }
  free(text);
}

typedef struct {
  OxmcpIncoming *req;
  char url[2048];
} BrowserJob;

/* Plays the user's browser (login as carol, consent) with node; completes the request with
 * the URL the authorization server sent the browser back to. Runs on its own thread: the
 * oxmcp callback returned at once. */
static void *play_browser(void *arg) {
  BrowserJob *job = arg;
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "'%s' --input-type=module -e \"import {consent} from 'file://%s'; "
           "console.log(await consent(process.argv[1], 'carol', {visit: false}))\" '%s'",
           g_node, g_browser, job->url);
  FILE *p = popen(cmd, "r");
  char line[4096] = {0};
  if (p) {
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
  }
  line[strcspn(line, "\r\n")] = 0;
  if (strncmp(line, REDIRECT "?", strlen(REDIRECT) + 1) == 0) {
    char answer[4200];
    snprintf(answer, sizeof answer, "\"%s\"", line);
    oxmcp_incoming_complete(job->req, (const uint8_t *)answer, strlen(answer));
  } else {
    oxmcp_incoming_fail(job->req, "the browser did not come back");
  }
  oxmcp_incoming_free(job->req);
  free(job);
  return NULL;
}

static void on_authorize(void *ud, OxmcpIncoming *req, const char *method, const uint8_t *params, size_t len) {
  Authorizer *a = ud;
  pthread_mutex_lock(&a->mu);
  if (strcmp(method, "authorize") != 0) {
    a->other++;
    pthread_mutex_unlock(&a->mu);
    oxmcp_incoming_fail(req, "unexpected request");
    oxmcp_incoming_free(req);
    return;
  }
  a->asked++;
  json_url(params, len, a->url, sizeof a->url);
  /* The answer's shape (a JSON string) is the engine's to check, when it reads it. */
  const char *forge = a->forge;
  pthread_mutex_unlock(&a->mu);
  if (forge) {
    oxmcp_incoming_complete(req, (const uint8_t *)forge, strlen(forge));
    oxmcp_incoming_free(req);
    return;
  }
  BrowserJob *job = calloc(1, sizeof *job);
  job->req = req;
  snprintf(job->url, sizeof job->url, "%s", a->url);
  pthread_t t;
  pthread_create(&t, NULL, play_browser, job);
  pthread_detach(t);
}

/* --- helpers ----------------------------------------------------------------------------------- */

/* A client with `oauth` (NULL: none) and the authorizer (NULL: none), connected to `url`;
 * the connect's outcome in `c` (call_done it). Returns the client (free it). */
static OxmcpClient *connect_with(OxmcpRuntime *rt, const char *url, const char *oauth, const char *token_file,
                                 Authorizer *authorizer, Call *c) {
  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-oauth-test", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  if (oauth)
    CHECK(oxmcp_client_set_oauth(client, (const uint8_t *)oauth, strlen(oauth), token_file) == OXMCP_STATUS_OK,
          "set_oauth: %s", last_message());
  if (authorizer)
    CHECK(oxmcp_client_on_request(client, "authorize", on_authorize, authorizer) == OXMCP_STATUS_OK, "on_request(authorize): %s",
          last_message());
  call_init(c);
  REQUIRE(oxmcp_client_connect_http(client, url, on_complete, c, NULL) == OXMCP_STATUS_OK, "connect started");
  REQUIRE(call_wait(c) == 1, "the connect completed");
  return client;
}

/* Calls `tool` and returns its result JSON (malloc'd, NULL on failure). */
static char *call(OxmcpClient *client, const char *tool) {
  Call c;
  call_init(&c);
  char *out = NULL;
  if (oxmcp_client_call_tool(client, tool, NULL, 0, 0, NULL, on_complete, &c, NULL) == OXMCP_STATUS_OK && call_wait(&c) == 1 &&
      c.status == OXMCP_STATUS_OK) {
    out = c.json;
    c.json = NULL;
  } else {
    fprintf(stderr, "call %s: %s\n", tool, c.message ? c.message : last_message());
  }
  call_done(&c);
  return out;
}

/* --- the client against the CLI's protected server ------------------------------------------------ */

static void test_client(OxmcpRuntime *rt, const char *url, const char *token_file) {
  Call c;

  /* Client credentials. */
  OxmcpClient *client = connect_with(rt, url, MACHINE, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "client credentials: connected (%s)", c.message ? c.message : "");
  call_done(&c);
  char *who = call(client, "whoami");
  CHECK(who && strstr(who, "\\\"subject\\\":\\\"machine\\\""), "whoami is machine: %s", who ? who : "(failed)");
  CHECK(who && strstr(who, "mcp:read"), "with the scope the server needs: %s", who ? who : "");
  free(who);
  oxmcp_client_free(client);

  /* Credentials pinned to their issuer: fine there, refused for another one. */
  char pinned[512];
  snprintf(pinned, sizeof pinned, "{\"grant\":\"client_credentials\",\"clientId\":\"machine\",\"clientSecret\":\"machine-secret\",\"issuer\":\"%s\"}",
           g_issuer);
  client = connect_with(rt, url, pinned, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "pinned to the right issuer: connected (%s)", c.message ? c.message : "");
  call_done(&c);
  oxmcp_client_free(client);
  const char *elsewhere =
      "{\"grant\":\"client_credentials\",\"clientId\":\"machine\",\"clientSecret\":\"machine-secret\",\"issuer\":\"http://127.0.0.1:9\"}";
  client = connect_with(rt, url, elsewhere, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED && c.message && strstr(c.message, g_issuer),
        "pinned to another issuer: UNAUTHORIZED, naming the server's (got %s: %s)", oxmcp_status_name(c.status),
        c.message ? c.message : "");
  call_done(&c);
  oxmcp_client_free(client);

  /* No OAuth: a clear UNAUTHORIZED. */
  client = connect_with(rt, url, NULL, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED, "without OAuth: UNAUTHORIZED (got %s: %s)", oxmcp_status_name(c.status),
        c.message ? c.message : "");
  call_done(&c);
  oxmcp_client_free(client);

  /* Wrong secret: UNAUTHORIZED too. */
  const char *wrong = "{\"grant\":\"client_credentials\",\"clientId\":\"machine\",\"clientSecret\":\"guess\"}";
  client = connect_with(rt, url, wrong, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED, "a wrong secret: UNAUTHORIZED (got %s: %s)", oxmcp_status_name(c.status),
        c.message ? c.message : "");
  call_done(&c);
  oxmcp_client_free(client);

  /* The authorization code grant: a dynamically registered client, the browser played by
   * another thread, the tokens kept in a file. */
  Authorizer a = {.mu = PTHREAD_MUTEX_INITIALIZER};
  unlink(token_file);
  const char *user = "{\"redirectUri\":\"" REDIRECT "\",\"clientName\":\"c-oauth-test\"}";
  client = connect_with(rt, url, user, token_file, &a, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "authorization code: connected (%s)", c.message ? c.message : "");
  call_done(&c);
  CHECK(a.asked == 1 && a.other == 0, "the host was asked to authorize once (%d, %d others)", a.asked, a.other);
  char prefix[512];
  snprintf(prefix, sizeof prefix, "%s/auth?", g_issuer);
  CHECK(strncmp(a.url, prefix, strlen(prefix)) == 0, "with the authorization URL: %s", a.url);
  CHECK(strstr(a.url, "code_challenge=") != NULL, "a PKCE authorization request");
  who = call(client, "whoami");
  CHECK(who && strstr(who, "\\\"subject\\\":\\\"carol\\\""), "whoami is the user, carol: %s", who ? who : "(failed)");
  free(who);
  oxmcp_client_free(client);
  struct stat sb;
  CHECK(stat(token_file, &sb) == 0 && (sb.st_mode & 0777) == 0600, "the tokens are kept in a 0600 file (mode %o)",
        (unsigned)(sb.st_mode & 0777));

  /* The kept tokens serve the next client: nobody is asked. */
  Authorizer again = {.mu = PTHREAD_MUTEX_INITIALIZER, .forge = "\"" REDIRECT "?code=x&state=y\""};
  client = connect_with(rt, url, user, token_file, &again, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "the kept tokens connect (%s)", c.message ? c.message : "");
  call_done(&c);
  CHECK(again.asked == 0, "without asking the host again (%d)", again.asked);
  who = call(client, "whoami");
  CHECK(who && strstr(who, "carol"), "still carol: %s", who ? who : "(failed)");
  free(who);
  oxmcp_client_free(client);

  /* A forged redirect (another flow's state): UNAUTHORIZED, naming the state. */
  Authorizer forged = {.mu = PTHREAD_MUTEX_INITIALIZER, .forge = "\"" REDIRECT "?code=stolen&state=not-this-flow\""};
  client = connect_with(rt, url, user, NULL, &forged, &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED && c.message && strstr(c.message, "state"),
        "a forged redirect: UNAUTHORIZED about the state (got %s: %s)", oxmcp_status_name(c.status), c.message ? c.message : "");
  CHECK(forged.asked >= 1, "after asking the host (%d)", forged.asked);
  call_done(&c);
  oxmcp_client_free(client);

  /* Options are checked when set. */
  OxmcpClient *idle = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-oauth-test", "1.0.0", &idle) == OXMCP_STATUS_OK, "client");
  const char *unknown = "{\"clientSecrett\":\"x\"}";
  CHECK(oxmcp_client_set_oauth(idle, (const uint8_t *)unknown, strlen(unknown), NULL) == OXMCP_STATUS_INVALID_INPUT,
        "an unknown OAuth option is refused");
  CHECK(strstr(last_message(), "clientSecrett") != NULL, "naming it: %s", last_message());
  const char *grant = "{\"grant\":\"password\"}";
  CHECK(oxmcp_client_set_oauth(idle, (const uint8_t *)grant, strlen(grant), NULL) == OXMCP_STATUS_INVALID_INPUT,
        "an unknown grant is refused");
  CHECK(oxmcp_client_set_oauth(idle, NULL, 0, NULL) == OXMCP_STATUS_OK, "NULL removes OAuth");
  CHECK(oxmcp_client_on_request(idle, "authorise", on_authorize, &a) == OXMCP_STATUS_INVALID_INPUT, "a misspelt answer is refused");
  oxmcp_client_free(idle);
}

/* --- a C server protected by OAuth -------------------------------------------------------------- */

static int g_no_token_seen;

/* Answers with who the token speaks for, as the tool's text. */
static void whoami_tool(void *ud, OxmcpIncoming *req, const uint8_t *args, size_t len) {
  (void)ud; (void)args; (void)len;
  char *info = NULL;
  if (oxmcp_incoming_info(req, &info, NULL) != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, last_message());
  } else {
    /* Who the token speaks for: the facts' "auth" member, as JSON text. */
    J *facts = json_parse(info, strlen(info));
    free(info);
    char *auth_text = json_dump(json_get(facts, "auth"));
    json_free(facts);
    const uint8_t *auth = (const uint8_t *)auth_text;
    size_t auth_len = strlen(auth_text);
    if (auth_len == 4 && memcmp(auth, "null", 4) == 0) g_no_token_seen++;
    /* The tool's text is the auth JSON, escaped as a JSON string. */
    size_t cap = auth_len * 2 + 64;
    char *result = malloc(cap);
    size_t n = (size_t)snprintf(result, cap, "{\"content\":[{\"type\":\"text\",\"text\":\"");
    for (size_t i = 0; i < auth_len; i++) {
      if (auth[i] == '"' || auth[i] == '\\') result[n++] = '\\';
      result[n++] = (char)auth[i];
    }
    n += (size_t)snprintf(result + n, cap - n, "\"}]}");
    oxmcp_incoming_complete(req, (const uint8_t *)result, n);
    free(result);
    free(auth_text);
  }
  oxmcp_incoming_free(req);
}

static void test_server(OxmcpRuntime *rt) {
  OxmcpServer *server = NULL;
  REQUIRE(oxmcp_server_new(rt, "c-guarded", "1.0.0", &server) == OXMCP_STATUS_OK, "server");
  const char *tool = "{\"name\":\"whoami\",\"inputSchema\":{\"type\":\"object\"}}";
  REQUIRE(oxmcp_server_add_tool(server, (const uint8_t *)tool, strlen(tool), whoami_tool, NULL) == OXMCP_STATUS_OK, "tool");

  const char *bad = "{\"auth\":{\"issuer\":\"x\",\"scope\":[]}}";
  CHECK(oxmcp_server_start_http_options(server, (const uint8_t *)bad, strlen(bad), NULL) == OXMCP_STATUS_INVALID_INPUT,
        "unknown listen options are refused: %s", last_message());
  /* A shared store (scale-out) that cannot be reached fails the start, naming it. */
  const char *shared = "{\"port\":0,\"redis\":\"redis://127.0.0.1:1\"}";
  CHECK(oxmcp_server_start_http_options(server, (const uint8_t *)shared, strlen(shared), NULL) == OXMCP_STATUS_TRANSPORT &&
            strstr(last_message(), "redis://127.0.0.1:1") != NULL,
        "an unreachable redis fails the start with its URL: %s", last_message());

  char opts[1024];
  snprintf(opts, sizeof opts, "{\"host\":\"127.0.0.1\",\"port\":0,\"auth\":{\"issuer\":\"%s\",\"scopes\":[\"mcp:read\"]}}", g_issuer);
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http_options(server, (const uint8_t *)opts, strlen(opts), &port) == OXMCP_STATUS_OK && port != 0,
          "protected listener: %s", last_message());
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);

  Call c;
  OxmcpClient *client = connect_with(rt, url, MACHINE, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "the C server: connected with client credentials (%s)", c.message ? c.message : "");
  call_done(&c);
  char *who = call(client, "whoami");
  CHECK(who && strstr(who, "\\\"subject\\\":\\\"machine\\\""), "the handler sees the subject: %s", who ? who : "(failed)");
  CHECK(who && strstr(who, "\\\"clientId\\\":\\\"machine\\\""), "and the client id");
  CHECK(who && strstr(who, "\\\"scopes\\\":[\\\"mcp:read\\\"]"), "and the scopes");
  CHECK(who && strstr(who, "\\\"aud\\\":\\\"http://127.0.0.1:"), "and the claims (aud is the endpoint)");
  free(who);
  oxmcp_client_free(client);

  client = connect_with(rt, url, NULL, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED, "the C server refuses a client without a token (got %s)", oxmcp_status_name(c.status));
  call_done(&c);
  oxmcp_client_free(client);

  /* Over an unprotected listener the handler sees no token. */
  REQUIRE(oxmcp_server_start_http_options(server, NULL, 0, &port) == OXMCP_STATUS_OK, "plain listener: %s", last_message());
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);
  client = connect_with(rt, url, NULL, NULL, NULL, &c);
  CHECK(c.status == OXMCP_STATUS_OK, "unprotected: connected");
  call_done(&c);
  who = call(client, "whoami");
  CHECK(who && g_no_token_seen == 1, "auth is null without a token: %s", who ? who : "(failed)");
  free(who);
  oxmcp_client_free(client);

  CHECK(oxmcp_server_stop_http(server) == OXMCP_STATUS_OK, "stop");
  oxmcp_server_free(server);
}

/* --- a C server whose tokens a host function checks ----------------------------------------------- */

/* The tokens the verifier saw, in order, and how its completions went. */
static char g_seen[4][64];
static int g_seen_count, g_accept_failed;
static pthread_mutex_t g_seen_lock = PTHREAD_MUTEX_INITIALIZER;

/* Accepts "s3cret" as alice (mcp:read), refuses anything else. */
static void verify_token(void *ud, OxmcpIncoming *req, const char *token) {
  (void)ud;
  pthread_mutex_lock(&g_seen_lock);
  if (g_seen_count < 4) snprintf(g_seen[g_seen_count++], sizeof g_seen[0], "%s", token);
  pthread_mutex_unlock(&g_seen_lock);
  if (strcmp(token, "s3cret") == 0) {
    const char *who = "{\"subject\":\"alice\",\"scopes\":[\"mcp:read\"]}";
    if (oxmcp_incoming_complete(req, (const uint8_t *)who, strlen(who)) != OXMCP_STATUS_OK) {
      pthread_mutex_lock(&g_seen_lock);
      g_accept_failed++;
      pthread_mutex_unlock(&g_seen_lock);
    }
  } else {
    oxmcp_incoming_fail(req, "unknown token");
  }
  oxmcp_incoming_free(req);
}

/* A client sending `Authorization: Bearer TOKEN`, connected to `url`. */
static OxmcpClient *connect_bearer(OxmcpRuntime *rt, const char *url, const char *token, Call *c) {
  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-oauth-test", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  char headers[256];
  snprintf(headers, sizeof headers, "{\"Authorization\":\"Bearer %s\"}", token);
  CHECK(oxmcp_client_set_headers(client, (const uint8_t *)headers, strlen(headers)) == OXMCP_STATUS_OK, "set_headers: %s",
        last_message());
  call_init(c);
  REQUIRE(oxmcp_client_connect_http(client, url, on_complete, c, NULL) == OXMCP_STATUS_OK, "connect started");
  REQUIRE(call_wait(c) == 1, "the connect completed");
  return client;
}

static void test_verifier(OxmcpRuntime *rt) {
  OxmcpServer *server = NULL;
  REQUIRE(oxmcp_server_new(rt, "c-verified", "1.0.0", &server) == OXMCP_STATUS_OK, "server");
  const char *tool = "{\"name\":\"whoami\",\"inputSchema\":{\"type\":\"object\"}}";
  REQUIRE(oxmcp_server_add_tool(server, (const uint8_t *)tool, strlen(tool), whoami_tool, NULL) == OXMCP_STATUS_OK, "tool");
  CHECK(oxmcp_server_verify_tokens(server, NULL, NULL) == OXMCP_STATUS_INVALID_INPUT, "a NULL verifier is refused");
  REQUIRE(oxmcp_server_verify_tokens(server, verify_token, NULL) == OXMCP_STATUS_OK, "verify_tokens: %s", last_message());

  const char *opts = "{\"host\":\"127.0.0.1\",\"port\":0,\"auth\":{\"issuer\":\"https://auth.example.com\",\"scopes\":[\"mcp:read\"]}}";
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http_options(server, (const uint8_t *)opts, strlen(opts), &port) == OXMCP_STATUS_OK && port != 0,
          "protected listener: %s", last_message());
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);

  Call c;
  OxmcpClient *client = connect_bearer(rt, url, "s3cret", &c);
  CHECK(c.status == OXMCP_STATUS_OK, "verified: connected with the bearer token (%s)", c.message ? c.message : "");
  call_done(&c);
  char *who = call(client, "whoami");
  CHECK(who && strstr(who, "\\\"subject\\\":\\\"alice\\\""), "the handler sees the verifier's subject: %s", who ? who : "(failed)");
  free(who);
  oxmcp_client_free(client);

  client = connect_bearer(rt, url, "wrong", &c);
  CHECK(c.status == OXMCP_STATUS_UNAUTHORIZED, "the verifier refuses another token (got %s)", oxmcp_status_name(c.status));
  call_done(&c);
  oxmcp_client_free(client);

  pthread_mutex_lock(&g_seen_lock);
  int saw_good = 0, saw_bad = 0;
  for (int i = 0; i < g_seen_count; i++) {
    if (strcmp(g_seen[i], "s3cret") == 0) saw_good = 1;
    if (strcmp(g_seen[i], "wrong") == 0) saw_bad = 1;
  }
  pthread_mutex_unlock(&g_seen_lock);
  CHECK(saw_good && saw_bad, "the verifier saw both tokens (%d checks)", g_seen_count);
  CHECK(g_accept_failed == 0, "the identity was a valid completion");

  CHECK(oxmcp_server_stop_http(server) == OXMCP_STATUS_OK, "stop");
  oxmcp_server_free(server);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s ISSUER PROTECTED_URL NODE BROWSER_MJS TOKEN_FILE\n", argv[0]);
    return 2;
  }
  g_issuer = argv[1];
  g_node = argv[3];
  g_browser = argv[4];
  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  test_client(rt, argv[2], argv[5]);
  test_server(rt);
  test_verifier(rt);
  CHECK(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "runtime shutdown");
  oxmcp_runtime_free(rt);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
