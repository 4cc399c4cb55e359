/* suppress: suppression files, matching and generated entries (see
 * suppress.h). */
#include "report/suppress.h"
#include "common/format.h"
#include "report/pystack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fkind { F_FUN, F_OBJ, F_SRC, F_ANY, F_PY };

struct fpat {
    enum fkind kind;
    char *glob;                 /* F_PY: the file's glob; fun and line follow */
    char *fun, *line;           /* F_PY: globs ("*" when not given) */
};

struct entry {
    char *name;
    char *file;                 /* the suppression file it came from */
    int line;                   /* of its '{' */
    char *kind;                 /* glob on the finding kind */
    char *kernel;               /* glob or NULL */
    char *op;                   /* glob on a framework error's operator, or NULL */
    int python;                 /* its frames are py: (matched against the Python frames only) */
    struct fpat *frames;
    size_t nframes;
    uint64_t count;             /* atomic */
};

static struct entry *entries;
static size_t nentries;

static void free_entry(struct entry *e)
{
    free(e->name);
    free(e->file);
    free(e->kind);
    free(e->kernel);
    free(e->op);
    for (size_t j = 0; j < e->nframes; j++) {
        free(e->frames[j].glob);
        free(e->frames[j].fun);
        free(e->frames[j].line);
    }
    free(e->frames);
}

static void free_entries(struct entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_entry(&e[i]);
    free(e);
}

void dc_supp_reset(void)
{
    free_entries(entries, nentries);
    entries = NULL;
    nentries = 0;
}

size_t dc_supp_count(void) { return nentries; }

void dc_supp_zero(void)
{
    for (size_t i = 0; i < nentries; i++)
        __atomic_store_n(&entries[i].count, 0, __ATOMIC_RELAXED);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

struct loader {
    struct entry *e;
    size_t n, cap;
    char *err;
    size_t errlen;
};

static int bad(struct loader *L, const char *file, int line, const char *what)
{
    snprintf(L->err, L->errlen, "devcheck: ERROR: suppressions file '%s' line %d: %s", file, line, what);
    return -1;
}

static int load_file(struct loader *L, const char *file)
{
    FILE *f = fopen(file, "re");
    if (!f) {
        snprintf(L->err, L->errlen, "devcheck: ERROR: cannot read suppressions file '%s': %s", file, strerror(errno));
        return -1;
    }
    char *buf = malloc(DC_SUPP_LINE_MAX + 2);
    if (!buf) {
        fclose(f);
        return bad(L, file, 0, "out of memory");
    }
    int lineno = 0, state = 0;          /* 0: outside, 1: name, 2: kind, 3: body */
    struct entry cur;
    memset(&cur, 0, sizeof cur);
    int rc = 0;
    while (fgets(buf, DC_SUPP_LINE_MAX + 2, f)) {
        lineno++;
        if (!strchr(buf, '\n') && !feof(f)) {
            char what[64];
            snprintf(what, sizeof what, "line too long (at most %d characters)", DC_SUPP_LINE_MAX);
            rc = bad(L, file, lineno, what);
            break;
        }
        char *s = trim(buf);
        if (!*s || *s == '#')
            continue;
        if (state == 0) {
            if (strcmp(s, "{")) {
                rc = bad(L, file, lineno, "expected '{' to start an entry");
                break;
            }
            memset(&cur, 0, sizeof cur);
            cur.line = lineno;
            state = 1;
        } else if (state == 1) {
            if (!strcmp(s, "{") || !strcmp(s, "}") || strchr(s, ':')) {
                rc = bad(L, file, lineno, "expected the entry's name");
                break;
            }
            cur.name = strdup(s);
            state = 2;
        } else if (state == 2) {
            if (strncmp(s, "devcheck:", 9) || !s[9]) {
                rc = bad(L, file, lineno, "expected 'devcheck:KIND' (e.g. devcheck:device_mismatch, devcheck:*)");
                break;
            }
            cur.kind = strdup(s + 9);
            state = 3;
        } else {
            if (!strcmp(s, "}")) {
                if (L->n == L->cap) {
                    size_t ncap = L->cap ? L->cap * 2 : 8;
                    struct entry *ne = realloc(L->e, ncap * sizeof *ne);
                    if (!ne) {
                        rc = bad(L, file, lineno, "out of memory");
                        break;
                    }
                    L->e = ne;
                    L->cap = ncap;
                }
                cur.file = strdup(file);
                L->e[L->n++] = cur;
                memset(&cur, 0, sizeof cur);
                state = 0;
                continue;
            }
            enum fkind k;
            const char *g;
            if (!strcmp(s, "...")) {
                k = F_ANY, g = "";
            } else if (!strncmp(s, "kernel:", 7)) {
                if (cur.nframes || cur.kernel) {
                    rc = bad(L, file, lineno, "'kernel:' comes once, before the frames");
                    break;
                }
                cur.kernel = strdup(s + 7);
                continue;
            } else if (!strncmp(s, "op:", 3)) {
                if (cur.nframes || cur.op || !s[3]) {
                    rc = bad(L, file, lineno, "'op:GLOB' comes once, before the frames");
                    break;
                }
                cur.op = strdup(s + 3);
                continue;
            } else if (!strncmp(s, "py:", 3)) {
                k = F_PY, g = s + 3;
            } else if (!strncmp(s, "fun:", 4)) {
                k = F_FUN, g = s + 4;
            } else if (!strncmp(s, "obj:", 4)) {
                k = F_OBJ, g = s + 4;
            } else if (!strncmp(s, "src:", 4)) {
                k = F_SRC, g = s + 4;
            } else {
                rc = bad(L, file, lineno, "expected 'kernel:GLOB', 'op:GLOB', 'fun:GLOB', 'obj:GLOB', 'src:GLOB', "
                                          "'py:FILE[:FUNCTION[:LINE]]', '...' or '}'");
                break;
            }
            if (k != F_ANY && !*g) {
                rc = bad(L, file, lineno, "empty pattern");
                break;
            }
            int mixed = 0;              /* py: frames and native frames in one entry */
            for (size_t j = 0; j < cur.nframes && k != F_ANY; j++)
                if (cur.frames[j].kind != F_ANY && (cur.frames[j].kind == F_PY) != (k == F_PY))
                    mixed = 1;
            if (mixed) {
                rc = bad(L, file, lineno, "py: frames and fun:/obj:/src: frames cannot be mixed in one entry");
                break;
            }
            struct fpat *nf = realloc(cur.frames, (cur.nframes + 1) * sizeof *nf);
            if (!nf) {
                rc = bad(L, file, lineno, "out of memory");
                break;
            }
            cur.frames = nf;
            struct fpat *fp = &cur.frames[cur.nframes];
            memset(fp, 0, sizeof *fp);
            fp->kind = k;
            if (k == F_PY) {                /* FILE[:FUNCTION[:LINE]] */
                const char *c1 = strchr(g, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                fp->glob = strndup(g, c1 ? (size_t)(c1 - g) : strlen(g));
                fp->fun = c1 ? strndup(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)) : strdup("*");
                fp->line = strdup(c2 ? c2 + 1 : "*");
                cur.python = 1;
            } else {
                fp->glob = strdup(g);
            }
            cur.nframes++;
        }
    }
    if (!rc && state != 0)
        rc = bad(L, file, lineno + 1, "end of file inside an entry (missing '}')");
    if (rc || state != 0)
        free_entry(&cur);                   /* the unfinished entry */
    free(buf);
    fclose(f);
    return rc;
}

int dc_supp_load(const char *files, char *err, size_t errlen)
{
    struct loader L = { NULL, 0, 0, err, errlen };
    if (err && errlen)
        err[0] = 0;
    char *copy = strdup(files ? files : "");
    if (!copy) {
        snprintf(err, errlen, "devcheck: ERROR: out of memory reading suppressions");
        return -1;
    }
    int rc = 0;
    for (char *save = NULL, *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        f = trim(f);
        if (*f && load_file(&L, f) != 0) {
            rc = -1;
            break;
        }
    }
    free(copy);
    if (rc) {
        free_entries(L.e, L.n);
        return -1;
    }
    dc_supp_reset();
    entries = L.e;
    nentries = L.n;
    return 0;
}

/* One element of the pattern at p (a character, `?`, `\\c`, a bracket
 * expression) against the byte c: *ok set, the element's end returned. */
static const char *glob_elem(const char *p, unsigned char c, int *ok)
{
    if (*p == '?') {
        *ok = 1;
        return p + 1;
    }
    if (*p == '\\') {                     /* a trailing backslash matches nothing (fnmatch) */
        *ok = p[1] && (unsigned char)p[1] == c;
        return p[1] ? p + 2 : p + 1;
    }
    if (*p == '[') {
        const char *q = p + 1;
        int neg = *q == '!' || *q == '^', hit = 0, broken = 0;
        q += neg;
        for (int first = 1; *q && (first || *q != ']'); first = 0) {
            unsigned char lo, hi;
            if (*q == '\\')
                broken |= !*++q;
            if (!*q)
                break;
            lo = hi = (unsigned char)*q++;
            if (*q == '-' && !q[1])
                broken = 1;
            if (*q == '-' && q[1] && q[1] != ']') {
                q++;
                if (*q == '\\')
                    broken |= !*++q;
                if (!*q)
                    break;
                hi = (unsigned char)*q++;
            }
            hit |= lo <= c && c <= hi;
        }
        if (*q != ']') {                    /* no closing bracket: a literal '[' -- */
            *ok = c == '[' && !broken;      /* unless cut in a range or an escape (fnmatch: no match) */
            return p + 1;
        }
        *ok = hit != neg;
        return q + 1;
    }
    *ok = (unsigned char)*p == c;
    return p + 1;
}

/* fnmatch(pat, s, 0) without its backtracking: after a mismatch only the
 * last `*` is retried one byte further, so the work is at most the
 * pattern's length times the string's (glibc's fnmatch is exponential in
 * the number of stars).  Character classes ([:alpha:]) are not supported. */
int dc_supp_glob(const char *p, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star_p = p, star_s = s;
            continue;
        }
        if (*s && *p) {
            int ok;
            const char *np = glob_elem(p, (unsigned char)*s, &ok);
            if (ok) {
                p = np, s++;
                continue;
            }
        } else if (!*s && !*p) {
            return 1;
        }
        if (!star_p || !*star_s)
            return 0;
        p = star_p, s = ++star_s;
    }
}

static int glob(const char *pat, const char *s) { return s && *s && dc_supp_glob(pat, s); }

static int frame_matches(const struct fpat *p, const struct dc_sframe *f)
{
    switch (p->kind) {
    case F_FUN:
        return glob(p->glob, f->function) || glob(p->glob, f->symbol);
    case F_OBJ:
        return glob(p->glob, f->object);
    case F_SRC: {
        if (!f->file || !*f->file)
            return 0;
        char fl[4200];
        snprintf(fl, sizeof fl, "%s:%d", f->file, f->line);
        return glob(p->glob, f->file) || (f->line > 0 && glob(p->glob, fl));
    }
    case F_PY: {
        if (!f->python || !f->file || !*f->file)
            return 0;
        char slashed[4200], line[16];
        snprintf(slashed, sizeof slashed, "/%s", f->file);     /* a glob for any folder then x.py matches a relative x.py too */
        snprintf(line, sizeof line, "%d", f->line);
        return (glob(p->glob, f->file) || (f->file[0] != '/' && glob(p->glob, slashed))) &&
               (!strcmp(p->fun, "*") || glob(p->fun, f->function)) && glob(p->line, line);
    }
    default:
        return 1;
    }
}

/* Do patterns p[i..] match frames f[j..] (a prefix of them)? */
static int match_from(const struct entry *e, size_t i, const struct dc_sframe *f, size_t n, size_t j)
{
    for (; i < e->nframes; i++, j++) {
        if (e->frames[i].kind == F_ANY) {
            for (size_t k = j; k <= n; k++)
                if (match_from(e, i + 1, f, n, k))
                    return 1;
            return 0;
        }
        if (j >= n || !frame_matches(&e->frames[i], &f[j]))
            return 0;
    }
    return 1;
}

int dc_supp_match(const char *kind, const char *kmangled, const char *kdemangled, const struct dc_sframe *frames,
                  size_t nframes, int count_it)
{
    return dc_supp_match_op(kind, kmangled, kdemangled, NULL, frames, nframes, count_it);
}

#define PY_FRAMES_MAX 256

int dc_supp_match_op(const char *kind, const char *kmangled, const char *kdemangled, const char *op,
                     const struct dc_sframe *frames, size_t nframes, int count_it)
{
    /* the Python frames alone, innermost first, for entries of py: frames */
    struct dc_sframe py[PY_FRAMES_MAX];
    size_t npy = 0;
    for (size_t j = 0; j < nframes && npy < PY_FRAMES_MAX; j++)
        if (frames[j].python)
            py[npy++] = frames[j];
    for (size_t i = 0; i < nentries; i++) {
        const struct entry *e = &entries[i];
        if (!dc_supp_glob(e->kind, kind ? kind : ""))
            continue;
        if (e->kernel && !glob(e->kernel, kmangled) && !glob(e->kernel, kdemangled))
            continue;
        if (e->op && !glob(e->op, op))
            continue;
        if (e->python ? !match_from(e, 0, py, npy, 0) : !match_from(e, 0, frames, nframes, 0))
            continue;
        if (count_it)
            __atomic_fetch_add(&entries[i].count, 1, __ATOMIC_RELAXED);
        return (int)i;
    }
    return -1;
}

void dc_supp_add(int i, uint64_t n)
{
    if (i >= 0 && (size_t)i < nentries)
        __atomic_fetch_add(&entries[i].count, n, __ATOMIC_RELAXED);
}

const char *dc_supp_entry(size_t i, const char **file, int *line, uint64_t *count)
{
    if (i >= nentries)
        return NULL;
    if (file)
        *file = entries[i].file;
    if (line)
        *line = entries[i].line;
    if (count)
        *count = __atomic_load_n(&entries[i].count, __ATOMIC_RELAXED);
    return entries[i].name;
}

/* A name as a pattern the reader takes back and that matches it: glob
 * metacharacters escaped; a control character, and a blank at either end
 * (the reader trims those), as `?`, so the entry stays one line per
 * pattern; a name longer than the reader's line bound is cut and ends in
 * `*` (a prefix match). */
static void put_literal(struct dc_buf *b, const char *s)
{
    size_t n = strlen(s), room = DC_SUPP_LINE_MAX - 16;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t w = c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' ? 2 : 1;
        if (w + 1 > room) {
            dc_bput(b, "*");
            return;
        }
        room -= w;
        if (c < 0x20 || c == 0x7f || ((c == ' ') && (i == 0 || i == n - 1)))
            dc_bput(b, "?");
        else
            dc_bput(b, "%s%c", w == 2 ? "\\" : "", c);
    }
}

#define GEN_FRAMES_MAX 8

void dc_supp_generate(struct dc_buf *b, const char *kind, const char *kmangled, const struct dc_sframe *frames,
                      size_t n)
{
    dc_supp_generate_op(b, kind, kmangled, NULL, frames, n);
}

/* A file, a user's frame: not the standard library's or an installed one's. */
static int library_file(const char *f)
{
    return !dc_py_user_file(f);
}

/* py: lines for the Python frames, innermost first: every frame up to the
 * second of the user's own (the op's line and its caller), each by its
 * file's base name, function and line; a run of library frames between them
 * one `...`.  This names one error and nothing else. */
static void generate_py(struct dc_buf *b, const struct dc_sframe *frames, size_t n)
{
    int users = 0, gap = 0;
    for (size_t i = 0, k = 0; i < n && users < 2 && k < GEN_FRAMES_MAX; i++) {
        const struct dc_sframe *f = &frames[i];
        if (!f->python)
            continue;
        if (library_file(f->file)) {
            if (!gap)
                dc_bput(b, "   ...\n"), k++;
            gap = 1;
            continue;
        }
        const char *base = strrchr(f->file, '/');
        dc_bput(b, "   py:*/");
        put_literal(b, base ? base + 1 : f->file);
        dc_bput(b, ":");
        put_literal(b, f->function && *f->function ? f->function : "*");
        dc_bput(b, ":%d\n", f->line);
        k++;
        users++;
        gap = 0;
    }
}

void dc_supp_generate_op(struct dc_buf *b, const char *kind, const char *kmangled, const char *op,
                         const struct dc_sframe *frames, size_t n)
{
    dc_bput(b, "{\n   <insert_a_suppression_name_here>\n   devcheck:%s\n", kind);
    if (kmangled && *kmangled) {
        dc_bput(b, "   kernel:");
        put_literal(b, kmangled);
        dc_bput(b, "\n");
    }
    if (op && *op) {
        dc_bput(b, "   op:");
        put_literal(b, op);
        dc_bput(b, "\n");
    }
    int native = 0;
    for (size_t i = 0; i < n; i++)
        native |= !frames[i].python;
    if (!native) {                      /* a framework error: its Python frames */
        generate_py(b, frames, n);
        dc_bput(b, "}\n");
        return;
    }
    for (size_t i = 0; i < n && i < GEN_FRAMES_MAX; i++) {
        const struct dc_sframe *f = &frames[i];
        if (f->symbol && *f->symbol) {
            dc_bput(b, "   fun:");
            put_literal(b, f->symbol);
        } else if (f->function && *f->function) {
            dc_bput(b, "   fun:");
            put_literal(b, f->function);
        } else if (f->object && *f->object) {
            dc_bput(b, "   obj:");
            put_literal(b, f->object);
        } else {
            dc_bput(b, "   ...");
        }
        dc_bput(b, "\n");
    }
    dc_bput(b, "}\n");
}
