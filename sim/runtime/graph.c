/* graph.c: the runtime's graph and stream-capture API over the driver's.
 *
 * cudaGraph_t, cudaGraphNode_t and cudaGraphExec_t are the driver's handles.
 * Node parameters are translated field by field where the runtime's
 * structures differ from the driver's (kernel nodes take a host stub, which
 * becomes the registered CUkernel and comes back as the stub; 3D copies take
 * cudaMemcpy3DParms), and cast where they are the same bytes (asserted
 * below).  Captures and launches use the per-thread driver variants in the
 * _ptsz entry points. */
#include <stdint.h>
#include <string.h>

#include "rt.h"

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

_Static_assert(sizeof(struct cudaMemsetParams) == sizeof(CUDA_MEMSET_NODE_PARAMS), "memset node layouts differ");
_Static_assert(sizeof(struct cudaHostNodeParams) == sizeof(CUDA_HOST_NODE_PARAMS), "host node layouts differ");
_Static_assert(sizeof(struct cudaMemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS), "alloc node layouts differ");
_Static_assert(offsetof(struct cudaMemAllocNodeParams, dptr) == offsetof(CUDA_MEM_ALLOC_NODE_PARAMS, dptr),
               "alloc node layouts differ");
_Static_assert(sizeof(struct cudaMemPoolProps) == sizeof(CUmemPoolProps), "pool props layouts differ");
_Static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS), "instantiate params differ");
_Static_assert(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(CUgraphExecUpdateResultInfo), "update info differs");
_Static_assert((int)cudaGraphNodeTypeMemAlloc == (int)CU_GRAPH_NODE_TYPE_MEM_ALLOC, "node types differ");
_Static_assert((int)cudaGraphMemAttrReservedMemHigh == (int)CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, "attributes differ");
_Static_assert((int)cudaGraphExecUpdateErrorAttributesChanged == (int)CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED,
               "update results differ");

/* ---- graphs ---------------------------------------------------------- */

RT_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    if (!pGraph)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphCreate, pGraph, flags)));
}

RT_API cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphDestroy, graph)));
}

RT_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphClone, pGraphClone, originalGraph)));
}

RT_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode, cudaGraph_t clonedGraph)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphNodeFindInClone, pNode, originalNode, clonedGraph)));
}

RT_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    if (!pType)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUgraphNodeType t;
    RT_TRY(rt_err(CU(cuGraphNodeGetType, node, &t)));
    *pType = (enum cudaGraphNodeType)t;
    return cudaSuccess;
}

RT_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphGetNodes, graph, nodes, numNodes)));
}

RT_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphGetRootNodes, graph, pRootNodes, pNumRootNodes)));
}

RT_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphGetEdges, graph, from, to, (CUgraphEdgeData *)edgeData, numEdges)));
}

RT_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphNodeGetDependencies, node, pDependencies, (CUgraphEdgeData *)edgeData,
                            pNumDependencies)));
}

RT_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                  cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphNodeGetDependentNodes, node, pDependentNodes, (CUgraphEdgeData *)edgeData,
                            pNumDependentNodes)));
}

RT_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddDependencies, graph, from, to, (const CUgraphEdgeData *)edgeData,
                            numDependencies)));
}

RT_API cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                               size_t numDependencies)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphRemoveDependencies, graph, from, to, (const CUgraphEdgeData *)edgeData,
                            numDependencies)));
}

RT_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphDestroyNode, node)));
}

/* ---- kernel nodes ----------------------------------------------------- */

static cudaError_t kernel_params(const struct cudaKernelNodeParams *p, CUDA_KERNEL_NODE_PARAMS *k)
{
    if (!p)
        return cudaErrorInvalidValue;
    CUkernel kern = NULL;
    cudaError_t e = rt_kernel(p->func, &kern);
    if (e != cudaSuccess)
        return e;
    memset(k, 0, sizeof *k);
    k->func = (CUfunction)(void *)kern;    /* the driver takes a CUkernel here */
    k->gridDimX = p->gridDim.x;
    k->gridDimY = p->gridDim.y;
    k->gridDimZ = p->gridDim.z;
    k->blockDimX = p->blockDim.x;
    k->blockDimY = p->blockDim.y;
    k->blockDimZ = p->blockDim.z;
    k->sharedMemBytes = p->sharedMemBytes;
    k->kernelParams = p->kernelParams;
    k->extra = p->extra;
    return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                          const struct cudaKernelNodeParams *pNodeParams)
{
    RT_TRY(rt_ctx());
    CUDA_KERNEL_NODE_PARAMS k;
    RT_TRY(kernel_params(pNodeParams, &k));
    return rt_ret(rt_err(CU(cuGraphAddKernelNode, pGraphNode, graph, pDependencies, numDependencies, &k)));
}

RT_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams)
{
    if (!pNodeParams)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUDA_KERNEL_NODE_PARAMS k;
    RT_TRY(rt_err(CU(cuGraphKernelNodeGetParams, node, &k)));
    memset(pNodeParams, 0, sizeof *pNodeParams);
    pNodeParams->func = (void *)rt_kernel_host((CUkernel)(void *)(k.func ? (void *)k.func : (void *)k.kern));
    pNodeParams->gridDim = (dim3){ k.gridDimX, k.gridDimY, k.gridDimZ };
    pNodeParams->blockDim = (dim3){ k.blockDimX, k.blockDimY, k.blockDimZ };
    pNodeParams->sharedMemBytes = k.sharedMemBytes;
    pNodeParams->kernelParams = k.kernelParams;
    pNodeParams->extra = k.extra;
    return cudaSuccess;
}

RT_API cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams)
{
    RT_TRY(rt_ctx());
    CUDA_KERNEL_NODE_PARAMS k;
    RT_TRY(kernel_params(pNodeParams, &k));
    return rt_ret(rt_err(CU(cuGraphKernelNodeSetParams, node, &k)));
}

RT_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const struct cudaKernelNodeParams *pNodeParams)
{
    RT_TRY(rt_ctx());
    CUDA_KERNEL_NODE_PARAMS k;
    RT_TRY(kernel_params(pNodeParams, &k));
    return rt_ret(rt_err(CU(cuGraphExecKernelNodeSetParams, hGraphExec, node, &k)));
}

/* ---- copy, set, host, empty, child, event nodes ---------------------- */

static CUcontext current(void)
{
    CUcontext c = NULL;
    CU(cuCtxGetCurrent, &c);
    return c;
}

static void copy1d(CUDA_MEMCPY3D *m, void *dst, const void *src, size_t count)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = CU_MEMORYTYPE_UNIFIED;     /* the sim's addresses are unified */
    m->srcDevice = DPTR(src);
    m->dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    m->dstDevice = DPTR(dst);
    m->WidthInBytes = count;
    m->Height = 1;
    m->Depth = 1;
}

RT_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                          const struct cudaMemcpy3DParms *pCopyParams)
{
    RT_TRY(rt_ctx());
    CUDA_MEMCPY3D m;
    RT_TRY(rt_memcpy3d_params(pCopyParams, &m));
    return rt_ret(rt_err(CU(cuGraphAddMemcpyNode, pGraphNode, graph, pDependencies, numDependencies, &m, current())));
}

RT_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                            const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    RT_TRY(rt_ctx());
    CUDA_MEMCPY3D m;
    copy1d(&m, dst, src, count);
    return rt_ret(rt_err(CU(cuGraphAddMemcpyNode, pGraphNode, graph, pDependencies, numDependencies, &m, current())));
}

RT_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams)
{
    if (!pNodeParams)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUDA_MEMCPY3D m;
    RT_TRY(rt_err(CU(cuGraphMemcpyNodeGetParams, node, &m)));
    memset(pNodeParams, 0, sizeof *pNodeParams);
    void *src = m.srcMemoryType == CU_MEMORYTYPE_HOST ? (void *)(uintptr_t)m.srcHost : (void *)(uintptr_t)m.srcDevice;
    void *dst = m.dstMemoryType == CU_MEMORYTYPE_HOST ? m.dstHost : (void *)(uintptr_t)m.dstDevice;
    pNodeParams->srcPtr = (struct cudaPitchedPtr){ src, m.srcPitch, m.WidthInBytes, m.srcHeight };
    pNodeParams->dstPtr = (struct cudaPitchedPtr){ dst, m.dstPitch, m.WidthInBytes, m.dstHeight };
    pNodeParams->srcPos = (struct cudaPos){ m.srcXInBytes, m.srcY, m.srcZ };
    pNodeParams->dstPos = (struct cudaPos){ m.dstXInBytes, m.dstY, m.dstZ };
    pNodeParams->extent = (struct cudaExtent){ m.WidthInBytes, m.Height, m.Depth };
    pNodeParams->kind = cudaMemcpyDefault;
    return cudaSuccess;
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams)
{
    RT_TRY(rt_init());
    CUDA_MEMCPY3D m;
    RT_TRY(rt_memcpy3d_params(pNodeParams, &m));
    return rt_ret(rt_err(CU(cuGraphMemcpyNodeSetParams, node, &m)));
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count,
                                                  enum cudaMemcpyKind kind)
{
    (void)kind;
    RT_TRY(rt_init());
    CUDA_MEMCPY3D m;
    copy1d(&m, dst, src, count);
    return rt_ret(rt_err(CU(cuGraphMemcpyNodeSetParams, node, &m)));
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const struct cudaMemcpy3DParms *pNodeParams)
{
    RT_TRY(rt_ctx());
    CUDA_MEMCPY3D m;
    RT_TRY(rt_memcpy3d_params(pNodeParams, &m));
    return rt_ret(rt_err(CU(cuGraphExecMemcpyNodeSetParams, hGraphExec, node, &m, current())));
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
                                                      const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    RT_TRY(rt_ctx());
    CUDA_MEMCPY3D m;
    copy1d(&m, dst, src, count);
    return rt_ret(rt_err(CU(cuGraphExecMemcpyNodeSetParams, hGraphExec, node, &m, current())));
}

RT_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                          const struct cudaMemsetParams *pMemsetParams)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuGraphAddMemsetNode, pGraphNode, graph, pDependencies, numDependencies,
                            (const CUDA_MEMSET_NODE_PARAMS *)pMemsetParams, current())));
}

RT_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphMemsetNodeGetParams, node, (CUDA_MEMSET_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphMemsetNodeSetParams, node, (const CUDA_MEMSET_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const struct cudaMemsetParams *pNodeParams)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuGraphExecMemsetNodeSetParams, hGraphExec, node,
                            (const CUDA_MEMSET_NODE_PARAMS *)pNodeParams, current())));
}

RT_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                        const struct cudaHostNodeParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddHostNode, pGraphNode, graph, pDependencies, numDependencies,
                            (const CUDA_HOST_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphHostNodeGetParams, node, (CUDA_HOST_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphHostNodeSetParams, node, (const CUDA_HOST_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                  const struct cudaHostNodeParams *pNodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphExecHostNodeSetParams, hGraphExec, node, (const CUDA_HOST_NODE_PARAMS *)pNodeParams)));
}

RT_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddEmptyNode, pGraphNode, graph, pDependencies, numDependencies)));
}

RT_API cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                              cudaGraph_t childGraph)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddChildGraphNode, pGraphNode, graph, pDependencies, numDependencies, childGraph)));
}

RT_API cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphChildGraphNodeGetGraph, node, pGraph)));
}

RT_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               cudaEvent_t event)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddEventRecordNode, pGraphNode, graph, pDependencies, numDependencies, event)));
}

RT_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             cudaEvent_t event)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddEventWaitNode, pGraphNode, graph, pDependencies, numDependencies, event)));
}

/* ---- graph memory ----------------------------------------------------- */

RT_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                            struct cudaMemAllocNodeParams *nodeParams)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddMemAllocNode, pGraphNode, graph, pDependencies, numDependencies,
                            (CUDA_MEM_ALLOC_NODE_PARAMS *)nodeParams)));
}

RT_API cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphMemAllocNodeGetParams, node, (CUDA_MEM_ALLOC_NODE_PARAMS *)params_out)));
}

RT_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphAddMemFreeNode, pGraphNode, graph, pDependencies, numDependencies, DPTR(dptr))));
}

RT_API cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    if (!dptr_out)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CU(cuGraphMemFreeNodeGetParams, node, &p)));
    *(void **)dptr_out = (void *)(uintptr_t)p;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGetGraphMemAttribute, rt_cudev(device), (CUgraphMem_attribute)attr, value)));
}

RT_API cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceSetGraphMemAttribute, rt_cudev(device), (CUgraphMem_attribute)attr, value)));
}

RT_API cudaError_t cudaDeviceGraphMemTrim(int device)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGraphMemTrim, rt_cudev(device))));
}

/* ---- executable graphs ------------------------------------------------ */

RT_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuGraphInstantiateWithFlags, pGraphExec, graph, flags)));
}

RT_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuGraphInstantiateWithFlags, pGraphExec, graph, flags)));
}

static cudaError_t instantiate_params(int pt, cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                      cudaGraphInstantiateParams *p)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuGraphInstantiateWithParams, pGraphExec, graph, (CUDA_GRAPH_INSTANTIATE_PARAMS *)p)));
}
RT_API cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams *instantiateParams)
{
    return instantiate_params(0, pGraphExec, graph, instantiateParams);
}
RT_API cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                       cudaGraphInstantiateParams *instantiateParams)
{
    return instantiate_params(1, pGraphExec, graph, instantiateParams);
}

RT_API cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphExecGetFlags, graphExec, (cuuint64_t *)flags)));
}

RT_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphExecDestroy, graphExec)));
}

RT_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                       cudaGraphExecUpdateResultInfo *resultInfo)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuGraphExecUpdate, hGraphExec, hGraph, (CUgraphExecUpdateResultInfo *)resultInfo)));
}

static cudaError_t launch_impl(int pt, cudaGraphExec_t graphExec, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuGraphLaunch, graphExec, stream)));
}
RT_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) { return launch_impl(0, graphExec, stream); }
RT_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) { return launch_impl(1, graphExec, stream); }

static cudaError_t upload_impl(int pt, cudaGraphExec_t graphExec, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuGraphUpload, graphExec, stream)));
}
RT_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) { return upload_impl(0, graphExec, stream); }
RT_API cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) { return upload_impl(1, graphExec, stream); }

/* ---- stream capture --------------------------------------------------- */

static cudaError_t begin_impl(int pt, cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamBeginCapture, stream, (CUstreamCaptureMode)mode)));
}
RT_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) { return begin_impl(0, stream, mode); }
RT_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) { return begin_impl(1, stream, mode); }

static cudaError_t begin_to_graph(int pt, cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                  const cudaGraphEdgeData *data, size_t n, enum cudaStreamCaptureMode mode)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamBeginCaptureToGraph, stream, graph, deps, (const CUgraphEdgeData *)data, n,
                              (CUstreamCaptureMode)mode)));
}
RT_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                                 const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                                 enum cudaStreamCaptureMode mode)
{
    return begin_to_graph(0, stream, graph, dependencies, dependencyData, numDependencies, mode);
}
RT_API cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                      const cudaGraphNode_t *dependencies,
                                                      const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                                      enum cudaStreamCaptureMode mode)
{
    return begin_to_graph(1, stream, graph, dependencies, dependencyData, numDependencies, mode);
}

static cudaError_t end_impl(int pt, cudaStream_t stream, cudaGraph_t *pGraph)
{
    if (!pGraph)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamEndCapture, stream, pGraph)));
}
RT_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) { return end_impl(0, stream, pGraph); }
RT_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) { return end_impl(1, stream, pGraph); }
