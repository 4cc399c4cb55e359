/* options: parser, help and command-line mapping generated from flags.def. */
#include "core/base/options.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* DC_K_LIST: a string whose repeated occurrences are joined with ',' (the
 * other kinds: the last occurrence wins). */
enum dc_flag_kind { DC_K_BOOL, DC_K_INT, DC_K_STR, DC_K_MODE, DC_K_POLICY, DC_K_HOSTPOL, DC_K_HALT, DC_K_BACKEND,
                    DC_K_LIST };

struct flag {
    const char *name;
    const char *cli;            /* extra command-line spelling or NULL */
    enum dc_flag_kind kind;
    size_t off;                 /* offsetof(struct dc_options, name) */
    const char *help;
};

static const struct flag flags[] = {
#define DC_FLAG(kind, type, name, dflt, cli, help) \
    { #name, cli, kind, offsetof(struct dc_options, name), help },
#include "core/base/flags.def"
#undef DC_FLAG
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static const struct dc_options defaults = {
#define DC_FLAG(kind, type, name, dflt, cli, help) .name = dflt,
#include "core/base/flags.def"
#undef DC_FLAG
};

struct dc_options dc_opt = {
#define DC_FLAG(kind, type, name, dflt, cli, help) .name = dflt,
#include "core/base/flags.def"
#undef DC_FLAG
};

/* Storage for string values of dc_opt. */
#define ARENA_SIZE 8192
static char arena[ARENA_SIZE];

struct parse_state {
    struct dc_options o;
    char arena[ARENA_SIZE];
    size_t used;
};

const char *dc_policy_name(enum dc_policy p)
{
    switch (p) {
    case DC_POLICY_ERROR:  return "error";
    case DC_POLICY_WARN:   return "warn";
    case DC_POLICY_IGNORE: return "ignore";
    case DC_POLICY_AUTO:   return "auto";
    }
    return "?";
}

const char *dc_mode_name(enum dc_mode m)
{
    return m == DC_MODE_OFF ? "off" : m == DC_MODE_REPORT ? "report" : m == DC_MODE_MIGRATE ? "migrate" : "?";
}

const char *dc_backend_name(enum dc_backend b)
{
    return b == DC_BACKEND_BOTH ? "both" : b == DC_BACKEND_INTERPOSE ? "interpose"
         : b == DC_BACKEND_CUPTI ? "cupti" : "?";
}

static void errf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* A value as an error message shows it, after the option's name: at most
 * SHOWN_MAX bytes, quoted (a longer one is cut, with its length), control
 * characters as \xNN. */
#define SHOWN_MAX 64
static const char *shown(const char *v, size_t n, char out[SHOWN_MAX * 4 + 32])
{
    size_t o = 0;
    out[o++] = '\'';
    for (size_t i = 0; i < n && i < SHOWN_MAX; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7f)
            o += (size_t)sprintf(out + o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o++] = '\'';
    out[o] = 0;
    if (n > SHOWN_MAX)
        sprintf(out + o - 1, "...' (%zu bytes)", n);
    return out;
}

static const char *expected(enum dc_flag_kind k)
{
    switch (k) {
    case DC_K_BOOL:    return "0|1|true|false|yes|no";
    case DC_K_INT:     return "a decimal integer";
    case DC_K_STR:     return "a string";
    case DC_K_LIST:    return "a comma-separated list";
    case DC_K_MODE:    return "report|off|migrate";
    case DC_K_HALT:    return "abort|trap";
    case DC_K_POLICY:  return "error|warn|ignore";
    case DC_K_HOSTPOL: return "auto|error|warn|ignore";
    case DC_K_BACKEND: return "both|interpose|cupti";
    }
    return "?";
}

static void int_range(const struct flag *f, long *lo, long *hi)
{
    *lo = 0;
    *hi = INT_MAX;
    if (!strcmp(f->name, "error_exitcode"))
        *hi = 255;
    else if (!strcmp(f->name, "verbosity"))
        *hi = 2;
    else if (!strcmp(f->name, "sim"))
        *hi = 64;
}

static int eq(const char *v, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(v, word, n) == 0;
}

/* Parses value v[0..n) of flag f into st (st may be NULL: validate only).
 * 0 or -1 with errbuf filled. */
static int set_value(const struct flag *f, const char *v, size_t n, struct parse_state *st,
                     char *errbuf, size_t errlen)
{
    void *field = st ? (char *)&st->o + f->off : NULL;
    int iv = 0;
    switch (f->kind) {
    case DC_K_BOOL:
        if (eq(v, n, "1") || eq(v, n, "true") || eq(v, n, "yes"))
            iv = 1;
        else if (eq(v, n, "0") || eq(v, n, "false") || eq(v, n, "no"))
            iv = 0;
        else
            goto bad;
        if (field)
            *(int *)field = iv;
        return 0;
    case DC_K_INT: {
        char tmp[32];
        if (n == 0 || n >= sizeof tmp) {
            char sv[SHOWN_MAX * 4 + 32];
            long lo, hi;
            int_range(f, &lo, &hi);
            errf(errbuf, errlen, "devcheck: ERROR: option '%s': invalid value %s (expected an integer in %ld..%ld)",
                 f->name, shown(v, n, sv), lo, hi);
            return -1;
        }
        memcpy(tmp, v, n);
        tmp[n] = 0;
        char *end;
        errno = 0;
        long x = strtol(tmp, &end, 10);
        long lo, hi;
        int_range(f, &lo, &hi);
        if (errno || *end || x < lo || x > hi) {
            char sv[SHOWN_MAX * 4 + 32];
            errf(errbuf, errlen, "devcheck: ERROR: option '%s': invalid value %s (expected an integer in %ld..%ld)",
                 f->name, shown(v, n, sv), lo, hi);
            return -1;
        }
        if (field)
            *(int *)field = (int)x;
        return 0;
    }
    case DC_K_STR:
    case DC_K_LIST:
        if (st) {
            const char *old = *(const char **)field;
            size_t oldn = f->kind == DC_K_LIST && old && *old ? strlen(old) + 1 : 0;
            if (f->kind == DC_K_LIST && !n)
                return 0;
            if (st->used + oldn + n + 1 > sizeof st->arena) {
                errf(errbuf, errlen, "devcheck: ERROR: value for option '%s' is too long (all strings together: at most %d bytes)",
                     f->name, ARENA_SIZE - 1);
                return -1;
            }
            char *dst = st->arena + st->used;
            if (oldn) {
                memcpy(dst, old, oldn - 1);
                dst[oldn - 1] = ',';
            }
            memcpy(dst + oldn, v, n);
            dst[oldn + n] = 0;
            st->used += oldn + n + 1;
            *(const char **)field = dst;
        }
        return 0;
    case DC_K_MODE:
        if (eq(v, n, "report"))
            iv = DC_MODE_REPORT;
        else if (eq(v, n, "off"))
            iv = DC_MODE_OFF;
        else if (eq(v, n, "migrate"))
            iv = DC_MODE_MIGRATE;
        else
            goto bad;
        if (field)
            *(enum dc_mode *)field = (enum dc_mode)iv;
        return 0;
    case DC_K_HALT:
        if (eq(v, n, "abort"))
            iv = DC_HALT_ABORT;
        else if (eq(v, n, "trap"))
            iv = DC_HALT_TRAP;
        else
            goto bad;
        if (field)
            *(enum dc_halt *)field = (enum dc_halt)iv;
        return 0;
    case DC_K_POLICY:
    case DC_K_HOSTPOL:
        if (eq(v, n, "error"))
            iv = DC_POLICY_ERROR;
        else if (eq(v, n, "warn") || eq(v, n, "warning"))
            iv = DC_POLICY_WARN;
        else if (eq(v, n, "ignore"))
            iv = DC_POLICY_IGNORE;
        else if (f->kind == DC_K_HOSTPOL && eq(v, n, "auto"))
            iv = DC_POLICY_AUTO;
        else
            goto bad;
        if (field)
            *(enum dc_policy *)field = (enum dc_policy)iv;
        return 0;
    case DC_K_BACKEND:
        if (eq(v, n, "both"))
            iv = DC_BACKEND_BOTH;
        else if (eq(v, n, "interpose"))
            iv = DC_BACKEND_INTERPOSE;
        else if (eq(v, n, "cupti"))
            iv = DC_BACKEND_CUPTI;
        else
            goto bad;
        if (field)
            *(enum dc_backend *)field = (enum dc_backend)iv;
        return 0;
    }
bad:;
    char sv[SHOWN_MAX * 4 + 32];
    errf(errbuf, errlen, "devcheck: ERROR: option '%s': invalid value %s (expected %s)", f->name,
         shown(v, n, sv), expected(f->kind));
    return -1;
}

static const struct flag *find_flag(const char *k, size_t n, int cli)
{
    char norm[64];
    if (n >= sizeof norm)
        return NULL;
    for (size_t i = 0; i < n; i++)
        norm[i] = (cli && k[i] == '-') ? '_' : k[i];
    norm[n] = 0;
    for (size_t i = 0; i < NFLAGS; i++) {
        if (!strcmp(flags[i].name, norm))
            return &flags[i];
        if (cli && flags[i].cli && strlen(flags[i].cli) == n && !strncmp(flags[i].cli, k, n))
            return &flags[i];
    }
    return NULL;
}

static void valid_keys(char *out, size_t len, int cli)
{
    size_t pos = 0;
    if (!len)
        return;
    out[0] = 0;
    for (size_t i = 0; i < NFLAGS && pos < len; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s", flags[i].name);
        if (cli)
            for (char *c = name; *c; c++)
                if (*c == '_')
                    *c = '-';
        int w = snprintf(out + pos, len - pos, "%s%s%s", i ? ", " : "", cli ? "--" : "", name);
        if (cli && flags[i].cli && w > 0 && (size_t)w < len - pos)
            w += snprintf(out + pos + w, len - pos - w, " (--%s)", flags[i].cli);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

static void unknown_key(const char *k, size_t n, char *errbuf, size_t errlen)
{
    char keys[1024];
    valid_keys(keys, sizeof keys, 0);
    char sk[SHOWN_MAX * 4 + 32];
    errf(errbuf, errlen, "devcheck: ERROR: unknown option %s (valid: %s)", shown(k, n, sk), keys);
}

void dc_options_defaults(void)
{
    dc_opt = defaults;
}

static int is_sep(char c) { return c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int parse_into(const char *s, struct parse_state *st, char *errbuf, size_t errlen)
{
    st->o = defaults;
    st->used = 0;
    if (!s)
        return 0;
    const char *p = s;
    for (;;) {
        while (*p && is_sep(*p))
            p++;
        if (!*p)
            return 0;
        const char *k = p;
        while (*p && *p != '=' && !is_sep(*p))
            p++;
        size_t kn = (size_t)(p - k);
        const struct flag *f = find_flag(k, kn, 0);
        if (!f) {
            unknown_key(k, kn, errbuf, errlen);
            return -1;
        }
        if (*p != '=') {
            if (f->kind != DC_K_BOOL) {
                errf(errbuf, errlen, "devcheck: ERROR: option '%s' needs a value (%s=%s)",
                     f->name, f->name, expected(f->kind));
                return -1;
            }
            if (set_value(f, "1", 1, st, errbuf, errlen))
                return -1;
            continue;
        }
        p++;
        const char *v = p;
        size_t vn;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            v = p;
            while (*p && *p != q)
                p++;
            if (!*p) {
                errf(errbuf, errlen, "devcheck: ERROR: unterminated quote in the value of option '%s'", f->name);
                return -1;
            }
            vn = (size_t)(p - v);
            p++;
            if (*p && !is_sep(*p)) {
                errf(errbuf, errlen, "devcheck: ERROR: junk after the quoted value of option '%s'", f->name);
                return -1;
            }
        } else {
            while (*p && !is_sep(*p))
                p++;
            vn = (size_t)(p - v);
        }
        if (set_value(f, v, vn, st, errbuf, errlen))
            return -1;
    }
}

int dc_options_parse(const char *s, char *errbuf, size_t errlen)
{
    static struct parse_state st;       /* init-time only; too big for some stacks */
    if (errbuf && errlen)
        errbuf[0] = 0;
    if (parse_into(s, &st, errbuf, errlen) != 0) {
        dc_options_defaults();
        return -1;
    }
    /* Move the strings to the arena dc_opt keeps. */
    memcpy(arena, st.arena, st.used);
    dc_opt = st.o;
    for (size_t i = 0; i < NFLAGS; i++) {
        if (flags[i].kind != DC_K_STR && flags[i].kind != DC_K_LIST)
            continue;
        const char **fp = (const char **)((char *)&dc_opt + flags[i].off);
        if (*fp >= st.arena && *fp < st.arena + sizeof st.arena)
            *fp = arena + (*fp - st.arena);
    }
    return 0;
}

static void format_value(const struct flag *f, const struct dc_options *o, char *buf, size_t len)
{
    const void *field = (const char *)o + f->off;
    switch (f->kind) {
    case DC_K_BOOL:
    case DC_K_INT:
        snprintf(buf, len, "%d", *(const int *)field);
        return;
    case DC_K_STR:
    case DC_K_LIST:
        snprintf(buf, len, "%s", *(const char *const *)field);
        return;
    case DC_K_MODE:
        snprintf(buf, len, "%s", dc_mode_name(*(const enum dc_mode *)field));
        return;
    case DC_K_POLICY:
    case DC_K_HOSTPOL:
        snprintf(buf, len, "%s", dc_policy_name(*(const enum dc_policy *)field));
        return;
    case DC_K_HALT:
        snprintf(buf, len, "%s", dc_halt_name(*(const enum dc_halt *)field));
        return;
    case DC_K_BACKEND:
        snprintf(buf, len, "%s", dc_backend_name(*(const enum dc_backend *)field));
        return;
    }
}

void dc_options_help(FILE *out)
{
    fprintf(out,
            "devcheck options: DEVCHECK_OPTIONS=key=value:key=value (LD_PRELOAD), or\n"
            "  devcheck [--key-with-dashes VALUE | --key=VALUE ...] [--] program [args]\n"
            "  A bool option alone means 1; the next word is its value only when it is one\n"
            "  (0 1 true false yes no), never the program.  A value that is not one the option\n"
            "  takes is an error naming the option (exit 2), never a program to run.\n\n");
    for (size_t i = 0; i < NFLAGS; i++) {
        const struct flag *f = &flags[i];
        char def[128], cli[64];
        format_value(f, &defaults, def, sizeof def);
        snprintf(cli, sizeof cli, "--%s", f->name);
        for (char *c = cli; *c; c++)
            if (*c == '_')
                *c = '-';
        if (f->cli)
            snprintf(cli + strlen(cli), sizeof cli - strlen(cli), ", --%s", f->cli);
        fprintf(out, "  %-20s %-7s default %s\n      %s\n      %s\n", f->name,
                f->kind == DC_K_BOOL ? "bool" : f->kind == DC_K_INT ? "int" :
                f->kind == DC_K_STR ? "string" : f->kind == DC_K_LIST ? "list" : "enum",
                *def ? def : "\"\"", cli, f->help);
        fprintf(out, "      values: %s\n", expected(f->kind));
    }
}

/* Appends s to out at *pos; -1 when it does not fit. */
static int put(char *out, size_t len, size_t *pos, const char *s, size_t n)
{
    if (*pos + n + 1 > len)
        return -1;
    memcpy(out + *pos, s, n);
    *pos += n;
    out[*pos] = 0;
    return 0;
}

int dc_options_from_argv(int argc, char **argv, int *consumed,
                         char *out_env, size_t len, char *errbuf, size_t errlen)
{
    size_t pos = 0;
    int i = 0;
    if (errbuf && errlen)
        errbuf[0] = 0;
    if (!out_env || !len) {
        errf(errbuf, errlen, "devcheck: ERROR: no room for the options");
        if (consumed)
            *consumed = 0;
        return -1;
    }
    out_env[0] = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!a || a[0] != '-')
            break;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        const char *k, *v = NULL;
        size_t kn;
        if (!strcmp(a, "-h")) {
            k = "help";
            kn = 4;
        } else if (a[1] != '-') {
            char sa[SHOWN_MAX * 4 + 32];
            errf(errbuf, errlen, "devcheck: ERROR: unknown option %s (options are spelled --name; see --help)",
                 shown(a, strlen(a), sa));
            goto fail;
        } else {
            k = a + 2;
            const char *eqp = strchr(k, '=');
            kn = eqp ? (size_t)(eqp - k) : strlen(k);
            if (eqp)
                v = eqp + 1;
        }
        const struct flag *f = find_flag(k, kn, 1);
        if (!f) {
            char keys[1024];
            valid_keys(keys, sizeof keys, 1);
            char sa[SHOWN_MAX * 4 + 32];
            errf(errbuf, errlen, "devcheck: ERROR: unknown option %s (valid: %s)", shown(a, strlen(a), sa), keys);
            goto fail;
        }
        if (!v) {
            const char *next = i + 1 < argc ? argv[i + 1] : NULL;
            if (f->kind == DC_K_BOOL) {
                /* alone it means true; the next word is its value only
                 * when it is a true/false word, never the program */
                if (next && set_value(f, next, strlen(next), NULL, NULL, 0) == 0)
                    v = argv[++i];
                else
                    v = "1";
            } else if (next && !(next[0] == '-' && next[1] == '-')) {
                v = argv[++i];
            } else {
                char sa[SHOWN_MAX * 4 + 32], sn[SHOWN_MAX * 4 + 32];
                errf(errbuf, errlen, "devcheck: ERROR: option %s needs a value (%s)%s%s%s", shown(a, strlen(a), sa),
                     expected(f->kind), next ? "; " : "", next ? shown(next, strlen(next), sn) : "",
                     next ? " is an option (write --key=VALUE for a value that starts with --)" : "");
                goto fail;
            }
        }
        size_t vn = strlen(v);
        if (set_value(f, v, vn, NULL, errbuf, errlen))
            goto fail;
        const char *quote = "";
        if (vn == 0 || strpbrk(v, ": \t\n\r\"'")) {
            if (!strchr(v, '"'))
                quote = "\"";
            else if (!strchr(v, '\''))
                quote = "'";
            else {
                errf(errbuf, errlen, "devcheck: ERROR: option '%s': the value cannot hold both quote characters",
                     f->name);
                goto fail;
            }
        }
        if ((pos && put(out_env, len, &pos, ":", 1)) ||
            put(out_env, len, &pos, f->name, strlen(f->name)) ||
            put(out_env, len, &pos, "=", 1) ||
            put(out_env, len, &pos, quote, strlen(quote)) ||
            put(out_env, len, &pos, v, vn) ||
            put(out_env, len, &pos, quote, strlen(quote))) {
            errf(errbuf, errlen, "devcheck: ERROR: options too long (at most %zu bytes)", len - 1);
            goto fail;
        }
    }
    if (consumed)
        *consumed = i;
    return 0;
fail:
    if (consumed)
        *consumed = i;
    out_env[0] = 0;
    return -1;
}
