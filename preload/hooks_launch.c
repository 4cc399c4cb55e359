/* hooks_launch: the driver's kernel launch entry points, graph kernel nodes
 * and module unloads.  Each passes the call through and describes it to the
 * core (core/core.h): a launch between dc_launch_begin, which checks it
 * (and under mode=migrate hands back rewritten arguments for the real
 * launch), and dc_launch_end; a graph kernel node checked when it is created
 * or changed; an unload retiring the cached kernel descriptions.  The
 * runtime's launches are preload/hooks_runtime.c's. */
#include "preload/preload.h"
#include "core/verdict/libfirst.h"

/* --- driver launches ---------------------------------------------------------- */

/* Each launch hook is a thin entry: inside devcheck or inside a hooked call
 * (dc_guard) it passes through with a tail call, no register saved;
 * otherwise it tail-calls checked_<name>, which starts with dc_enter() and
 * describes the launch.  The driver launch nested in a runtime launch costs
 * a handful of instructions. */
#define DRIVER_LAUNCH_PARAMS                                                              \
    (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,   \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,              \
     unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
#define THIN_ENTRY(name, params, args)                                                   \
    DC_EXPORT CUresult CUDAAPI name params                                               \
    {                                                                                    \
        if (dc_guard)                                                                    \
            return DC_REAL(name, DC_UNPAREN args);                                       \
        return checked_##name args;                                                      \
    }

/* The same, for the entries a library's kernels arrive through
 * (cuLaunchKernel, cuLaunchKernelEx and their _ptsz forms): a launch a
 * library call's shortcut expects (core/verdict/libcall.h, dc_lib_expect:
 * the first launch of a repeated clean cublasLtMatmul) is counted by
 * expected_<name> and passed through under the guard, with no launch state
 * (-155 instructions per matmul, bench/libcalls.sh); any other goes on to
 * checked_<name>, which need not test the guard again. */
#define THIN_ENTRY_LIB(name, params, args)                                               \
    DC_EXPORT CUresult CUDAAPI name params                                               \
    {                                                                                    \
        if (dc_guard)                                                                    \
            return DC_REAL(name, DC_UNPAREN args);                                       \
        if (__builtin_expect(dc_lib_expect != 0, 0))                                     \
            return expected_##name args;                                                 \
        return checked_##name args;                                                      \
    }

#define LAUNCH_KERNEL(name)                                                              \
    static __attribute__((noinline)) CUresult checked_##name DRIVER_LAUNCH_PARAMS;       \
    static __attribute__((noinline)) CUresult expected_##name DRIVER_LAUNCH_PARAMS       \
    {                                                                                    \
        if (__builtin_expect(!__atomic_load_n(&dc_interpose, __ATOMIC_RELAXED), 0))       \
            dc_lib_expect = 0;                                                           \
        else if (dc_libcall_launch_expected(f, (uintptr_t)hStream, kernelParams)) {      \
            dc_guard++;                                                                  \
            CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX,       \
                                 blockDimY, blockDimZ, sharedMemBytes, hStream,          \
                                 kernelParams, extra);                                   \
            dc_guard--;                                                                  \
            return r;                                                                    \
        }                                                                                \
        return checked_##name(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,     \
                              blockDimZ, sharedMemBytes, hStream, kernelParams, extra); \
    }                                                                                    \
    static __attribute__((noinline)) CUresult checked_##name DRIVER_LAUNCH_PARAMS        \
    {                                                                                    \
        if (!dc_enter_unguarded())      /* the thin entry tested the guard */            \
            return DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,  \
                           blockDimZ, sharedMemBytes, hStream, kernelParams, extra);     \
        struct dc_launch_state L;                                                        \
        dc_launch_begin(&L, #name, f, hStream, kernelParams, extra);                     \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, L.args, L.extra);       \
        dc_launch_end(&L, r == CUDA_SUCCESS);                                            \
        dc_leave();                                                                      \
        return r;                                                                        \
    }                                                                                    \
    THIN_ENTRY_LIB(name, DRIVER_LAUNCH_PARAMS, (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                                                blockDimZ, sharedMemBytes, hStream, kernelParams, extra))
LAUNCH_KERNEL(cuLaunchKernel)
LAUNCH_KERNEL(cuLaunchKernel_ptsz)

#define LAUNCH_KERNEL_EX(name)                                                           \
    static __attribute__((noinline)) CUresult checked_##name(const CUlaunchConfig *config, CUfunction f, \
                                                             void **kernelParams, void **extra); \
    static __attribute__((noinline)) CUresult expected_##name(const CUlaunchConfig *config, CUfunction f, \
                                                              void **kernelParams, void **extra) \
    {                                                                                    \
        if (__builtin_expect(!__atomic_load_n(&dc_interpose, __ATOMIC_RELAXED) || !config, 0)) \
            dc_lib_expect = 0;                                                           \
        else if (dc_libcall_launch_expected(f, (uintptr_t)config->hStream, kernelParams)) { \
            dc_guard++;                                                                  \
            CUresult r = DC_REAL(name, config, f, kernelParams, extra);                  \
            dc_guard--;                                                                  \
            return r;                                                                    \
        }                                                                                \
        return checked_##name(config, f, kernelParams, extra);                           \
    }                                                                                    \
    static __attribute__((noinline)) CUresult checked_##name(const CUlaunchConfig *config, CUfunction f, \
                                                             void **kernelParams, void **extra) \
    {                                                                                    \
        if (!dc_enter_unguarded())      /* the thin entry tested the guard */            \
            return DC_REAL(name, config, f, kernelParams, extra);                        \
        struct dc_launch_state L;                                                        \
        dc_launch_begin(&L, #name, config ? f : NULL, config ? config->hStream : NULL,   \
                        kernelParams, extra);                                            \
        CUresult r = DC_REAL(name, config, f, L.args, L.extra);                          \
        dc_launch_end(&L, r == CUDA_SUCCESS);                                            \
        dc_leave();                                                                      \
        return r;                                                                        \
    }                                                                                    \
    THIN_ENTRY_LIB(name, (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra), \
                   (config, f, kernelParams, extra))
LAUNCH_KERNEL_EX(cuLaunchKernelEx)
LAUNCH_KERNEL_EX(cuLaunchKernelEx_ptsz)

#define COOPERATIVE_PARAMS                                                                \
    (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,   \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,              \
     unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
#define LAUNCH_COOPERATIVE(name)                                                         \
    static __attribute__((noinline)) CUresult checked_##name COOPERATIVE_PARAMS          \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,  \
                           blockDimZ, sharedMemBytes, hStream, kernelParams);            \
        struct dc_launch_state L;                                                        \
        dc_launch_begin(&L, #name, f, hStream, kernelParams, NULL);                      \
        CUresult r = DC_REAL(name, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                             blockDimZ, sharedMemBytes, hStream, L.args);                \
        dc_launch_end(&L, r == CUDA_SUCCESS);                                            \
        dc_leave();                                                                      \
        return r;                                                                        \
    }                                                                                    \
    THIN_ENTRY(name, COOPERATIVE_PARAMS, (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, \
                                          blockDimZ, sharedMemBytes, hStream, kernelParams))
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel)
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel_ptsz)

/* --- graph kernel nodes: checked when the node is created or changed ------- */

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

/* --- stream capture: recorded after the real call (core/verdict/capture.c) ----------- */

/* The stream as the core keys it: a _ptsz entry point's NULL stream is the
 * per-thread stream. */
#define PTSZ_STREAM(s) ((s) ? (s) : CU_STREAM_PER_THREAD)

#define BEGIN_CAPTURE(name, params, args, stream, mode)                   \
    DC_EXPORT CUresult CUDAAPI name params                                \
    {                                                                     \
        if (!dc_enter())                                                  \
            return DC_REAL(name, DC_UNPAREN args);                        \
        CUresult r = DC_REAL(name, DC_UNPAREN args);                      \
        if (r == CUDA_SUCCESS)                                            \
            dc_capture_begin(stream, mode);                               \
        dc_leave();                                                       \
        return r;                                                         \
    }
/* cuStreamBeginCapture without a mode is the CUDA 10.0 ABI: global mode. */
BEGIN_CAPTURE(cuStreamBeginCapture, (CUstream hStream), (hStream), hStream, CU_STREAM_CAPTURE_MODE_GLOBAL)
BEGIN_CAPTURE(cuStreamBeginCapture_ptsz, (CUstream hStream), (hStream), PTSZ_STREAM(hStream),
              CU_STREAM_CAPTURE_MODE_GLOBAL)
BEGIN_CAPTURE(cuStreamBeginCapture_v2, (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode), hStream, mode)
BEGIN_CAPTURE(cuStreamBeginCapture_v2_ptsz, (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode),
              PTSZ_STREAM(hStream), mode)
BEGIN_CAPTURE(cuStreamBeginCaptureToGraph,
              (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
               const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),
              (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), hStream, mode)
BEGIN_CAPTURE(cuStreamBeginCaptureToGraph_ptsz,
              (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
               const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),
              (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), PTSZ_STREAM(hStream), mode)

DC_EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    if (!dc_enter())
        return DC_REAL(cuStreamEndCapture, hStream, phGraph);
    CUresult r = DC_REAL(cuStreamEndCapture, hStream, phGraph);
    dc_capture_end(hStream);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    if (!dc_enter())
        return DC_REAL(cuStreamEndCapture_ptsz, hStream, phGraph);
    CUresult r = DC_REAL(cuStreamEndCapture_ptsz, hStream, phGraph);
    dc_capture_end(PTSZ_STREAM(hStream));
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    if (!dc_enter())
        return DC_REAL(cuModuleUnload, hmod);
    CUresult r = DC_REAL(cuModuleUnload, hmod);
    dc_kernels_unloaded();
    if (r == CUDA_SUCCESS)
        dc_image_unloaded(hmod);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    if (!dc_enter())
        return DC_REAL(cuLibraryUnload, library);
    CUresult r = DC_REAL(cuLibraryUnload, library);
    dc_kernels_unloaded();
    if (r == CUDA_SUCCESS)
        dc_image_unloaded(library);
    dc_leave();
    return r;
}
