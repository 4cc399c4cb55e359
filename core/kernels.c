/* kernels: per-kernel name, parameter layout and word classes (see
 * kernels.h), in a uthash keyed by the handle.  This file asks the driver
 * and the image registry (core/images.c); core/evidence.c decides. */
#include "core/kernels.h"
#include "core/core.h"
#include "core/driver.h"
#include "core/image.h"
#include "core/images.h"
#include "report/forklock.h"
#include "report/report.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* Parameters beyond this are not asked for (the driver allows 32764 bytes
 * of parameters, so at most that many one-byte parameters). */
#define MAX_PARAMS 32768

struct kinfo {
    struct dc_kernel k;         /* k.key: the hash key */
    CUcontext ctx;              /* a CUfunction's context (current when first seen); NULL: a CUkernel
                                 * (no context) or unknown */
    struct kinfo *retired_next;
    UT_hash_handle hh;
};

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct kinfo *cache;
static struct kinfo *retired;

void dc_kernels_fork_prepare(void) { pthread_rwlock_wrlock(&cache_lock); }
void dc_kernels_fork_parent(void) { pthread_rwlock_unlock(&cache_lock); }
void dc_kernels_fork_child(void) { dc_rwlock_fork_child(&cache_lock, 0); }

/* A context went (destroyed, or a primary context reset): its modules went
 * with it, and the driver may give their function handles to other kernels.
 * Its CUfunctions' descriptions are retired, and those whose context is
 * unknown; CUkernels outlive contexts (their library stays loaded). */
void dc_kernels_ctx_gone(CUcontext ctx)
{
    pthread_rwlock_wrlock(&cache_lock);
    struct kinfo *k, *tmp;
    HASH_ITER(hh, cache, k, tmp) {
        if (k->k.is_kernel || (k->ctx && k->ctx != ctx))
            continue;
        HASH_DEL(cache, k);
        k->retired_next = retired;
        retired = k;
    }
    pthread_rwlock_unlock(&cache_lock);
}

void dc_kernels_unloaded(void)
{
    pthread_rwlock_wrlock(&cache_lock);
    struct kinfo *k, *tmp;
    HASH_ITER(hh, cache, k, tmp) {
        HASH_DEL(cache, k);
        k->retired_next = retired;
        retired = k;
    }
    pthread_rwlock_unlock(&cache_lock);
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

/* Gathers the evidence for key and decides (core/evidence.c). */
static void describe(struct dc_kernel *fill, const void *key, int is_kernel)
{
    memset(fill, 0, sizeof *fill);
    fill->key = key;
    fill->is_kernel = is_kernel;
    fill->name = query_name(key, is_kernel);
    if (!fill->name)
        fill->name = dc_images_name(key);

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
    in.use_dwarf = 1;
    struct dc_img_kernel img;
    int have_img = 0;
    if (dc_kernel_needs_image(fill->name, in.ndriver)) {
        have_img = dc_images_kernel(key, fill->is_kernel, fill->name, &img);
        if (have_img)
            in.img = &img;
    }
    dc_kernel_decide(fill, &in);
    static const char *const from[] = { "nowhere", "the driver", "its image", "its mangled name" };
    if (fill->layout_known)
        dc_logv(2, "kernel %s: %u parameters (layout from %s); %u pointer words checked, %u of unknown meaning",
                fill->name ? fill->name : "?", fill->nparams, from[fill->layout_from % 4], fill->checked_words,
                fill->unknown_words);
    else
        dc_logv(2, "kernel %s: no parameter layout: %s", fill->name ? fill->name : "?", fill->unchecked);
    if (have_img) {
        free(img.name);
        free(img.params);
    }
    free(drv);
}

const struct dc_kernel *dc_kernel_lookup(const void *key, int is_kernel, struct dc_kernel *tmp)
{
    struct kinfo *k;
    pthread_rwlock_rdlock(&cache_lock);
    HASH_FIND_PTR(cache, &key, k);
    pthread_rwlock_unlock(&cache_lock);
    if (k)
        return &k->k;

    k = calloc(1, sizeof *k);
    struct dc_kernel *fill = k ? &k->k : tmp;
    describe(fill, key, is_kernel);
    if (!k)
        return NULL;
    if (!fill->is_kernel && DC_CALL(cuCtxGetCurrent, &k->ctx) != CUDA_SUCCESS)
        k->ctx = NULL;

    struct kinfo *old;
    pthread_rwlock_wrlock(&cache_lock);
    HASH_FIND_PTR(cache, &key, old);
    if (!old) {
        HASH_ADD_PTR(cache, k.key, k);
        HASH_FIND_PTR(cache, &key, old);      /* NULL if uthash ran out of memory */
    }
    pthread_rwlock_unlock(&cache_lock);
    if (old != k) {
        /* another thread won, or the table is full: keep ours as retired */
        pthread_rwlock_wrlock(&cache_lock);
        k->retired_next = retired;
        retired = k;
        pthread_rwlock_unlock(&cache_lock);
    }
    return &k->k;
}

void dc_kernel_release_tmp(struct dc_kernel *tmp)
{
    free(tmp->name);
    free(tmp->params);
    free(tmp->word_store);
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
    int layouts = dc_kernels_driver_layouts();
    int names = DC_HAS(cuFuncGetName) && DC_HAS(cuKernelGetName);
    snprintf(buf, len,
             "driver %d.%d: parameter layouts from %s; kernel names from %s; pointers known from kernel "
             "signatures, images and debug information; unknown words are not checked",
             v / 1000, v % 1000 / 10,
             layouts ? "the driver (cuFuncGetParamInfo), else the kernel images devcheck reads"
                     : "the kernel images devcheck reads only (no cuFuncGetParamInfo before driver 12.4): a kernel "
                       "whose image devcheck did not see is unchecked",
             names ? "the driver" : "the loads devcheck sees (no cuFuncGetName before driver 12.3)");
}
