/* hooks_launch: every kernel launch entry point -> dc_check_launch, before the
 * real launch.  Report mode never changes the arguments or the result;
 * mode=migrate runs the launch with a private, rewritten copy of them, and
 * sync=1 synchronises the launch stream after it (launch_begin/launch_end).
 *
 * Per function (CUfunction) or kernel (CUkernel) we cache its name and
 * parameter layout (cuFuncGetParamInfo / cuKernelGetParamInfo), in a uthash
 * keyed by the handle.  Cached entries are never freed while the process
 * runs: a module unload retires them (moves them off the table) so a reader
 * holding one stays safe, and a reused handle is asked afresh.
 *
 * All runtime (libcudart) hooks live here, cudaGetDriverEntryPoint* included,
 * because their extra symbol versions (.symver, end of file) must be set in
 * the translation unit that defines them. */
#include "preload/preload.h"
#include "core/check.h"

#include "core/options.h"
#include "report/report.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* Parameters beyond this are not asked for (the driver allows 32764 bytes
 * of parameters, so at most that many one-byte parameters). */
#define MAX_PARAMS 32768

struct kinfo {
    const void *key;            /* CUfunction or CUkernel */
    int is_kernel;
    char *name;                 /* our copy, NULL if unknown */
    int layout_known;
    unsigned nparams;
    struct dc_param *params;
    struct kinfo *retired_next;
    UT_hash_handle hh;
};

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct kinfo *cache;
static struct kinfo *retired;

void dc_launch_fork_prepare(void) { pthread_rwlock_wrlock(&cache_lock); }
void dc_launch_fork_parent(void) { pthread_rwlock_unlock(&cache_lock); }
void dc_launch_fork_child(void) { pthread_rwlock_init(&cache_lock, NULL); }

void dc_launch_cache_flush(void)
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
        return DC_REAL(cuKernelGetParamInfo, (CUkernel)(uintptr_t)key, i, off, size);
    return DC_REAL(cuFuncGetParamInfo, (CUfunction)(uintptr_t)key, i, off, size);
}

/* Asks the driver for the layout; on allocation failure the layout is
 * reported unknown (the launch is counted unchecked, never silently). */
static void query_layout(struct kinfo *k)
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
    CUresult r = is_kernel ? DC_REAL(cuKernelGetName, &name, (CUkernel)(uintptr_t)key)
                           : DC_REAL(cuFuncGetName, &name, (CUfunction)(uintptr_t)key);
    return r == CUDA_SUCCESS && name ? strdup(name) : NULL;
}

/* The cached description of a function/kernel; NULL only when memory ran out
 * (then *tmp is filled for this launch and must be released with
 * release_tmp). */
static const struct kinfo *lookup(const void *key, int is_kernel, struct kinfo *tmp)
{
    struct kinfo *k;
    pthread_rwlock_rdlock(&cache_lock);
    HASH_FIND_PTR(cache, &key, k);
    pthread_rwlock_unlock(&cache_lock);
    if (k)
        return k;

    k = calloc(1, sizeof *k);
    struct kinfo *fill = k ? k : tmp;
    memset(fill, 0, sizeof *fill);
    fill->key = key;
    fill->is_kernel = is_kernel;
    fill->name = query_name(key, is_kernel);
    query_layout(fill);
    /* cuLaunchKernel also accepts a CUkernel cast to CUfunction. */
    if (!fill->layout_known && !is_kernel && dc_real_cuKernelGetParamInfo) {
        fill->is_kernel = 1;
        query_layout(fill);
        if (!fill->name)
            fill->name = query_name(key, 1);
        if (!fill->layout_known)
            fill->is_kernel = 0;
    }
    if (!k)
        return NULL;

    struct kinfo *old;
    pthread_rwlock_wrlock(&cache_lock);
    HASH_FIND_PTR(cache, &key, old);
    if (!old) {
        HASH_ADD_PTR(cache, key, k);
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
    return k;
}

static void release_tmp(struct kinfo *tmp)
{
    free(tmp->name);
    free(tmp->params);
}

/* Arguments packed in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE). */
static void parse_extra(void **extra, const void **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    for (int i = 0; extra && i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            *buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
            *size = *(const size_t *)extra[i + 1];
        else if (extra[i] != CU_LAUNCH_PARAM_BUFFER_POINTER && extra[i] != CU_LAUNCH_PARAM_BUFFER_SIZE)
            break;                              /* unknown key: stop reading */
    }
    if (!*buf)
        *size = 0;
}

enum { K_FUNCTION = DC_KEY_FUNCTION, K_KERNEL = DC_KEY_KERNEL, K_OPAQUE = DC_KEY_OPAQUE };   /* what `key` is */

/* --- mode=migrate and sync=1 ---------------------------------------------------- *
 * All state of one launch lives in its struct launch, on the hook's stack or
 * malloc'd for it: concurrent launches share nothing (no scratch buffers);
 * the registry, the report and the driver do their own locking.  Every CUDA
 * call here runs with the guard held (we are inside a hook), so none of it
 * is checked or recorded. */

/* Pageable host memory has no size the registry knows: the copy runs from the
 * operand's address to the end of its mapping, at most this much. */
#define HOST_MIGRATE_MAX ((size_t)64 << 20)

/* One source range copied to the launch device for one launch; every operand
 * pointing into it shares the copy. */
struct mig {
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

struct launch {
    struct kinfo tmp;
    const struct kinfo *k;      /* NULL: nothing was checked */
    struct dc_launch l;
    struct dc_moves moves;
    CUstream stream;            /* for our own stream calls (per-thread made explicit) */
    int has_stream;             /* a launch into a stream (not a graph node) */
    int captured;               /* the stream is capturing: never synchronised */
    int pre_error;              /* sync=1: the stream had an error before this launch */
    void **args, **extra;       /* what the real launch gets */
    struct mig *mig;
    unsigned nmig;
    CUcontext ctx;              /* the launch device's context (migration) */
    int ctx_retained;
    CUcontext dflt_ctx;         /* runtime launch into a default stream on a thread with no
                                 * context current yet: the primary context it will use
                                 * (retained), current only for our stream queries */
    unsigned char *argcopy;     /* private copy of the arguments, rewritten */
    void **newargs, **newextra;
};

static const char *err_name(CUresult r)
{
    const char *n = NULL;
    if (DC_REAL(cuGetErrorName, r, &n) != CUDA_SUCCESS || !n)
        return "CUDA error";
    return n;
}

static CUresult ctx_synchronize(void)
{
    return dc_real_cuCtxSynchronize ? dc_real_cuCtxSynchronize() : CUDA_ERROR_NOT_FOUND;
}

/* Is the stream capturing?  When the driver cannot say (e.g. another stream
 * captures in global mode and this is the legacy stream), treat it as
 * capturing: devcheck then leaves it alone. */
static int stream_captured(CUstream s)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!dc_real_cuStreamIsCapturing)
        return 0;
    if (dc_real_cuStreamIsCapturing(s, &st) != CUDA_SUCCESS)
        return 1;
    return st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* The readable mapping holding p: bytes from p to its end (at most
 * HOST_MIGRATE_MAX), *writable set when it is writable; 0 when p is in none.
 * Reads /proc/self/maps with a fixed buffer (no allocation). */
static size_t host_extent(uintptr_t p, int *writable)
{
    *writable = 0;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    size_t have = 0, result = 0;
    int found = 0;
    while (!found) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = 0;
        char *line = buf, *nl;
        while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            *nl = 0;
            unsigned long lo, hi;
            char perms[8];
            if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && p >= lo && p < hi) {
                found = 1;
                if (perms[0] == 'r') {
                    result = hi - p;
                    *writable = perms[1] == 'w';
                }
            }
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1)
            have = 0;                   /* a line longer than the buffer */
    }
    close(fd);
    return result > HOST_MIGRATE_MAX ? HOST_MIGRATE_MAX : result;
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
static CUcontext launch_context(struct launch *L)
{
    CUcontext c = NULL;
    CUstream s = L->stream;
    if (s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD) {
        if (DC_REAL(cuStreamGetCtx, s, &c) != CUDA_SUCCESS)
            c = NULL;
    } else if (DC_REAL(cuCtxGetCurrent, &c) != CUDA_SUCCESS) {
        c = NULL;
    }
    if (c && dc_ctx_device(c) == L->l.device)
        return c;
    if (DC_REAL(cuDevicePrimaryCtxRetain, &c, (CUdevice)L->l.device) != CUDA_SUCCESS)
        return NULL;
    L->ctx_retained = 1;
    return c;
}

/* The context that owns device memory: the pointer's when it is the owner
 * device's, else the owner's primary context (VMM and pool memory may name
 * none). */
static CUcontext owner_context(struct mig *g)
{
    CUcontext c = NULL;
    if (DC_REAL(cuPointerGetAttribute, &c, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)g->src) == CUDA_SUCCESS && c &&
        dc_ctx_device(c) == g->owner)
        return c;
    if (g->owner >= 0 && DC_REAL(cuDevicePrimaryCtxRetain, &c, (CUdevice)g->owner) == CUDA_SUCCESS) {
        g->src_retained = 1;
        return c;
    }
    return NULL;
}

static CUresult sync_in(CUcontext c)
{
    CUcontext popped;
    if (DC_REAL(cuCtxPushCurrent_v2, c) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = ctx_synchronize();
    DC_REAL(cuCtxPopCurrent_v2, &popped);
    return r;
}

/* Copies g's source to a new allocation on the launch device, after the
 * work queued on the owner has finished; 0, or -1 with g->reason. */
static int copy_in(struct launch *L, struct mig *g)
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
            snprintf(g->reason, sizeof g->reason, "the owner cuda:%d reports %s", g->owner, err_name(r));
            return -1;
        }
    }
    if (DC_REAL(cuCtxPushCurrent_v2, L->ctx) != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "cannot make cuda:%d's context current", d);
        return -1;
    }
    CUdeviceptr dst = 0;
    r = DC_REAL(cuMemAlloc_v2, &dst, g->size);
    if (r != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "cannot allocate %zu bytes on cuda:%d: %s", g->size, d, err_name(r));
        DC_REAL(cuCtxPopCurrent_v2, &popped);
        return -1;
    }
    if (g->host)
        r = DC_REAL(cuMemcpyHtoD_v2, dst, g->snapshot, g->size);
    else
        r = DC_REAL(cuMemcpyPeer, dst, L->ctx, (CUdeviceptr)g->src, g->src_ctx, g->size);
    if (r == CUDA_SUCCESS)
        r = ctx_synchronize();          /* the copy is complete before the kernel runs */
    if (r != CUDA_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "copying %zu bytes to cuda:%d failed: %s", g->size, d, err_name(r));
        DC_REAL(cuMemFree_v2, dst);
        DC_REAL(cuCtxPopCurrent_v2, &popped);
        return -1;
    }
    DC_REAL(cuCtxPopCurrent_v2, &popped);
    g->dst = dst;
    return 0;
}

/* The source range a move's operand belongs to (an existing one, or a new
 * one appended and copied in). */
static struct mig *source_of(struct launch *L, const struct dc_move *mv)
{
    for (unsigned j = 0; j < L->nmig; j++) {
        struct mig *g = &L->mig[j];
        if (mv->address >= g->src && mv->address - g->src < g->size)
            return g;
    }
    struct mig *g = &L->mig[L->nmig++];
    memset(g, 0, sizeof *g);
    g->owner = -1;
    if (mv->alloc_known) {
        g->src = mv->alloc.base;
        g->size = mv->alloc.size;
        g->owner = mv->alloc.owner;
    } else {
        g->host = 1;
        g->src = mv->address;
        int writable = 0;
        g->size = host_extent(mv->address, &writable);
        g->readonly = !writable;
        if (!g->size) {
            snprintf(g->reason, sizeof g->reason, "host memory at 0x%zx is in no readable mapping", (size_t)mv->address);
            return g;
        }
    }
    if (!L->ctx) {
        snprintf(g->reason, sizeof g->reason, "no context for cuda:%d", L->l.device);
        return g;
    }
    (void)copy_in(L, g);
    return g;
}

static void fail_moves(struct launch *L, const char *reason)
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
static int rewrite_args(struct launch *L)
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

/* Copies back and frees every migrated source (the kernel may have written
 * it); launched: the launch succeeded, so the copies hold its results. */
static void migrate_back(struct launch *L, int launched)
{
    CUcontext popped;
    int pushed = L->ctx && DC_REAL(cuCtxPushCurrent_v2, L->ctx) == CUDA_SUCCESS;
    CUresult sr = CUDA_ERROR_INVALID_CONTEXT;
    if (pushed && launched)
        sr = DC_REAL(cuStreamSynchronize, L->stream);
    int copies = 0;
    for (unsigned j = 0; j < L->nmig; j++)
        copies += L->mig[j].dst != 0;
    if (copies && launched && sr != CUDA_SUCCESS)
        dc_log("migrate: the launch of %s did not complete (%s): migrated operands are not copied back",
               L->l.kernel ? L->l.kernel : "?", err_name(sr));
    uint64_t back = 0;
    for (unsigned j = 0; j < L->nmig; j++) {
        struct mig *g = &L->mig[j];
        if (g->dst && launched && sr == CUDA_SUCCESS && !g->readonly) {
            CUresult r;
            if (g->host) {
                unsigned char *tmp = malloc(g->size);
                r = tmp ? DC_REAL(cuMemcpyDtoH_v2, tmp, g->dst, g->size) : CUDA_ERROR_OUT_OF_MEMORY;
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
                r = DC_REAL(cuMemcpyPeer, (CUdeviceptr)g->src, g->src_ctx, g->dst, L->ctx, g->size);
                if (r == CUDA_SUCCESS)
                    r = ctx_synchronize();
            }
            if (r == CUDA_SUCCESS)
                back += g->size;
            else
                dc_log("migrate: copying %zu bytes back from cuda:%d failed: %s", g->size, L->l.device,
                       err_name(r));
        }
        if (g->dst && pushed)
            DC_REAL(cuMemFree_v2, g->dst);
        if (g->src_retained)
            DC_REAL(cuDevicePrimaryCtxRelease_v2, (CUdevice)g->owner);
        free(g->snapshot);
    }
    if (pushed)
        DC_REAL(cuCtxPopCurrent_v2, &popped);
    dc_check_count_migrated(back);
}

static void migrate(struct launch *L)
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
        struct mig *g = source_of(L, mv);
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
        migrate_back(L, 0);
        L->nmig = 0;
    }
}

/* Describes one launch and checks it, and under mode=migrate moves what must
 * be moved (then L->args / L->extra are the rewritten arguments).  Guard
 * held.  current_device >= 0 for runtime launches (stream_mismatch); device <
 * 0: ask the stream.  has_stream: a launch into `stream` (graph nodes have
 * none).  no_rewrite: why the arguments cannot be rewritten, or NULL.  An
 * opaque key (a host stub the runtime could not resolve) is checked with an
 * unknown layout, so the launch is counted unchecked rather than skipped.
 * Always pair with launch_end(). */
static void launch_begin(struct launch *L, int path, const char *api, const void *key, int kind, int device,
                         int current_device, CUstream stream, int has_stream, const char *no_rewrite,
                         void **args, void **extra)
{
    /* the hot path of report mode: no more than the fields it needs set */
    L->k = NULL;
    memset(&L->l, 0, sizeof L->l);
    memset(&L->moves, 0, sizeof L->moves);
    L->captured = L->pre_error = 0;
    L->mig = NULL;
    L->nmig = 0;
    L->ctx = NULL;
    L->ctx_retained = 0;
    L->dflt_ctx = NULL;
    L->argcopy = NULL;
    L->newargs = L->newextra = NULL;
    L->args = args;
    L->extra = extra;
    L->has_stream = has_stream;
    L->stream = stream;
    if (!key)
        return;
    if (kind == K_OPAQUE) {
        memset(&L->tmp, 0, sizeof L->tmp);
        L->tmp.key = key;
        L->k = &L->tmp;
    } else if (!(L->k = lookup(key, kind == K_KERNEL, &L->tmp))) {
        L->k = &L->tmp;
    }
    if (device < 0)
        device = dc_stream_device(stream);

    const struct kinfo *k = L->k;
    struct dc_launch *l = &L->l;
    l->path = (enum dc_path)path;
    l->kernel = k->name;
    l->kernel_key = key;
    l->api = api;
    l->device = device;
    l->current_device = current_device;
    l->stream = (uintptr_t)stream;
    l->pageable_ok = dc_pageable_ok(device);
    l->params = k->params;
    l->nparams = k->nparams;
    /* An unknown launch device would make every operand look foreign:
     * count the launch unchecked instead of guessing. */
    l->layout_known = k->layout_known && device >= 0;
    if (args) {
        l->args = args;
    } else if (extra) {
        parse_extra(extra, &l->argbuf, &l->argbuf_size);
    } else if (k->nparams) {
        l->layout_known = 0;                    /* parameters but no arguments given */
    }
    int modes = dc_opt.mode == DC_MODE_MIGRATE || dc_opt.sync;
    if (modes && stream == NULL && api && strstr(api, "_ptsz"))
        L->stream = CU_STREAM_PER_THREAD;       /* our own stream calls name it */
    /* A runtime launch into a default stream names the stream of the
     * context the runtime makes current at the launch: on a thread that has
     * none current yet, our queries ask that (primary) context, current only
     * for them (the runtime sets its own at the launch). */
    CUcontext popped, cur = NULL;
    int pushed = 0;
    if (modes && has_stream && device >= 0 && current_device >= 0 &&
        (L->stream == NULL || L->stream == CU_STREAM_LEGACY || L->stream == CU_STREAM_PER_THREAD) &&
        DC_REAL(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && !cur) {
        if (DC_REAL(cuDevicePrimaryCtxRetain, &L->dflt_ctx, (CUdevice)device) != CUDA_SUCCESS)
            L->dflt_ctx = NULL;
        pushed = L->dflt_ctx && DC_REAL(cuCtxPushCurrent_v2, L->dflt_ctx) == CUDA_SUCCESS;
    }
    if (has_stream && device >= 0 && modes)
        L->captured = stream_captured(L->stream);
    if (dc_opt.mode == DC_MODE_MIGRATE) {
        if (no_rewrite)
            l->no_rewrite = no_rewrite;
        else if (L->captured)
            l->no_rewrite = DC_NO_REWRITE_CAPTURE;
        else if (device >= 0)
            l->moves = &L->moves;
    }
    if (dc_opt.sync && has_stream && device >= 0 && !L->captured)
        L->pre_error = DC_REAL(cuStreamSynchronize, L->stream) != CUDA_SUCCESS;
    if (pushed)
        DC_REAL(cuCtxPopCurrent_v2, &popped);
    (void)dc_check_launch(l);
    if (L->moves.n) {
        migrate(L);
        dc_check_moves_report(l, &L->moves);
    }
}

/* After the real launch (launched: it returned success): copies migrated
 * operands back, and under sync=1 synchronises the stream and attributes an
 * asynchronous error to this launch.  Frees everything of L. */
static void launch_end(struct launch *L, int launched)
{
    if (L->nmig)
        migrate_back(L, launched);
    if (L->k && dc_opt.sync && launched && L->has_stream && L->l.device >= 0 && !L->captured &&
        !L->pre_error) {
        CUresult r = DC_REAL(cuStreamSynchronize, L->stream);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND)
            dc_check_async_error(&L->l, err_name(r));
    }
    if (L->ctx_retained)
        DC_REAL(cuDevicePrimaryCtxRelease_v2, (CUdevice)L->l.device);
    if (L->dflt_ctx)
        DC_REAL(cuDevicePrimaryCtxRelease_v2, (CUdevice)L->l.device);
    if (L->mig || L->moves.v) {         /* only after a migration */
        free(L->mig);
        free(L->moves.v);
        free(L->argcopy);
        free(L->newargs);
        free(L->newextra);
    }
    if (L->k == &L->tmp)
        release_tmp(&L->tmp);
}

/* The launch description shared with the CUPTI path (preload/shared.h): the
 * launch is checked only, never rewritten nor synchronised (its parameters
 * are read-only there: under mode=migrate check.c reports its operands not
 * migrated, DC_NO_REWRITE_CUPTI, and the launch goes ahead unmodified). */
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra)
{
    struct launch L;
    launch_begin(&L, path, api, key, kind, device, current_device, stream, 0, NULL, args, extra);
    launch_end(&L, 0);
}

/* --- driver launches ---------------------------------------------------------- */

#define LAUNCH_KERNEL(name)                                                              \
    DC_EXPORT CUresult CUDAAPI name(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, \
                                    unsigned int gridDimZ, unsigned int blockDimX,       \
                                    unsigned int blockDimY, unsigned int blockDimZ,      \
                                    unsigned int sharedMemBytes, CUstream hStream,       \
                                    void **kernelParams, void **extra)                   \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,  \
                           blockDimZ, sharedMemBytes, hStream, kernelParams, extra);     \
        struct launch L;                                                                 \
        launch_begin(&L, DC_PATH_INTERPOSE, #name, f, K_FUNCTION, -1, -1, hStream, 1, NULL, kernelParams, extra); \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, L.args, L.extra);       \
        launch_end(&L, r == CUDA_SUCCESS);                                               \
        dc_leave();                                                                      \
        return r;                                                                        \
    }
LAUNCH_KERNEL(cuLaunchKernel)
LAUNCH_KERNEL(cuLaunchKernel_ptsz)

#define LAUNCH_KERNEL_EX(name)                                                           \
    DC_EXPORT CUresult CUDAAPI name(const CUlaunchConfig *config, CUfunction f,          \
                                    void **kernelParams, void **extra)                   \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, config, f, kernelParams, extra);                        \
        struct launch L;                                                                 \
        launch_begin(&L, DC_PATH_INTERPOSE, #name, config ? (const void *)f : NULL, K_FUNCTION, -1, -1,     \
                     config ? config->hStream : NULL, 1, NULL, kernelParams, extra);     \
        CUresult r = DC_REAL(name, config, f, L.args, L.extra);                          \
        launch_end(&L, r == CUDA_SUCCESS);                                               \
        dc_leave();                                                                      \
        return r;                                                                        \
    }
LAUNCH_KERNEL_EX(cuLaunchKernelEx)
LAUNCH_KERNEL_EX(cuLaunchKernelEx_ptsz)

#define LAUNCH_COOPERATIVE(name)                                                         \
    DC_EXPORT CUresult CUDAAPI name(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, \
                                    unsigned int gridDimZ, unsigned int blockDimX,       \
                                    unsigned int blockDimY, unsigned int blockDimZ,      \
                                    unsigned int sharedMemBytes, CUstream hStream,       \
                                    void **kernelParams)                                 \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,  \
                           blockDimZ, sharedMemBytes, hStream, kernelParams);            \
        struct launch L;                                                                 \
        launch_begin(&L, DC_PATH_INTERPOSE, #name, f, K_FUNCTION, -1, -1, hStream, 1, NULL, kernelParams, NULL); \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, L.args);                \
        launch_end(&L, r == CUDA_SUCCESS);                                               \
        dc_leave();                                                                      \
        return r;                                                                        \
    }
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel)
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel_ptsz)

/* --- graph kernel nodes: checked when the node is created or changed ------- */

/* The launch device of a node: the context's device when the node names a
 * kernel (CUkernel) and a context; the current context's otherwise (a
 * CUfunction belongs to the current context's module).  A node runs later,
 * from the graph's copy of its arguments: never migrated nor synchronised. */
#define CHECK_NODE(path, api, p)                                                  \
    do {                                                                          \
        struct launch L_;                                                         \
        int dev_ = (p)->func ? -1 : dc_ctx_device((p)->ctx);                      \
        if (dev_ < 0)                                                             \
            dev_ = dc_current_device();                                           \
        if ((p)->func)                                                            \
            launch_begin(&L_, path, api, (p)->func, K_FUNCTION, dev_, -1, NULL, 0, DC_NO_REWRITE_GRAPH, \
                         (p)->kernelParams, (p)->extra);                          \
        else                                                                      \
            launch_begin(&L_, path, api, (p)->kern, K_KERNEL, dev_, -1, NULL, 0, DC_NO_REWRITE_GRAPH, \
                         (p)->kernelParams, (p)->extra);                          \
        launch_end(&L_, 0);                                                       \
    } while (0)

void dc_launch_check_node(int path, const char *api, const CUDA_KERNEL_NODE_PARAMS *p)
{
    if (p)
        CHECK_NODE(path, api, p);
}

/* The generic node API: only kernel nodes are checked. */
void dc_launch_check_generic_node(int path, const char *api, const CUgraphNodeParams *p)
{
    if (p && p->type == CU_GRAPH_NODE_TYPE_KERNEL)
        CHECK_NODE(path, api, &p->kernel);
}

static void check_node(const char *api, const CUDA_KERNEL_NODE_PARAMS *p)
{
    dc_launch_check_node(DC_PATH_INTERPOSE, api, p);
}

static void check_generic_node(const char *api, const CUgraphNodeParams *p)
{
    dc_launch_check_generic_node(DC_PATH_INTERPOSE, api, p);
}

DC_EXPORT CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                   const CUgraphNode *dependencies, size_t numDependencies,
                                                   const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphAddKernelNode_v2, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    check_node("cuGraphAddKernelNode", nodeParams);
    CUresult r = DC_REAL(cuGraphAddKernelNode_v2, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphKernelNodeSetParams_v2, hNode, nodeParams);
    check_node("cuGraphKernelNodeSetParams", nodeParams);
    CUresult r = DC_REAL(cuGraphKernelNodeSetParams_v2, hNode, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                             const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphExecKernelNodeSetParams_v2, hGraphExec, hNode, nodeParams);
    check_node("cuGraphExecKernelNodeSetParams", nodeParams);
    CUresult r = DC_REAL(cuGraphExecKernelNodeSetParams_v2, hGraphExec, hNode, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                             const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
                                             size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphAddNode_v2, phGraphNode, hGraph, dependencies, dependencyData, numDependencies,
                       nodeParams);
    check_generic_node("cuGraphAddNode", nodeParams);
    CUresult r = DC_REAL(cuGraphAddNode_v2, phGraphNode, hGraph, dependencies, dependencyData, numDependencies,
                         nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                          size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphAddNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    check_generic_node("cuGraphAddNode", nodeParams);
    CUresult r = DC_REAL(cuGraphAddNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphNodeSetParams, hNode, nodeParams);
    check_generic_node("cuGraphNodeSetParams", nodeParams);
    CUresult r = DC_REAL(cuGraphNodeSetParams, hNode, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                    CUgraphNodeParams *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphExecNodeSetParams, hGraphExec, hNode, nodeParams);
    check_generic_node("cuGraphExecNodeSetParams", nodeParams);
    CUresult r = DC_REAL(cuGraphExecNodeSetParams, hGraphExec, hNode, nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    if (!dc_enter())
        return DC_REAL(cuModuleUnload, hmod);
    CUresult r = DC_REAL(cuModuleUnload, hmod);
    dc_launch_cache_flush();
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    if (!dc_enter())
        return DC_REAL(cuLibraryUnload, library);
    CUresult r = DC_REAL(cuLibraryUnload, library);
    dc_launch_cache_flush();
    dc_leave();
    return r;
}

/* --- runtime launches ----------------------------------------------------------- *
 * The launch device is the device of the stream's context; for the NULL,
 * legacy and per-thread streams, the runtime's current device.  The current
 * device is passed too: a launch into another device's stream is a
 * stream_mismatch. */

static int runtime_current_device(void)
{
    int dev = -1;
    __typeof__(dc_real_cudaGetDevice) get = DC_RT_REAL(cudaGetDevice);
    if (get && get(&dev) == cudaSuccess)
        return dev;
    return dc_current_device();
}

/* The launch device of a runtime launch into stream s while `cur` is the
 * current device. */
static int runtime_launch_device(int cur, CUstream s)
{
    return (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) ? cur : dc_stream_device(s);
}

/* A host stub -> the CUfunction of the current device (cudaGetFuncBySymbol);
 * *kind says which it is (K_OPAQUE: the stub itself, none was found). */
static const void *stub_function(const void *func, int *kind)
{
    cudaFunction_t f = NULL;
    __typeof__(dc_real_cudaGetFuncBySymbol) get = DC_RT_REAL(cudaGetFuncBySymbol);
    if (!get || get(&f, func) != cudaSuccess)
        f = NULL;
    *kind = f ? K_FUNCTION : K_OPAQUE;
    return f ? (const void *)f : func;
}

static void begin_runtime(struct launch *L, const char *api, const void *key, int kind, cudaStream_t stream,
                          void **args)
{
    int cur = runtime_current_device();
    CUstream s = (CUstream)stream;
    launch_begin(L, DC_PATH_INTERPOSE, api, key, kind, runtime_launch_device(cur, s), cur, s, 1, NULL, args,
                 NULL);
}

static void begin_stub(struct launch *L, const char *api, const void *func, cudaStream_t stream, void **args)
{
    int kind = K_OPAQUE;
    const void *key = func ? stub_function(func, &kind) : NULL;
    begin_runtime(L, api, key, kind, stream, args);
}

/* The CUPTI path's runtime launches (preload/shared.h): checked only. */
void dc_launch_check_stub(int path, const char *api, const void *func, int current_device, CUstream stream,
                          void **args)
{
    int kind = K_OPAQUE;
    const void *key = func ? stub_function(func, &kind) : NULL;
    dc_launch_check(path, api, key, kind, runtime_launch_device(current_device, stream), current_device, stream,
                    args, NULL);
}

#define CUDA_LAUNCH_KERNEL(name)                                                          \
    DC_EXPORT cudaError_t CUDARTAPI name(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, \
                                         void **args, size_t sharedMem, cudaStream_t stream) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, kernel, gridDim, blockDim, args, sharedMem, stream);  \
        struct launch L;                                                                  \
        begin_runtime(&L, #name, kernel, K_KERNEL, stream, args);                         \
        cudaError_t r = DC_REAL_RT(name, kernel, gridDim, blockDim, L.args, sharedMem, stream); \
        launch_end(&L, r == cudaSuccess);                                                 \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel)
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel_ptsz)

#define RT_LAUNCH(name)                                                                   \
    DC_EXPORT cudaError_t CUDARTAPI name(const void *func, dim3 gridDim, dim3 blockDim,   \
                                         void **args, size_t sharedMem, cudaStream_t stream) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, func, gridDim, blockDim, args, sharedMem, stream);    \
        struct launch L;                                                                  \
        begin_stub(&L, #name, func, stream, args);                                        \
        cudaError_t r = DC_REAL_RT(name, func, gridDim, blockDim, L.args, sharedMem, stream); \
        launch_end(&L, r == cudaSuccess);                                                 \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
RT_LAUNCH(cudaLaunchKernel)
RT_LAUNCH(cudaLaunchKernel_ptsz)
RT_LAUNCH(cudaLaunchCooperativeKernel)
RT_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

#define RT_LAUNCH_EX(name)                                                                \
    DC_EXPORT cudaError_t CUDARTAPI name(const cudaLaunchConfig_t *config, const void *func, void **args) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, config, func, args);                                  \
        struct launch L;                                                                  \
        begin_stub(&L, #name, config ? func : NULL, config ? config->stream : NULL, args); \
        cudaError_t r = DC_REAL_RT(name, config, func, L.args);                           \
        launch_end(&L, r == cudaSuccess);                                                 \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
RT_LAUNCH_EX(cudaLaunchKernelExC)
RT_LAUNCH_EX(cudaLaunchKernelExC_ptsz)

/* --- runtime entry points to the driver --------------------------------------- */

/* The runtime's way to the driver: the real one runs with the guard held (so
 * our cuGetProcAddress passes through) and we substitute its answer. */
#define ENTRY_POINT_HOOK(name, params, args)                              \
    DC_EXPORT cudaError_t CUDARTAPI name params                           \
    {                                                                     \
        if (!dc_enter())                                                  \
            return DC_REAL_RT args;                                       \
        cudaError_t r = DC_REAL_RT args;                                  \
        if (r == cudaSuccess && funcPtr)                                  \
            *funcPtr = dc_substitute(*funcPtr);                           \
        dc_leave();                                                       \
        return r;                                                         \
    }
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPoint, symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint_ptsz,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPoint_ptsz, symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPointByVersion, symbol, funcPtr, cudaVersion, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion_ptsz,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPointByVersion_ptsz, symbol, funcPtr, cudaVersion, flags, driverStatus))

/* Runtime hooks carry cudart's symbol versions (see hooks.def):
 * name@@libcudart.so.13, and for entry points older toolkits have,
 * name@libcudart.so.12 / name@libcudart.so.11.0 too.  Each version gets its
 * own alias label: ld drops a version-script version from a name that also
 * has a .symver version, so all of them are set here (the plain names are
 * then local, by the version script's `local: *`). */
#define DC_SYMVER_AS(name, tag, version)                                      \
    __asm__(".globl dc_" tag "_" #name "\n"                                 \
            ".set dc_" tag "_" #name ", " #name "\n"                        \
            ".symver dc_" tag "_" #name ", " #name version "\n");
#define DC_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, "v13", "@@libcudart.so.13")
#define DC_SYMVER_DC_CUDA12(name) DC_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, "v12", "@libcudart.so.12")
#define DC_SYMVER_DC_CUDA11(name) DC_SYMVER_DC_CUDA12(name) DC_SYMVER_AS(name, "v11", "@libcudart.so.11.0")
#define DC_RT(name, since) DC_SYMVER_##since(name)
#include "preload/hooks.def"
