/* Bad input never crashes the simulated driver: garbage and stale handles,
 * NULL outputs, unmapped host pointers and device addresses that are not
 * allocated give the documented errors. */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#ifndef KDIR
#error KDIR must name the directory holding drv_kernels.cubin
#endif

int main(void)
{
    MUST(cuInit(0));
    CUcontext c;
    MUST(cuDevicePrimaryCtxRetain(&c, 0));
    MUST(cuCtxSetCurrent(c));

    /* handles that are not handles: a small integer, a heap block, a stack
     * buffer, freed objects */
    char stackbuf[256];
    memset(stackbuf, 0x5a, sizeof stackbuf);
    void *heap = malloc(256);
    memset(heap, 0x5a, 256);
    void *bad[] = { (void *)(uintptr_t)0x1234, heap, stackbuf, (void *)(uintptr_t)0xdeadbeef000ull };
    CUstream dead_s;
    CUevent dead_e;
    MUST(cuStreamCreate(&dead_s, 0));
    MUST(cuStreamDestroy(dead_s));
    MUST(cuEventCreate(&dead_e, 0));
    MUST(cuEventDestroy(dead_e));
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *h = bad[i];
        CUcontext oc;
        CUfunction f;
        size_t off, size;
        float ms;
        EXPECT(cuCtxPushCurrent((CUcontext)h), CUDA_ERROR_INVALID_CONTEXT);
        EXPECT(cuCtxDestroy((CUcontext)h), CUDA_ERROR_INVALID_CONTEXT);
        EXPECT(cuStreamSynchronize((CUstream)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuStreamDestroy((CUstream)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuStreamGetCtx((CUstream)h, &oc), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuEventRecord((CUevent)h, NULL), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuEventSynchronize((CUevent)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuEventElapsedTime(&ms, (CUevent)h, (CUevent)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuModuleGetFunction(&f, (CUmodule)h, "x"), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuModuleUnload((CUmodule)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuLaunchKernel((CUfunction)h, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuFuncGetParamInfo((CUfunction)h, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuKernelGetFunction(&f, (CUkernel)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuLibraryUnload((CUlibrary)h), CUDA_ERROR_INVALID_HANDLE);
        EXPECT(cuMemPoolDestroy((CUmemoryPool)h), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuMemRelease((CUmemGenericAllocationHandle)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuMemFree((CUdeviceptr)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
        unsigned t;
        EXPECT(cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
    }
    EXPECT(cuStreamSynchronize(dead_s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(dead_e, NULL), CUDA_ERROR_INVALID_HANDLE);

    /* NULL outputs */
    EXPECT(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetName(NULL, 10, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress_v2("cuInit", NULL, 13000, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemGetInfo(NULL, NULL), CUDA_ERROR_INVALID_VALUE);

    /* copies with unmapped host memory or unallocated device addresses */
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, 3 * 4096));
    char *hole = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(hole + 4096, 4096);      /* a hole in the middle */
    EXPECT(cuMemcpyHtoD(d, hole, 3 * 4096), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(hole, d, 3 * 4096), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoD(d + (1 << 20), d, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(d + 3 * 4096 - 8, 0, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(0, stackbuf, 16), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyHtoD(d, hole, 4096));
    munmap(hole, 4096);
    munmap(hole + 8192, 4096);

    /* launches whose parameter pointers are not mapped */
    CUmodule m;
    MUST(cuModuleLoad(&m, KDIR "/drv_kernels.cubin"));
    CUfunction touch;
    MUST(cuModuleGetFunction(&touch, m, "_Z5touchPii"));
    char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, 4096);
    int v = 1;
    void *args_bad[] = { gone, &v };
    EXPECT(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, NULL, args_bad, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, NULL, (void **)gone, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(touch, 0, 1, 1, 1, 1, 1, 0, NULL, args_bad, NULL), CUDA_ERROR_INVALID_VALUE);
    /* none of this poisoned the context */
    OK(cuCtxSynchronize());
    OK(cuModuleUnload(m));
    OK(cuMemFree(d));
    free(heap);
    return drv_done("drv_robust");
}
