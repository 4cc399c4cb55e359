/* report: dedup, counters, summary, halt; the records are formatted by
 * text.c and jsonl.c and written by sinks.c.
 *
 * A finding is identified by (kind, kernel, parameter, word, allocation stack,
 * launch stack); the first occurrence is formatted and written, repeats only
 * count.  All formatting goes into static fixed buffers under rep_lock (first
 * occurrences only: the repeat path is a hash lookup and an increment), and
 * every record leaves with one write().  Symbolization (libdw, demangling) is
 * the only part that allocates. */
#include "report/report.h"
#include "report/finding.h"
#include "report/format.h"
#include "report/jsonl.h"
#include "report/sinks.h"
#include "report/stack.h"
#include "report/symbolize.h"
#include "report/text.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int rep_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); rep_oom = 1; } while (0)
#include <uthash.h>

#define MAX_FINDINGS 100000
#define TEXT_MAX (64 * 1024)
#define JSON_MAX (64 * 1024)
#define FRAMES_SHOWN DC_STACK_MAX

struct fkey {
    uint32_t kind;
    int32_t param;
    uint64_t kernel;            /* FNV-1a of the kernel name (or its key) */
    uint32_t word_offset;
    uint32_t alloc_stack;
    uint32_t launch_stack;
    uint32_t action;            /* enum dc_action */
};

struct frec {
    struct fkey key;
    UT_hash_handle hh;
    uint64_t id;
    uint64_t count;
    enum dc_severity severity;
    char *json_head;            /* the JSON line up to "count": */
    char *json_tail;            /* after the count value, with the newline */
    struct frec *next;          /* in id order, for the exit updates */
};

struct kset {
    uint64_t kernel;
    UT_hash_handle hh;
};

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct frec *findings, *first_rec, *last_rec;
static struct kset *kernels;
static uint64_t nfindings, nkernels, sev_count[3], dropped;
static unsigned long errors_atomic;
static uint64_t launches_checked, launches_unchecked;   /* atomics */
static uint64_t bytes_migrated;                         /* atomic */
static uint64_t launches_by_path[DC_PATH_COUNT];        /* atomics: checked + unchecked */
static uint64_t printed;
static int limit_noted;

/* The configuration (dc_report_init); before it, the options' defaults. */
static struct dc_report_config cfg = { .print_limit = 100 };

static int inited, finished;

static char text_buf[TEXT_MAX];
static char json_buf[JSON_MAX];
static struct dc_frame frames_a[FRAMES_SHOWN], frames_b[FRAMES_SHOWN];

/* Lock order at fork: report, then the symbolizer and the stacks (the
 * report symbolizes while it holds rep_lock). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&rep_lock);
    dc_stack_fork_prepare();
}

static void fork_parent(void)
{
    dc_stack_fork_parent();
    pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void);

static void fork_child(void)
{
    dc_stack_fork_child();
    /* The child is a process of its own: its report starts empty, and a
     * path with %p gets its own file. */
    reset_findings_locked();
    if (inited && !finished)
        dc_sinks_reopen_child(cfg.log_path, cfg.json_path);
    pthread_mutex_unlock(&rep_lock);
}

static void atfork_once(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static void init_locked(void)
{
    if (inited)
        return;
    inited = 1;
    finished = 0;
    dc_sinks_open(cfg.log_path, cfg.json_path);
}

/* Our copy of a configured path (NULL: none, or no memory for it), in place
 * of *kept. */
static const char *keep_path(const char *path, char **kept)
{
    free(*kept);
    *kept = path && *path ? strdup(path) : NULL;
    return *kept;
}

void dc_report_init(const struct dc_report_config *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atfork_once);
    pthread_mutex_lock(&rep_lock);
    if (c) {
        static char *log_path, *json_path;
        cfg = *c;
        cfg.log_path = keep_path(c->log_path, &log_path);
        cfg.json_path = keep_path(c->json_path, &json_path);
        dc_sinks_set_verbosity(cfg.verbosity);
        dc_stack_set_debuginfod(cfg.debuginfod);
    }
    int was = inited;
    init_locked();
    pthread_mutex_unlock(&rep_lock);
    if (!was) {
        const char *log_used = dc_sinks_log_used(), *json_used = dc_sinks_json_used();
        dc_logv(1, "reports to %s%s%s", log_used[0] ? log_used : "stderr", json_used[0] ? ", JSON Lines to " : "",
                json_used);
    }
}

/* ---- findings ---------------------------------------------------------------------- */

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t kernel_hash(const struct dc_finding_launch *l)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (l->kernel)
        return fnv1a(l->kernel, strlen(l->kernel), h);
    uintptr_t k = (uintptr_t)l->kernel_key;
    return fnv1a(&k, sizeof k, h ^ 1);
}

static void note_kernel_locked(uint64_t k)
{
    struct kset *s;
    HASH_FIND(hh, kernels, &k, sizeof k, s);
    if (s)
        return;
    s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->kernel = k;
    rep_oom = 0;
    HASH_ADD(hh, kernels, kernel, sizeof s->kernel, s);
    if (rep_oom) {
        free(s);
        return;
    }
    nkernels++;
}

/* halt_on_error: the report, the summary and the JSON file complete and on
 * disk (dc_report_finish closes the sinks after fsync), then stop. */
static void halt(void)
{
    dc_log("halt_on_error: stopping at the first error (halt=%s)", dc_halt_name(cfg.halt));
    dc_report_finish();
    if (cfg.halt == DC_HALT_TRAP) {
        raise(SIGTRAP);
        return;                         /* a debugger continued: the program runs on */
    }
    abort();
}

static int record_finding(const struct dc_finding *f);

/* halt_on_error stops at the first occurrence of an error finding, whether
 * it was printed, only counted (print_limit) or dropped. */
void dc_report_finding(const struct dc_finding *f)
{
    if (!f || !f->launch)
        return;
    if (record_finding(f) && f->severity == DC_SEV_ERROR && cfg.halt_on_error)
        halt();
}

/* 0: a repeat of a finding already recorded (counted only). */
static int record_finding(const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    struct fkey key;
    memset(&key, 0, sizeof key);
    key.kind = f->kind;
    key.param = f->has_operand ? f->param : -1;
    key.kernel = kernel_hash(l);
    key.word_offset = f->has_operand ? f->word_offset : 0;
    key.alloc_stack = f->has_operand && f->alloc_known ? f->alloc.alloc_stack : 0;
    key.launch_stack = f->launch_stack_in_key ? f->launch_stack : 0;
    key.action = f->action;

    pthread_mutex_lock(&rep_lock);
    init_locked();
    struct frec *r;
    HASH_FIND(hh, findings, &key, sizeof key, r);
    if (r) {
        r->count++;
        pthread_mutex_unlock(&rep_lock);
        return 0;
    }
    if (nfindings >= MAX_FINDINGS) {
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r->key = key;
    r->count = 1;
    r->severity = f->severity;
    rep_oom = 0;
    HASH_ADD(hh, findings, key, sizeof r->key, r);
    if (rep_oom) {
        free(r);
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r->id = ++nfindings;
    if (last_rec)
        last_rec->next = r;
    else
        first_rec = r;
    last_rec = r;
    sev_count[f->severity]++;
    if (f->severity == DC_SEV_ERROR)
        __atomic_fetch_add(&errors_atomic, 1, __ATOMIC_RELAXED);
    note_kernel_locked(key.kernel);

    int print = cfg.print_limit <= 0 || printed < (uint64_t)cfg.print_limit;
    if (!print && !dc_sinks_have_json()) {
        if (!limit_noted) {
            limit_noted = 1;
            dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
        }
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }

    char kname[1024];
    if (l->kernel)
        dc_demangle(l->kernel, kname, sizeof kname);
    else
        snprintf(kname, sizeof kname, "<unknown kernel %p>", l->kernel_key);
    size_t nl = dc_stack_symbolize_ex(f->launch_stack, frames_a, FRAMES_SHOWN, l->kernel);
    size_t na = f->has_operand && f->alloc_known
                    ? dc_stack_symbolize(f->alloc.alloc_stack, frames_b, FRAMES_SHOWN) : 0;

    if (print) {
        struct dc_buf b = { text_buf, sizeof text_buf, 0, 0 };
        dc_text_finding(&b, f, kname, frames_a, nl, frames_b, na);
        if (b.truncated && b.pos > 5)
            memcpy(b.p + b.pos - 5, "...\n", 5), b.pos--;
        dc_sink_text(b.p, b.pos);
        printed++;
    } else if (!limit_noted) {
        limit_noted = 1;
        dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
    }
    if (dc_sinks_have_json()) {
        struct dc_buf b = { json_buf, sizeof json_buf, 0, 0 };
        size_t count_at = 0;
        dc_jsonl_finding(&b, f, r->id, kname, frames_a, nl, frames_b, na, &count_at);
        if (!b.truncated) {
            dc_sink_json(b.p, b.pos);
            /* "1" follows count_at: keep what surrounds it for the exit update */
            r->json_head = strndup(b.p, count_at);
            r->json_tail = strdup(b.p + count_at + 1);
        } else {
            dc_log("JSON record of finding %llu too long; left out", (unsigned long long)r->id);
        }
    }
    pthread_mutex_unlock(&rep_lock);
    return 1;
}

void dc_report_count_migrated(uint64_t bytes)
{
    __atomic_fetch_add(&bytes_migrated, bytes, __ATOMIC_RELAXED);
}

void dc_report_count_launch(int checked, enum dc_path path)
{
    __atomic_fetch_add(checked ? &launches_checked : &launches_unchecked, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&launches_by_path[(unsigned)path < DC_PATH_COUNT ? path : DC_PATH_INTERPOSE], 1,
                       __ATOMIC_RELAXED);
}

unsigned long dc_report_error_count(void)
{
    return __atomic_load_n(&errors_atomic, __ATOMIC_RELAXED);
}

/* rep_lock held. */
static void stats_locked(struct dc_report_stats *s)
{
    s->findings = nfindings;
    s->errors = sev_count[DC_SEV_ERROR];
    s->warnings = sev_count[DC_SEV_WARNING];
    s->infos = sev_count[DC_SEV_INFO];
    s->kernels = nkernels;
    s->printed = printed;
    s->dropped = dropped;
    s->launches_checked = __atomic_load_n(&launches_checked, __ATOMIC_RELAXED);
    s->launches_unchecked = __atomic_load_n(&launches_unchecked, __ATOMIC_RELAXED);
    s->bytes_migrated = __atomic_load_n(&bytes_migrated, __ATOMIC_RELAXED);
    s->launches_interpose = __atomic_load_n(&launches_by_path[DC_PATH_INTERPOSE], __ATOMIC_RELAXED);
    s->launches_cupti = __atomic_load_n(&launches_by_path[DC_PATH_CUPTI], __ATOMIC_RELAXED);
}

void dc_report_stats(struct dc_report_stats *s)
{
    pthread_mutex_lock(&rep_lock);
    stats_locked(s);
    pthread_mutex_unlock(&rep_lock);
}

void dc_report_finish(void)
{
    pthread_mutex_lock(&rep_lock);
    if (finished || cfg.off) {
        finished = 1;
        pthread_mutex_unlock(&rep_lock);
        return;
    }
    init_locked();
    finished = 1;
    struct dc_report_stats st;
    stats_locked(&st);
    uint64_t lc = st.launches_checked, lu = st.launches_unchecked, bm = st.bytes_migrated;
    uint64_t li = st.launches_interpose, lcu = st.launches_cupti;
    if (dc_sinks_have_json()) {
        for (struct frec *r = first_rec; r; r = r->next) {
            if (r->count <= 1 || !r->json_head || !r->json_tail)
                continue;
            struct dc_buf b = { json_buf, sizeof json_buf, 0, 0 };
            dc_bput(&b, "%s%llu%s", r->json_head, (unsigned long long)r->count, r->json_tail);
            if (!b.truncated)
                dc_sink_json(b.p, b.pos);
        }
        struct dc_buf b = { json_buf, sizeof json_buf, 0, 0 };
        dc_jsonl_summary(&b, &st);
        dc_sink_json(b.p, b.pos);
    }
    char migrated[64] = "";
    if (cfg.migrate)
        snprintf(migrated, sizeof migrated, "; %llu bytes migrated", (unsigned long long)bm);
    dc_log("SUMMARY: %llu finding%s (%llu error%s, %llu warning%s) in %llu kernel%s; %llu launch%s checked, %llu unchecked"
           " (%llu seen by interpose, %llu by cupti)%s",
           (unsigned long long)nfindings, nfindings == 1 ? "" : "s",
           (unsigned long long)sev_count[DC_SEV_ERROR], sev_count[DC_SEV_ERROR] == 1 ? "" : "s",
           (unsigned long long)sev_count[DC_SEV_WARNING], sev_count[DC_SEV_WARNING] == 1 ? "" : "s",
           (unsigned long long)nkernels, nkernels == 1 ? "" : "s",
           (unsigned long long)lc, lc == 1 ? "" : "es", (unsigned long long)lu,
           (unsigned long long)li, (unsigned long long)lcu, migrated);
    dc_sinks_close();
    pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void)
{
    struct frec *r, *tmp;
    HASH_ITER(hh, findings, r, tmp) {
        HASH_DEL(findings, r);
        free(r->json_head);
        free(r->json_tail);
        free(r);
    }
    struct kset *k, *ktmp;
    HASH_ITER(hh, kernels, k, ktmp) {
        HASH_DEL(kernels, k);
        free(k);
    }
    first_rec = last_rec = NULL;
    nfindings = nkernels = dropped = printed = 0;
    memset(sev_count, 0, sizeof sev_count);
    limit_noted = 0;
    __atomic_store_n(&errors_atomic, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&launches_checked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&launches_unchecked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&bytes_migrated, 0, __ATOMIC_RELAXED);
    for (int p = 0; p < DC_PATH_COUNT; p++)
        __atomic_store_n(&launches_by_path[p], 0, __ATOMIC_RELAXED);
}

void dc_report_reset(void)
{
    pthread_mutex_lock(&rep_lock);
    reset_findings_locked();
    dc_sinks_close();
    inited = 0;
    finished = 0;
    pthread_mutex_unlock(&rep_lock);
}
