/* hooks_launch: every kernel launch entry point -> dc_check_launch, before the
 * real launch.  Report mode never changes the arguments or the result.
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
#include "report/check.h"

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

/* Describes one launch and checks it.  Guard held.  current_device >= 0 for
 * runtime launches (stream_mismatch); device < 0: ask the stream.  An opaque
 * key (a host stub the runtime could not resolve) is checked with an unknown
 * layout, so the launch is counted unchecked rather than skipped. */
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra)
{
    struct kinfo tmp;
    const struct kinfo *k;
    memset(&tmp, 0, sizeof tmp);
    if (!key)
        return;
    if (kind == K_OPAQUE) {
        tmp.key = key;
        k = &tmp;
    } else if (!(k = lookup(key, kind == K_KERNEL, &tmp))) {
        k = &tmp;
    }
    if (device < 0)
        device = dc_stream_device(stream);

    struct dc_launch l;
    memset(&l, 0, sizeof l);
    l.path = (enum dc_path)path;
    l.kernel = k->name;
    l.kernel_key = key;
    l.api = api;
    l.device = device;
    l.current_device = current_device;
    l.stream = (uintptr_t)stream;
    l.pageable_ok = dc_pageable_ok(device);
    l.params = k->params;
    l.nparams = k->nparams;
    /* An unknown launch device would make every operand look foreign:
     * count the launch unchecked instead of guessing. */
    l.layout_known = k->layout_known && device >= 0;
    if (args) {
        l.args = args;
    } else if (extra) {
        parse_extra(extra, &l.argbuf, &l.argbuf_size);
    } else if (k->nparams) {
        l.layout_known = 0;                     /* parameters but no arguments given */
    }
    (void)dc_check_launch(&l);
    if (k == &tmp)
        release_tmp(&tmp);
}

/* The interposer's launches. */
static void check(const char *api, const void *key, int kind, int device, int current_device,
                  CUstream stream, void **args, void **extra)
{
    dc_launch_check(DC_PATH_INTERPOSE, api, key, kind, device, current_device, stream, args, extra);
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
        check(#name, f, K_FUNCTION, -1, -1, hStream, kernelParams, extra);                        \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, kernelParams, extra);   \
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
        if (config)                                                                      \
            check(#name, f, K_FUNCTION, -1, -1, config->hStream, kernelParams, extra);            \
        CUresult r = DC_REAL(name, config, f, kernelParams, extra);                      \
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
        check(#name, f, K_FUNCTION, -1, -1, hStream, kernelParams, NULL);                         \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, kernelParams);          \
        dc_leave();                                                                      \
        return r;                                                                        \
    }
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel)
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel_ptsz)

/* --- graph kernel nodes: checked when the node is created or changed ------- */

/* The launch device of a node: the context's device when the node names a
 * kernel (CUkernel) and a context; the current context's otherwise (a
 * CUfunction belongs to the current context's module). */
#define CHECK_NODE(path, api, p)                                                  \
    do {                                                                          \
        int dev_ = (p)->func ? -1 : dc_ctx_device((p)->ctx);                      \
        if (dev_ < 0)                                                             \
            dev_ = dc_current_device();                                           \
        if ((p)->func)                                                            \
            dc_launch_check(path, api, (p)->func, K_FUNCTION, dev_, -1, NULL, (p)->kernelParams, (p)->extra); \
        else                                                                      \
            dc_launch_check(path, api, (p)->kern, K_KERNEL, dev_, -1, NULL, (p)->kernelParams, (p)->extra);   \
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

static void runtime_check(int path, const char *api, const void *key, int kind, int cur, CUstream s,
                          void **args)
{
    int dev = (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) ? cur : dc_stream_device(s);
    dc_launch_check(path, api, key, kind, dev, cur, s, args, NULL);
}

static void check_runtime(const char *api, const void *key, int kind, cudaStream_t stream, void **args)
{
    runtime_check(DC_PATH_INTERPOSE, api, key, kind, runtime_current_device(), (CUstream)stream, args);
}

/* A host stub -> the CUfunction of the current device (cudaGetFuncBySymbol). */
void dc_launch_check_stub(int path, const char *api, const void *func, int current_device, CUstream stream,
                          void **args)
{
    cudaFunction_t f = NULL;
    __typeof__(dc_real_cudaGetFuncBySymbol) get = DC_RT_REAL(cudaGetFuncBySymbol);
    if (!get || get(&f, func) != cudaSuccess)
        f = NULL;
    if (f)
        runtime_check(path, api, f, K_FUNCTION, current_device, stream, args);
    else
        runtime_check(path, api, func, K_OPAQUE, current_device, stream, args);
}

static void check_stub(const char *api, const void *func, cudaStream_t stream, void **args)
{
    dc_launch_check_stub(DC_PATH_INTERPOSE, api, func, runtime_current_device(), (CUstream)stream, args);
}

#define CUDA_LAUNCH_KERNEL(name)                                                          \
    DC_EXPORT cudaError_t CUDARTAPI name(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, \
                                         void **args, size_t sharedMem, cudaStream_t stream) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, kernel, gridDim, blockDim, args, sharedMem, stream);  \
        check_runtime(#name, kernel, K_KERNEL, stream, args);                                    \
        cudaError_t r = DC_REAL_RT(name, kernel, gridDim, blockDim, args, sharedMem, stream); \
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
        check_stub(#name, func, stream, args);                                            \
        cudaError_t r = DC_REAL_RT(name, func, gridDim, blockDim, args, sharedMem, stream); \
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
        if (config)                                                                       \
            check_stub(#name, func, config->stream, args);                                \
        cudaError_t r = DC_REAL_RT(name, config, func, args);                             \
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
