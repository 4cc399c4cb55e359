/* globals: __device__ and __constant__ variables of loaded code.
 *
 * The image reader lists a module's variables (name, size, initial bytes).
 * As on a GPU, each context holds its own copy: a module belongs to one
 * context; a library is loaded in every context, and cuLibraryGetGlobal
 * answers for the current one.  A copy is device memory of that context's
 * device (allocated, and initialised from the image, on first request),
 * freed with its module or library, or with its context. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)

/* One copy of one variable in one context. */
struct gcopy {
    const void *owner;          /* module or library */
    const struct sim_ctx *ctx;
    const struct sim_var *var;
    CUdeviceptr addr;
    unsigned long long id;
    struct gcopy *next;
};
static struct gcopy *g_copies;  /* lock held */

/* The copy of var in ctx for owner, made on first use. */
static CUresult copy_of(const void *owner, struct sim_ctx *ctx, const struct sim_var *var, CUdeviceptr *out)
{
    for (struct gcopy **pp = &g_copies, *g; (g = *pp) != NULL; pp = &g->next) {
        if (g->owner != owner || g->ctx != ctx || g->var != var)
            continue;
        if (sim_mem_global_live(g->addr, g->id)) {
            *out = g->addr;
            return CUDA_SUCCESS;
        }
        *pp = g->next;          /* its context was reset or destroyed: make it again */
        free(g);
        break;
    }
    struct gcopy *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = sim_mem_global_alloc(ctx, var->size, var->init, &g->addr, &g->id);
    if (r != CUDA_SUCCESS) {
        free(g);
        return r;
    }
    g->owner = owner;
    g->ctx = ctx;
    g->var = var;
    g->next = g_copies;
    g_copies = g;
    *out = g->addr;
    return CUDA_SUCCESS;
}

/* Frees every copy of owner's variables (the module or library goes). */
void sim_globals_drop(const void *owner)
{
    for (struct gcopy **pp = &g_copies, *g; (g = *pp) != NULL;) {
        if (g->owner != owner) {
            pp = &g->next;
            continue;
        }
        *pp = g->next;
        sim_mem_global_free(g->addr, g->id);
        free(g);
    }
}

static CUresult get_global(CUdeviceptr *dptr, size_t *bytes, const void *owner, const struct sim_image *img,
                           struct sim_ctx *ctx, const char *name)
{
    const struct sim_var *v = sim_image_var(img, name);
    if (!v || v->managed)
        return CUDA_ERROR_NOT_FOUND;
    CUdeviceptr p = 0;
    if (dptr) {
        CUresult r = sim_ctx_check(ctx);
        if (r == CUDA_SUCCESS)
            r = copy_of(owner, ctx, v, &p);
        if (r != CUDA_SUCCESS)
            return r;
        *dptr = p;
    }
    if (bytes)
        *bytes = v->size;
    return CUDA_SUCCESS;
}

static CUresult module_global(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_module *m = sim_obj_get(hmod, T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    /* a library's module view shares the library's copies */
    const void *owner = m->lib ? (const void *)m->lib : (const void *)m;
    struct sim_ctx *ctx = m->lib ? sim_cur_ctx() : m->ctx;
    if (!ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    return get_global(dptr, bytes, owner, &m->img, ctx, name);
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    ENTER(CUDA_ERROR_NOT_FOUND);
    sim_lock();
    CUresult r = module_global(dptr, bytes, hmod, name);
    sim_unlock();
    return r;
}

static CUresult library_global(CUdeviceptr *dptr, size_t *bytes, CUlibrary hlib, const char *name)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_library *l = sim_obj_get(hlib, T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    struct sim_ctx *ctx;
    CUresult r = sim_need_ctx(&ctx);
    if (r != CUDA_SUCCESS)
        return r;
    return get_global(dptr, bytes, l, &l->img, ctx, name);
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    ENTER(CUDA_ERROR_NOT_FOUND);
    sim_lock();
    CUresult r = library_global(dptr, bytes, library, name);
    sim_unlock();
    return r;
}
