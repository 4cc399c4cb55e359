/* libapi: the library handles' table and sync=1 around library calls
 * (core/verdict/libcall.h).  A small open-addressing table: handles are
 * made and destroyed rarely, and looked up once per checked library call,
 * so writers take one mutex and readers none (a sequence count: a reader
 * that saw a writer at work probes again).  Full (4096 live handles): a
 * new handle is not remembered (its calls fall back to the current
 * device). */
#include "core/verdict/libcall.h"
#include "core/verdict/capture.h"
#include "core/base/cudacall.h"
#include "core/base/options.h"
#include "core/owner/registry.h"
#include "common/forklock.h"
#include "core/verdict/record.h"
#include "core/verdict/verdict.h"
#include "core/kernel/kernels.h"
#include "report/counts.h"
#include "report/stats.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096              /* a power of two */

struct slot {
    int kind;                   /* 0: empty; -1: deleted */
    uint64_t h, v;
};
static struct slot table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* dc_libh_seq (libcall.h): odd while a writer changes the table (under
 * lock); readers probe without the lock and keep what they read only if it
 * did not move meanwhile.  Every field is written with release stores after
 * the odd count and read with acquire loads before the count's second read
 * (no fences: ThreadSanitizer does not model them): a reader that saw any
 * new field sees the count moved. */
unsigned dc_libh_seq = 2;
__thread struct dc_libh_hit dc_libh_last[DC_LIBH_KINDS] __attribute__((tls_model("initial-exec")));

/* The lock is a leaf (nothing is called while it is held): its own fork
 * handlers, installed with the first handle, keep it out of a fork. */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t dlock = PTHREAD_MUTEX_INITIALIZER;    /* the descriptors' table (below) */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_lock(&dlock);
}
static void fork_parent(void)
{
    pthread_mutex_unlock(&dlock);
    pthread_mutex_unlock(&lock);
}
static void fork_child(void)
{
    dc_mutex_fork_child(&dlock);
    dc_mutex_fork_child(&lock);
}
static void install_atfork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static size_t home(int kind, uint64_t h) { return (size_t)(dc_mix64(h ^ ((uint64_t)kind << 56)) & (SLOTS - 1)); }

#define LD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* The slot of (kind, h), or NULL (read with or without the lock). */
static struct slot *find(int kind, uint64_t h)
{
    size_t i = home(kind, h);
    for (size_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        int k = LD(table[i].kind);
        if (k == 0)
            return NULL;
        if (k == kind && LD(table[i].h) == h)
            return &table[i];
    }
    return NULL;
}

/* A writer's change (lock held): the count odd around it. */
static void write_begin(void) { ST(dc_libh_seq, dc_libh_seq + 1); }
static void write_end(void) { ST(dc_libh_seq, dc_libh_seq + 1); }

void dc_libh_set(int kind, uint64_t h, uint64_t v)
{
    if (kind <= 0)
        return;
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&lock);
    struct slot *s = find(kind, h);
    if (!s) {
        size_t i = home(kind, h);
        for (size_t n = 0; n < SLOTS && !s; n++, i = (i + 1) & (SLOTS - 1))
            if (table[i].kind <= 0)
                s = &table[i];
    }
    if (s) {
        write_begin();
        ST(s->kind, kind);
        ST(s->h, h);
        ST(s->v, v);
        write_end();
    }
    pthread_mutex_unlock(&lock);
}

int dc_libh_get_slow(int kind, uint64_t h, uint64_t *v)
{
    for (;;) {
        unsigned q = __atomic_load_n(&dc_libh_seq, __ATOMIC_ACQUIRE);
        if (q & 1) {                    /* a writer at work: wait for it (it calls nothing) */
            pthread_mutex_lock(&lock);
            pthread_mutex_unlock(&lock);
            continue;
        }
        struct slot *s = find(kind, h);
        uint64_t x = s ? LD(s->v) : 0;
        if (LD(dc_libh_seq) != q)       /* after the acquire loads above */
            continue;
        if ((unsigned)kind < DC_LIBH_KINDS)    /* the thread's hit for this kind, valid while dc_libh_seq is q */
            dc_libh_last[kind] = (struct dc_libh_hit){ .seq = q, .found = s != NULL, .h = h, .v = x };
        if (s && v)
            *v = x;
        return s != NULL;
    }
}

void dc_libh_forget(int kind, uint64_t h)
{
    pthread_mutex_lock(&lock);
    struct slot *s = find(kind, h);
    if (s) {
        write_begin();
        ST(s->kind, -1);
        write_end();
    }
    pthread_mutex_unlock(&lock);
}
#undef LD
#undef ST

/* --- descriptors ------------------------------------------------------------------ */

/* Linear probing with backward-shift deletion: descriptors come and go at
 * the rate of the calls themselves (torch makes a cuBLASLt matmul
 * descriptor per GEMM), so no tombstones pile up.  Each record is its own
 * allocation, made with its slot and freed when forgotten. */
#define DSLOTS 16384            /* a power of two; at most DSLOTS - 1 live */
struct dslot {
    int kind;                   /* 0: empty */
    uint64_t h;
    void *rec;
};
static struct dslot dtable[DSLOTS];
static unsigned dlive;
/* Bumped (under dlock) by every change of the table: a thread's cached
 * copies (below, and the hooks' own: libcall.h) made at an older
 * generation are stale. */
uint64_t dc_libd_gen = 1;

/* Each thread's last records read (a collective's communicator, a matmul's
 * descriptor and layouts): read again without the lock while no record has
 * changed since -- the hot path of a library call costs a generation load
 * and a copy.  Records of at most CACHE_BYTES only. */
#define CACHE_WAYS 4
#define CACHE_BYTES 128
struct dcache {
    int kind;
    uint64_t h, gen;
    unsigned char rec[CACHE_BYTES];
};
/* initial-exec: a dynamic TLS access costs a __tls_get_addr call per read
 * (6 per cublasLtMatmul, about 300 instructions; bench/libcalls.sh) */
static __thread struct dcache dcache[CACHE_WAYS] __attribute__((tls_model("initial-exec")));
static __thread unsigned dcache_next __attribute__((tls_model("initial-exec")));

static size_t dhome(int kind, uint64_t h) { return home(kind, h) * 5 & (DSLOTS - 1); }

/* The slot of (kind, h), or the empty slot where it would go; dlock held. */
static struct dslot *dfind(int kind, uint64_t h)
{
    size_t i = dhome(kind, h);
    while (dtable[i].kind && !(dtable[i].kind == kind && dtable[i].h == h))
        i = (i + 1) & (DSLOTS - 1);
    return &dtable[i];
}

int dc_libd_update(int kind, uint64_t h, size_t size, int make, void (*fn)(void *rec, const void *arg),
                   const void *arg)
{
    if (kind <= 0 || size > DC_LIBD_MAX || !fn)
        return 0;
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&dlock);
    struct dslot *s = dfind(kind, h);
    if (!s->kind && make && dlive < DSLOTS - 1 && (s->rec = calloc(1, size)) != NULL) {
        s->kind = kind;
        s->h = h;
        dlive++;
    }
    int ran = s->kind != 0;
    if (ran) {
        fn(s->rec, arg);
        __atomic_store_n(&dc_libd_gen, dc_libd_gen + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&dlock);
    return ran;
}

__thread struct dc_libd_hit dc_libd_last[DC_LIBD_KINDS] __attribute__((tls_model("initial-exec")));

int dc_libd_get_slow(int kind, uint64_t h, void *out, size_t size)
{
    if (size > DC_LIBD_MAX)
        return 0;
    uint64_t gen = __atomic_load_n(&dc_libd_gen, __ATOMIC_ACQUIRE);
    if (size <= CACHE_BYTES)
        for (unsigned i = 0; i < CACHE_WAYS; i++)
            if (dcache[i].gen == gen && dcache[i].kind == kind && dcache[i].h == h) {
                memcpy(out, dcache[i].rec, size);
                return 1;
            }
    pthread_mutex_lock(&dlock);
    struct dslot *s = dfind(kind, h);
    int found = s->kind != 0;
    if (found) {
        memcpy(out, s->rec, size);
        if ((unsigned)kind < DC_LIBD_KINDS && size <= DC_LIBD_HIT_BYTES) {    /* libcall.h's inline hit */
            struct dc_libd_hit *c = &dc_libd_last[kind];
            c->gen = dc_libd_gen;
            c->h = h;
            memcpy(c->rec, s->rec, size);
        } else if (size <= CACHE_BYTES) {
            struct dcache *c = &dcache[dcache_next++ % CACHE_WAYS];
            c->kind = kind;
            c->h = h;
            c->gen = dc_libd_gen;
            memcpy(c->rec, s->rec, size);
        }
    }
    pthread_mutex_unlock(&dlock);
    return found;
}

void dc_libd_forget(int kind, uint64_t h)
{
    pthread_mutex_lock(&dlock);
    struct dslot *s = dfind(kind, h);
    if (s->kind) {
        free(s->rec);
        dlive--;
        __atomic_store_n(&dc_libd_gen, dc_libd_gen + 1, __ATOMIC_RELEASE);
        /* shift back every later entry of the run that may not stay
         * behind the hole (its home is not cyclically in (hole, j]) */
        size_t hole = (size_t)(s - dtable), j = hole;
        for (;;) {
            j = (j + 1) & (DSLOTS - 1);
            if (!dtable[j].kind)
                break;
            size_t k = dhome(dtable[j].kind, dtable[j].h);
            if (hole <= j ? (hole < k && k <= j) : (hole < k || k <= j))
                continue;
            dtable[hole] = dtable[j];
            hole = j;
        }
        dtable[hole] = (struct dslot){ 0 };
    }
    pthread_mutex_unlock(&dlock);
}

void dc_libd_unseen(const char *api, const char *what)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        dc_log("%s: %s devcheck never saw set (made before devcheck was loaded?): not checked (said once; "
               "verbosity=2 names every such call)", api, what);
    else
        dc_logv(2, "%s: %s devcheck never saw set: not checked", api, what);
}

/* --- sync=1 ---------------------------------------------------------------------- */

__thread int dc_libcall_active __attribute__((tls_model("initial-exec")));
__thread struct dc_libcover dc_libcover __attribute__((tls_model("initial-exec"))) = { .device = -1 };

/* Each thread's last call whose every argument was clean (memory of its
 * device, or managed memory): the same entry point with the same pointers
 * on the same device while the registry has not changed (dc_reg_gen, which
 * the registry's per-thread cache trusts the same way) is clean again -- its
 * counts and its cover are the last one's, and no argument is looked up
 * (a library call in a loop: -130 instructions, bench/libcalls.sh). */
static __thread struct {
    const char *api;            /* NULL: none */
    int device;
    unsigned n, own, managed;
    uintptr_t stream;
    uint64_t gen;
    uintptr_t ptr[DC_LIBCOVER_MAX];
    struct dc_libcover cover;
} clean_call __attribute__((tls_model("initial-exec")));

/* The call is the thread's last clean one (its pointers; the registry
 * unchanged since). */
static inline int clean_match(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args,
                              unsigned n)
{
    if (clean_call.api != api || clean_call.device != device || clean_call.stream != stream ||
        clean_call.n != n || clean_call.gen != __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE))
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (args[i].ptr != clean_call.ptr[i])
            return 0;
    return 1;
}

/* The same, its cover made the running call's (dc_libcall_clean_again). */
static inline int clean_same(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args,
                             unsigned n)
{
    if (!clean_match(api, device, stream, args, n))
        return 0;
    if (dc_libcover.id != clean_call.cover.id)     /* else it still is the kept one: no copy */
        dc_libcover = clean_call.cover;
    return 1;
}

int dc_libcall_clean_again(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                           unsigned nclean[2])
{
    if (!clean_same(api, device, stream, args, n))
        return 0;
    nclean[0] = clean_call.own;
    nclean[1] = clean_call.managed;
    return 1;
}

/* The check of a library call: its shortcut here, beside the thread's last
 * clean call (a loop's call compares and counts, calls nothing: -30
 * instructions per call beside a call to the shortcut, bench/libcalls.sh);
 * the rest is core/verdict/check.c's (timed under stats=1, whose timer the
 * shortcut does not read). */
int dc_check_libcall(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n)
{
    if (__builtin_expect(!api || !args || device < 0 || dc_opt.mode == DC_MODE_OFF ||
                         __atomic_load_n(&dc_stats_on, __ATOMIC_RELAXED), 0) ||
        !clean_same(api, device, stream, args, n))
        return dc_check_libcall_full(api, device, stream, args, n);
    dc_counts_clean(dc_counts(), device, clean_call.own, clean_call.managed);
    return 0;
}

uint64_t dc_libcall_clean_name(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args,
                               unsigned n)
{
    return clean_match(api, device, stream, args, n) ? clean_call.cover.id : 0;
}

static inline __attribute__((always_inline)) int clean_named(uint64_t name, int device, uintptr_t stream)
{
    if (__builtin_expect(!name || !clean_call.api || clean_call.cover.id != name || clean_call.device != device ||
                         clean_call.stream != stream ||
                         clean_call.gen != __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE) ||
                         dc_opt.mode == DC_MODE_OFF || __atomic_load_n(&dc_stats_on, __ATOMIC_RELAXED), 0))
        return 0;
    if (dc_libcover.id != name)
        dc_libcover = clean_call.cover;
    dc_counts_clean(dc_counts(), device, clean_call.own, clean_call.managed);
    return 1;
}

int dc_libcall_clean_named(uint64_t name, int device, uintptr_t stream)
{
    return clean_named(name, device, stream);
}

void dc_libcall_clean_keep(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                           uint64_t gen, const unsigned nclean[2])
{
    clean_call.api = NULL;
    if (nclean[0] == ~0u || n > DC_LIBCOVER_MAX)
        return;
    clean_call.api = api;
    clean_call.device = device;
    clean_call.stream = stream;
    clean_call.n = n;
    clean_call.gen = gen;
    clean_call.own = nclean[0];
    clean_call.managed = nclean[1];
    for (unsigned i = 0; i < n; i++)
        clean_call.ptr[i] = args[i].ptr;
    static __thread uint64_t ids __attribute__((tls_model("initial-exec")));
    dc_libcover.id = ++ids;             /* a fresh name: never one of an older content */
    clean_call.cover = dc_libcover;
}

/* The kernels of checked library calls judged clean (libcall.h): each
 * thread's own, allocated at its first such kernel (its key frees it at
 * the thread's exit), replaced round-robin.  Each keeps the words its
 * kernel's plan checks, where they are (param, offset: a copy, as the plan
 * may be freed once dc_kernels_gen moves) and what they held. */
struct liblaunch {
    const void *key;            /* NULL: empty */
    uintptr_t stream;
    int device;
    unsigned nwords, own, managed;
    uint64_t reg_gen, kernels_gen;
    struct {
        uint32_t param, offset;
        uint64_t value;
    } w[DC_LIBLAUNCH_WORDS];
};
struct liblaunches {
    unsigned next;
    struct liblaunch w[DC_LIBLAUNCH_WAYS];
};
static __thread struct liblaunches *liblaunches __attribute__((tls_model("initial-exec")));
static pthread_key_t ll_key;
static pthread_once_t ll_once = PTHREAD_ONCE_INIT;
static int ll_key_ok;
static void ll_free(void *p)
{
    liblaunches = NULL;
    free(p);
}
static void ll_key_make(void) { ll_key_ok = pthread_key_create(&ll_key, ll_free) == 0; }

void dc_libcall_launch_keep(const void *key, int device, uintptr_t stream, void *const *args,
                            const struct dc_pword *pw, unsigned nwords, uint64_t reg_gen, uint64_t kernels_gen,
                            unsigned own, unsigned managed)
{
    if (!key || !args || nwords > DC_LIBLAUNCH_WORDS || (nwords && !pw))
        return;
    for (unsigned i = 0; i < nwords; i++)
        if (!args[pw[i].param])
            return;
    struct liblaunches *m = liblaunches;
    if (!m) {
        pthread_once(&ll_once, ll_key_make);
        if (!ll_key_ok || !(m = calloc(1, sizeof *m)))
            return;
        if (pthread_setspecific(ll_key, m) != 0) {
            free(m);
            return;
        }
        liblaunches = m;
    }
    struct liblaunch *e = &m->w[m->next++ % DC_LIBLAUNCH_WAYS];
    e->key = key;
    e->stream = stream;
    e->device = device;
    e->nwords = nwords;
    e->own = own;
    e->managed = managed;
    e->reg_gen = reg_gen;
    e->kernels_gen = kernels_gen;
    for (unsigned i = 0; i < nwords; i++) {
        e->w[i].param = pw[i].param;
        e->w[i].offset = pw[i].offset;
        memcpy(&e->w[i].value, (const unsigned char *)args[pw[i].param] + pw[i].offset, sizeof e->w[i].value);
    }
}

/* e's words hold the same values in args: only the words the plan checks
 * (the verdict of a planned launch reads no other byte: scan_plan). */
static inline int ll_same(const struct liblaunch *e, void *const *args)
{
    for (unsigned i = 0, n = e->nwords; i < n; i++) {
        const unsigned char *a = args[e->w[i].param];
        uint64_t v;
        if (!a)
            return 0;
        memcpy(&v, a + e->w[i].offset, sizeof v);
        if (v != e->w[i].value)
            return 0;           /* a library's kernel launched twice in a call differs early */
    }
    return 1;
}

/* The kept launch args repeats (counted), or NULL. */
static inline __attribute__((always_inline)) const struct liblaunch *ll_again(const void *key, uintptr_t stream,
                                                                             void *const *args)
{
    const struct liblaunches *m = liblaunches;
    if (!m || !args || stream != dc_libcover.stream || !dc_libcover.n)
        return NULL;
    uint64_t rg = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    uint64_t kg = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    for (unsigned w = 0; w < DC_LIBLAUNCH_WAYS; w++) {
        const struct liblaunch *e = &m->w[w];
        if (e->key != key || e->stream != stream || e->device != dc_libcover.device || e->reg_gen != rg ||
            e->kernels_gen != kg || !ll_same(e, args))
            continue;
        struct dc_launch_counts *counts = dc_counts();
        dc_counts_launch(counts, 1, DC_PATH_INTERPOSE);
        if (e->own | e->managed)
            dc_counts_clean(counts, e->device, e->own, e->managed);
        return e;
    }
    return NULL;
}

int dc_libcall_launch_again(const void *key, uintptr_t stream, void *const *args)
{
    return ll_again(key, stream, args) != NULL;
}

/* The first launch of a clean call that a hook's shortcut found again
 * (libcall.h, dc_lib_expect). */
__thread uint64_t dc_lib_expect __attribute__((tls_model("initial-exec")));
__thread struct dc_libfirst dc_libfirst __attribute__((tls_model("initial-exec")));

int dc_libcall_clean_named_expect(uint64_t name, int device, uintptr_t stream)
{
    if (!clean_named(name, device, stream))
        return 0;
    /* (options fixed at the start; recording only ever stops) */
    if (__builtin_expect(dc_opt.mode != DC_MODE_MIGRATE && !__atomic_load_n(&dc_record_on, __ATOMIC_RELAXED), 1))
        dc_lib_expect = name;
    return 1;
}

int dc_libcall_launch_first(uint64_t id, const void *key, uintptr_t stream, void *const *args)
{
    if (!id || dc_libcover.id != id || dc_libcall_active != 1)
        return 0;
    const struct liblaunch *e = ll_again(key, stream, args);
    if (!e)
        return 0;
    dc_libfirst.id = id;
    dc_libfirst.key = key;
    dc_libfirst.stream = stream;
    dc_libfirst.device = e->device;
    dc_libfirst.own = e->own;
    dc_libfirst.managed = e->managed;
    dc_libfirst.reg_gen = e->reg_gen;
    dc_libfirst.kernels_gen = e->kernels_gen;
    return 1;
}

#define SYNC_ARGS 16
struct dc_libsync {
    const char *api;
    int device;
    CUstream stream;
    unsigned n;
    struct dc_lib_arg a[SYNC_ARGS];
    char names[SYNC_ARGS][64];
};

struct dc_libsync *dc_libcall_sync_begin(const char *api, int device, uintptr_t stream,
                                         const struct dc_lib_arg *args, unsigned n)
{
    if (!dc_opt.sync || dc_opt.mode == DC_MODE_OFF || device < 0 || !api)
        return NULL;
    CUstream s = (CUstream)stream;
    if (dc_stream_captured(s) || dc_capture_conflict(s, 0) || DC_CALL(cuStreamSynchronize, s) != CUDA_SUCCESS)
        return NULL;
    struct dc_libsync *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->api = api;
    r->device = device;
    r->stream = s;
    for (unsigned i = 0; i < n && r->n < SYNC_ARGS; i++) {
        if (!args[i].ptr)
            continue;
        snprintf(r->names[r->n], sizeof r->names[r->n], "%s", args[i].name ? args[i].name : "?");
        r->a[r->n] = args[i];
        r->a[r->n].name = r->names[r->n];
        r->n++;
    }
    return r;
}

int dc_libcall_sync_end(struct dc_libsync *r, int ok)
{
    int failed = 0;
    if (!r)
        return 0;
    if (ok && !dc_capture_conflict(r->stream, 0)) {
        CUresult e = DC_CALL(cuStreamSynchronize, r->stream);
        if (e != CUDA_SUCCESS && e != CUDA_ERROR_NOT_FOUND) {
            dc_check_libcall_async(r->api, r->device, (uintptr_t)r->stream, r->a, r->n, dc_err_name(e));
            failed = 1;
        }
    }
    free(r);
    return failed;
}
