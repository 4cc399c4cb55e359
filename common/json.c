/* json: a small recursive-descent JSON reader (see json.h). */
#include "common/json.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64

struct parser {
    const char *p, *end, *start;
    int depth;
};

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static struct dc_json *new_value(enum dc_jtype t)
{
    struct dc_json *v = calloc(1, sizeof *v);
    if (v)
        v->type = t;
    return v;
}

static int push(struct dc_json *v, char *key, struct dc_json *item)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        struct dc_json **ni = realloc(v->items, cap * sizeof *ni);
        if (!ni)
            return -1;
        v->items = ni;
        if (v->type == DC_J_OBJ) {
            char **nk = realloc(v->keys, cap * sizeof *nk);
            if (!nk)
                return -1;
            v->keys = nk;
        }
        v->cap = cap;
    }
    v->items[v->n] = item;
    if (v->type == DC_J_OBJ)
        v->keys[v->n] = key;
    v->n++;
    return 0;
}

static void put_utf8(char *out, size_t *o, unsigned cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xc0 | (cp >> 6));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xe0 | (cp >> 12));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*o)++] = (char)(0xf0 | (cp >> 18));
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* At the opening quote; returns the decoded string (malloc'd) or NULL. */
static char *parse_string(struct parser *ps)
{
    if (ps->p >= ps->end || *ps->p != '"')
        return NULL;
    const char *q = ++ps->p;
    size_t n = 0;
    while (q < ps->end && *q != '"') {             /* an upper bound of the length */
        if (*q == '\\')
            q++;
        q++;
        n++;
    }
    if (q >= ps->end)
        return NULL;
    char *out = malloc(n * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20)
            goto bad;
        if (c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        if (ps->p >= ps->end)
            goto bad;
        char e = *ps->p++;
        switch (e) {
        case '"': out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '/': out[o++] = '/'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (ps->end - ps->p < 4 || hex4(ps->p, &cp) != 0)
                goto bad;
            ps->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                unsigned lo;
                if (hex4(ps->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    ps->p += 6;
                }
            }
            if (cp >= 0xdc80 && cp < 0xdd00)   /* a raw byte (format.h, PEP 383) */
                out[o++] = (char)(cp - 0xdc00);
            else
                put_utf8(out, &o, cp);
            break;
        }
        default:
            goto bad;
        }
    }
    if (ps->p >= ps->end)
        goto bad;
    ps->p++;                    /* closing quote */
    out[o] = 0;
    return out;
bad:
    free(out);
    return NULL;
}

static struct dc_json *parse_value(struct parser *ps);

static struct dc_json *parse_container(struct parser *ps, int obj)
{
    struct dc_json *v = new_value(obj ? DC_J_OBJ : DC_J_ARR);
    if (!v)
        return NULL;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
        ps->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (obj) {
            key = parse_string(ps);
            if (!key)
                goto bad;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                goto bad;
            }
            ps->p++;
        }
        struct dc_json *item = parse_value(ps);
        if (!item || push(v, key, item) != 0) {
            free(key);
            dc_json_free(item);
            goto bad;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return v;
        }
        goto bad;
    }
bad:
    dc_json_free(v);
    return NULL;
}

static int word(struct parser *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static struct dc_json *parse_number(struct parser *ps)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return NULL;
    int is_int = 1;
    while (ps->p < ps->end && ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.' || *ps->p == 'e' ||
                               *ps->p == 'E' || *ps->p == '+' || *ps->p == '-')) {
        if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')
            is_int = 0;
        ps->p++;
    }
    char tmp[64];
    size_t n = (size_t)(ps->p - s);
    if (n >= sizeof tmp)
        return NULL;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    struct dc_json *v = new_value(DC_J_NUM);
    if (!v)
        return NULL;
    v->num = strtod(tmp, &end);
    if (*end) {
        free(v);
        return NULL;
    }
    v->is_int = is_int && fabs(v->num) < 9.0e18;
    if (v->is_int)
        v->i = strtoll(tmp, NULL, 10);
    else if (fabs(v->num) < 9.0e18)     /* NaN fails this too */
        v->i = (long long)v->num;
    else                                /* 1e23: no long long holds it */
        v->i = v->num > 0 ? LLONG_MAX : v->num < 0 ? LLONG_MIN : 0;
    return v;
}

static struct dc_json *parse_value(struct parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end || ps->depth >= DEPTH_MAX)
        return NULL;
    struct dc_json *v;
    switch (*ps->p) {
    case '{':
    case '[':
        ps->depth++;
        v = parse_container(ps, *ps->p == '{');
        ps->depth--;
        return v;
    case '"': {
        char *s = parse_string(ps);
        if (!s)
            return NULL;
        v = new_value(DC_J_STR);
        if (!v) {
            free(s);
            return NULL;
        }
        v->s = s;
        return v;
    }
    case 't':
    case 'f':
        if (word(ps, "true") || word(ps, "false")) {
            v = new_value(DC_J_BOOL);
            if (v)
                v->b = ps->p[-1] == 'e' && ps->p[-2] == 'u';
            return v;
        }
        return NULL;
    case 'n':
        return word(ps, "null") ? new_value(DC_J_NULL) : NULL;
    default:
        return parse_number(ps);
    }
}

struct dc_json *dc_json_parse(const char *text, size_t len, size_t *err_at)
{
    struct parser ps = { text, text + len, text, 0 };
    struct dc_json *v = parse_value(&ps);
    if (v) {
        skip_ws(&ps);
        if (ps.p != ps.end) {
            dc_json_free(v);
            v = NULL;
        }
    }
    if (!v && err_at)
        *err_at = (size_t)(ps.p - ps.start);
    return v;
}

void dc_json_free(struct dc_json *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        dc_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->s);
    free(v);
}

const struct dc_json *dc_json_get(const struct dc_json *v, const char *key)
{
    if (!v || v->type != DC_J_OBJ)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->keys[i], key))
            return v->items[i];
    return NULL;
}

const char *dc_json_str(const struct dc_json *v) { return v && v->type == DC_J_STR ? v->s : NULL; }

long long dc_json_int(const struct dc_json *v, long long dflt)
{
    return v && v->type == DC_J_NUM && v->is_int ? v->i : dflt;
}

const struct dc_json *dc_json_at(const struct dc_json *v, size_t i)
{
    return v && (v->type == DC_J_ARR || v->type == DC_J_OBJ) && i < v->n ? v->items[i] : NULL;
}

size_t dc_json_len(const struct dc_json *v) { return v && v->type == DC_J_ARR ? v->n : 0; }
