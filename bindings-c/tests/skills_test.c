/*
 * Skills (the io.modelcontextprotocol/skills extension) and task options on the oxmcp C ABI:
 * a C server and a C client in one process, over Streamable HTTP, in one protocol era.
 *
 *   skills_test ERA      (auto, session or stateless)
 *
 * The server serves one skill added with oxmcp_server_add_skill() and one read from a
 * directory written to a temporary directory (oxmcp_server_add_skills_dir()), and keeps its
 * tasks 300 ms (oxmcp_server_set_task_options()). The client lists the skills
 * (OXMCP_LIST_SKILLS), gets one, reads a skill's directory, loads a skill (the markdown is
 * the SKILL.md text), reads supporting files by path (the bytes, base64-decoded, are the
 * files'), and is refused a file the entry does not list (PROTOCOL) and an unknown skill
 * (-32602). A finished task is gone once its TTL has passed (tasks/get: -32602). Bad task
 * options and a skill whose path does not end in its name are INVALID_INPUT.
 * An escalating tool (oxmcp_incoming_escalate_to_task()) elicits inline, then goes on as a
 * task when the client called it as one, and stays inline on a plain call; a tool reads a
 * skill's SKILL.md through its own request (oxmcp_incoming_read_resource()). A middleware
 * goes on once (a second oxmcp_incoming_next() is INVALID_INPUT, as is one from a tool's
 * request); a server refuses to mount itself; a second server mounts the client's
 * connection (oxmcp_server_mount_client()) and a second client calls through it. A handler
 * reads its request's facts (oxmcp_incoming_info()); a subscribed client hears of a resource
 * the server says changed (oxmcp_server_notify_resource_updated()).
 * Ends with "N passed, M failed".
 */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "json.h"

static const char *GIT_MD = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n";
static const char *NAMING = "feature/<ticket>-<slug>\n";
static const char *REFUNDS_MD = "---\nname: refunds\ndescription: Refund requests\n---\nCheck the order first.\n";
/* A file that is not UTF-8: served as a blob, read back byte for byte. */
static const unsigned char BLOB[] = {0x00, 0xff, 0x10, 0x80, 'o', 'k', 0x0a};

/* Decodes standard base64 into a new buffer (NUL-terminated too); *n gets the length. */
static unsigned char *base64_decode(const char *s, size_t *n) {
  static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t len = strlen(s);
  unsigned char *out = malloc(len / 4 * 3 + 1);
  size_t o = 0;
  unsigned acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len && s[i] != '='; i++) {
    const char *p = strchr(alphabet, s[i]);
    if (!p || !*p) { free(out); return NULL; }
    acc = (acc << 6) | (unsigned)(p - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (unsigned char)(acc >> bits);
    }
  }
  out[o] = 0;
  *n = o;
  return out;
}

/* Whether `a` (may be NULL) is the text `b`. */
static int str_is(const char *a, const char *b) { return a && strcmp(a, b) == 0; }

/* Waits for a call started with status `st`; returns its parsed result (NULL on failure). */
static J *finish(Call *c, OxmcpStatus st, const char *what) {
  CHECK(st == OXMCP_STATUS_OK, "%s started: %s", what, last_message());
  if (st != OXMCP_STATUS_OK) return NULL;
  CHECK(call_wait(c) == 1, "%s completed once", what);
  if (c->status != OXMCP_STATUS_OK) return NULL;
  return json_parse(c->json, strlen(c->json));
}

static void write_file(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL, "open %s", path);
  REQUIRE(fwrite(bytes, 1, n, f) == n, "write %s", path);
  fclose(f);
}

/* The skill directory: ROOT/acme/refunds/{SKILL.md, assets/blob.bin}. */
static void write_skills_dir(const char *root) {
  char p[512];
  snprintf(p, sizeof p, "%s/acme", root);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/acme/refunds", root);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/acme/refunds/assets", root);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/acme/refunds/SKILL.md", root);
  write_file(p, REFUNDS_MD, strlen(REFUNDS_MD));
  snprintf(p, sizeof p, "%s/acme/refunds/assets/blob.bin", root);
  write_file(p, BLOB, sizeof BLOB);
}

static void remove_skills_dir(const char *root) {
  const char *files[] = {"acme/refunds/assets/blob.bin", "acme/refunds/SKILL.md", "empty/README.md"};
  const char *dirs[] = {"acme/refunds/assets", "acme/refunds", "acme", "empty", ""};
  char p[512];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", root, files[i]);
    unlink(p);
  }
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
    rmdir(p);
  }
}

static void quick_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *r = "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}";
  oxmcp_incoming_complete(req, (const uint8_t *)r, strlen(r));
  oxmcp_incoming_free(req);
}

/* Task options: refused when they are not JSON, name an unknown key or a bad value; a
 * 300 ms TTL and a 50 ms poll interval accepted. */
static void test_task_options(OxmcpServer *s) {
  const char *bad[] = {"{not json", "{\"ttl\":300}", "{\"maxTasks\":-1}", "[]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    OxmcpStatus st = oxmcp_server_set_task_options(s, (const uint8_t *)bad[i], strlen(bad[i]));
    CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "invalid task options"),
          "task options %s are refused (%s: %s)", bad[i], oxmcp_status_name(st), last_message());
  }
  CHECK(oxmcp_server_set_task_options(NULL, (const uint8_t *)"{}", 2) == OXMCP_STATUS_INVALID_INPUT, "a NULL server is refused");
  const char *ok = "{\"ttlMs\":300,\"pollIntervalMs\":50}";
  CHECK(oxmcp_server_set_task_options(s, (const uint8_t *)ok, strlen(ok)) == OXMCP_STATUS_OK, "task options set: %s",
        last_message());
}

/* Skills added before serving: one from JSON, one from a directory; bad ones refused. */
static void add_skills(OxmcpServer *s, const char *root) {
  Sb b = {0};
  sb_puts(&b, "{\"SKILL.md\":");
  json_quote(&b, GIT_MD);
  sb_puts(&b, ",\"references/naming.md\":");
  json_quote(&b, NAMING);
  sb_puts(&b, "}");
  char *files = sb_take(&b);
  CHECK(oxmcp_server_add_skill(s, "git-workflow", (const uint8_t *)files, strlen(files)) == OXMCP_STATUS_OK, "add_skill: %s",
        last_message());
  OxmcpStatus st = oxmcp_server_add_skill(s, "git-flow", (const uint8_t *)files, strlen(files));
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "must be its name"),
        "a path whose last segment is not the skill's name is refused (%s: %s)", oxmcp_status_name(st), last_message());
  free(files);
  const char *not_texts = "{\"SKILL.md\": 3}";
  CHECK(oxmcp_server_add_skill(s, "x", (const uint8_t *)not_texts, strlen(not_texts)) == OXMCP_STATUS_INVALID_INPUT,
        "files that are not an object of texts are refused");
  CHECK(oxmcp_server_add_skill(s, NULL, (const uint8_t *)"{}", 2) == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "skill_path"),
        "a NULL skill_path is refused: %s", last_message());

  char empty[512];
  snprintf(empty, sizeof empty, "%s/empty", root);
  mkdir(empty, 0700);
  st = oxmcp_server_add_skills_dir(s, empty);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "SKILL.md"), "a directory without skills is refused (%s: %s)",
        oxmcp_status_name(st), last_message());
  write_skills_dir(root);
  CHECK(oxmcp_server_add_skills_dir(s, root) == OXMCP_STATUS_OK, "add_skills_dir: %s", last_message());
}

/* The entry in `skills` (an array) whose uri is `uri`, or NULL. */
static J *entry_at(const J *skills, const char *uri) {
  for (size_t i = 0; skills && skills->t == J_ARR && i < skills->count; i++) {
    const char *u = json_str(skills->items[i], "uri");
    if (u && strcmp(u, uri) == 0) return skills->items[i];
  }
  return NULL;
}

/* Reads `path` of the skill `entry` (JSON text); the decoded bytes (NULL on failure). */
static unsigned char *read_file(OxmcpClient *client, const char *path, const char *entry, size_t *n, Call *c) {
  call_init(c);
  OxmcpStatus st = oxmcp_client_read_skill_file(client, path, (const uint8_t *)entry, strlen(entry), on_complete, c, NULL);
  J *v = finish(c, st, path);
  unsigned char *bytes = NULL;
  CHECK(v && v->t == J_STR, "%s: a JSON string of base64 (%s)", path, c->json ? c->json : c->message);
  if (v && v->t == J_STR) bytes = base64_decode(v->s, n);
  json_free(v);
  return bytes;
}

static void test_skills(OxmcpClient *client, OxmcpServer *server) {
  Call c;
  call_init(&c);
  J *list = finish(&c, oxmcp_client_list(client, OXMCP_LIST_SKILLS, on_complete, &c, NULL), "skills/list");
  J *skills = list; /* every page's entries, one array */
  CHECK(skills && skills->t == J_ARR && skills->count == 2, "two skills listed: %s", c.json ? c.json : c.message);
  J *git = entry_at(skills, "skill://git-workflow/SKILL.md");
  CHECK(str_is(json_str(json_get(git, "frontmatter"), "name"), "git-workflow") &&
            str_is(json_str(json_get(git, "frontmatter"), "description"), "Our Git conventions"),
        "the skill added from JSON, with its frontmatter: %s", c.json);
  J *refunds = entry_at(skills, "skill://acme/refunds/SKILL.md");
  CHECK(str_is(json_str(json_get(refunds, "frontmatter"), "name"), "refunds") &&
            str_is(json_str(json_get(refunds, "frontmatter"), "description"), "Refund requests"),
        "the skill read from the directory, at its relative path: %s", c.json);
  char *git_entry = git ? json_dump(git) : strdup("{}");
  char *refunds_entry = refunds ? json_dump(refunds) : strdup("{}");
  json_free(list);
  call_done(&c);

  /* skills/get: the same entry; an unknown skill is -32602. */
  call_init(&c);
  J *got = finish(&c, oxmcp_client_get_skill(client, "skill://git-workflow/SKILL.md", on_complete, &c, NULL), "skills/get");
  char *got_text = got ? json_dump(got) : NULL;
  CHECK(str_is(got_text, git_entry), "skills/get gives the listed entry: %s", c.json ? c.json : c.message);
  free(got_text);
  json_free(got);
  call_done(&c);
  call_init(&c);
  json_free(finish(&c, oxmcp_client_get_skill(client, "skill://nope/SKILL.md", on_complete, &c, NULL), "skills/get unknown"));
  CHECK(c.status == OXMCP_STATUS_RPC && c.has_code && c.code == -32602, "an unknown skill is -32602 (%s %lld: %s)",
        oxmcp_status_name(c.status), (long long)c.code, c.message ? c.message : c.json);
  call_done(&c);

  /* resources/directory/read: SKILL.md and the references/ subdirectory. */
  call_init(&c);
  J *dir = finish(&c, oxmcp_client_read_directory(client, "skill://git-workflow", on_complete, &c, NULL), "directory/read");
  J *children = dir; /* its children, one array */
  int saw_md = 0, saw_sub = 0;
  for (size_t i = 0; children && children->t == J_ARR && i < children->count; i++) {
    const char *uri = json_str(children->items[i], "uri"), *mime = json_str(children->items[i], "mimeType");
    saw_md |= str_is(uri, "skill://git-workflow/SKILL.md") && str_is(mime, "text/markdown");
    saw_sub |= str_is(uri, "skill://git-workflow/references") && str_is(mime, "inode/directory");
  }
  CHECK(children && children->count == 2 && saw_md && saw_sub, "the skill's root holds SKILL.md and references/ (a directory): %s",
        c.json ? c.json : c.message);
  json_free(dir);
  call_done(&c);

  /* Loading: with the entry held, and by URI alone (the engine gets the entry). */
  call_init(&c);
  J *loaded = finish(&c, oxmcp_client_load_skill(client, "skill://git-workflow/SKILL.md", (const uint8_t *)git_entry,
                                                 strlen(git_entry), on_complete, &c, NULL), "load_skill");
  const char *markdown = json_str(loaded, "markdown");
  CHECK(str_is(markdown, GIT_MD), "the loaded markdown is SKILL.md: %s", c.json ? c.json : c.message);
  CHECK(str_is(json_str(json_get(loaded, "skill"), "uri"), "skill://git-workflow/SKILL.md"), "with its entry");
  json_free(loaded);
  call_done(&c);
  call_init(&c);
  loaded = finish(&c, oxmcp_client_load_skill(client, "skill://acme/refunds/SKILL.md", NULL, 0, on_complete, &c, NULL),
                  "load_skill by URI");
  markdown = json_str(loaded, "markdown");
  CHECK(str_is(markdown, REFUNDS_MD), "loaded by URI alone: %s", c.json ? c.json : c.message);
  json_free(loaded);
  call_done(&c);
  const char *stale = "{\"uri\":\"skill://git-workflow/SKILL.md\",\"frontmatter\":{\"name\":\"git-workflow\",\"description\":\"Old\"},"
                      "\"resources\":\"dynamic\"}";
  call_init(&c);
  json_free(finish(&c, oxmcp_client_load_skill(client, "skill://git-workflow/SKILL.md", (const uint8_t *)stale, strlen(stale),
                                                on_complete, &c, NULL),
                   "load_skill with a stale entry"));
  CHECK(c.status == OXMCP_STATUS_PROTOCOL, "a SKILL.md unlike its entry is PROTOCOL (%s: %s)", oxmcp_status_name(c.status),
        c.message ? c.message : c.json);
  call_done(&c);

  /* Supporting files, by relative path and by URI: their bytes. */
  size_t n = 0;
  unsigned char *bytes = read_file(client, "references/naming.md", git_entry, &n, &c);
  CHECK(bytes && n == strlen(NAMING) && memcmp(bytes, NAMING, n) == 0, "references/naming.md read back (%zu bytes)", n);
  free(bytes);
  call_done(&c);
  bytes = read_file(client, "skill://acme/refunds/assets/blob.bin", refunds_entry, &n, &c);
  CHECK(bytes && n == sizeof BLOB && memcmp(bytes, BLOB, n) == 0, "a binary file from the directory read back (%zu bytes)", n);
  free(bytes);
  call_done(&c);

  /* A file the entry does not list: refused (PROTOCOL), without a request. */
  call_init(&c);
  OxmcpStatus st = oxmcp_client_read_skill_file(client, "references/missing.md", (const uint8_t *)git_entry, strlen(git_entry),
                                                on_complete, &c, NULL);
  json_free(finish(&c, st, "read an unlisted file"));
  CHECK(c.status == OXMCP_STATUS_PROTOCOL, "an unlisted file is PROTOCOL (%s: %s)", oxmcp_status_name(c.status),
        c.message ? c.message : c.json);
  call_done(&c);
  call_init(&c);
  st = oxmcp_client_read_skill_file(client, "references/naming.md", NULL, 0, on_complete, &c, NULL);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "skill entry"), "reading a file needs the entry: %s",
        last_message());
  call_done(&c);

  /* A skill added while serving is listed at once. */
  const char *late_md = "{\"SKILL.md\":\"---\\nname: late\\ndescription: Added while serving\\n---\\nHi.\\n\"}";
  CHECK(oxmcp_server_add_skill(server, "late", (const uint8_t *)late_md, strlen(late_md)) == OXMCP_STATUS_OK,
        "add_skill while serving: %s", last_message());
  call_init(&c);
  list = finish(&c, oxmcp_client_list(client, OXMCP_LIST_SKILLS, on_complete, &c, NULL), "skills/list again");
  CHECK(entry_at(list, "skill://late/SKILL.md") != NULL, "the late skill is listed: %s",
        c.json ? c.json : c.message);
  json_free(list);
  call_done(&c);
  free(git_entry);
  free(refunds_entry);
}

/* Sends `method` with the tasks extension declared in the request's _meta. */
static J *task_request(OxmcpClient *client, const char *method, const char *params_members, Call *c) {
  char params[512];
  snprintf(params, sizeof params,
           "{%s,\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}}",
           params_members);
  call_init(c);
  OxmcpStatus st = oxmcp_client_request(client, method, (const uint8_t *)params, strlen(params), 0, NULL, on_complete, c, NULL);
  return finish(c, st, method);
}

/* A task is kept ttlMs (300) after its creation: then tasks/get says there is no such task. */
static void test_task_ttl(OxmcpClient *client, OxmcpServer *server) {
  Call c;
  J *created = task_request(client, "tools/call", "\"name\":\"quick\",\"arguments\":{}", &c);
  const char *kind = json_str(created, "resultType");
  J *poll = json_get(created, "pollIntervalMs");
  CHECK(str_is(kind, "task") && poll && poll->t == J_NUM && poll->n == 50, "the call made a task polled every 50 ms: %s",
        c.json ? c.json : c.message);
  char id[128] = "";
  if (json_str(created, "taskId")) snprintf(id, sizeof id, "%s", json_str(created, "taskId"));
  json_free(created);
  call_done(&c);

  char members[256];
  snprintf(members, sizeof members, "\"taskId\":\"%s\"", id);
  int completed = 0;
  for (int i = 0; i < 100 && !completed; i++) {
    J *task = task_request(client, "tasks/get", members, &c);
    const char *status = json_str(task, "status");
    completed = str_is(status, "completed");
    if (completed) {
      J *text = json_path(task, "result.content");
      CHECK(text && text->t == J_ARR && text->count == 1 && str_is(json_str(text->items[0], "text"), "done"),
            "the finished task holds the tool's result: %s", c.json);
    }
    json_free(task);
    call_done(&c);
    if (!completed) sleep_ms(20);
  }
  CHECK(completed, "the task completed");
  sleep_ms(400);
  J *gone = task_request(client, "tasks/get", members, &c);
  CHECK(gone == NULL && c.status == OXMCP_STATUS_RPC && c.has_code && c.code == -32602 && c.message &&
            strstr(c.message, "unknown task"),
        "past its TTL the task is gone (%s %lld: %s)", oxmcp_status_name(c.status), (long long)c.code,
        c.message ? c.message : c.json);
  json_free(gone);
  call_done(&c);

  const char *later = "{\"ttlMs\":1000}";
  OxmcpStatus st = oxmcp_server_set_task_options(server, (const uint8_t *)later, strlen(later));
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "before serving"), "task options once serving are refused (%s: %s)",
        oxmcp_status_name(st), last_message());
}

/* ---- An escalating tool, and a tool reading one of its server's resources ---- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_steps[256];   /* what the escalating tool's escalations answered, in order */
static char g_statuses[512]; /* the task statuses the client's progress callback saw */

static void append(char *buf, size_t size, const char *item) {
  pthread_mutex_lock(&g_mu);
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, "%s%s", n ? "," : "", item);
  pthread_mutex_unlock(&g_mu);
}

typedef struct {
  OxmcpIncoming *req;
  char name[64];
} Report;

static void complete_text(OxmcpIncoming *req, const char *text) {
  Sb b = {0};
  sb_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
  json_quote(&b, text);
  sb_puts(&b, "}]}");
  CHECK(oxmcp_incoming_complete(req, (const uint8_t *)b.p, b.len) == OXMCP_STATUS_OK, "complete: %s", last_message());
  free(b.p);
  oxmcp_incoming_free(req);
}

static void on_escalated(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  Report *r = ud;
  char step[64];
  snprintf(step, sizeof step, "escalated=%.*s", st == OXMCP_STATUS_OK ? (int)len : 5,
           st == OXMCP_STATUS_OK ? (const char *)json : "error");
  if (st != OXMCP_STATUS_OK) fprintf(stderr, "escalate failed: %s\n", oxmcp_error_message(err));
  append(g_steps, sizeof g_steps, step);
  char text[96];
  snprintf(text, sizeof text, "report for %s", r->name);
  complete_text(r->req, text);
  free(r);
}

static void on_named(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  Report *r = ud;
  if (st != OXMCP_STATUS_OK) {
    /* Stateless era: the first run's round ends with the question; the engine runs the
     * handler again with the answer. */
    oxmcp_incoming_fail(r->req, oxmcp_error_message(err));
    oxmcp_incoming_free(r->req);
    free(r);
    return;
  }
  J *answer = json_parse((const char *)json, len);
  const char *name = json_str(json_get(answer, "content"), "name");
  snprintf(r->name, sizeof r->name, "%s", name ? name : "?");
  json_free(answer);
  OxmcpStatus s = oxmcp_incoming_escalate_to_task(r->req, on_escalated, r, NULL);
  CHECK(s == OXMCP_STATUS_OK, "escalation started: %s", last_message());
}

/* "report": asks the user's name, then escalates and answers "report for <name>". */
static void report_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  Report *r = calloc(1, sizeof *r);
  r->req = req;
  const char *q = "{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}";
  if (oxmcp_incoming_ask_client(req, "elicitation/create", (const uint8_t *)q, strlen(q), on_named, r, NULL) != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, last_message());
    oxmcp_incoming_free(req);
    free(r);
  }
}

static void on_own_resource(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  OxmcpIncoming *req = ud;
  if (st != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, oxmcp_error_message(err));
    oxmcp_incoming_free(req);
    return;
  }
  J *result = json_parse((const char *)json, len);
  const char *text = json_str(json_at(json_get(result, "contents"), 0), "text");
  complete_text(req, text ? text : "(no text)");
  json_free(result);
}

/* "own_skill": reads its server's git-workflow SKILL.md through its own request. */
static void own_skill_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  if (oxmcp_incoming_read_resource(req, "skill://git-workflow/SKILL.md", on_own_resource, req, NULL) != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, last_message());
    oxmcp_incoming_free(req);
  }
}

static void on_client_request(void *ud, OxmcpIncoming *req, const char *method, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  append(g_statuses, sizeof g_statuses, str_is(method, "elicitation/create") ? "asked" : method);
  const char *a = "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}";
  oxmcp_incoming_complete(req, (const uint8_t *)a, strlen(a));
  oxmcp_incoming_free(req);
}

static void on_status(void *ud, double progress, bool has_total, double total, const char *message) {
  (void)ud; (void)progress; (void)has_total; (void)total;
  append(g_statuses, sizeof g_statuses, message ? message : "?");
}

static OxmcpStatus g_second_next = OXMCP_STATUS_OK, g_tool_next = OXMCP_STATUS_OK;

typedef struct {
  OxmcpIncoming *req;
  OxmcpStatus status;
  char *json; /* the rest's result, when it succeeded */
  char *message;
  int has_code;
  int64_t code; /* the rest's JSON-RPC error, passed on as it is */
} Rest;

/* The second next's outcome is recorded; the request completes with the first's. */
static void after_second(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  (void)json; (void)len; (void)err;
  Rest *rest = ud;
  pthread_mutex_lock(&g_mu);
  g_second_next = st;
  pthread_mutex_unlock(&g_mu);
  if (rest->status == OXMCP_STATUS_OK) oxmcp_incoming_complete(rest->req, (const uint8_t *)rest->json, strlen(rest->json));
  else if (rest->has_code) oxmcp_incoming_fail_rpc(rest->req, rest->code, rest->message, NULL, 0);
  else oxmcp_incoming_fail(rest->req, rest->message);
  oxmcp_incoming_free(rest->req);
  free(rest->json);
  free(rest->message);
  free(rest);
}

/* The rest answered: go on once more (never blocking a runtime thread). */
static void after_rest(void *ud, OxmcpStatus st, const uint8_t *json, size_t len, const OxmcpError *err) {
  Rest *rest = calloc(1, sizeof *rest);
  rest->req = ud;
  rest->status = st;
  if (st == OXMCP_STATUS_OK) rest->json = dup_bytes(json, len);
  else {
    rest->message = strdup(oxmcp_error_message(err));
    rest->has_code = oxmcp_error_code(err, &rest->code);
  }
  /* The engine refuses a second next by the call itself (its status), as bad input. */
  OxmcpStatus again = oxmcp_incoming_next(rest->req, NULL, 0, after_second, rest, NULL);
  if (again != OXMCP_STATUS_OK) after_second(rest, again, NULL, 0, NULL);
}

/* Goes on with every request, then tries to go on once more. */
static void twice_middleware(void *ud, OxmcpIncoming *req, const uint8_t *request, size_t len) {
  (void)ud; (void)request; (void)len;
  if (oxmcp_incoming_next(req, NULL, 0, after_rest, req, NULL) != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, last_message());
    oxmcp_incoming_free(req);
  }
}

/* Answers its request 200 ms later, from a thread of its own. */
static void *answer_later(void *arg) {
  sleep_ms(200);
  complete_text(arg, "answered after the stream ended");
  return NULL;
}

/* "polled": ends its response stream (the client resumes it), then answers later. */
static void polled_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  CHECK(oxmcp_incoming_end_response_stream(req) == OXMCP_STATUS_OK, "end_response_stream: %s", last_message());
  pthread_t t;
  if (pthread_create(&t, NULL, answer_later, req) == 0) pthread_detach(t);
  else complete_text(req, "no thread");
}

static OxmcpStatus g_after_answer = OXMCP_STATUS_OK;

/* "answered": completes its request, then tries to read a resource with it: too late. */
static void answered_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  const char *r = "{\"content\":[{\"type\":\"text\",\"text\":\"answered\"}]}";
  oxmcp_incoming_complete(req, (const uint8_t *)r, strlen(r));
  static Call unused;
  OxmcpStatus st = oxmcp_incoming_read_resource(req, "skill://git-workflow/SKILL.md", on_complete, &unused, NULL);
  pthread_mutex_lock(&g_mu);
  g_after_answer = st;
  pthread_mutex_unlock(&g_mu);
  oxmcp_incoming_free(req);
}

/* "not_middleware": a tool's request cannot go on to a rest. */
static void not_middleware_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  static Call unused;
  OxmcpStatus st = oxmcp_incoming_next(req, NULL, 0, on_complete, &unused, NULL);
  pthread_mutex_lock(&g_mu);
  g_tool_next = st;
  pthread_mutex_unlock(&g_mu);
  complete_text(req, "done");
}

/* "facts": answers its request's facts (oxmcp_incoming_info()) as its text. */
static void facts_tool(void *ud, OxmcpIncoming *req, const uint8_t *params, size_t len) {
  (void)ud; (void)params; (void)len;
  char *json = NULL;
  if (oxmcp_incoming_info(req, &json, NULL) != OXMCP_STATUS_OK) {
    oxmcp_incoming_fail(req, last_message());
    oxmcp_incoming_free(req);
    return;
  }
  complete_text(req, json);
  free(json);
}

static char g_updated[256]; /* the uri of the last notifications/resources/updated */

static void on_notification(void *ud, const char *method, const uint8_t *params, size_t len) {
  (void)ud;
  if (strcmp(method, "notifications/resources/updated") != 0) return;
  J *p = json_parse((const char *)params, len);
  const char *uri = json_str(p, "uri");
  pthread_mutex_lock(&g_mu);
  snprintf(g_updated, sizeof g_updated, "%s", uri ? uri : "?");
  pthread_mutex_unlock(&g_mu);
  json_free(p);
}

static void add_tools(OxmcpServer *s) {
  const char *report = "{\"name\":\"report\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"},"
                       "\"escalating\":true}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)report, strlen(report), report_tool, NULL) == OXMCP_STATUS_OK,
        "an escalating tool: %s", last_message());
  const char *own = "{\"name\":\"own_skill\",\"inputSchema\":{\"type\":\"object\"}}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)own, strlen(own), own_skill_tool, NULL) == OXMCP_STATUS_OK,
        "own_skill: %s", last_message());
  const char *facts = "{\"name\":\"facts\",\"inputSchema\":{\"type\":\"object\"}}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)facts, strlen(facts), facts_tool, NULL) == OXMCP_STATUS_OK, "facts: %s",
        last_message());
  const char *polled = "{\"name\":\"polled\",\"inputSchema\":{\"type\":\"object\"}}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)polled, strlen(polled), polled_tool, NULL) == OXMCP_STATUS_OK,
        "polled: %s", last_message());
  const char *answered = "{\"name\":\"answered\",\"inputSchema\":{\"type\":\"object\"}}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)answered, strlen(answered), answered_tool, NULL) == OXMCP_STATUS_OK,
        "answered: %s", last_message());
  const char *plain = "{\"name\":\"not_middleware\",\"inputSchema\":{\"type\":\"object\"}}";
  CHECK(oxmcp_server_add_tool(s, (const uint8_t *)plain, strlen(plain), not_middleware_tool, NULL) == OXMCP_STATUS_OK,
        "not_middleware: %s", last_message());
  CHECK(oxmcp_server_add_middleware(s, twice_middleware, NULL) == OXMCP_STATUS_OK, "middleware: %s", last_message());
  CHECK(oxmcp_server_add_middleware(s, NULL, NULL) == OXMCP_STATUS_INVALID_INPUT, "a NULL middleware is refused");
  OxmcpStatus st = oxmcp_server_mount(s, "me", s);
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "itself"), "a server cannot mount itself (%s: %s)",
        oxmcp_status_name(st), last_message());
  CHECK(oxmcp_server_mount(s, "x", NULL) == OXMCP_STATUS_INVALID_INPUT, "mounting NULL is refused");
}

static void test_escalation(OxmcpClient *client) {
  Call c;
  call_init(&c);
  OxmcpStatus st = oxmcp_client_call_tool_as_task(client, "report", NULL, 0, on_status, on_complete, &c, NULL);
  J *r = finish(&c, st, "report as a task");
  const char *text = json_str(json_at(json_get(r, "content"), 0), "text");
  CHECK(str_is(text, "report for Ada"), "the task's result is the tool's: %s", c.json ? c.json : c.message);
  pthread_mutex_lock(&g_mu);
  const char *last = strrchr(g_statuses, ',');
  CHECK(strncmp(g_statuses, "asked,", 6) == 0 && last && strcmp(last, ",completed") == 0 && !strstr(g_statuses, "input_required"),
        "asked inline during tools/call, then followed to completed with no input_required: %s", g_statuses);
  CHECK(str_is(g_steps, "escalated=true"), "the call escalated: %s", g_steps);
  g_steps[0] = 0;
  pthread_mutex_unlock(&g_mu);
  json_free(r);
  call_done(&c);

  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(client, "report", NULL, 0, 0, NULL, on_complete, &c, NULL), "report inline");
  CHECK(str_is(json_str(json_at(json_get(r, "content"), 0), "text"), "report for Ada"), "a plain call runs inline: %s",
        c.json ? c.json : c.message);
  pthread_mutex_lock(&g_mu);
  CHECK(str_is(g_steps, "escalated=false"), "a plain call stays inline: %s", g_steps);
  pthread_mutex_unlock(&g_mu);
  json_free(r);
  call_done(&c);

  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(client, "not_middleware", NULL, 0, 0, NULL, on_complete, &c, NULL), "not_middleware");
  pthread_mutex_lock(&g_mu);
  CHECK(g_tool_next == OXMCP_STATUS_INVALID_INPUT, "a tool's request cannot go on (%s)", oxmcp_status_name(g_tool_next));
  CHECK(g_second_next == OXMCP_STATUS_INVALID_INPUT, "a middleware goes on once: the second next is %s",
        oxmcp_status_name(g_second_next));
  pthread_mutex_unlock(&g_mu);
  json_free(r);
  call_done(&c);

  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(client, "polled", NULL, 0, 0, NULL, on_complete, &c, NULL), "polled");
  CHECK(str_is(json_str(json_at(json_get(r, "content"), 0), "text"), "answered after the stream ended"),
        "a result after its response stream ended still arrives: %s", c.json ? c.json : c.message);
  json_free(r);
  call_done(&c);

  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(client, "answered", NULL, 0, 0, NULL, on_complete, &c, NULL), "answered");
  OxmcpStatus after = OXMCP_STATUS_OK;
  for (int i = 0; i < 200 && after == OXMCP_STATUS_OK; i++) { /* the handler records it just after answering */
    pthread_mutex_lock(&g_mu);
    after = g_after_answer;
    pthread_mutex_unlock(&g_mu);
    if (after == OXMCP_STATUS_OK) sleep_ms(10);
  }
  CHECK(after == OXMCP_STATUS_CLOSED, "an answered request starts nothing more (%s)", oxmcp_status_name(after));
  json_free(r);
  call_done(&c);

  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(client, "own_skill", NULL, 0, 0, NULL, on_complete, &c, NULL), "own_skill");
  CHECK(str_is(json_str(json_at(json_get(r, "content"), 0), "text"), GIT_MD), "a handler reads its server's resource: %s",
        c.json ? c.json : c.message);
  json_free(r);
  call_done(&c);
}

/* The request's facts reach its handler; a subscribed client hears of an updated resource. */
static void test_facts_and_updates(OxmcpClient *client, OxmcpServer *server) {
  Call c;
  call_init(&c);
  J *r = finish(&c, oxmcp_client_call_tool(client, "facts", NULL, 0, 0, NULL, on_complete, &c, NULL), "facts");
  const char *text = json_str(json_at(json_get(r, "content"), 0), "text");
  J *facts = text ? json_parse(text, strlen(text)) : NULL;
  CHECK(str_is(json_str(json_get(facts, "clientInfo"), "name"), "c-skills-client") && json_str(facts, "protocolVersion") &&
            json_str(json_get(facts, "headers"), "host") != NULL,
        "a handler reads its request's facts (client, version, HTTP headers): %s", text ? text : c.message);
  json_free(facts);
  json_free(r);
  call_done(&c);

  const char *uri = "skill://git-workflow/SKILL.md";
  char params[128];
  snprintf(params, sizeof params, "{\"uri\":\"%s\"}", uri);
  call_init(&c);
  r = finish(&c, oxmcp_client_request(client, "resources/subscribe", (const uint8_t *)params, strlen(params), 0, NULL, on_complete, &c, NULL),
             "resources/subscribe");
  CHECK(c.status == OXMCP_STATUS_OK, "a server of skills takes subscriptions: %s", c.json ? c.json : c.message);
  json_free(r);
  call_done(&c);
  int heard = 0;
  for (int i = 0; i < 100 && !heard; i++) {
    OxmcpStatus st = oxmcp_server_notify_resource_updated(server, uri);
    if (st != OXMCP_STATUS_OK) CHECK(0, "notify_resource_updated: %s", last_message());
    sleep_ms(50);
    pthread_mutex_lock(&g_mu);
    heard = str_is(g_updated, uri);
    pthread_mutex_unlock(&g_mu);
  }
  CHECK(heard, "the subscribed client heard that %s changed (%s)", uri, g_updated);
  CHECK(oxmcp_server_notify_resource_updated(server, NULL) == OXMCP_STATUS_INVALID_INPUT, "a NULL uri is refused");
  CHECK(oxmcp_client_notify_roots_changed(client) == OXMCP_STATUS_OK, "notify_roots_changed: %s", last_message());
}

/* A second server mounts the client's connection under "remote"; a second client calls the
 * first server's own_skill through it. */
static void test_mount_client(OxmcpRuntime *rt, OxmcpClient *client, const char *era) {
  OxmcpServer *front = NULL;
  REQUIRE(oxmcp_server_new(rt, "c-front", "1.0.0", &front) == OXMCP_STATUS_OK, "front server");
  Call c;
  call_init(&c);
  J *r = finish(&c, oxmcp_server_mount_client(front, "remote", client, on_complete, &c, NULL), "mount_client");
  json_free(r);
  call_done(&c);
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http(front, "127.0.0.1:0", NULL, 0, &port) == OXMCP_STATUS_OK, "front http: %s", last_message());
  OxmcpClient *second = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-second", "1.0.0", &second) == OXMCP_STATUS_OK, "second client");
  REQUIRE(oxmcp_client_set_era(second, era) == OXMCP_STATUS_OK, "era");
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", port);
  call_init(&c);
  REQUIRE(oxmcp_client_connect_http(second, url, on_complete, &c, NULL) == OXMCP_STATUS_OK, "connect: %s", last_message());
  REQUIRE(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "connected to front: %s", c.message ? c.message : "");
  call_done(&c);
  call_init(&c);
  r = finish(&c, oxmcp_client_call_tool(second, "remote_own_skill", NULL, 0, 0, NULL, on_complete, &c, NULL), "remote_own_skill");
  CHECK(str_is(json_str(json_at(json_get(r, "content"), 0), "text"), GIT_MD),
        "a call through the mounted client reaches the first server: %s", c.json ? c.json : c.message);
  json_free(r);
  call_done(&c);
  call_init(&c);
  oxmcp_client_close(second, on_complete, &c);
  call_wait(&c);
  call_done(&c);
  oxmcp_client_free(second);
  CHECK(oxmcp_server_stop_http(front) == OXMCP_STATUS_OK, "stop front");
  oxmcp_server_free(front);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ERA\n", argv[0]);
    return 2;
  }
  const char *era = argv[1];
  char root[] = "/tmp/oxmcp-c-skills-XXXXXX";
  REQUIRE(mkdtemp(root) != NULL, "a temporary directory");

  OxmcpRuntime *rt = NULL;
  REQUIRE(oxmcp_runtime_new(2, &rt) == OXMCP_STATUS_OK, "runtime");
  OxmcpServer *server = NULL;
  REQUIRE(oxmcp_server_new(rt, "c-skills", "1.0.0", &server) == OXMCP_STATUS_OK, "server");
  test_task_options(server);
  const char *quick = "{\"name\":\"quick\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"}}";
  REQUIRE(oxmcp_server_add_tool(server, (const uint8_t *)quick, strlen(quick), quick_tool, NULL) == OXMCP_STATUS_OK,
          "a tool that may run as a task: %s", last_message());
  add_skills(server, root);
  add_tools(server);
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http(server, "127.0.0.1:0", NULL, 0, &port) == OXMCP_STATUS_OK, "http: %s", last_message());

  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-skills-client", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  REQUIRE(oxmcp_client_set_era(client, era) == OXMCP_STATUS_OK, "era %s: %s", era, last_message());
  REQUIRE(oxmcp_client_on_request(client, "elicitation", on_client_request, NULL) == OXMCP_STATUS_OK, "on_request: %s",
          last_message());
  CHECK(oxmcp_client_notify_roots_changed(client) == OXMCP_STATUS_INVALID_INPUT, "an unconnected client cannot notify");
  REQUIRE(oxmcp_client_on_notification(client, on_notification, NULL) == OXMCP_STATUS_OK, "on_notification: %s",
          last_message());
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", port);
  Call c;
  call_init(&c);
  REQUIRE(oxmcp_client_connect_http(client, url, on_complete, &c, NULL) == OXMCP_STATUS_OK, "connect: %s", last_message());
  REQUIRE(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "connected: %s", c.message ? c.message : "");
  call_done(&c);

  test_skills(client, server);
  test_task_ttl(client, server);
  test_escalation(client);
  test_facts_and_updates(client, server);
  test_mount_client(rt, client, era);

  call_init(&c);
  oxmcp_client_close(client, on_complete, &c);
  call_wait(&c);
  call_done(&c);
  oxmcp_client_free(client);
  CHECK(oxmcp_server_stop_http(server) == OXMCP_STATUS_OK, "stop http");
  oxmcp_server_free(server);
  CHECK(oxmcp_runtime_shutdown(rt) == OXMCP_STATUS_OK, "shutdown");
  oxmcp_runtime_free(rt);
  remove_skills_dir(root);

  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
