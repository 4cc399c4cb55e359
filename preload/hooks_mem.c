/* hooks_mem: the allocation, free, access-grant, peer-access and context
 * hooks.  Each passes the call through and describes it to the core
 * (core/core.h): the memory and context events, recorded after the real call
 * succeeded; a free taken off the registry before it and put back if it
 * failed. */
#include "preload/preload.h"

/* Free: remove first, restore if the real free failed. */
#define FREE_HOOK(call, base)                                             \
    do {                                                                  \
        struct dc_alloc old_;                                             \
        int had_ = dc_mem_free_begin((uintptr_t)(base), &old_);           \
        r = (call);                                                       \
        dc_mem_free_end(had_, &old_, r == CUDA_SUCCESS);                  \
    } while (0)

DC_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    if (!dc_enter())
        return DC_REAL(cuMemAlloc_v2, dptr, bytesize);
    CUresult r = DC_REAL(cuMemAlloc_v2, dptr, bytesize);
    if (r == CUDA_SUCCESS && dptr)
        dc_mem_alloc_hooked(*dptr, bytesize, DC_MEM_DEVICE);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                              size_t Height, unsigned int ElementSizeBytes)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocPitch_v2, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    CUresult r = DC_REAL(cuMemAllocPitch_v2, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    if (r == CUDA_SUCCESS && dptr && pPitch)
        dc_mem_alloc_hooked(*dptr, *pPitch * Height, DC_MEM_DEVICE);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocManaged, dptr, bytesize, flags);
    CUresult r = DC_REAL(cuMemAllocManaged, dptr, bytesize, flags);
    if (r == CUDA_SUCCESS && dptr)
        dc_mem_alloc_hooked(*dptr, bytesize, DC_MEM_MANAGED);
    dc_leave();
    return r;
}

#define ALLOC_ASYNC(name)                                                       \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, bytesize, hStream);                      \
        CUresult r = DC_REAL(name, dptr, bytesize, hStream);                    \
        if (r == CUDA_SUCCESS && dptr)                                          \
            dc_mem_pool_alloc(*dptr, bytesize, NULL, hStream);                  \
        dc_leave();                                                             \
        return r;                                                               \
    }
ALLOC_ASYNC(cuMemAllocAsync)
ALLOC_ASYNC(cuMemAllocAsync_ptsz)

#define ALLOC_FROM_POOL(name)                                                   \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, bytesize, pool, hStream);                \
        CUresult r = DC_REAL(name, dptr, bytesize, pool, hStream);              \
        if (r == CUDA_SUCCESS && dptr)                                          \
            dc_mem_pool_alloc(*dptr, bytesize, pool, hStream);                  \
        dc_leave();                                                             \
        return r;                                                               \
    }
ALLOC_FROM_POOL(cuMemAllocFromPoolAsync)
ALLOC_FROM_POOL(cuMemAllocFromPoolAsync_ptsz)

DC_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    if (!dc_enter())
        return DC_REAL(cuMemFree_v2, dptr);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemFree_v2, dptr), dptr);
    dc_leave();
    return r;
}

#define FREE_ASYNC(name)                                                        \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr dptr, CUstream hStream)         \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, hStream);                                \
        CUresult r;                                                             \
        FREE_HOOK(DC_REAL(name, dptr, hStream), dptr);                          \
        dc_leave();                                                             \
        return r;                                                               \
    }
FREE_ASYNC(cuMemFreeAsync)
FREE_ASYNC(cuMemFreeAsync_ptsz)

DC_EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostAlloc, pp, bytesize, Flags);
    CUresult r = DC_REAL(cuMemHostAlloc, pp, bytesize, Flags);
    if (r == CUDA_SUCCESS && pp)
        dc_mem_host((uintptr_t)*pp, bytesize, DC_MEM_HOST_PINNED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocHost_v2, pp, bytesize);
    CUresult r = DC_REAL(cuMemAllocHost_v2, pp, bytesize);
    if (r == CUDA_SUCCESS && pp)
        dc_mem_host((uintptr_t)*pp, bytesize, DC_MEM_HOST_PINNED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
    if (!dc_enter())
        return DC_REAL(cuMemFreeHost, p);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemFreeHost, p), p);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostRegister_v2, p, bytesize, Flags);
    CUresult r = DC_REAL(cuMemHostRegister_v2, p, bytesize, Flags);
    if (r == CUDA_SUCCESS)
        dc_mem_host((uintptr_t)p, bytesize, DC_MEM_HOST_REGISTERED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostUnregister, p);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemHostUnregister, p), p);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuIpcOpenMemHandle_v2, pdptr, handle, Flags);
    CUresult r = DC_REAL(cuIpcOpenMemHandle_v2, pdptr, handle, Flags);
    if (r == CUDA_SUCCESS && pdptr)
        dc_mem_ipc_open(*pdptr, Flags);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    if (!dc_enter())
        return DC_REAL(cuIpcCloseMemHandle, dptr);
    CUresult r;
    FREE_HOOK(DC_REAL(cuIpcCloseMemHandle, dptr), dptr);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolCreate, pool, poolProps);
    CUresult r = DC_REAL(cuMemPoolCreate, pool, poolProps);
    /* The pool's own device may always access it; other devices only by
     * cuMemPoolSetAccess.  The registry's owner check covers the former. */
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolSetAccess, pool, map, count);
    CUresult r = DC_REAL(cuMemPoolSetAccess, pool, map, count);
    if (r == CUDA_SUCCESS)
        dc_mem_pool_access(pool, map, count);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                                  CUmemPoolPtrExportData *shareData)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolImportPointer, ptr_out, pool, shareData);
    CUresult r = DC_REAL(cuMemPoolImportPointer, ptr_out, pool, shareData);
    if (r == CUDA_SUCCESS && ptr_out)
        dc_mem_pool_import(*ptr_out, pool);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                  const CUgraphNode *dependencies, size_t numDependencies,
                                                  CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphAddMemAllocNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    CUresult r = DC_REAL(cuGraphAddMemAllocNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    if (r == CUDA_SUCCESS && nodeParams)
        dc_mem_graph_alloc_node(nodeParams);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                       const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemCreate, handle, size, prop, flags);
    CUresult r = DC_REAL(cuMemCreate, handle, size, prop, flags);
    if (r == CUDA_SUCCESS && handle && prop)
        dc_mem_vmm_create(*handle, prop);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    if (!dc_enter())
        return DC_REAL(cuMemRelease, handle);
    CUresult r = DC_REAL(cuMemRelease, handle);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_release(handle);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                                    CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemMap, ptr, size, offset, handle, flags);
    CUresult r = DC_REAL(cuMemMap, ptr, size, offset, handle, flags);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_map(ptr, size, handle);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    if (!dc_enter())
        return DC_REAL(cuMemUnmap, ptr, size);
    CUresult r = DC_REAL(cuMemUnmap, ptr, size);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_unmap((uintptr_t)ptr, size);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                               CUdeviceptr addr, unsigned long long flags)
{
    /* A reservation has no backing: nothing a kernel may touch until mapped,
     * so nothing to record; hooked so the address space is seen whole. */
    if (!dc_enter())
        return DC_REAL(cuMemAddressReserve, ptr, size, alignment, addr, flags);
    CUresult r = DC_REAL(cuMemAddressReserve, ptr, size, alignment, addr, flags);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    if (!dc_enter())
        return DC_REAL(cuMemAddressFree, ptr, size);
    CUresult r = DC_REAL(cuMemAddressFree, ptr, size);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_unmap((uintptr_t)ptr, size);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    if (!dc_enter())
        return DC_REAL(cuMemSetAccess, ptr, size, desc, count);
    CUresult r = DC_REAL(cuMemSetAccess, ptr, size, desc, count);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_set_access(ptr, size, desc, count);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuCtxEnablePeerAccess, peerContext, Flags);
    CUresult r = DC_REAL(cuCtxEnablePeerAccess, peerContext, Flags);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        dc_ctx_peer_access(peerContext, 1);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    if (!dc_enter())
        return DC_REAL(cuCtxDisablePeerAccess, peerContext);
    CUresult r = DC_REAL(cuCtxDisablePeerAccess, peerContext);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
        dc_ctx_peer_access(peerContext, 0);
    dc_leave();
    return r;
}

/* The pointer query Triton's launcher makes for every tensor (and CuPy,
 * cuda-python's users): a refusal of DEVICE_POINTER for memory devcheck
 * knows is on another device is remembered for the framework's error that
 * follows (core/verdict/framework.c, pointer_refused); nothing else. */
DC_EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    if (!dc_enter())
        return DC_REAL(cuPointerGetAttribute, data, attribute, ptr);
    CUresult r = DC_REAL(cuPointerGetAttribute, data, attribute, ptr);
    if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER) {
        if (__builtin_expect(r == CUDA_ERROR_INVALID_VALUE, 0))
            dc_pointer_refused((uintptr_t)ptr);
        else if (r == CUDA_SUCCESS)
            dc_pointer_accepted((uintptr_t)ptr);
    }
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    if (!dc_enter())
        return DC_REAL(cuCtxDestroy_v2, ctx);
    CUresult r = DC_REAL(cuCtxDestroy_v2, ctx);
    if (r == CUDA_SUCCESS)
        dc_ctx_destroyed(ctx);
    dc_leave();
    return r;
}

/* Whoever destroys it (a library inside its own call too): the cached
 * stream devices are stale once it returned. */
DC_EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUresult r = DC_REAL(cuStreamDestroy_v2, hStream);
    if (r == CUDA_SUCCESS)
        dc_stream_gone();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    if (!dc_enter())
        return DC_REAL(cuDevicePrimaryCtxReset_v2, dev);
    CUcontext primary = dc_primary_context(dev);    /* the reset destroys it */
    CUresult r = DC_REAL(cuDevicePrimaryCtxReset_v2, dev);
    if (r == CUDA_SUCCESS)
        dc_ctx_destroyed(primary);
    dc_leave();
    return r;
}

/* --- the current context -------------------------------------------------------- *
 * Passed through, without the guard (what the call does inside, e.g. a
 * runtime's first initialisation, is seen as without devcheck); afterwards,
 * devcheck or not, the per-thread caches of the current device are asked
 * again (core/base/cudacall.h).  dc_enter() first: the real pointers are bound. */
#define CURRENT_HOOK(name, params, args)                                          \
    DC_EXPORT CUresult CUDAAPI name params                                        \
    {                                                                             \
        if (dc_enter())                                                           \
            dc_leave();                                                           \
        CUresult r = DC_REAL args;                                                \
        dc_ctx_current_changed();                                                 \
        return r;                                                                 \
    }
CURRENT_HOOK(cuCtxSetCurrent, (CUcontext ctx), (cuCtxSetCurrent, ctx))
CURRENT_HOOK(cuCtxPushCurrent_v2, (CUcontext ctx), (cuCtxPushCurrent_v2, ctx))
CURRENT_HOOK(cuCtxPopCurrent_v2, (CUcontext *pctx), (cuCtxPopCurrent_v2, pctx))
CURRENT_HOOK(cuCtxCreate_v2, (CUcontext *pctx, unsigned int flags, CUdevice dev), (cuCtxCreate_v2, pctx, flags, dev))
CURRENT_HOOK(cuCtxCreate_v3, (CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags,
                              CUdevice dev), (cuCtxCreate_v3, pctx, paramsArray, numParams, flags, dev))
CURRENT_HOOK(cuCtxCreate_v4, (CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev),
             (cuCtxCreate_v4, pctx, ctxCreateParams, flags, dev))
CURRENT_HOOK(cuDevicePrimaryCtxRelease_v2, (CUdevice dev), (cuDevicePrimaryCtxRelease_v2, dev))
