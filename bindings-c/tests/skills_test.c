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
  J *skills = json_get(list, "skills");
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
  J *children = json_get(dir, "resources");
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
  CHECK(st == OXMCP_STATUS_INVALID_INPUT && strstr(last_message(), "skill_json"), "reading a file needs the entry: %s",
        last_message());
  call_done(&c);

  /* A skill added while serving is listed at once. */
  const char *late_md = "{\"SKILL.md\":\"---\\nname: late\\ndescription: Added while serving\\n---\\nHi.\\n\"}";
  CHECK(oxmcp_server_add_skill(server, "late", (const uint8_t *)late_md, strlen(late_md)) == OXMCP_STATUS_OK,
        "add_skill while serving: %s", last_message());
  call_init(&c);
  list = finish(&c, oxmcp_client_list(client, OXMCP_LIST_SKILLS, on_complete, &c, NULL), "skills/list again");
  CHECK(entry_at(json_get(list, "skills"), "skill://late/SKILL.md") != NULL, "the late skill is listed: %s",
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
  uint16_t port = 0;
  REQUIRE(oxmcp_server_start_http(server, "127.0.0.1:0", NULL, 0, &port) == OXMCP_STATUS_OK, "http: %s", last_message());

  OxmcpClient *client = NULL;
  REQUIRE(oxmcp_client_new(rt, "c-skills-client", "1.0.0", &client) == OXMCP_STATUS_OK, "client");
  REQUIRE(oxmcp_client_set_era(client, era) == OXMCP_STATUS_OK, "era %s: %s", era, last_message());
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", port);
  Call c;
  call_init(&c);
  REQUIRE(oxmcp_client_connect_http(client, url, on_complete, &c, NULL) == OXMCP_STATUS_OK, "connect: %s", last_message());
  REQUIRE(call_wait(&c) == 1 && c.status == OXMCP_STATUS_OK, "connected: %s", c.message ? c.message : "");
  call_done(&c);

  test_skills(client, server);
  test_task_ttl(client, server);

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
