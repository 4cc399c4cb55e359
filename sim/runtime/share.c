/* share.c: memory pools shared between processes: the runtime's pool
 * export / import entry points over the driver's.  cudaMemPool_t is
 * CUmemoryPool, and the export data and handle types are the driver's, byte
 * for byte (asserted below). */
#include <stdint.h>

#include "rt.h"

_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == sizeof(CUmemPoolPtrExportData), "pool export data sizes differ");
_Static_assert((int)cudaMemHandleTypePosixFileDescriptor == (int)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
               "handle types differ");

RT_API cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                                      enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    if (!shareableHandle)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolExportToShareableHandle, shareableHandle, memPool,
                            (CUmemAllocationHandleType)handleType, flags)));
}

RT_API cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
                                                        enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    if (!memPool)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuMemPoolImportFromShareableHandle, memPool, shareableHandle,
                            (CUmemAllocationHandleType)handleType, flags)));
}

RT_API cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    if (!exportData)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolExportPointer, (CUmemPoolPtrExportData *)exportData,
                            (CUdeviceptr)(uintptr_t)ptr)));
}

RT_API cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData)
{
    if (!ptr || !exportData)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CU(cuMemPoolImportPointer, &p, memPool, (CUmemPoolPtrExportData *)exportData)));
    *ptr = (void *)(uintptr_t)p;
    return cudaSuccess;
}
