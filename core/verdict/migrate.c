/* migrate: mode=migrate (see migrate.h). */
#include "core/verdict/migrate.h"
#include "core/verdict/check.h"
#include "core/base/cudacall.h"
#include "core/owner/ptrinfo.h"
#include "report/report.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Pageable host memory has no size the registry knows: the copy runs from the
 * operand's address to the end of its mapping, at most this much. */
#define HOST_MIGRATE_MAX ((size_t)64 << 20)

/* One source range copied to the launch device for one launch; every operand
 * pointing into it shares the copy. */
struct dc_mig {
    uintptr_t src;              /* start of the copied range */
    size_t size;
    int host;                   /* pageable host memory */
    int readonly;               /* host: a read-only mapping (never written back) */
    int owner;                  /* device memory: the owner device */
    CUcontext src_ctx;          /* device memory: the allocation's context */
    int src_retained;           /* src_ctx is owner's primary context, retained by us */
    CUdeviceptr dst;            /* the copy on the launch device; 0 when migration failed */
    unsigned char *snapshot;    /* host: the bytes as copied in */
    char reason[192];           /* dst == 0: why */
};

static CUresult ctx_synchronize(void)
{
    return DC_CALL(cuCtxSynchronize);
}

/* The ordinary host memory holding p (core/owner/ptrinfo.c's rule: never a device
 * file, a mapping without read permission, a special or a shared memfd
 * mapping): bytes from p to the mapping's end (at most HOST_MIGRATE_MAX),
 * *writable set when it is writable; 0 and *why when it is not such memory. */
static size_t host_extent(uintptr_t p, int *writable, char *why, size_t why_len)
{
    uintptr_t end = 0;
    char what[96];
    *writable = 0;
    switch (dc_maps_lookup(p, &end, writable, what, sizeof what)) {
    case DC_MAP_HOST: {
        size_t n = end - p;
        return n > HOST_MIGRATE_MAX ? HOST_MIGRATE_MAX : n;
    }
    case DC_MAP_OTHER:
        snprintf(why, why_len, "host memory at 0x%zx is in %s, not ordinary host memory: not copied", (size_t)p,
                 what);
        return 0;
    default:
        snprintf(why, why_len, "host memory at 0x%zx is in no readable mapping", (size_t)p);
        return 0;
    }
}

/* Reads the program's host memory to the end of its mapping: past the end of
 * a malloc'd block, which a sanitizer's allocator calls out of bounds.  A
 * byte loop, unsanitized, that the compiler may not turn into memcpy (which
 * the sanitizers intercept). */
__attribute__((no_sanitize("address", "thread"), optimize("no-tree-loop-distribute-patterns")))
static void raw_copy(unsigned char *dst, const volatile unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* The launch device's context: the stream's, else the current one if it is
 * the launch device's, else its primary context (retained). */
static CUcontext launch_context(struct dc_launch_state *L)
{
    CUcontext c = NULL;
    CUstream s = L->stream;
    if (s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD) {
        if (DC_CALL(cuStreamGetCtx, s, &c) != CUDA_SUCCESS)
            c = NULL;
    } else if (DC_CALL(cuCtxGetCurrent, &c) != CUDA_SUCCESS) {
        c = NULL;
    }
    if (c && dc_ctx_device(c) == L->l.device)
        return c;
    if (DC_CALL(cuDevicePrimaryCtxRetain, &c, (CUdevice)L->l.device) != CUDA_SUCCESS)
        return NULL;
    L->ctx_retained = 1;
    return c;
}

/* The context that owns device memory: the pointer's when it is the owner
 * device's, else the owner's primary context (VMM and pool memory may name
 * none). */
static CUcontext owner_context(struct dc_mig *g)
{
    CUcontext c = NULL;
    if (DC_CALL(cuPointerGetAttribute, &c, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)g->src) == CUDA_SUCCESS && c &&
        dc_ctx_device(c) == g->owner)
        return c;
    if (g->owner >= 0 && DC_CALL(cuDevicePrimaryCtxRetain, &c, (CUdevice)g->owner) == CUDA_SUCCESS) {
        g->src_retained = 1;
        return c;
    }
    return NULL;
}

static CUresult sync_in(CUcontext c)
{
    CUcontext popped;
    if (dc_push_ctx(c) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = ctx_synchronize();
    dc_pop_ctx(&popped);
    return r;
}

/* Copies g's source to a new allocation on the launch device, after the
 * work queued on the owner has finished; 0, or -1 with g->reason. */
static int copy_in(struct dc_launch_state *L, struct dc_mig *g)
{
    int d = L->l.device;
    CUresult r;
    CUcontext popped;
    if (g->host) {
        g->snapshot = malloc(g->size);
        if (!g->snapshot) {
            snprintf(g->reason, sizeof g->reason, "devcheck ran out of memory");
            return -1;
        }
        raw_copy(g->snapshot, (const unsigned char *)g->src, g->size);
    } else {
        g->src_ctx = owner_context(g);
        if (!g->src_ctx) {
            snprintf(g->reason, sizeof g->reason, "no context for the owner cuda:%d", g->owner);
            return -1;
        }
        if ((r = sync_in(g->src_ctx)) != CUDA_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "the owner cuda:%d reports %s", g->owner, dc_err_name(r));
            return -1;
        }
    }
    if (dc_push_ctx(L->ctx) != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "cannot make cuda:%d's context current", d);
        return -1;
    }
    CUdeviceptr dst = 0;
    r = DC_CALL(cuMemAlloc_v2, &dst, g->size);
    if (r != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "cannot allocate %zu bytes on cuda:%d: %s", g->size, d, dc_err_name(r));
        dc_pop_ctx(&popped);
        return -1;
    }
    if (g->host)
        r = DC_CALL(cuMemcpyHtoD_v2, dst, g->snapshot, g->size);
    else
        r = DC_CALL(cuMemcpyPeer, dst, L->ctx, (CUdeviceptr)g->src, g->src_ctx, g->size);
    if (r == CUDA_SUCCESS)
        r = ctx_synchronize();          /* the copy is complete before the kernel runs */
    if (r != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "copying %zu bytes to cuda:%d failed: %s", g->size, d, dc_err_name(r));
        DC_CALL(cuMemFree_v2, dst);
        dc_pop_ctx(&popped);
        return -1;
    }
    dc_pop_ctx(&popped);
    g->dst = dst;
    return 0;
}

/* The source range a move's operand belongs to (an existing one, or a new
 * one appended and copied in). */
static struct dc_mig *source_of(struct dc_launch_state *L, const struct dc_move *mv)
{
    for (unsigned j = 0; j < L->nmig; j++) {
        struct dc_mig *g = &L->mig[j];
        if (mv->address >= g->src && mv->address - g->src < g->size)
            return g;
    }
    struct dc_mig *g = &L->mig[L->nmig++];
    memset(g, 0, sizeof *g);
    g->owner = -1;
    if (mv->alloc_known) {
        g->src = mv->copy_size ? mv->copy_base : mv->alloc.base;     /* a block: not its whole segment */
        g->size = mv->copy_size ? mv->copy_size : mv->alloc.size;
        g->owner = mv->alloc.owner;
    } else {
        g->host = 1;
        g->src = mv->address;
        int writable = 0;
        g->size = host_extent(mv->address, &writable, g->reason, sizeof g->reason);
        g->readonly = !writable;
        if (!g->size)
            return g;
    }
    if (!L->ctx) {
        snprintf(g->reason, sizeof g->reason, "no context for cuda:%d", L->l.device);
        return g;
    }
    (void)copy_in(L, g);
    return g;
}

static void fail_moves(struct dc_launch_state *L, const char *reason)
{
    for (unsigned i = 0; i < L->moves.n; i++) {
        L->moves.v[i].new_address = 0;
        L->moves.v[i].bytes = 0;
        L->moves.v[i].reason = reason;
    }
}

/* The caller's argument storage is never written: the launch gets a private
 * copy of the parameters (kernelParams: a new pointer array into the copy;
 * extra: a new array naming the copied buffer).  -1 when memory ran out. */
static int rewrite_args(struct dc_launch_state *L)
{
    const struct dc_launch *l = &L->l;
    if (l->args) {
        size_t total = 0;
        for (unsigned i = 0; i < l->nparams; i++)
            if (l->params[i].offset + (size_t)l->params[i].size > total)
                total = l->params[i].offset + (size_t)l->params[i].size;
        L->argcopy = malloc(total ? total : 1);
        L->newargs = malloc((l->nparams ? l->nparams : 1) * sizeof *L->newargs);
        if (!L->argcopy || !L->newargs)
            return -1;
        for (unsigned i = 0; i < l->nparams; i++) {
            L->newargs[i] = l->args[i] ? L->argcopy + l->params[i].offset : NULL;
            if (l->args[i])
                memcpy(L->argcopy + l->params[i].offset, l->args[i], l->params[i].size);
        }
        for (unsigned i = 0; i < L->moves.n; i++)
            if (L->moves.v[i].new_address)
                memcpy(L->argcopy + L->moves.v[i].arg_offset, &L->moves.v[i].new_address, sizeof(uintptr_t));
        L->args = L->newargs;
        return 0;
    }
    size_t n = 0;
    while (n < 64 && L->extra[n] != CU_LAUNCH_PARAM_END)
        n += 2;
    L->argcopy = malloc(l->argbuf_size ? l->argbuf_size : 1);
    L->newextra = malloc((n + 1) * sizeof *L->newextra);
    if (!L->argcopy || !L->newextra)
        return -1;
    memcpy(L->argcopy, l->argbuf, l->argbuf_size);
    for (unsigned i = 0; i < L->moves.n; i++)
        if (L->moves.v[i].new_address && L->moves.v[i].arg_offset + sizeof(uintptr_t) <= l->argbuf_size)
            memcpy(L->argcopy + L->moves.v[i].arg_offset, &L->moves.v[i].new_address, sizeof(uintptr_t));
    for (size_t i = 0; i < n; i += 2) {
        L->newextra[i] = L->extra[i];
        L->newextra[i + 1] = L->extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER ? (void *)L->argcopy : L->extra[i + 1];
    }
    L->newextra[n] = CU_LAUNCH_PARAM_END;
    L->extra = L->newextra;
    return 0;
}

void dc_migrate_back(struct dc_launch_state *L, int launched)
{
    CUcontext popped;
    int pushed = L->ctx && dc_push_ctx(L->ctx) == CUDA_SUCCESS;
    CUresult sr = CUDA_ERROR_INVALID_CONTEXT;
    if (pushed && launched)
        sr = DC_CALL(cuStreamSynchronize, L->stream);
    int copies = 0;
    for (unsigned j = 0; j < L->nmig; j++)
        copies += L->mig[j].dst != 0;
    if (copies && launched && sr != CUDA_SUCCESS)
        dc_log("migrate: the launch of %s did not complete (%s): migrated operands are not copied back",
               L->l.kernel ? L->l.kernel : "?", dc_err_name(sr));
    uint64_t back = 0;
    for (unsigned j = 0; j < L->nmig; j++) {
        struct dc_mig *g = &L->mig[j];
        if (g->dst && launched && sr == CUDA_SUCCESS && !g->readonly) {
            CUresult r;
            if (g->host) {
                unsigned char *tmp = malloc(g->size);
                r = tmp ? DC_CALL(cuMemcpyDtoH_v2, tmp, g->dst, g->size) : CUDA_ERROR_OUT_OF_MEMORY;
                /* only the bytes the kernel changed: other threads may
                 * write the rest of the mapping meanwhile */
                if (r == CUDA_SUCCESS)
                    for (size_t i = 0; i < g->size; i++)
                        if (tmp[i] != g->snapshot[i])
                            ((unsigned char *)g->src)[i] = tmp[i];
                free(tmp);
            } else {
                /* serialised with later work of both contexts; complete
                 * (the launch context is current) before the copy is freed */
                r = DC_CALL(cuMemcpyPeer, (CUdeviceptr)g->src, g->src_ctx, g->dst, L->ctx, g->size);
                if (r == CUDA_SUCCESS)
                    r = ctx_synchronize();
            }
            if (r == CUDA_SUCCESS)
                back += g->size;
            else
                dc_log("migrate: copying %zu bytes back from cuda:%d failed: %s", g->size, L->l.device,
                       dc_err_name(r));
        }
        if (g->dst && pushed)
            DC_CALL(cuMemFree_v2, g->dst);
        if (g->src_retained)
            DC_CALL(cuDevicePrimaryCtxRelease_v2, (CUdevice)g->owner);
        free(g->snapshot);
    }
    if (pushed)
        dc_pop_ctx(&popped);
    dc_check_count_migrated(back);
}

void dc_migrate(struct dc_launch_state *L)
{
    struct dc_moves *m = &L->moves;
    L->mig = calloc(m->n, sizeof *L->mig);
    if (!L->mig) {
        fail_moves(L, "devcheck ran out of memory");
        return;
    }
    L->ctx = launch_context(L);
    for (unsigned i = 0; i < m->n; i++) {
        struct dc_move *mv = &m->v[i];
        int fresh = L->nmig;
        struct dc_mig *g = source_of(L, mv);
        int is_new = (int)(g - L->mig) == fresh;
        if (g->dst) {
            mv->new_address = (uintptr_t)g->dst + (mv->address - g->src);
            mv->bytes = is_new ? g->size : 0;
        } else {
            mv->reason = g->reason;
        }
    }
    int any = 0;
    for (unsigned j = 0; j < L->nmig; j++)
        any |= L->mig[j].dst != 0;
    if (any && rewrite_args(L) != 0) {
        fail_moves(L, "devcheck ran out of memory");
        dc_migrate_back(L, 0);
        L->nmig = 0;
    }
}
