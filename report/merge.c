/* merge: JSON Lines records read back, merged across processes (see
 * merge.h). */
#include "report/merge.h"
#include "report/kinds.h"
#include "report/pystack.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int merge_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); merge_oom = 1; } while (0)
#include <uthash.h>

/* A record as read: the last line per key wins. */
struct rec {
    UT_hash_handle hh;
    char *key;
    struct dc_json *v;
    int summary;
    size_t order;               /* first appearance of the key */
};

struct fp_ent {
    UT_hash_handle hh;
    char fp[17];
    size_t index;               /* in m->f */
};

struct dc_model_priv {
    struct rec *recs;
    size_t nrecs;
    char **strings;             /* owned strings (origins) */
    size_t nstrings;
};

struct dc_model *dc_model_new(const char *source_root)
{
    struct dc_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->priv = calloc(1, sizeof *m->priv);
    if (!m->priv) {
        free(m);
        return NULL;
    }
    char buf[PATH_MAX];
    const char *root = source_root && *source_root ? source_root : NULL;
    if (root && realpath(root, buf))
        root = buf;
    else if (!root && getcwd(buf, sizeof buf))
        root = buf;
    snprintf(m->root, sizeof m->root, "%s", root ? root : "");
    if (!getcwd(m->cwd, sizeof m->cwd))
        m->cwd[0] = 0;
    size_t n = strlen(m->root);
    while (n > 1 && m->root[n - 1] == '/')
        m->root[--n] = 0;
    return m;
}

void dc_model_free(struct dc_model *m)
{
    if (!m)
        return;
    struct rec *r, *tmp;
    HASH_ITER(hh, m->priv->recs, r, tmp) {
        HASH_DEL(m->priv->recs, r);
        free(r->key);
        dc_json_free(r->v);
        free(r);
    }
    for (size_t i = 0; i < m->nf; i++)
        free(m->f[i].shares);
    for (size_t i = 0; i < m->priv->nstrings; i++)
        free(m->priv->strings[i]);
    free(m->priv->strings);
    dc_mgpus_free(&m->gpus);
    free(m->f);
    free(m->procs);
    free(m->supps);
    free(m->access);
    free(m->xfer);
    free(m->sites);
    free(m->priv);
    free(m);
}

static const char *keep(struct dc_model *m, const char *s)
{
    for (size_t i = 0; i < m->priv->nstrings; i++)
        if (!strcmp(m->priv->strings[i], s))
            return m->priv->strings[i];
    char **ns = realloc(m->priv->strings, (m->priv->nstrings + 1) * sizeof *ns);
    if (!ns)
        return "";
    m->priv->strings = ns;
    char *d = strdup(s);
    if (!d)
        return "";
    ns[m->priv->nstrings++] = d;
    return d;
}

static void say_why(char *why, size_t len, const char *fmt, const char *a)
{
    if (why && len)
        snprintf(why, len, fmt, a);
}

int dc_model_add(struct dc_model *m, const char *line, size_t len, const char *origin, long lineno, char *why,
                 size_t whylen)
{
    (void)lineno;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    size_t at = 0;
    struct dc_json *v = dc_json_parse(line, len, &at);
    if (!v) {
        char pos[64];
        snprintf(pos, sizeof pos, "%zu", at);
        say_why(why, whylen, at >= len ? "truncated record (the line ends inside it)" : "not JSON (error at byte %s)",
                pos);
        return -1;
    }
    const char *type = dc_json_str(dc_json_get(v, "type"));
    if (type && !strcmp(type, "process")) {
        dc_json_free(v);                /* a tree file's header (the wrapper reads it itself) */
        return 0;
    }
    int summary = type && !strcmp(type, "summary");
    if (!type || (!summary && strcmp(type, "finding"))) {
        say_why(why, whylen, "%s", "not a devcheck record (no \"type\" finding or summary)");
        dc_json_free(v);
        return -1;
    }
    long long id = dc_json_int(dc_json_get(v, "id"), -1);
    if (!summary && (id < 1 || !dc_json_str(dc_json_get(v, "kind")) || !dc_json_get(v, "launch") ||
                     dc_json_int(dc_json_get(v, "count"), 0) < 1)) {
        say_why(why, whylen, "%s", "a finding record without id, kind, launch or count");
        dc_json_free(v);
        return -1;
    }
    const char *host = dc_json_str(dc_json_get(v, "host"));
    long long pid = dc_json_int(dc_json_get(v, "pid"), 0);
    char *key = NULL;
    if (asprintf(&key, "%s\x1f%s\x1f%lld\x1f%s%lld", origin ? origin : "", host ? host : "", pid,
                 summary ? "s" : "f", summary ? 0 : id) < 0) {
        dc_json_free(v);
        return -1;
    }
    struct rec *r;
    HASH_FIND_STR(m->priv->recs, key, r);
    if (r) {
        dc_json_free(r->v);
        r->v = v;
        free(key);
        return 0;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        free(key);
        dc_json_free(v);
        return -1;
    }
    r->key = key;
    r->v = v;
    r->summary = summary;
    r->order = m->priv->nrecs++;
    merge_oom = 0;
    HASH_ADD_KEYPTR(hh, m->priv->recs, r->key, strlen(r->key), r);
    if (merge_oom) {
        free(key);
        dc_json_free(v);
        free(r);
        return -1;
    }
    return 0;
}

int dc_model_add_file(struct dc_model *m, const char *path,
                      void (*bad)(void *ctx, const char *origin, long lineno, const char *why), void *ctx)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return -1;
    }
    const char *origin = keep(m, path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0, nbad = 0, nrec = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)n;
        int complete = len && line[len - 1] == '\n';
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\n' || line[k] == '\r'))
            k++;
        if (k == len)
            continue;                   /* blank */
        char why[256] = "";
        /* a whole record without its newline is kept (the writer died
         * after it); a cut one is named as such */
        if (len > DC_MODEL_LINE_MAX) {
            m->bad_lines++;
            snprintf(why, sizeof why, "a line of %zu bytes (at most %u)", len, DC_MODEL_LINE_MAX);
            if (bad && ++nbad <= DC_MODEL_BAD_SHOWN)
                bad(ctx, path, lineno, why);
            continue;
        }
        if (dc_model_add(m, line, len, origin, lineno, why, sizeof why) != 0) {
            m->bad_lines++;
            if (!complete && !strncmp(why, "not JSON", 8))
                snprintf(why, sizeof why, "truncated record (the file ends inside it)");
            if (bad && ++nbad <= DC_MODEL_BAD_SHOWN)
                bad(ctx, path, lineno, why);
        } else {
            nrec++;
        }
    }
    int rerr = ferror(f) ? errno : 0;
    free(line);
    fclose(f);
    if (rerr) {
        errno = rerr;
        return -1;
    }
    if (bad && nbad > DC_MODEL_BAD_SHOWN) {
        char why[256];
        snprintf(why, sizeof why, "%ld of %ld lines are not devcheck records (the first %d named above)%s", nbad,
                 nbad + nrec, DC_MODEL_BAD_SHOWN, nrec ? "; the rest was read" : "; not a devcheck JSON Lines file");
        bad(ctx, path, 0, why);
    }
    return 0;
}

/* ---- fingerprints ------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    h ^= 0x1f;                  /* field separator */
    h *= 0x100000001b3ull;
    return h;
}

static uint64_t fnv_int(uint64_t h, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    return fnv(h, b);
}

static uint64_t fnv_stack(uint64_t h, const struct dc_json *stack)
{
    for (size_t i = 0; i < dc_json_len(stack); i++) {
        const struct dc_json *fr = dc_json_at(stack, i);
        const char *file = dc_json_str(dc_json_get(fr, "file"));
        h = fnv(h, dc_json_str(dc_json_get(fr, "function")));
        if (file) {
            const char *base = strrchr(file, '/');   /* where the checkout lives does not matter */
            h = fnv(h, base ? base + 1 : file);
            h = fnv_int(h, dc_json_int(dc_json_get(fr, "line"), 0));
        } else {
            const char *mod = dc_json_str(dc_json_get(fr, "module"));
            const char *base = mod ? strrchr(mod, '/') : NULL;
            h = fnv(h, base ? base + 1 : mod);
            h = fnv_int(h, dc_json_int(dc_json_get(fr, "offset"), 0));
        }
    }
    return fnv(h, "|");
}

/* A device of the fingerprint: its UUID when the record names it. */
static uint64_t fnv_dev(uint64_t h, const struct dc_json *r, long long dev)
{
    const struct dc_json *g = dc_mgpus_entry(r, (int)dev);
    return g ? fnv(h, dc_json_str(dc_json_get(g, "uuid"))) : fnv_int(h, dev);
}

static void fingerprint(const struct dc_json *r, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    const struct dc_json *op = dc_json_get(r, "operand");
    const struct dc_json *launch = dc_json_get(r, "launch");
    const char *kernel = dc_json_str(dc_json_get(r, "kernel_mangled"));
    h = fnv(h, dc_json_str(dc_json_get(r, "kind")));
    h = fnv(h, kernel ? kernel : dc_json_str(dc_json_get(r, "kernel")));
    h = fnv(h, dc_json_str(dc_json_get(r, "action")));
    h = fnv_dev(h, r, dc_json_int(dc_json_get(launch, "device"), -1));
    h = fnv_int(h, dc_json_int(dc_json_get(op, "param"), -9));
    h = fnv_int(h, dc_json_int(dc_json_get(op, "word_offset"), -9));
    h = fnv_dev(h, r, dc_json_int(dc_json_get(op, "owner_device"), -9));
    h = fnv(h, dc_json_str(dc_json_get(op, "memory")));
    const char *kind = dc_json_str(dc_json_get(r, "kind"));
    if (!kind || strcmp(kind, "unchecked_kernel")) {       /* once per kernel */
        h = fnv_stack(h, dc_json_get(r, "launch_python_stack"));
        h = fnv_stack(h, dc_json_get(r, "launch_stack"));
        h = fnv_stack(h, dc_json_get(r, "alloc_python_stack"));
        h = fnv_stack(h, dc_json_get(r, "alloc_stack"));
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- merging ----------------------------------------------------------------------- */

static int by_order(const void *a, const void *b)
{
    const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;
    return x->order < y->order ? -1 : x->order > y->order;
}

static struct dc_mproc *proc_of(struct dc_model *m, const struct rec *r, const struct dc_json *v)
{
    const char *host = dc_json_str(dc_json_get(v, "host"));
    int pid = (int)dc_json_int(dc_json_get(v, "pid"), 0);
    const char *origin = r->key;                /* up to the first separator */
    size_t olen = strcspn(origin, "\x1f");
    for (size_t i = 0; i < m->nprocs; i++) {
        struct dc_mproc *p = &m->procs[i];
        if (p->pid == pid && !strcmp(p->host, host ? host : "") && strlen(p->origin) == olen &&
            !strncmp(p->origin, origin, olen))
            return p;
    }
    struct dc_mproc *np = realloc(m->procs, (m->nprocs + 1) * sizeof *np);
    if (!np)
        return NULL;
    m->procs = np;
    struct dc_mproc *p = &m->procs[m->nprocs++];
    memset(p, 0, sizeof *p);
    char o[4096];
    snprintf(o, sizeof o, "%.*s", (int)olen, origin);
    p->origin = keep(m, o);
    p->host = keep(m, host ? host : "");
    p->pid = pid;
    p->rank = (int)dc_json_int(dc_json_get(v, "rank"), -1);
    return p;
}

static void add_share(struct dc_mfinding *f, const struct dc_mproc *p, uint64_t count)
{
    for (size_t i = 0; i < f->nshares; i++) {
        if (f->shares[i].pid == p->pid && f->shares[i].host == p->host) {
            f->shares[i].count += count;
            return;
        }
    }
    struct dc_mshare *ns = realloc(f->shares, (f->nshares + 1) * sizeof *ns);
    if (!ns)
        return;
    f->shares = ns;
    f->shares[f->nshares++] = (struct dc_mshare){ p->pid, p->rank, p->host, count };
}

static void add_supp(struct dc_model *m, const struct dc_json *s)
{
    const char *name = dc_json_str(dc_json_get(s, "name")), *file = dc_json_str(dc_json_get(s, "file"));
    int line = (int)dc_json_int(dc_json_get(s, "line"), 0);
    uint64_t count = (uint64_t)dc_json_int(dc_json_get(s, "count"), 0);
    if (!name)
        return;
    for (size_t i = 0; i < m->nsupps; i++) {
        if (!strcmp(m->supps[i].name, name) && !strcmp(m->supps[i].file, file ? file : "") && m->supps[i].line == line) {
            m->supps[i].count += count;
            return;
        }
    }
    struct dc_msupp *ns = realloc(m->supps, (m->nsupps + 1) * sizeof *ns);
    if (!ns)
        return;
    m->supps = ns;
    m->supps[m->nsupps++] = (struct dc_msupp){ keep(m, name), keep(m, file ? file : ""), line, count };
}

/* Adds one cell of a summary's matrix ("access" or "transfers"). */
static void add_cell(struct dc_mcell **cells, size_t *n, int row, int col, const uint64_t v[5])
{
    for (size_t i = 0; i < *n; i++) {
        struct dc_mcell *c = &(*cells)[i];
        if (c->row == row && c->col == col) {
            c->a += v[0], c->b += v[1], c->c += v[2], c->d += v[3], c->e += v[4];
            return;
        }
    }
    struct dc_mcell *nc = realloc(*cells, (*n + 1) * sizeof *nc);
    if (!nc)
        return;
    *cells = nc;
    nc[(*n)++] = (struct dc_mcell){ row, col, v[0], v[1], v[2], v[3], v[4] };
}

static void add_matrices(struct dc_model *m, const struct dc_json *s)
{
    const struct dc_json *acc = dc_json_get(s, "access");
    for (size_t i = 0; i < dc_json_len(acc); i++) {
        const struct dc_json *c = dc_json_at(acc, i);
        uint64_t v[5] = { (uint64_t)dc_json_int(dc_json_get(c, "operands"), 0), 0, 0, 0, 0 };
        int row = dc_mgpus_number(&m->gpus, s, (int)dc_json_int(dc_json_get(c, "launch_device"), -9));
        int col = dc_mgpus_number(&m->gpus, s, (int)dc_json_int(dc_json_get(c, "owner"), -9));
        add_cell(&m->access, &m->naccess, row, col, v);
    }
    const struct dc_json *tr = dc_json_get(s, "transfers");
    for (size_t i = 0; i < dc_json_len(tr); i++) {
        const struct dc_json *c = dc_json_at(tr, i);
        int src = dc_mgpus_number(&m->gpus, s, (int)dc_json_int(dc_json_get(c, "src"), -9));
        int dst = dc_mgpus_number(&m->gpus, s, (int)dc_json_int(dc_json_get(c, "dst"), -9));
        uint64_t calls = (uint64_t)dc_json_int(dc_json_get(c, "calls"), 0);
        uint64_t bytes = (uint64_t)dc_json_int(dc_json_get(c, "bytes"), 0);
        uint64_t v[5] = { calls, bytes, 0, 0, 0 };
        add_cell(&m->xfer, &m->nxfer, src, dst, v);
        const struct dc_json *sites = dc_json_get(c, "sites");
        for (size_t j = 0; j < dc_json_len(sites); j++) {
            const struct dc_json *st = dc_json_at(sites, j);
            const char *site = dc_json_str(dc_json_get(st, "site"));
            if (!site)
                continue;
            uint64_t sc = (uint64_t)dc_json_int(dc_json_get(st, "calls"), 0);
            uint64_t sb = (uint64_t)dc_json_int(dc_json_get(st, "bytes"), 0);
            size_t k;
            for (k = 0; k < m->nsites; k++)
                if (m->sites[k].src == src && m->sites[k].dst == dst && !strcmp(m->sites[k].site, site))
                    break;
            if (k < m->nsites) {
                m->sites[k].calls += sc;
                m->sites[k].bytes += sb;
                continue;
            }
            struct dc_msite *ns = realloc(m->sites, (m->nsites + 1) * sizeof *ns);
            if (!ns)
                continue;
            m->sites = ns;
            m->sites[m->nsites++] = (struct dc_msite){ src, dst, keep(m, site), sc, sb };
        }
    }
}

static int sev_rank(const struct dc_json *r)
{
    const char *s = dc_json_str(dc_json_get(r, "severity"));
    return !s ? 3 : !strcmp(s, "error") ? 0 : !strcmp(s, "warning") ? 1 : 2;
}

/* Adds name to the set seen[0..*n) unless there (seen: NULL after a failed
 * allocation: nothing counted). */
static void count_distinct(const char **seen, uint64_t *n, const char *name)
{
    if (!seen)
        return;
    for (uint64_t j = 0; j < *n; j++)
        if (!strcmp(seen[j], name))
            return;
    seen[(*n)++] = name;
}

void dc_model_merge(struct dc_model *m)
{
    struct dc_model_priv *P = m->priv;
    size_t n = HASH_COUNT(P->recs);
    struct rec **all = calloc(n ? n : 1, sizeof *all);
    if (!all)
        return;
    size_t k = 0;
    struct rec *r, *tmp;
    HASH_ITER(hh, P->recs, r, tmp) all[k++] = r;
    qsort(all, n, sizeof *all, by_order);
    int any = 0;                    /* the GPUs by host and UUID (report/mgpus.h) */
    for (size_t i = 0; i < n && !any; i++)
        any = dc_json_len(dc_json_get(all[i]->v, "gpus")) > 0;
    dc_mgpus_begin(&m->gpus, any);
    for (size_t i = 0; i < n && any; i++)
        dc_mgpus_note(&m->gpus, all[i]->v, all[i]->summary);
    dc_mgpus_sort(&m->gpus);

    struct fp_ent *fps = NULL;
    struct dc_report_stats *t = &m->totals;
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        r = all[i];
        struct dc_mproc *p = proc_of(m, r, r->v);
        if (!p)
            continue;
        if (r->summary) {
            const struct dc_json *s = r->v;
            p->summary = s;
            t->launches_checked += (uint64_t)dc_json_int(dc_json_get(s, "launches_checked"), 0);
            t->launches_unchecked += (uint64_t)dc_json_int(dc_json_get(s, "launches_unchecked"), 0);
            t->launches_interpose += (uint64_t)dc_json_int(dc_json_get(s, "launches_interpose"), 0);
            t->launches_cupti += (uint64_t)dc_json_int(dc_json_get(s, "launches_cupti"), 0);
            t->dropped += (uint64_t)dc_json_int(dc_json_get(s, "not_recorded"), 0);
            t->bytes_migrated += (uint64_t)dc_json_int(dc_json_get(s, "bytes_migrated"), 0);
            t->write_errors += (uint64_t)dc_json_int(dc_json_get(s, "write_errors"), 0);
            t->quiet += (uint64_t)dc_json_int(dc_json_get(s, "quiet_operands"), 0);
            const struct dc_json *sl = dc_json_get(s, "suppressed");
            for (size_t j = 0; j < dc_json_len(sl); j++)
                add_supp(m, dc_json_at(sl, j));
            add_matrices(m, s);
            continue;
        }
        uint64_t count = (uint64_t)dc_json_int(dc_json_get(r->v, "count"), 1);
        p->findings++;
        if (sev_rank(r->v) == 0)
            p->errors++;
        char fp[17];
        fingerprint(r->v, fp);
        struct fp_ent *e;
        HASH_FIND(hh, fps, fp, 16, e);
        int fresh = !e;
        if (fresh) {
            struct dc_mfinding *nf = realloc(m->f, (m->nf + 1) * sizeof *nf);
            e = calloc(1, sizeof *e);
            if (!nf || !e) {
                if (nf)
                    m->f = nf;
                free(e);
                continue;
            }
            m->f = nf;
            memset(&m->f[m->nf], 0, sizeof m->f[m->nf]);
            memcpy(m->f[m->nf].fp, fp, sizeof fp);
            m->f[m->nf].rec = r->v;
            memcpy(e->fp, fp, sizeof fp);
            e->index = m->nf++;
        }
        size_t index = e->index;
        if (fresh) {                /* into the table (out of memory: unmerged, still counted) */
            merge_oom = 0;
            HASH_ADD(hh, fps, fp, 16, e);
            if (merge_oom)
                free(e);
        }
        struct dc_mfinding *f = &m->f[index];
        f->count += count;
        add_share(f, p, count);
    }
    struct fp_ent *e, *etmp;
    HASH_ITER(hh, fps, e, etmp) {
        HASH_DEL(fps, e);
        free(e);
    }
    free(all);

    /* totals over the merged findings: distinct kernels, and distinct
     * library calls (a finding with "argument": named by its "api") */
    const char **kernels = calloc(m->nf ? m->nf : 1, sizeof *kernels);
    const char **calls = calloc(m->nf ? m->nf : 1, sizeof *calls);
    for (size_t i = 0; i < m->nf; i++) {
        const struct dc_json *rv = m->f[i].rec;
        int s = sev_rank(rv);
        t->findings++;
        const struct dc_json *exp = dc_json_get(rv, "expected");
        if (s == 0 && exp && exp->type == DC_J_BOOL && exp->b)
            t->expected++;                      /* devcheck_expected: error_exitcode skips it */
        if (s == 0)
            t->errors++;
        else if (s == 1)
            t->warnings++;
        else
            t->infos++;
        const char *kn = dc_json_str(dc_json_get(rv, "kernel_mangled"));
        if (!kn)
            kn = dc_json_str(dc_json_get(rv, "kernel"));
        if (dc_json_get(rv, "framework"))          /* framework_device_error, pointer_refused */
            t->framework++;
        else if (kn)
            count_distinct(kernels, &t->kernels, kn);
        else if (dc_json_get(rv, "argument") && dc_json_str(dc_json_get(rv, "api")))
            count_distinct(calls, &t->calls, dc_json_str(dc_json_get(rv, "api")));
    }
    free(kernels);
    free(calls);
    /* the access matrix's findings by severity and bytes migrated, from the
     * merged findings (unique findings; bytes of every occurrence) */
    for (size_t i = 0; i < m->nf; i++) {
        const struct dc_json *rv = m->f[i].rec, *op = dc_json_get(rv, "operand");
        if (!op || op->type != DC_J_OBJ)
            continue;
        int row = dc_mgpus_number(&m->gpus, rv, (int)dc_json_int(dc_json_get(dc_json_get(rv, "launch"), "device"), -9));
        const char *mem = dc_json_str(dc_json_get(op, "memory"));
        int col = !mem ? -9 : !strcmp(mem, "pinned") || !strcmp(mem, "registered") ? -1
                : !strcmp(mem, "pageable") ? -2 : !strcmp(mem, "managed") ? -3
                : dc_mgpus_number(&m->gpus, rv, (int)dc_json_int(dc_json_get(op, "owner_device"), -9));
        int s = sev_rank(rv);
        uint64_t moved = (uint64_t)dc_json_int(dc_json_get(dc_json_get(rv, "migration"), "bytes"), 0);
        uint64_t v[5] = { 0, s == 0, s == 1, s == 2, moved * m->f[i].count };
        add_cell(&m->access, &m->naccess, row, col, v);
    }
    for (size_t i = 0; i < m->nsupps; i++)
        t->suppressed += m->supps[i].count;
    for (size_t i = 0; i < m->nprocs; i++)
        if (!m->procs[i].summary)
            m->procs_without_summary++;
}

/* ---- what the writers share --------------------------------------------------------- */

static int in_root(const struct dc_model *m, const char *file, char *rel, size_t rellen)
{
    size_t n = strlen(m->root);
    char abs[8300];
    if (file[0] != '/' && m->cwd[0]) {    /* relative (to the compile directory): taken as the working directory's */
        snprintf(abs, sizeof abs, "%s/%s", m->cwd, file[0] == '.' && file[1] == '/' ? file + 2 : file);
        file = abs;
    }
    if (n && !strncmp(file, m->root, n) && file[n] == '/') {
        snprintf(rel, rellen, "%s", file + n + 1);
        return 1;
    }
    snprintf(rel, rellen, "%s", file);
    return 0;
}

/* System and toolkit headers are never the user's code. */
static int system_file(const char *f)
{
    return !strncmp(f, "/usr/", 5) || dc_py_library_rule(f, NULL) || strstr(f, "/cuda/include/") || strstr(f, "/site-packages/") ||
           strstr(f, "/dist-packages/") || strstr(f, "/lib/python3");
}

/* CUDA's own libraries (the runtime, the driver, CUPTI) are never the
 * user's code either, whatever debug information they carry. */
static int cuda_module(const char *mod)
{
    const char *b = mod ? strrchr(mod, '/') : NULL;
    b = b ? b + 1 : mod;
    return b && (!strncmp(b, "libcudart.so", 12) || !strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcupti.so", 11));
}

static const struct dc_json *pick(const struct dc_model *m, const struct dc_json *stack, int want_tree,
                                  const char **file, char *rel, size_t rellen, int *in_tree)
{
    for (size_t i = 0; i < dc_json_len(stack); i++) {
        const struct dc_json *fr = dc_json_at(stack, i);
        const char *f = dc_json_str(dc_json_get(fr, "file"));
        if (!f || !*f || (want_tree && cuda_module(dc_json_str(dc_json_get(fr, "module")))))
            continue;
        int t = !system_file(f) && in_root(m, f, rel, rellen);
        if (want_tree && !t)
            continue;
        if (!t)
            snprintf(rel, rellen, "%s", f);
        *file = rel;
        *in_tree = t;
        return fr;
    }
    return NULL;
}

int dc_model_relpath(const struct dc_model *m, const char *file, char *rel, size_t rellen)
{
    if (system_file(file)) {
        snprintf(rel, rellen, "%s", file);
        return 0;
    }
    return in_root(m, file, rel, rellen);
}

const struct dc_json *dc_model_site(const struct dc_model *m, const struct dc_json *r, const char *which,
                                    const char **file, char *rel, size_t rellen, int *in_tree)
{
    char py[32], nat[32];
    snprintf(py, sizeof py, "%s_python_stack", which);
    snprintf(nat, sizeof nat, "%s_stack", which);
    const struct dc_json *pys = dc_json_get(r, py), *ns = dc_json_get(r, nat), *fr;
    *file = NULL;
    *in_tree = 0;
    if ((fr = pick(m, pys, 1, file, rel, rellen, in_tree)) || (fr = pick(m, ns, 1, file, rel, rellen, in_tree)) ||
        (fr = pick(m, pys, 0, file, rel, rellen, in_tree)) || (fr = pick(m, ns, 0, file, rel, rellen, in_tree)))
        return fr;
    fr = dc_json_at(pys, 0);
    return fr ? fr : dc_json_at(ns, 0);
}

void dc_model_message(const struct dc_json *r, struct dc_sbuf *o)
{
    dc_kind_headline(r, o);
}

/* A file as the text shows it: relative to the source root inside it,
 * system files as recorded. */
static const char *show_file(void *ctx, const char *file, char *buf, size_t len)
{
    const struct dc_model *m = ctx;
    if (!file)
        return "?";
    if (system_file(file))
        return file;
    in_root(m, file, buf, len);
    return buf;
}

/* A frame outside the user's code: a system or installed library's file, or
 * no file at all (a native frame of a library). */
static int library_frame(const struct dc_json *fr)
{
    const char *file = dc_json_str(dc_json_get(fr, "file"));
    return !file || !*file || system_file(file);
}

/* The library a frame belongs to, for a fold's line: the folder after
 * site-packages/ or dist-packages/, else the module's or file's base name. */
static void library_name(const struct dc_json *fr, char *out, size_t len)
{
    const char *file = dc_json_str(dc_json_get(fr, "file")), *mod = dc_json_str(dc_json_get(fr, "module"));
    const char *p = file ? strstr(file, "-packages/") : NULL;
    if (p) {
        p += 10;
        snprintf(out, len, "%.*s", (int)strcspn(p, "/."), p);
        return;
    }
    const char *s = file && *file ? file : mod ? mod : "?";
    const char *base = strrchr(s, '/');
    snprintf(out, len, "%s", base ? base + 1 : s);
}

static void text_frames(const struct dc_model *m, struct dc_sbuf *o, const char *title, const struct dc_json *st)
{
    size_t n = dc_json_len(st);
    if (!n)
        return;
    dc_sput(o, "    %s:\n", title);
    for (size_t i = 0; i < n; i++) {
        const struct dc_json *fr = dc_json_at(st, i);
        /* the innermost frame always; a run of two or more library frames
         * after it folded behind a count (m->verbosity unfolds) */
        size_t run = 0;
        while (i && !m->verbosity && i + run < n && library_frame(dc_json_at(st, i + run)))
            run++;
        if (run >= 2) {
            char libs[256] = "", one[64];
            size_t used = 0;
            int k = 0;
            for (size_t j = i; j < i + run && k < 4; j++) {
                library_name(dc_json_at(st, j), one, sizeof one);
                if (strstr(libs, one))
                    continue;
                used += (size_t)snprintf(libs + used, sizeof libs - used, "%s%s", k++ ? ", " : "", one);
                if (used >= sizeof libs)
                    break;
            }
            dc_sput(o, "      ... %zu library frames (%s)\n", run, libs);
            i += run - 1;
            continue;
        }
        const char *fn = dc_json_str(dc_json_get(fr, "function"));
        const char *file = dc_json_str(dc_json_get(fr, "file"));
        const char *mod = dc_json_str(dc_json_get(fr, "module"));
        dc_sput(o, "      #%zu %s", i, fn ? fn : "??");
        if (file) {
            char rel[4096];
            in_root(m, file, rel, sizeof rel);
            dc_sput(o, " at %s:%lld", system_file(file) ? file : rel, dc_json_int(dc_json_get(fr, "line"), 0));
        }
        if (mod) {
            const char *b = strrchr(mod, '/');
            dc_sput(o, " (%s+0x%llx)", b ? b + 1 : mod, dc_json_int(dc_json_get(fr, "offset"), 0));
        }
        dc_sput(o, "\n");
    }
}


void dc_model_text(const struct dc_model *m, const struct dc_mfinding *f, struct dc_sbuf *o)
{
    const struct dc_json *r = f->rec;
    const char *sev = dc_json_str(dc_json_get(r, "severity"));
    size_t start = o->len;
    dc_sput(o, "%s: ", sev ? sev : "?");
    dc_model_message(r, o);
    dc_stext_escape(o, start, 1);       /* the header: one line, whatever the names hold */
    dc_sput(o, "\n");
    dc_kind_details(r, o, show_file, (void *)m);
    dc_mgpus_text(r, o);                /* an ordinal is only its process's own */
    const char *test = dc_json_str(dc_json_get(r, "test"));
    if (test)
        dc_sput(o, "    test: %s\n", test);
    const struct dc_json *nvtx = dc_json_get(r, "nvtx");
    if (dc_json_len(nvtx)) {
        dc_sput(o, "    NVTX:");
        for (size_t i = 0; i < dc_json_len(nvtx); i++)
            dc_sput(o, "%s%s", i ? " > " : " ", dc_json_str(dc_json_at(nvtx, i)) ? dc_json_str(dc_json_at(nvtx, i)) : "?");
        dc_sput(o, "\n");
    }
    const struct dc_kind_desc *kd = dc_kind_by_id(dc_json_str(dc_json_get(r, "kind")));
    text_frames(m, o, kd && (kd->shape == DC_SHAPE_FRAMEWORK || kd->shape == DC_SHAPE_REFUSED) ? "op stack (Python)" : "launch stack (Python)",
                dc_json_get(r, "launch_python_stack"));
    text_frames(m, o, "launch stack", dc_json_get(r, "launch_stack"));
    text_frames(m, o, "allocated at (Python)", dc_json_get(r, "alloc_python_stack"));
    text_frames(m, o, "allocated at", dc_json_get(r, "alloc_stack"));
    const char *hint = dc_json_str(dc_json_get(r, "hint"));
    if (hint)
        dc_sput(o, "    hint: %s\n", hint);
    dc_sput(o, "    seen %llu time%s in:", (unsigned long long)f->count, f->count == 1 ? "" : "s");
    for (size_t i = 0; i < f->nshares; i++) {
        const struct dc_mshare *s = &f->shares[i];
        dc_sput(o, "%s pid %d", i ? "," : "", s->pid);
        if (s->rank >= 0)
            dc_sput(o, " rank %d", s->rank);
        if (s->host && *s->host)
            dc_sput(o, " on %s", s->host);
        dc_sput(o, " (%llu)", (unsigned long long)s->count);
    }
    dc_sput(o, "\n");
    dc_stext_escape(o, start, 0);       /* names, paths, hosts from the files: \x1b, not ESC */
}

void dc_json_write(const struct dc_json *v, struct dc_sbuf *o)
{
    if (!v) {
        dc_sput(o, "null");
        return;
    }
    switch (v->type) {
    case DC_J_NULL: dc_sput(o, "null"); break;
    case DC_J_BOOL: dc_sput(o, v->b ? "true" : "false"); break;
    case DC_J_NUM:
        if (v->is_int)
            dc_sput(o, "%lld", v->i);
        else
            dc_sput(o, "%.17g", v->num);
        break;
    case DC_J_STR: dc_sjson_str(o, v->s); break;
    case DC_J_ARR:
    case DC_J_OBJ:
        dc_sput(o, v->type == DC_J_ARR ? "[" : "{");
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                dc_sput(o, ",");
            if (v->type == DC_J_OBJ) {
                dc_sjson_str(o, v->keys[i]);
                dc_sput(o, ":");
            }
            dc_json_write(v->items[i], o);
        }
        dc_sput(o, v->type == DC_J_ARR ? "]" : "}");
        break;
    }
}

/* ---- merged JSON Lines ------------------------------------------------------------ */

void dc_model_put_proc(struct dc_sbuf *o, int pid, int rank, const char *host)
{
    dc_sput(o, "\"pid\":%d,\"rank\":", pid);
    if (rank >= 0)
        dc_sput(o, "%d", rank);
    else
        dc_sput(o, "null");
    dc_sput(o, ",\"host\":");
    dc_sjson_str(o, host);
}

static void shares_json(const struct dc_mfinding *f, struct dc_sbuf *o)
{
    dc_sput(o, "[");
    for (size_t i = 0; i < f->nshares; i++) {
        const struct dc_mshare *s = &f->shares[i];
        dc_sput(o, "%s{", i ? "," : "");
        dc_model_put_proc(o, s->pid, s->rank, s->host);
        dc_sput(o, ",\"count\":%llu}", (unsigned long long)s->count);
    }
    dc_sput(o, "]");
}

void dc_model_jsonl(const struct dc_model *m, struct dc_sbuf *o)
{
    dc_model_jsonl_text(m, o, 0);
}

void dc_model_jsonl_text(const struct dc_model *m, struct dc_sbuf *o, int with_text)
{
    for (size_t i = 0; i < m->nf; i++) {
        const struct dc_mfinding *f = &m->f[i];
        const struct dc_json *r = f->rec;
        dc_sput(o, "{");
        int first = 1;
        for (size_t k = 0; k < r->n; k++) {
            const char *key = r->keys[k];
            if (!strcmp(key, "processes") || !strcmp(key, "fingerprint"))
                continue;
            dc_sput(o, "%s", first ? "" : ",");
            first = 0;
            dc_sjson_str(o, key);
            dc_sput(o, ":");
            if (!strcmp(key, "id"))
                dc_sput(o, "%zu", i + 1);
            else if (!strcmp(key, "count"))
                dc_sput(o, "%llu", (unsigned long long)f->count);
            else
                dc_json_write(r->items[k], o);
        }
        dc_sput(o, ",\"fingerprint\":\"%s\",\"processes\":", f->fp);
        shares_json(f, o);
        if (with_text) {
            struct dc_sbuf t = { 0 };
            dc_model_message(r, &t);
            dc_sput(o, ",\"headline\":");
            dc_sjson_str(o, t.p ? t.p : "");
            dc_sfree(&t);
            dc_model_text(m, f, &t);
            dc_sput(o, ",\"report\":");
            dc_sjson_str(o, t.p ? t.p : "");
            dc_sfree(&t);
        }
        dc_sput(o, "}\n");
    }
    const struct dc_report_stats *t = &m->totals;
    const struct dc_mproc *p0 = m->nprocs ? &m->procs[0] : NULL;
    /* the summary names the first process (the tree's root, or the first
     * file's): a merged file read again keeps its rank */
    dc_sput(o, "{\"type\":\"summary\",");
    dc_model_put_proc(o, p0 ? p0->pid : (int)getpid(), p0 ? p0->rank : -1, p0 ? p0->host : "");
    char counts[DC_SUMMARY_JSON_MAX];
    dc_summary_json_counts(counts, sizeof counts, t);
    dc_sput(o, ",%s,\"suppressed\":[", counts);
    for (size_t i = 0; i < m->nsupps; i++) {
        dc_sput(o, "%s{\"name\":", i ? "," : "");
        dc_sjson_str(o, m->supps[i].name);
        dc_sput(o, ",\"file\":");
        dc_sjson_str(o, m->supps[i].file);
        dc_sput(o, ",\"line\":%d,\"count\":%llu}", m->supps[i].line, (unsigned long long)m->supps[i].count);
    }
    dc_sput(o, "]");
    dc_mgpus_json(&m->gpus, o);         /* the matrices' device numbers */
    dc_sput(o, ",\"access\":[");
    for (size_t i = 0; i < m->naccess; i++) {
        const struct dc_mcell *c = &m->access[i];
        dc_sput(o, "%s{\"launch_device\":%d,\"owner\":%d,\"operands\":%llu,\"errors\":%llu,\"warnings\":%llu,"
                   "\"infos\":%llu,\"bytes_migrated\":%llu}", i ? "," : "", c->row, c->col, (unsigned long long)c->a,
                (unsigned long long)c->b, (unsigned long long)c->c, (unsigned long long)c->d, (unsigned long long)c->e);
    }
    dc_sput(o, "],\"transfers\":[");
    for (size_t i = 0; i < m->nxfer; i++) {
        const struct dc_mcell *c = &m->xfer[i];
        dc_sput(o, "%s{\"src\":%d,\"dst\":%d,\"calls\":%llu,\"bytes\":%llu,\"sites\":[", i ? "," : "", c->row, c->col,
                (unsigned long long)c->a, (unsigned long long)c->b);
        int k = 0;
        for (size_t j = 0; j < m->nsites; j++) {
            const struct dc_msite *st = &m->sites[j];
            if (st->src != c->row || st->dst != c->col)
                continue;
            dc_sput(o, "%s{\"site\":", k++ ? "," : "");
            dc_sjson_str(o, st->site);
            dc_sput(o, ",\"calls\":%llu,\"bytes\":%llu}", (unsigned long long)st->calls, (unsigned long long)st->bytes);
        }
        dc_sput(o, "]}");
    }
    dc_sput(o, "],\"processes\":[");
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct dc_mproc *p = &m->procs[i];
        dc_sput(o, "%s{", i ? "," : "");
        dc_model_put_proc(o, p->pid, p->rank, p->host);
        dc_sput(o, ",\"findings\":%llu,\"errors\":%llu,\"summary\":%s", (unsigned long long)p->findings,
                (unsigned long long)p->errors, p->summary ? "true" : "false");
        const struct dc_json *g = dc_json_get(p->summary, "gpus");
        if (dc_json_len(g)) {
            dc_sput(o, ",\"gpus\":");
            dc_json_write(g, o);
        }
        dc_sput(o, "}");
    }
    dc_sput(o, "]}\n");
}

void dc_text_summary_for_model(const struct dc_model *m, struct dc_buf *b)
{
    dc_bput(b, "devcheck: SUMMARY: ");
    dc_summary_text(b, &m->totals, m->migrate || m->totals.bytes_migrated > 0, (unsigned)m->nprocs);
}
