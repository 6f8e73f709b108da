/*
 * A small JSON reader and writer for the C scenario programs (tests/scenarios/): parses a
 * whole document into a tree, looks values up by dotted path, compares values, and writes
 * compact JSON back. Strings are NUL-terminated UTF-8 (\u escapes decoded, surrogate pairs
 * joined). Enough for scenarios.json and the engine's results; not a general library.
 */
#ifndef OXMCP_TEST_JSON_H
#define OXMCP_TEST_JSON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_UNUSED __attribute__((unused))

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct J {
  JType t;
  int b;            /* J_BOOL */
  double n;         /* J_NUM */
  char *s;          /* J_STR */
  size_t count;     /* J_ARR, J_OBJ */
  struct J **items; /* J_ARR, J_OBJ: the values */
  char **keys;      /* J_OBJ: the keys, in document order */
} J;

/* --- a growable string ------------------------------------------------------------------ */
typedef struct {
  char *p;
  size_t len, cap;
} Sb;

static JSON_UNUSED void sb_putn(Sb *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (b->len + n + 1 > cap) cap *= 2;
    b->p = realloc(b->p, cap);
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static JSON_UNUSED void sb_puts(Sb *b, const char *s) { sb_putn(b, s, strlen(s)); }

static JSON_UNUSED void sb_printf(Sb *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_putn(b, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_putn(b, big, (size_t)n);
  free(big);
}

/* Takes the text (the caller frees it); the builder is empty afterwards. */
static JSON_UNUSED char *sb_take(Sb *b) {
  char *p = b->p ? b->p : calloc(1, 1);
  b->p = NULL;
  b->len = b->cap = 0;
  return p;
}

/* Appends `s` as a JSON string literal. */
static JSON_UNUSED void json_quote(Sb *b, const char *s) {
  sb_putn(b, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"': sb_puts(b, "\\\""); break;
      case '\\': sb_puts(b, "\\\\"); break;
      case '\n': sb_puts(b, "\\n"); break;
      case '\r': sb_puts(b, "\\r"); break;
      case '\t': sb_puts(b, "\\t"); break;
      default:
        if (*p < 0x20) sb_printf(b, "\\u%04x", *p);
        else sb_putn(b, (const char *)p, 1);
    }
  }
  sb_putn(b, "\"", 1);
}

/* --- parsing ------------------------------------------------------------------------------ */
typedef struct {
  const char *p, *end;
  int depth;
} JParser;

static void json_free(J *v);

static void jp_ws(JParser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static J *jp_new(JType t) {
  J *v = calloc(1, sizeof *v);
  v->t = t;
  return v;
}

static int jp_hex4(JParser *ps, unsigned *out) {
  if (ps->end - ps->p < 4) return 0;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *ps->p++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return 0;
  }
  *out = v;
  return 1;
}

static void jp_utf8(Sb *b, unsigned cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) { u[0] = (char)cp; n = 1; }
  else if (cp < 0x800) { u[0] = (char)(0xc0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
  else if (cp < 0x10000) {
    u[0] = (char)(0xe0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
  } else {
    u[0] = (char)(0xf0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
  }
  sb_putn(b, u, n);
}

/* A string literal (ps->p at the opening quote); NULL if malformed. */
static char *jp_string(JParser *ps) {
  if (ps->p >= ps->end || *ps->p != '"') return NULL;
  ps->p++;
  Sb b = {0};
  sb_putn(&b, "", 0);
  while (ps->p < ps->end && *ps->p != '"') {
    char c = *ps->p++;
    if ((unsigned char)c < 0x20) goto bad;
    if (c != '\\') {
      sb_putn(&b, &c, 1);
      continue;
    }
    if (ps->p >= ps->end) goto bad;
    c = *ps->p++;
    switch (c) {
      case '"': sb_puts(&b, "\""); break;
      case '\\': sb_puts(&b, "\\"); break;
      case '/': sb_puts(&b, "/"); break;
      case 'b': sb_puts(&b, "\b"); break;
      case 'f': sb_puts(&b, "\f"); break;
      case 'n': sb_puts(&b, "\n"); break;
      case 'r': sb_puts(&b, "\r"); break;
      case 't': sb_puts(&b, "\t"); break;
      case 'u': {
        unsigned cp;
        if (!jp_hex4(ps, &cp)) goto bad;
        if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
          const char *save = ps->p;
          unsigned lo;
          ps->p += 2;
          if (jp_hex4(ps, &lo) && lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          else ps->p = save;
        }
        jp_utf8(&b, cp);
        break;
      }
      default: goto bad;
    }
  }
  if (ps->p >= ps->end) goto bad;
  ps->p++; /* the closing quote */
  return sb_take(&b);
bad:
  free(b.p);
  return NULL;
}

static J *jp_value(JParser *ps) {
  jp_ws(ps);
  if (ps->p >= ps->end || ++ps->depth > 200) return NULL;
  J *v = NULL;
  char c = *ps->p;
  if (c == '{' || c == '[') {
    int obj = c == '{';
    char close = obj ? '}' : ']';
    v = jp_new(obj ? J_OBJ : J_ARR);
    ps->p++;
    jp_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
      ps->p++;
    } else {
      for (;;) {
        char *key = NULL;
        if (obj) {
          jp_ws(ps);
          key = jp_string(ps);
          jp_ws(ps);
          if (!key || ps->p >= ps->end || *ps->p != ':') { free(key); goto bad; }
          ps->p++;
        }
        J *item = jp_value(ps);
        if (!item) { free(key); goto bad; }
        v->items = realloc(v->items, (v->count + 1) * sizeof *v->items);
        if (obj) v->keys = realloc(v->keys, (v->count + 1) * sizeof *v->keys);
        v->items[v->count] = item;
        if (obj) v->keys[v->count] = key;
        v->count++;
        jp_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; break; }
        goto bad;
      }
    }
  } else if (c == '"') {
    char *s = jp_string(ps);
    if (!s) return NULL;
    v = jp_new(J_STR);
    v->s = s;
  } else if (c == 't' && ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
    v = jp_new(J_BOOL); v->b = 1; ps->p += 4;
  } else if (c == 'f' && ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
    v = jp_new(J_BOOL); ps->p += 5;
  } else if (c == 'n' && ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) {
    v = jp_new(J_NULL); ps->p += 4;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    char buf[64];
    size_t n = 0;
    while (ps->p < ps->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", *ps->p)) buf[n++] = *ps->p++;
    buf[n] = 0;
    char *endp;
    double d = strtod(buf, &endp);
    if (endp != buf + n) return NULL;
    v = jp_new(J_NUM);
    v->n = d;
  } else {
    return NULL;
  }
  ps->depth--;
  return v;
bad:
  json_free(v);
  return NULL;
}

/* Parses `len` bytes of JSON text; NULL when it is not one valid JSON value. */
static JSON_UNUSED J *json_parse(const char *text, size_t len) {
  if (!text) return NULL;
  JParser ps = {text, text + len, 0};
  J *v = jp_value(&ps);
  jp_ws(&ps);
  if (v && ps.p != ps.end) {
    json_free(v);
    return NULL;
  }
  return v;
}

static void json_free(J *v) {
  if (!v) return;
  for (size_t i = 0; i < v->count; i++) {
    json_free(v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->s);
  free(v);
}

/* --- access --------------------------------------------------------------------------------- */
static JSON_UNUSED J *json_get(const J *obj, const char *key) {
  if (!obj || obj->t != J_OBJ) return NULL;
  for (size_t i = 0; i < obj->count; i++)
    if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
  return NULL;
}

static JSON_UNUSED J *json_at(const J *arr, size_t i) {
  return arr && arr->t == J_ARR && i < arr->count ? arr->items[i] : NULL;
}

/* The string value of `obj[key]`, or NULL. */
static JSON_UNUSED const char *json_str(const J *obj, const char *key) {
  J *v = json_get(obj, key);
  return v && v->t == J_STR ? v->s : NULL;
}

/* A dotted path ("completion.values.0"): names step into objects, numbers index arrays. */
static JSON_UNUSED J *json_path(const J *v, const char *path) {
  const J *cur = v;
  const char *p = path;
  while (cur && *p) {
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    char seg[256];
    if (n >= sizeof seg) return NULL;
    memcpy(seg, p, n);
    seg[n] = 0;
    if (cur->t == J_ARR) {
      char *endp;
      long i = strtol(seg, &endp, 10);
      if (!n || *endp || i < 0) return NULL;
      cur = json_at(cur, (size_t)i);
    } else {
      cur = json_get(cur, seg);
    }
    p += n;
    if (*p == '.') p++;
  }
  return (J *)cur;
}

/* Deep equality (objects: the same keys with equal values, in any order). */
static JSON_UNUSED int json_equal(const J *a, const J *b) {
  if (!a || !b) return a == b;
  if (a->t != b->t) return 0;
  switch (a->t) {
    case J_NULL: return 1;
    case J_BOOL: return a->b == b->b;
    case J_NUM: return a->n == b->n;
    case J_STR: return strcmp(a->s, b->s) == 0;
    case J_ARR:
      if (a->count != b->count) return 0;
      for (size_t i = 0; i < a->count; i++)
        if (!json_equal(a->items[i], b->items[i])) return 0;
      return 1;
    case J_OBJ:
      if (a->count != b->count) return 0;
      for (size_t i = 0; i < a->count; i++)
        if (!json_equal(a->items[i], json_get(b, a->keys[i]))) return 0;
      return 1;
  }
  return 0;
}

/* --- writing -------------------------------------------------------------------------------- */
static JSON_UNUSED void json_write(Sb *b, const J *v) {
  if (!v) { sb_puts(b, "null"); return; }
  switch (v->t) {
    case J_NULL: sb_puts(b, "null"); break;
    case J_BOOL: sb_puts(b, v->b ? "true" : "false"); break;
    case J_NUM:
      if (v->n > -9e15 && v->n < 9e15 && (double)(long long)v->n == v->n) sb_printf(b, "%lld", (long long)v->n);
      else sb_printf(b, "%.17g", v->n);
      break;
    case J_STR: json_quote(b, v->s); break;
    case J_ARR:
    case J_OBJ:
      sb_puts(b, v->t == J_ARR ? "[" : "{");
      for (size_t i = 0; i < v->count; i++) {
        if (i) sb_puts(b, ",");
        if (v->t == J_OBJ) {
          json_quote(b, v->keys[i]);
          sb_puts(b, ":");
        }
        json_write(b, v->items[i]);
      }
      sb_puts(b, v->t == J_ARR ? "]" : "}");
      break;
  }
}

/* Compact JSON text of `v` (the caller frees it). */
static JSON_UNUSED char *json_dump(const J *v) {
  Sb b = {0};
  json_write(&b, v);
  return sb_take(&b);
}

#endif
