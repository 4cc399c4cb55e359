/* device.c: device management on primary contexts, peer access, pools of a
 * device.  The runtime's current device is per thread: cudaSetDevice makes
 * that device's primary context current on the calling thread. */
#include <stdlib.h>
#include <string.h>

#include <cuda_profiler_api.h>

#include "rt.h"

RT_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return rt_ret(cudaErrorInvalidValue);
    *count = 0;
    RT_TRY(rt_init());
    *count = rt_ndev;
    return cudaSuccess;
}

RT_API cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return rt_ret(cudaErrorInvalidValue);
    return rt_ret(rt_current_device(device));
}

RT_API cudaError_t cudaSetDevice(int device)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    CUcontext c = NULL;
    RT_TRY(rt_primary(device, &c));
    RT_TRY(rt_err(CU(cuCtxSetCurrent, c)));
    rt_set_thread_device(device);
    return cudaSuccess;
}

RT_API cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    (void)flags;
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    if (deviceFlags)
        RT_TRY(rt_err(CU(cuDevicePrimaryCtxSetFlags, rt_cudev(device), deviceFlags)));
    CUcontext c = NULL;
    return rt_ret(rt_primary(device, &c));
}

static cudaError_t attr(int *v, CUdevice_attribute a, int dev)
{
    return rt_err(CU(cuDeviceGetAttribute, v, a, rt_cudev(dev)));
}

RT_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr_, int device)
{
    if (!value)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    /* cudaDeviceAttr and CUdevice_attribute share their numbering. */
    return rt_ret(attr(value, (CUdevice_attribute)attr_, device));
}

RT_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    CUdevice d = rt_cudev(device);
    RT_TRY(rt_err(CU(cuDeviceGetName, prop->name, (int)sizeof prop->name, d)));
    prop->name[sizeof prop->name - 1] = 0;
    CUuuid uuid;
    if (CU(cuDeviceGetUuid, &uuid, d) == CUDA_SUCCESS)
        memcpy(prop->uuid.bytes, uuid.bytes, sizeof prop->uuid.bytes);
    size_t total = 0;
    RT_TRY(rt_err(CU(cuDeviceTotalMem, &total, d)));
    prop->totalGlobalMem = total;
    int v;
#define I(field, a) if (attr(&v, CU_DEVICE_ATTRIBUTE_##a, device) == cudaSuccess) prop->field = v;
#define Z(field, a) if (attr(&v, CU_DEVICE_ATTRIBUTE_##a, device) == cudaSuccess) prop->field = (size_t)v;
    Z(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK)
    I(regsPerBlock, MAX_REGISTERS_PER_BLOCK)
    I(warpSize, WARP_SIZE)
    Z(memPitch, MAX_PITCH)
    I(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK)
    I(maxThreadsDim[0], MAX_BLOCK_DIM_X)
    I(maxThreadsDim[1], MAX_BLOCK_DIM_Y)
    I(maxThreadsDim[2], MAX_BLOCK_DIM_Z)
    I(maxGridSize[0], MAX_GRID_DIM_X)
    I(maxGridSize[1], MAX_GRID_DIM_Y)
    I(maxGridSize[2], MAX_GRID_DIM_Z)
    Z(totalConstMem, TOTAL_CONSTANT_MEMORY)
    I(major, COMPUTE_CAPABILITY_MAJOR)
    I(minor, COMPUTE_CAPABILITY_MINOR)
    Z(textureAlignment, TEXTURE_ALIGNMENT)
    Z(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT)
    I(multiProcessorCount, MULTIPROCESSOR_COUNT)
    I(integrated, INTEGRATED)
    I(canMapHostMemory, CAN_MAP_HOST_MEMORY)
    Z(surfaceAlignment, SURFACE_ALIGNMENT)
    I(concurrentKernels, CONCURRENT_KERNELS)
    I(ECCEnabled, ECC_ENABLED)
    I(pciBusID, PCI_BUS_ID)
    I(pciDeviceID, PCI_DEVICE_ID)
    I(pciDomainID, PCI_DOMAIN_ID)
    I(tccDriver, TCC_DRIVER)
    I(asyncEngineCount, ASYNC_ENGINE_COUNT)
    I(unifiedAddressing, UNIFIED_ADDRESSING)
    I(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH)
    I(l2CacheSize, L2_CACHE_SIZE)
    I(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE)
    I(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR)
    I(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED)
    I(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED)
    I(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED)
    Z(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    I(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR)
    I(managedMemory, MANAGED_MEMORY)
    I(isMultiGpuBoard, MULTI_GPU_BOARD)
    I(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID)
    I(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED)
    I(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS)
    I(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS)
    I(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED)
    I(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM)
    I(cooperativeLaunch, COOPERATIVE_LAUNCH)
    Z(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    I(pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES)
    I(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST)
    I(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR)
    I(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE)
    Z(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK)
    I(hostRegisterSupported, HOST_REGISTER_SUPPORTED)
    I(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED)
    I(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED)
    I(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED)
    I(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED)
    I(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED)
    I(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS)
    I(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING)
    I(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES)
    I(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED)
    I(ipcEventSupported, IPC_EVENT_SUPPORTED)
    I(clusterLaunch, CLUSTER_LAUNCH)
    I(unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS)
    I(deviceNumaConfig, NUMA_CONFIG)
    I(deviceNumaId, NUMA_ID)
    I(mpsEnabled, MPS_ENABLED)
    I(hostNumaId, HOST_NUMA_ID)
#undef I
#undef Z
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceSynchronize(void)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuCtxSynchronize)));
}

RT_API cudaError_t cudaDeviceReset(void)
{
    int dev = 0;
    RT_TRY(rt_current_device(&dev));
    RT_TRY(rt_ctx());
    CUcontext cur = NULL, p = NULL;
    (void)CU(cuCtxGetCurrent, &cur);
    (void)rt_primary(dev, &p);
    cudaError_t e = rt_err(CU(cuDevicePrimaryCtxReset, rt_cudev(dev)));
    /* The reset context is gone: the next call retains it afresh.  Our
     * retain reference went with it. */
    rt_primary_forget(dev);
    if (cur && cur == p)
        (void)CU(cuCtxSetCurrent, NULL);
    rt_set_thread_device(dev);
    rt_clear_thread_error();
    return rt_ret(e);
}

RT_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    int dev = 0;
    RT_TRY(rt_current_device(&dev));
    /* cudaDeviceMapHost is always on with unified addressing. */
    return rt_ret(rt_err(CU(cuDevicePrimaryCtxSetFlags, rt_cudev(dev), flags & ~(unsigned)cudaDeviceMapHost)));
}

RT_API cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return rt_ret(cudaErrorInvalidValue);
    int dev = 0, active = 0;
    RT_TRY(rt_current_device(&dev));
    unsigned f = 0;
    RT_TRY(rt_err(CU(cuDevicePrimaryCtxGetState, rt_cudev(dev), &f, &active)));
    *flags = f | cudaDeviceMapHost;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuCtxGetStreamPriorityRange, leastPriority, greatestPriority)));
}

RT_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device) || !rt_valid_device(peerDevice))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceCanAccessPeer, canAccessPeer, rt_cudev(device), rt_cudev(peerDevice))));
}

RT_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    RT_TRY(rt_ctx());
    if (!rt_valid_device(peerDevice))
        return rt_ret(cudaErrorInvalidDevice);
    CUcontext peer = NULL;
    RT_TRY(rt_primary(peerDevice, &peer));
    return rt_ret(rt_err(CU(cuCtxEnablePeerAccess, peer, flags)));
}

RT_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    RT_TRY(rt_ctx());
    if (!rt_valid_device(peerDevice))
        return rt_ret(cudaErrorInvalidDevice);
    CUcontext peer = NULL;
    RT_TRY(rt_primary(peerDevice, &peer));
    return rt_ret(rt_err(CU(cuCtxDisablePeerAccess, peer)));
}

RT_API cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr_, int srcDevice, int dstDevice)
{
    if (!value)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(srcDevice) || !rt_valid_device(dstDevice))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGetP2PAttribute, value, (CUdevice_P2PAttribute)attr_,
                            rt_cudev(srcDevice), rt_cudev(dstDevice))));
}

RT_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGetDefaultMemPool, memPool, rt_cudev(device))));
}

RT_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGetMemPool, memPool, rt_cudev(device))));
}

RT_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceSetMemPool, rt_cudev(device), memPool)));
}

/* ---- limits, cache configuration, PCI ids, profiler -------------------- */

RT_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuCtxSetLimit, (CUlimit)limit, value))); /* same numbering */
}

RT_API cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if (!pValue)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuCtxGetLimit, pValue, (CUlimit)limit)));
}

RT_API cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUfunc_cache c = CU_FUNC_CACHE_PREFER_NONE;
    RT_TRY(rt_err(CU(cuCtxGetCacheConfig, &c)));
    *pCacheConfig = (enum cudaFuncCache)c;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuCtxSetCacheConfig, (CUfunc_cache)cacheConfig)));
}

RT_API cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    return rt_ret(rt_err(CU(cuDeviceGetPCIBusId, pciBusId, len, rt_cudev(device))));
}

RT_API cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (!device || !pciBusId)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUdevice d;
    RT_TRY(rt_err(CU(cuDeviceGetByPCIBusId, &d, pciBusId)));
    int o = rt_ordinal(d);
    if (o < 0)
        return rt_ret(cudaErrorInvalidDevice);
    *device = o;
    return cudaSuccess;
}

/* The device whose compute capability is closest to prop's (major, minor);
 * the current device when prop asks for nothing. */
RT_API cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_current_device(device));
    if (prop->major <= 0)
        return cudaSuccess;
    long best = -1;
    for (int d = 0; d < rt_ndev; d++) {
        int ma = 0, mi = 0;
        if (attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) != cudaSuccess ||
            attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d) != cudaSuccess)
            continue;
        long dist = labs((long)(ma * 10 + mi) - (long)(prop->major * 10 + prop->minor));
        if (best < 0 || dist < best) {
            best = dist;
            *device = d;
        }
    }
    return cudaSuccess;
}

/* Without a profiler attached these are no-ops that succeed; so they are
 * when the driver does not hand out cuProfilerStart/Stop. */
RT_API cudaError_t cudaProfilerStart(void)
{
    RT_TRY(rt_ctx());
    if (!rt_drv.p_cuProfilerStart)
        return cudaSuccess;
    return rt_ret(rt_err(CU(cuProfilerStart)));
}

RT_API cudaError_t cudaProfilerStop(void)
{
    RT_TRY(rt_ctx());
    if (!rt_drv.p_cuProfilerStop)
        return cudaSuccess;
    return rt_ret(rt_err(CU(cuProfilerStop)));
}
