/* report: the orchestrator.  It opens the sinks (report/sinks.h), hands
 * each finding to the store (report/store.h, which tells a repeat from a
 * new finding), has the first occurrence formatted (report/text.h,
 * report/jsonl.h) and written, applies print_limit, the suppressions and
 * halt_on_error, and at exit writes the count updates, the summary and the
 * documents merged from this process's own records (report/documents.h).
 *
 * All formatting goes into static fixed buffers under rep_lock (first
 * occurrences only: the repeat path is a hash lookup and an increment), and
 * every record leaves with one write().  Symbolization (libdw, demangling) is
 * the only part that allocates. */
#include "report/report.h"
#include "report/finding.h"
#include "common/format.h"
#include "common/forklock.h"
#include "report/frames.h"
#include "report/gpus.h"
#include "report/pystack.h"
#include "report/jsonl.h"
#include "report/counts.h"
#include "report/matrix.h"
#include "report/documents.h"
#include "report/merge.h"
#include "report/ranges.h"
#include "report/sinks.h"
#include "report/suppress.h"
#include "report/stack.h"
#include "report/stackdepot.h"
#include "report/pystack.h"
#include "report/stats.h"
#include "report/store.h"
#include "report/symbolize.h"
#include "report/symwant.h"
#include "report/testname.h"
#include "report/text.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEXT_MAX (64 * 1024)
#define JSON_MAX (64 * 1024)
#define RECORD_MAX (64u << 20)          /* a record beyond this is cut (text) or left out (JSON) */
#define FRAMES_SHOWN DC_FRAMES_MAX

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t printed;                                /* text reports printed (print_limit) */
static int limit_noted;

/* The process the records name (set at init, again in a fork child). */
static struct dc_proc proc = { .rank = -1 };
static char proc_host[256];

/* The configuration (dc_report_init); before it, the options' defaults. */
static struct dc_report_config cfg = { .print_limit = 100 };

static int inited, finished;

static char text_buf[TEXT_MAX];
static char json_buf[JSON_MAX];
static struct dc_frame frames_a[FRAMES_SHOWN], frames_b[FRAMES_SHOWN];
static struct dc_sframe sframes[FRAMES_SHOWN];

const char *dc_halt_name(enum dc_halt h)
{
    return h == DC_HALT_ABORT ? "abort" : h == DC_HALT_TRAP ? "trap" : "?";
}

static void set_proc(void)
{
    proc.pid = (int)getpid();
    proc.rank = dc_env_rank();
    if (!proc_host[0] && gethostname(proc_host, sizeof proc_host - 1) != 0)
        snprintf(proc_host, sizeof proc_host, "localhost");
    proc.host = proc_host;
}

/* Lock order at fork: report, then the symbolizer, the stack depot and the
 * capture (libunwind, then the Python frame reader), then the sinks (the
 * report symbolizes while it holds rep_lock). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&rep_lock);
    dc_symbolize_fork_prepare();
    dc_stackdepot_fork_prepare();
    dc_stack_fork_prepare();
    dc_sinks_fork_prepare();
}

static void fork_parent(void)
{
    dc_sinks_fork_parent();
    dc_stack_fork_parent();
    dc_stackdepot_fork_parent();
    dc_symbolize_fork_parent();
    pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void);

static void fork_child(void)
{
    dc_sinks_fork_child();
    dc_stack_fork_child();
    dc_stackdepot_fork_child();
    dc_symbolize_fork_child();
    /* The child is a process of its own: its report starts empty, and a
     * path with %p, and the tree file, are its own. */
    reset_findings_locked();
    dc_stats_reset();
    dc_supp_zero();
    dc_matrix_reset();
    dc_sinks_forget_root();
    set_proc();
    if (inited && !finished)
        dc_sinks_reopen_child(cfg.log_path, cfg.json_path, cfg.tree_dir);
    dc_mutex_fork_child(&rep_lock);
}

static void atfork_once(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static void init_locked(void)
{
    if (inited)
        return;
    inited = 1;
    finished = 0;
    set_proc();
    dc_sinks_open(cfg.log_path, cfg.json_path, cfg.tree_dir);
}

/* Findings are formatted as JSON when a file takes them: JSON Lines, the
 * tree file, or a document written from them at exit. */
static int want_json(void)
{
    return dc_sinks_have_json() || (!cfg.tree_dir && (cfg.sarif_path || cfg.junit_path || cfg.html_path));
}

/* Our copy of a configured path (NULL: none, or no memory for it), in place
 * of *kept. */
static const char *keep_path(const char *path, char **kept)
{
    free(*kept);
    *kept = path && *path ? strdup(path) : NULL;
    return *kept;
}

void dc_report_prestart(const char *log_path, const char *json_path)
{
    if (dc_sinks_claim_root())
        dc_sinks_truncate_shared(log_path, json_path);
}

int dc_report_check_suppressions(const char *files, char *err, size_t errlen)
{
    return dc_supp_load(files, err, errlen);
}

void dc_report_init(const struct dc_report_config *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atfork_once);
    pthread_mutex_lock(&rep_lock);
    char supp_err[4600] = "";
    if (c) {
        static char *log_path, *json_path, *driver_note, *sarif_path, *junit_path, *html_path, *source_root, *supps,
            *tree_dir;
        cfg = *c;
        cfg.log_path = keep_path(c->log_path, &log_path);
        cfg.json_path = keep_path(c->json_path, &json_path);
        cfg.driver_note = keep_path(c->driver_note, &driver_note);
        cfg.sarif_path = keep_path(c->sarif_path, &sarif_path);
        cfg.junit_path = keep_path(c->junit_path, &junit_path);
        cfg.html_path = keep_path(c->html_path, &html_path);
        cfg.source_root = keep_path(c->source_root, &source_root);
        cfg.suppressions = keep_path(c->suppressions, &supps);
        cfg.tree_dir = keep_path(c->tree_dir, &tree_dir);
        dc_log_set_verbosity(cfg.verbosity);
        dc_stack_set_debuginfod(cfg.debuginfod);
        if (dc_supp_load(cfg.suppressions, supp_err, sizeof supp_err) != 0)
            dc_supp_reset();
        dc_py_roots_add_list("option", c->library_roots);
        cfg.library_roots = NULL;               /* kept by report/pystack.c */
    }
    int was = inited;
    if (!was) {                         /* which rule makes each folder a library's */
        const char *rule, *root;
        for (unsigned i = 0; (root = dc_py_root_at(i, &rule)) != NULL; i++)
            dc_logv(1, "Python library root (%s): %s", rule, root);
    }
    init_locked();
    pthread_mutex_unlock(&rep_lock);
    if (supp_err[0])
        dc_log("%s; running with no suppressions", supp_err + strlen("devcheck: "));
    if (!was) {
        const char *log_used = dc_sinks_log_used(), *json_used = dc_sinks_json_used();
        dc_logv(1, "reports to %s%s%s", log_used[0] ? log_used : "stderr", json_used[0] ? ", JSON Lines to " : "",
                json_used);
    }
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

/* The report is printed as text alone, its stacks folded (report/fold.h):
 * the frames it folds need no name (DC_SYM_SHOWN).  JSON, suppressions and
 * verbosity >= 1 read every frame's name. */
static int lazy_frames(int print, int need_frames)
{
    return print && !need_frames && !want_json() && dc_log_verbosity() < 1;
}

static int record_finding(const struct dc_finding *f, const struct dc_store_key *key,
                          struct dc_stored **kept, uint64_t *gen);

/* --- the thread's memo of findings already in the store ------------------------
 *
 * A repeat (a training step's warning, a suppressed finding, one past
 * print_limit) is decided from its key by one probe of this thread's memo
 * and counted with atomics (dc_store_count_repeat): no lock, no lookup in
 * the store's table.  An entry is the store's record of its key, valid while
 * the store's generation is the one it was taken in (a fork child's reset,
 * a test's, bump it; reset runs only where no other thread reports).  Filled
 * after the locked lookup that found or made the record. */
#define MEMO_SETS 32                    /* of 2 ways each */
struct memo_entry {
    struct dc_store_key key;
    struct dc_stored *r;
    uint64_t gen;
};
struct memo {
    struct memo_entry way[MEMO_SETS][2];
    unsigned char victim[MEMO_SETS];    /* the way the next miss replaces */
};
static __thread struct memo *memo_tls __attribute__((tls_model("initial-exec")));
static __thread int memo_failed __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_gone(void *p)
{
    if (memo_tls == p)
        memo_tls = NULL;
    free(p);
}
static void memo_key_make(void) { (void)pthread_key_create(&memo_key, memo_gone); }

static inline size_t memo_set(const struct dc_store_key *k)
{
    uint64_t h = k->kernel ^ ((uint64_t)k->launch_stack << 32) ^ ((uint64_t)(uint32_t)k->param << 8) ^
                 k->word_offset ^ ((uint64_t)k->alloc_stack << 20) ^ ((uint64_t)k->kind << 4) ^ k->action ^
                 ((uint64_t)k->pair << 40);
    h ^= h >> 29;
    return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 59) % MEMO_SETS;
}

static inline int memo_is(const struct memo_entry *e, const struct dc_store_key *key, uint64_t gen)
{
    return e->r && e->gen == gen && !memcmp(&e->key, key, sizeof *key);
}

/* 1 when key is a finding this thread has seen in the store: counted (and
 * its record in *ref, when not NULL). */
static inline int memo_repeat(const struct dc_store_key *key, struct dc_report_ref *ref)
{
    struct memo *m = memo_tls;
    if (!m)
        return 0;
    struct memo_entry *w = m->way[memo_set(key)];
    uint64_t gen = dc_store_generation();
    struct memo_entry *e = memo_is(&w[0], key, gen) ? &w[0] : memo_is(&w[1], key, gen) ? &w[1] : NULL;
    if (!e)
        return 0;
    dc_store_count_repeat(e->r);
    if (ref)
        *ref = (struct dc_report_ref){ e->r, gen };
    return 1;
}

static void memo_put(const struct dc_store_key *key, struct dc_stored *r, uint64_t gen)
{
    struct memo *m = memo_tls;
    if (!m && !memo_failed) {
        pthread_once(&memo_once, memo_key_make);
        m = calloc(1, sizeof *m);
        if (m && pthread_setspecific(memo_key, m) != 0) {
            free(m);
            m = NULL;
        }
        memo_failed = !m;
        memo_tls = m;
    }
    if (!m || !r)
        return;
    size_t s = memo_set(key);
    struct memo_entry *e = &m->way[s][m->victim[s]];
    m->victim[s] ^= 1;
    e->key = *key;
    e->r = r;
    e->gen = gen;
}

int dc_report_repeat(const struct dc_finding *f, struct dc_report_ref *ref)
{
    if (!f || !f->launch)
        return 0;
    struct dc_store_key key;
    dc_store_key(f, &key);
    return memo_repeat(&key, ref);
}

int dc_report_repeat_ref(const struct dc_report_ref *ref)
{
    if (!ref || !ref->r || ref->gen != dc_store_generation())
        return 0;
    dc_store_count_repeat(ref->r);
    return 1;
}

/* halt_on_error stops at the first occurrence of an error finding, whether
 * it was printed, only counted (print_limit) or dropped.
 *
 * A repeat is decided first, from the key alone: the thread's memo, else
 * one lookup under rep_lock and a count, nothing gathered that only a first
 * occurrence needs (NVTX ranges, symbols).  A finding that is new gathers
 * its NVTX ranges, then is recorded (record_finding looks the key up again:
 * another thread may have recorded it meanwhile, and then it is a
 * repeat). */
void dc_report_finding(const struct dc_finding *f)
{
    if (!f || !f->launch)
        return;
    struct dc_store_key key;
    dc_store_key(f, &key);
    if (memo_repeat(&key, NULL))
        return;
    pthread_mutex_lock(&rep_lock);
    struct dc_stored *known = dc_store_repeat(&key);
    uint64_t gen = dc_store_generation();
    pthread_mutex_unlock(&rep_lock);
    if (known) {
        memo_put(&key, known, gen);
        return;
    }
    dc_gpus_refresh();                  /* a new finding names its GPUs (report/gpus.h) */
    /* the NVTX ranges open on this thread (the launch's: findings are
     * reported on the thread that made the call) */
    struct dc_finding g;
    const char *ranges[DC_RANGES_MAX];
    if (!f->nnvtx) {
        unsigned n = dc_ranges_get(ranges, DC_RANGES_MAX);
        if (n) {
            g = *f;
            g.nvtx = ranges;
            g.nnvtx = n;
            f = &g;
        }
    }
    struct dc_stored *kept = NULL;
    uint64_t t = DC_STATS_BEGIN();
    int reported = record_finding(f, &key, &kept, &gen);
    DC_STATS_END(DC_T_REPORT, t);
    memo_put(&key, kept, gen);
    if (reported && f->severity == DC_SEV_ERROR && cfg.halt_on_error)
        halt();
}

void dc_report_framework_note(const struct dc_finding *f, char *out, size_t len)
{
    if (!out || !len)
        return;
    out[0] = 0;
    if (!f || !dc_finding_framework(f))
        return;
    struct dc_buf b = { out, len, 0, 0 };
    pthread_mutex_lock(&rep_lock);
    dc_text_framework_note(&b, f);
    pthread_mutex_unlock(&rep_lock);
}

/* Formats a record with fn into the static buffer, or into a bigger heap
 * buffer when it does not fit (no record is dropped for its size).  Returns
 * the buffer (*heap: free it) with b describing it. */
struct fmt_ctx {
    const struct dc_finding *f;
    const char *kname;
    size_t nl, na;
    uint64_t id;
    size_t count_at;
};

static void fmt_text(struct dc_buf *b, struct fmt_ctx *c)
{
    dc_text_finding(b, c->f, c->kname, frames_a, c->nl, frames_b, c->na);
}

static void fmt_json(struct dc_buf *b, struct fmt_ctx *c)
{
    dc_jsonl_finding(b, c->f, c->id, &proc, c->kname, frames_a, c->nl, frames_b, c->na, &c->count_at);
}

static void format_record(struct dc_buf *b, char *stat, size_t statlen, char **heap,
                          void (*fn)(struct dc_buf *, struct fmt_ctx *), struct fmt_ctx *c)
{
    *heap = NULL;
    *b = (struct dc_buf){ stat, statlen, 0, 0 };
    fn(b, c);
    for (size_t cap = statlen * 4; b->truncated && cap <= RECORD_MAX; cap *= 4) {
        char *p = malloc(cap);
        if (!p)
            break;
        free(*heap);
        *heap = p;
        *b = (struct dc_buf){ p, cap, 0, 0 };
        fn(b, c);
    }
}

/* The symbolized launch frames as the suppression matcher sees them. */
static size_t match_frames(size_t n)
{
    size_t nat = dc_frames_native(frames_a, n);
    for (size_t i = 0; i < n; i++)
        sframes[i] = (struct dc_sframe){ frames_a[i].function, frames_a[i].mangled, frames_a[i].module,
                                         frames_a[i].file, frames_a[i].line, i >= nat };
    return n;
}

/* A framework error's Python stack (the op's) as the matcher sees it. */
static size_t match_pylocs(const struct dc_finding *f)
{
    size_t n = 0;
    for (unsigned i = 0; i < f->npylocs && n < FRAMES_SHOWN; i++)
        sframes[n++] = (struct dc_sframe){ f->pylocs[i].function, NULL, f->pylocs[i].file, f->pylocs[i].file,
                                           f->pylocs[i].line, 1 };
    return n;
}

/* A framework error's operator, from its message: the method PyTorch names
 * ("... in method wrapper_CUDA_cat)" -> "cat", "wrapper_CUDA__index_select"
 * -> "index_select"); "" when it names none. */
static void framework_op(const char *msg, char *out, size_t len)
{
    out[0] = 0;
    const char *p = msg ? strstr(msg, "in method ") : NULL;
    if (!p)
        return;
    p += 10;
    size_t n = strcspn(p, ") \n");
    const char *w = p;
    if (!strncmp(w, "wrapper_", 8)) {          /* wrapper_<DispatchKey>_<op> */
        const char *u = memchr(w + 8, '_', n > 8 ? n - 8 : 0);
        if (u) {
            n -= (size_t)(u + 1 - w);
            w = u + 1;
        }
    }
    while (n && *w == '_')
        w++, n--;
    snprintf(out, len, "%.*s", (int)n, w);
}

/* The frames the matcher and --gen-suppressions see: the launch's, or a
 * framework error's (or a pointer refusal's) Python stack. */
static size_t supp_frames(const struct dc_finding *f, size_t nl)
{
    return dc_finding_framework(f) ? match_pylocs(f) : match_frames(nl);
}

/* 0: a repeat of a finding already recorded (counted only), or a
 * suppressed one.  *kept: the store's record of key (NULL: none kept), in
 * generation *gen, for the thread's memo. */
static int record_finding(const struct dc_finding *f, const struct dc_store_key *key,
                          struct dc_stored **kept, uint64_t *gen)
{
    const struct dc_finding_launch *l = f->launch;

    pthread_mutex_lock(&rep_lock);
    init_locked();
    *gen = dc_store_generation();
    if ((*kept = dc_store_repeat(key)) != NULL) {
        pthread_mutex_unlock(&rep_lock);
        return 0;
    }
    struct dc_stored *r = dc_store_add(key, f->severity);
    if (!r) {                           /* not recorded (counted) */
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    *kept = r;

    char kname[1024];
    if (l->kernel)
        dc_demangle(l->kernel, kname, sizeof kname);
    else if (f->argument)               /* a library call: named by its entry point */
        snprintf(kname, sizeof kname, "%s", l->api ? l->api : "?");
    else
        snprintf(kname, sizeof kname, "<unknown kernel %p>", l->kernel_key);
    size_t nl = 0;
    int need_frames = dc_supp_count() || cfg.gen_suppressions;
    int print = cfg.print_limit <= 0 || printed < (uint64_t)cfg.print_limit;
    if (need_frames || print || want_json()) {
        /* the stacks this report names, their large libraries' frames in one pass */
        uint32_t ids[3] = { f->launch_stack, f->has_operand && f->alloc_known ? f->alloc.alloc_stack : 0,
                            f->peer_stack };
        dc_symwant_announce(ids, print || want_json() ? 3 : 1);
        nl = dc_stack_symbolize_ex_need(f->launch_stack, frames_a, FRAMES_SHOWN, l->kernel,
                                        lazy_frames(print, need_frames) ? DC_SYM_SHOWN : DC_SYM_WHOLE);
    }
    char op[128];
    framework_op(f->kind == DC_F_FRAMEWORK_DEVICE_ERROR ? f->message : NULL, op, sizeof op);
    if (dc_supp_count()) {
        int supp = dc_supp_match_op(dc_finding_kind_name(f->kind), l->kernel, l->kernel ? kname : NULL, op,
                                    sframes, supp_frames(f, nl), 1);
        if (supp >= 0) {
            dc_store_suppress(r, supp);
            pthread_mutex_unlock(&rep_lock);
            return 0;
        }
    }

    uint64_t id = dc_store_number(r, f, dc_test_expects(dc_finding_kind_name(f->kind)));

    if (!print && !want_json()) {
        if (!limit_noted) {
            limit_noted = 1;
            dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
        }
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }

    size_t na = 0;
    if (f->has_operand && f->alloc_known) {
        int lazy = lazy_frames(print, need_frames);
        na = dc_stack_symbolize_need(f->alloc.alloc_stack, frames_b, FRAMES_SHOWN, lazy ? DC_SYM_SHOWN : DC_SYM_WHOLE);
        if (lazy && !dc_frames_segment(frames_b, na))
            na = dc_stack_name_frames(frames_b, na, NULL, NULL);     /* an allocator's name may be folded */
    }
    struct fmt_ctx c = { f, kname, nl, na, id, 0 };
    if (print) {
        struct dc_buf b;
        char *heap;
        format_record(&b, text_buf, sizeof text_buf, &heap, fmt_text, &c);
        if (cfg.gen_suppressions && !b.truncated) {
            char gen[8192];
            struct dc_buf g = { gen, sizeof gen, 0, 0 };
            dc_supp_generate_op(&g, dc_finding_kind_name(f->kind), l->kernel, op, sframes, supp_frames(f, nl));
            if (!g.truncated && b.pos + g.pos < b.len)
                dc_bput(&b, "%s", gen);
        }
        if (b.truncated && b.pos > 5)
            memcpy(b.p + b.pos - 5, "...\n", 5), b.pos--;
        dc_sink_text(b.p, b.pos);
        free(heap);
        printed++;
    } else if (!limit_noted) {
        limit_noted = 1;
        dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
    }
    if (want_json()) {
        struct dc_buf b;
        char *heap;
        format_record(&b, json_buf, sizeof json_buf, &heap, fmt_json, &c);
        if (!b.truncated) {
            if (dc_sinks_have_json())
                dc_sink_json(b.p, b.pos);
            dc_store_keep_json(r, b.p, c.count_at);
        } else {
            dc_log("JSON record of finding %llu is over %u MiB; left out", (unsigned long long)id,
                   RECORD_MAX >> 20);
        }
        free(heap);
    }
    pthread_mutex_unlock(&rep_lock);
    return 1;
}

unsigned long dc_report_error_count(void)
{
    return dc_store_errors();
}

/* rep_lock held. */
static void stats_locked(struct dc_report_stats *s)
{
    dc_store_stats(s);
    dc_counts_stats(s);
    s->printed = printed;
    s->write_errors = dc_sinks_write_errors();
    s->quiet = dc_report_quiet_operands();
    s->repeated = dc_store_repeats();
}

void dc_report_stats(struct dc_report_stats *s)
{
    pthread_mutex_lock(&rep_lock);
    stats_locked(s);
    pthread_mutex_unlock(&rep_lock);
}

/* This process's stored records into m, each with its count (window: its
 * occurrences in the current test's window, those without any left out);
 * returns the lines added. */
static long add_stored_locked(struct dc_model *m, int window)
{
    long line = 0;
    for (const struct dc_stored *r = dc_store_next(NULL); r; r = dc_store_next(r)) {
        const char *head, *tail;
        uint64_t count = dc_store_line(r, &head, &tail);
        if (window)
            count = dc_store_window_count(r);
        if (!count || !head || !tail)
            continue;
        struct dc_sbuf b = { 0 };
        dc_sput(&b, "%s%llu%s", head, (unsigned long long)count, tail);
        if (b.p)
            dc_model_add(m, b.p, b.len, "", ++line, NULL, 0);
        dc_sfree(&b);
    }
    return line;
}

/* The documents (SARIF, JUnit, HTML) from this process's own records: its
 * JSON lines with their final counts and its summary, read back as
 * `devcheck report` reads files. */
static void write_documents_locked(const char *summary_line, size_t summary_len)
{
    if (cfg.tree_dir || (!cfg.sarif_path && !cfg.junit_path && !cfg.html_path))
        return;
    struct dc_model *m = dc_model_new(cfg.source_root);
    if (!m) {
        dc_log("out of memory: no SARIF, JUnit or HTML written");
        return;
    }
    long line = add_stored_locked(m, 0);
    dc_model_add(m, summary_line, summary_len, "", ++line, NULL, 0);
    dc_model_merge(m);
    dc_model_write_documents(m, cfg.sarif_path, cfg.junit_path, cfg.html_path, NULL);
    dc_model_free(m);
}

/* fault: in the handler of a synchronous fault (SIGSEGV, ...), which may
 * have struck inside malloc: nothing here allocates then (the records go
 * through the fixed buffer; SARIF, JUnit and HTML, which need memory, are
 * not written). */
static void finish_locked(int fault)
{
    init_locked();
    finished = 1;
    if (dc_stats_on && !fault) {        /* the report's own tables, beside the core's (dc_stats_table); not
                                         * in a fault's handler: their locks may be held */
        dc_stats_table("findings store", dc_store_bytes());
        dc_stats_table("stack depot", dc_stackdepot_bytes());
        dc_stats_table("symbol cache", dc_symbolize_bytes());
        dc_stats_table("Python code descriptions", dc_py_bytes());
    }
    struct dc_report_stats st;
    if (want_json()) {
        for (const struct dc_stored *r = dc_store_next(NULL); r; r = dc_store_next(r)) {
            const char *head, *tail;
            uint64_t count = dc_store_line(r, &head, &tail);
            if (count <= 1 || !head || !tail || !dc_sinks_have_json())
                continue;
            struct dc_buf b = { json_buf, sizeof json_buf, 0, 0 };
            dc_bput(&b, "%s%llu%s", head, (unsigned long long)count, tail);
            if (!b.truncated) {
                dc_sink_json(b.p, b.pos);
            } else if (!fault) {        /* over 64 KiB: not dropped */
                struct dc_sbuf h = { 0 };
                dc_sput(&h, "%s%llu%s", head, (unsigned long long)count, tail);
                if (h.p)
                    dc_sink_json(h.p, h.len);
                dc_sfree(&h);
            }
        }
        stats_locked(&st);
        struct dc_buf sb = { json_buf, sizeof json_buf, 0, 0 };     /* the summary line */
        dc_jsonl_summary(&sb, &st, &proc, cfg.driver_version, cfg.driver_layouts);
        if (dc_sinks_have_json())
            dc_sink_json(sb.p, sb.pos);
        if (!fault)
            write_documents_locked(sb.p, sb.pos);
    }
    stats_locked(&st);                  /* write errors of the files above included */
    if (!cfg.tree_dir) {
        const char *name, *file;
        int line;
        uint64_t count;
        for (size_t i = 0; (name = dc_supp_entry(i, &file, &line, &count)) != NULL; i++)
            if (count)
                dc_log("used_suppression: %llu %s (%s:%d)", (unsigned long long)count, name, file, line);
        if (cfg.driver_note)
            dc_log("%s", cfg.driver_note);
        char text[1024];
        struct dc_buf tb = { text, sizeof text, 0, 0 };
        dc_summary_text(&tb, &st, cfg.migrate, 1);
        dc_log("SUMMARY: %s", text);
    }
    if (dc_stats_on) {                  /* one table, one write: every process prints its own */
        char table[2048];
        struct dc_buf sb = { table, sizeof table, 0, 0 };
        dc_stats_text(&sb, &st);
        dc_sink_text(sb.p, sb.pos);
    }
    dc_sinks_close();
}

void dc_report_finish(void)
{
    if (!cfg.off)
        dc_gpus_refresh();              /* the summary names every GPU */
    pthread_mutex_lock(&rep_lock);
    if (finished || cfg.off) {
        finished = 1;
        pthread_mutex_unlock(&rep_lock);
        return;
    }
    finish_locked(0);
    pthread_mutex_unlock(&rep_lock);
}

void dc_report_finish_signal(int fault)
{
    /* a thread that holds rep_lock is reporting and lets go soon; if it is
     * this thread (the signal interrupted it), give up after a while */
    dc_sinks_signal_mode();
    int locked = 0;
    for (int i = 0; i < 200 && !(locked = pthread_mutex_trylock(&rep_lock) == 0); i++) {
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (finished || cfg.off) {
        if (locked)
            pthread_mutex_unlock(&rep_lock);
        return;
    }
    finish_locked(fault);
    if (locked)
        pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void)
{
    dc_store_reset();
    dc_counts_reset();
    printed = 0;
    limit_noted = 0;
}

void dc_report_reset(void)
{
    pthread_mutex_lock(&rep_lock);
    reset_findings_locked();
    dc_matrix_reset();
    dc_sinks_close();
    inited = 0;
    finished = 0;
    pthread_mutex_unlock(&rep_lock);
}

/* ---- the pytest plugin's windows (report.h) ------------------------------- */

void dc_report_test_begin(const char *name)
{
    pthread_mutex_lock(&rep_lock);
    dc_store_window_open();
    dc_test_name_set(name);
    pthread_mutex_unlock(&rep_lock);
}

void dc_report_test_expect(const char *kinds)
{
    pthread_mutex_lock(&rep_lock);
    dc_test_expect_set(kinds);
    pthread_mutex_unlock(&rep_lock);
}

size_t dc_report_test_findings(char *out, size_t len)
{
    if (out && len)
        out[0] = 0;
    pthread_mutex_lock(&rep_lock);
    struct dc_model *m = dc_model_new(cfg.source_root);
    size_t need = 0;
    if (m) {
        add_stored_locked(m, 1);
        dc_model_merge(m);
        struct dc_sbuf b = { 0 };
        if (m->nf)
            dc_model_jsonl_text(m, &b, 1);
        if (b.p) {
            /* the findings only: the model's summary line is the last */
            char *last = b.len > 1 ? memrchr(b.p, '\n', b.len - 1) : NULL;
            need = last ? (size_t)(last - b.p) + 1 : 0;
            if (out && len > need) {
                memcpy(out, b.p, need);
                out[need] = 0;
            }
        }
        dc_sfree(&b);
        dc_model_free(m);
    }
    pthread_mutex_unlock(&rep_lock);
    return need;
}
