/* kernels: per-kernel name, parameter layout and word classes (see
 * kernels.h), in a uthash keyed by the handle.  This file asks the driver
 * and the image registry (core/kernel/images.c); core/kernel/evidence.c decides. */
#include "core/kernel/kernels.h"
#include "core/kernel/kernel.h"
#include "core/base/cudacall.h"
#include "core/base/epoch.h"
#include "core/kernel/select.h"
#include "core/kernel/cubin.h"
#include "core/kernel/images.h"
#include "core/kernel/origin.h"
#include "report/finding.h"
#include "common/forklock.h"
#include "report/report.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Parameters beyond this are not asked for (the driver allows 32764 bytes
 * of parameters, so at most that many one-byte parameters). */
#define MAX_PARAMS 32768

struct kinfo {
    struct dc_kernel k;         /* k.key: the table's key */
    CUcontext ctx;              /* a CUfunction's context (current when first seen); NULL: a CUkernel
                                 * (no context) or unknown */
    struct kinfo *retired_next;
};

/* The cache: open addressing on the handle, one pointer per slot (the key is
 * the description's own), read without a lock: descriptions are never freed
 * and a rebuilt table retires the old one (core/base/epoch.c).  Writers hold
 * cache_lock; every removal increments kgen, which validates the per-thread
 * caches in front of the table. */
#define TOMB ((struct kinfo *)1)
struct ktable {
    size_t mask, used, tombs;   /* used, tombs: the writer's */
    struct kinfo *slot[];
};
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t kbytes;           /* --stats: the descriptions and tables (cache_lock) */
static struct ktable *ktab;     /* atomic */
uint64_t dc_kernels_gen = 1;   /* atomic */
static struct kinfo *retired;

__thread struct dc_kernel_tc dc_kernel_tcache[DC_KERNEL_TC] __attribute__((tls_model("initial-exec")));

void dc_kernels_fork_prepare(void) { pthread_mutex_lock(&cache_lock); }
void dc_kernels_fork_parent(void) { pthread_mutex_unlock(&cache_lock); }
void dc_kernels_fork_child(void) { dc_mutex_fork_child(&cache_lock); }

static inline size_t khash(const void *key)
{
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (size_t)x;
}

static struct kinfo *table_find(const struct ktable *t, const void *key)
{
    for (size_t i = khash(key) & t->mask, n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        struct kinfo *k = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
        if (!k)
            return NULL;
        if (k != TOMB && k->k.key == key)
            return k;
    }
    return NULL;
}

static void table_free(void *p) { free(p); }

/* Adds k (cache_lock held); 0, or -1 when memory ran out. */
static int table_add(struct kinfo *k)
{
    struct ktable *t = ktab;
    if (!t || (t->used + t->tombs + 1) * 4 > (t->mask + 1) * 3) {
        size_t cap = 64;
        while (t && cap < 2 * (t->used + 1))
            cap *= 2;
        struct ktable *n = calloc(1, sizeof *n + cap * sizeof n->slot[0]);
        if (!n)
            return -1;
        n->mask = cap - 1;
        for (size_t i = 0; t && i <= t->mask; i++) {
            struct kinfo *o = t->slot[i];
            if (!o || o == TOMB)
                continue;
            size_t j = khash(o->k.key) & n->mask;
            while (n->slot[j])
                j = (j + 1) & n->mask;
            n->slot[j] = o;
            n->used++;
        }
        __atomic_store_n(&ktab, n, __ATOMIC_RELEASE);
        if (t)
            dc_epoch_retire(t, table_free);
        t = n;
    }
    size_t i = khash(k->k.key) & t->mask;
    while (t->slot[i] && t->slot[i] != TOMB)
        i = (i + 1) & t->mask;
    if (t->slot[i] == TOMB)
        t->tombs--;
    __atomic_store_n(&t->slot[i], k, __ATOMIC_RELEASE);
    t->used++;
    return 0;
}

/* Retires every description `pick` chooses (cache_lock held). */
static void retire_where(int (*pick)(const struct kinfo *, CUcontext), CUcontext ctx)
{
    struct ktable *t = ktab;
    for (size_t i = 0; t && i <= t->mask; i++) {
        struct kinfo *k = t->slot[i];
        if (!k || k == TOMB || !pick(k, ctx))
            continue;
        __atomic_store_n(&t->slot[i], TOMB, __ATOMIC_RELEASE);
        t->used--;
        t->tombs++;
        k->retired_next = retired;
        retired = k;
    }
    __atomic_fetch_add(&dc_kernels_gen, 1, __ATOMIC_RELEASE);
}

static int of_ctx(const struct kinfo *k, CUcontext ctx) { return !k->k.is_kernel && (!k->ctx || k->ctx == ctx); }
static int any(const struct kinfo *k, CUcontext ctx)
{
    (void)k;
    (void)ctx;
    return 1;
}

/* A context went (destroyed, or a primary context reset): its modules went
 * with it, and the driver may give their function handles to other kernels.
 * Its CUfunctions' descriptions are retired, and those whose context is
 * unknown; CUkernels outlive contexts (their library stays loaded). */
void dc_kernels_ctx_gone(CUcontext ctx)
{
    pthread_mutex_lock(&cache_lock);
    retire_where(of_ctx, ctx);
    pthread_mutex_unlock(&cache_lock);
}

void dc_kernels_unloaded(void)
{
    pthread_mutex_lock(&cache_lock);
    retire_where(any, NULL);
    pthread_mutex_unlock(&cache_lock);
}

/* --- the driver's layout ------------------------------------------------------------ */

enum { Q_OK, Q_ZERO, Q_FAIL, Q_ABSENT };

static CUresult param_info(const void *key, int is_kernel, size_t i, size_t *off, size_t *size)
{
    if (is_kernel)
        return DC_CALL(cuKernelGetParamInfo, (CUkernel)(uintptr_t)key, i, off, size);
    return DC_CALL(cuFuncGetParamInfo, (CUfunction)(uintptr_t)key, i, off, size);
}

/* Asks the driver for the layout (*p malloc'd, *n entries): Q_OK with n > 0,
 * Q_ZERO (CUDA_ERROR_INVALID_VALUE at index 0), Q_FAIL (another error, or
 * out of memory), Q_ABSENT (the driver lacks the entry point). */
static int query_layout(const void *key, int is_kernel, struct dc_param **pp, unsigned *np)
{
    *pp = NULL;
    *np = 0;
    if (is_kernel ? !DC_HAS(cuKernelGetParamInfo) : !DC_HAS(cuFuncGetParamInfo))
        return Q_ABSENT;
    size_t cap = 16, n = 0;
    struct dc_param *p = malloc(cap * sizeof *p);
    if (!p)
        return Q_FAIL;
    int st = Q_FAIL;
    for (size_t i = 0; i < MAX_PARAMS; i++) {
        size_t off = 0, size = 0;
        CUresult r = param_info(key, is_kernel, i, &off, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) {        /* past the last parameter */
            st = n ? Q_OK : Q_ZERO;
            break;
        }
        if (r != CUDA_SUCCESS)
            break;
        if (n == cap) {
            struct dc_param *q = realloc(p, 2 * cap * sizeof *p);
            if (!q)
                break;
            p = q;
            cap *= 2;
        }
        memset(&p[n], 0, sizeof p[n]);
        p[n].offset = (uint32_t)off;
        p[n].size = (uint32_t)size;
        n++;
    }
    if (st != Q_OK) {
        free(p);
        return st;
    }
    *pp = p;
    *np = (unsigned)n;
    return st;
}

static char *query_name(const void *key, int is_kernel)
{
    const char *name = NULL;
    CUresult r = is_kernel ? DC_CALL(cuKernelGetName, &name, (CUkernel)(uintptr_t)key)
                           : DC_CALL(cuFuncGetName, &name, (CUfunction)(uintptr_t)key);
    return r == CUDA_SUCCESS && name ? strdup(name) : NULL;
}

/* --- one kernel ------------------------------------------------------------------------ */

/* A kernel the name filters (kernel_name, kernel_name_exclude) leave out
 * is never checked: it gets no layout, and verbosity 2 says why. */
static int filtered_out(struct dc_kernel *fill)
{
    const char *why;
    if (dc_kernel_name_selected(fill->name, &why))
        return 0;
    fill->unchecked = why;
    dc_logv(2, "kernel %s: %s: not checked", fill->name ? fill->name : "?", why);
    return 1;
}

/* Gathers the evidence for key and decides (core/kernel/evidence.c). */
static void describe(struct dc_kernel *fill, const void *key, int is_kernel)
{
    memset(fill, 0, sizeof *fill);
    fill->key = key;
    fill->is_kernel = is_kernel;
    fill->name = query_name(key, is_kernel);
    if (!fill->name)
        fill->name = dc_images_name(key);
    int named = fill->name != NULL;
    if (named && filtered_out(fill))
        return;

    struct dc_param *drv = NULL;
    unsigned ndrv = 0;
    int st = query_layout(key, is_kernel, &drv, &ndrv);
    int zero_confirmed = 0;
    /* cuLaunchKernel also accepts a CUkernel cast to CUfunction: the other
     * query answers for it, and confirms (or not) a 0-parameter answer */
    if (st != Q_OK && !is_kernel && DC_HAS(cuKernelGetParamInfo)) {
        struct dc_param *kp;
        unsigned nk;
        int kst = query_layout(key, 1, &kp, &nk);
        if (kst == Q_OK) {
            free(drv);
            drv = kp;
            ndrv = nk;
            st = Q_OK;
            fill->is_kernel = 1;
            if (!fill->name)
                fill->name = query_name(key, 1);
        } else if (kst == Q_ZERO && st == Q_ZERO) {
            zero_confirmed = 1;
        }
    }
    if (!named && filtered_out(fill)) {         /* named only now, or not at all */
        free(drv);
        return;
    }

    struct dc_evidence_in in;
    memset(&in, 0, sizeof in);
    in.name = fill->name;
    in.driver = drv;
    in.ndriver = st == Q_OK ? (int)ndrv : st == Q_ZERO ? 0 : -1;
    in.driver_zero_confirmed = zero_confirmed;
    in.driver_why = st == Q_ABSENT ? "the driver has no cuFuncGetParamInfo/cuKernelGetParamInfo (driver 12.4+), "
                                     "and devcheck has not seen this kernel's image"
                                   : "the driver could not give its parameter layout, and devcheck has not seen "
                                     "this kernel's image";
    /* a record's kernel (the replay): its host code's debug information and
     * its image are what the record says of them */
    const struct dc_process_queries *proc = dc_process_queries();
    in.use_dwarf = !proc || proc->host_params;
    if (proc) {
        in.host_params = proc->host_params;
        in.key = key;
    }
    struct dc_img_kernel img;
    int have_img = 0;
    if (proc)
        have_img = proc->kernel_image && proc->kernel_image(key, &img);
    else if (dc_kernel_needs_image(fill->name, in.ndriver))
        have_img = dc_images_kernel(key, fill->is_kernel, fill->name, &img);
    if (have_img)
        in.img = &img;
    if (proc) {                         /* a record's kernel: the record says who made it */
        int o = proc->kernel_origin ? proc->kernel_origin(key) : -1;
        fill->origin = (uint8_t)(o >= 0 && o < DC_ORIGIN_COUNT ? o : DC_ORIGIN_UNKNOWN);
    } else {
        fill->origin = (uint8_t)dc_images_origin(key, fill->is_kernel, fill->name);
    }
    in.origin = fill->origin;           /* decides the launch-shape evidence */
    dc_kernel_decide(fill, &in);
    static const char *const from[] = { "nowhere", "the driver", "its image", "its mangled name" };
    if (fill->layout_known)
        dc_logv(2, "kernel %s (origin %s): %u parameters (layout from %s); %u pointer words checked, %u of unknown "
                   "meaning", fill->name ? fill->name : "?", dc_origin_name(fill->origin), fill->nparams,
                from[fill->layout_from % 4], fill->checked_words, fill->unknown_words);
    else
        dc_logv(2, "kernel %s (origin %s): no parameter layout: %s", fill->name ? fill->name : "?",
                dc_origin_name(fill->origin), fill->unchecked);
    if (have_img) {
        free(img.name);
        free(img.params);
    }
    free(drv);
}

/* The cached description of key, or NULL: the thread's own cache, then the
 * table; no lock, no shared write. */
static struct kinfo *cached(const void *key)
{
    uint64_t g = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    size_t i = dc_kernel_tc_index(key);
    struct dc_kernel_tc *c = &dc_kernel_tcache[i], *o = &dc_kernel_tcache[i ^ 1];
    if (c->key == key && c->gen == g)
        return (struct kinfo *)(uintptr_t)c->k;     /* k is a kinfo's first member */
    if (o->key == key && o->gen == g)
        return (struct kinfo *)(uintptr_t)o->k;
    struct dc_epoch_rec *r = dc_epoch_rec();
    dc_epoch_enter_rec(r);
    const struct ktable *t = __atomic_load_n(&ktab, __ATOMIC_ACQUIRE);
    struct kinfo *k = t ? table_find(t, key) : NULL;
    dc_epoch_exit_rec(r);
    if (k) {
        /* the set of two ways (dc_kernel_lookup): the new key in its own
         * slot, what was there beside it (the set's older entry goes) */
        if (c->gen == g && c->key)
            *o = *c;
        c->key = key;
        c->k = &k->k;
        c->gen = g;
    }
    return k;
}

/* The words every launch checks, from the parameters' classes (as
 * core/verdict/check.c would find them parameter by parameter). */
static void plan_words(struct dc_kernel *k)
{
    unsigned n = 0, cap = 0;
    k->pwords = NULL;
    k->npwords = 0;
    k->planned = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (unsigned i = 0; k->layout_known && i < k->nparams && k->params; i++) {
            const struct dc_param *p = &k->params[i];
            if (p->offset % 8)
                continue;                       /* no word of it is aligned as a pointer must be */
            if (p->cls == DC_PC_POINTER && p->size == 8) {
                if (pass)
                    k->pwords[n] = (struct dc_pword){ i, 0, p->offset, DC_WK_POINTER_PARAM, p->ev };
                n++;
            } else if (p->cls == DC_PC_WORDS && p->words) {
                for (uint32_t w = 0; (uint64_t)w * 8 + 8 <= p->size; w++) {
                    int c = p->words[w];
                    if (c != DC_WORD_PTR && c != DC_WORD_FIELD)
                        continue;
                    if (pass)
                        k->pwords[n] = (struct dc_pword){ i, w * 8, p->offset + w * 8,
                                                          c == DC_WORD_PTR ? DC_WK_POINTER_PARAM
                                                                           : DC_WK_POINTER_FIELD, p->ev };
                    n++;
                }
            }
        }
        if (!pass) {
            cap = n;
            if (cap && !(k->pwords = malloc(cap * sizeof *k->pwords)))
                return;
        }
    }
    k->npwords = n;
    k->planned = 1;
}

size_t dc_kernels_bytes(void)
{
    pthread_mutex_lock(&cache_lock);
    const struct ktable *t = ktab;
    size_t n = kbytes + (t ? sizeof *t + ((size_t)t->mask + 1) * sizeof t->slot[0] : 0);
    pthread_mutex_unlock(&cache_lock);
    return n;
}

const struct dc_kernel *dc_kernel_lookup_slow(const void *key, int is_kernel, struct dc_kernel *tmp)
{
    struct kinfo *k = cached(key);
    if (k)
        return &k->k;

    k = calloc(1, sizeof *k);
    struct dc_kernel *fill = k ? &k->k : tmp;
    describe(fill, key, is_kernel);
    plan_words(fill);
    fill->name_hash = fill->name ? dc_kernel_name_hash(fill->name) : 0;     /* a finding's key, hashed once */
    if (!k)
        return NULL;
    if (!fill->is_kernel && DC_CALL(cuCtxGetCurrent, &k->ctx) != CUDA_SUCCESS)
        k->ctx = NULL;

    pthread_mutex_lock(&cache_lock);
    kbytes += sizeof *k + (fill->name ? strlen(fill->name) + 1 : 0) + fill->nparams * sizeof *fill->params +
              fill->npwords * sizeof *fill->pwords + fill->checked_words + fill->unknown_words;
    const struct ktable *t = ktab;
    struct kinfo *old = t ? table_find(t, key) : NULL;
    if (!old && table_add(k) == 0)
        old = k;
    if (old != k) {
        /* another thread won, or memory ran out: keep ours as retired */
        k->retired_next = retired;
        retired = k;
    }
    pthread_mutex_unlock(&cache_lock);
    return &k->k;
}

void dc_kernel_release_tmp(struct dc_kernel *tmp)
{
    free(tmp->name);
    free(tmp->params);
    free(tmp->word_store);
    free(tmp->pwords);
    tmp->pwords = NULL;
    tmp->planned = 0;
    tmp->name = NULL;
    tmp->params = NULL;
    tmp->word_store = NULL;
}

/* --- what can be checked on this driver ------------------------------------------------ */

int dc_kernels_driver_layouts(void)
{
    return DC_HAS(cuFuncGetParamInfo) && DC_HAS(cuKernelGetParamInfo);
}

void dc_kernels_capabilities(char *buf, unsigned len, int *version)
{
    int v = 0;
    if (DC_CALL(cuDriverGetVersion, &v) != CUDA_SUCCESS)
        v = 0;
    *version = v;
    if (dc_process_queries()) {
        snprintf(buf, len, "recorded launches: parameter layouts and kernel names from the record; pointers known "
                           "from kernel signatures, and from the images and debug information a devcheck recording "
                           "carries, and the launch shape of a program's own kernel without types (weak); other unknown "
                           "words are not checked");
        return;
    }
    int layouts = dc_kernels_driver_layouts();
    int names = DC_HAS(cuFuncGetName) && DC_HAS(cuKernelGetName);
    snprintf(buf, len,
             "driver %d.%d: parameter layouts from %s; kernel names from %s; pointers known from kernel "
             "signatures, images, debug information, NVRTC sources, and the launch shape of a program's own kernel "
             "without types (weak); other unknown words are not checked",
             v / 1000, v % 1000 / 10,
             layouts ? "the driver (cuFuncGetParamInfo), else the kernel images devcheck reads"
                     : "the kernel images devcheck reads only (no cuFuncGetParamInfo before driver 12.4): a kernel "
                       "whose image devcheck did not see is unchecked",
             names ? "the driver" : "the loads devcheck sees (no cuFuncGetName before driver 12.3)");
}
