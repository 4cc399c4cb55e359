/* kernels: per-kernel name and parameter layout (see kernels.h), in a
 * uthash keyed by the handle. */
#include "core/kernels.h"
#include "core/core.h"
#include "core/driver.h"
#include "report/forklock.h"

#include <pthread.h>
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

static CUresult param_info(const void *key, int is_kernel, size_t i, size_t *off, size_t *size)
{
    if (is_kernel)
        return DC_CALL(cuKernelGetParamInfo, (CUkernel)(uintptr_t)key, i, off, size);
    return DC_CALL(cuFuncGetParamInfo, (CUfunction)(uintptr_t)key, i, off, size);
}

/* Asks the driver for the layout; on allocation failure the layout is
 * reported unknown (the launch is counted unchecked, never silently). */
static void query_layout(struct dc_kernel *k)
{
    size_t cap = 16, n = 0;
    struct dc_param *p = malloc(cap * sizeof *p);
    k->layout_known = 0;
    if (!p)
        return;
    for (size_t i = 0; i < MAX_PARAMS; i++) {
        size_t off = 0, size = 0;
        CUresult r = param_info(k->key, k->is_kernel, i, &off, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) {        /* past the last parameter */
            k->layout_known = 1;
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
        p[n].offset = (uint32_t)off;
        p[n].size = (uint32_t)size;
        n++;
    }
    if (!k->layout_known) {
        free(p);
        return;
    }
    k->params = p;
    k->nparams = (unsigned)n;
}

static char *query_name(const void *key, int is_kernel)
{
    const char *name = NULL;
    CUresult r = is_kernel ? DC_CALL(cuKernelGetName, &name, (CUkernel)(uintptr_t)key)
                           : DC_CALL(cuFuncGetName, &name, (CUfunction)(uintptr_t)key);
    return r == CUDA_SUCCESS && name ? strdup(name) : NULL;
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
    memset(fill, 0, sizeof *fill);
    fill->key = key;
    fill->is_kernel = is_kernel;
    fill->name = query_name(key, is_kernel);
    query_layout(fill);
    /* cuLaunchKernel also accepts a CUkernel cast to CUfunction. */
    if (!fill->layout_known && !is_kernel && DC_HAS(cuKernelGetParamInfo)) {
        fill->is_kernel = 1;
        query_layout(fill);
        if (!fill->name)
            fill->name = query_name(key, 1);
        if (!fill->layout_known)
            fill->is_kernel = 0;
    }
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
}
