// cudaGetDriverEntryPoint(ByVersion): the driver's own functions, through
// cuGetProcAddress, as PyTorch reaches the driver API; the per-thread flag
// gives the _ptsz variant; cudaDeviceReset; device flags.
#include <dlfcn.h>
#include <cudaTypedefs.h>
#include "rt_check.h"

// cudaGetDriverEntryPoint is deprecated in 13.0 but exported and still used.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

int main()
{
    CHECK(cudaSetDevice(1));
    void *fn = NULL;
    cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSymbolNotFound;
    CHECK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &st));
    EXPECT(st == cudaDriverEntryPointSuccess && fn != NULL);
    CUdeviceptr p = 0;
    EXPECT(((PFN_cuMemAlloc_v3020)fn)(&p, 4096) == CUDA_SUCCESS); // in device 1's context
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, (void *)p));
    EXPECT(a.type == cudaMemoryTypeDevice && a.device == 1);
    CHECK(cudaFree((void *)p));

    CHECK(cudaGetDriverEntryPoint("cuCtxGetCurrent", &fn, cudaEnableDefault, &st));
    EXPECT(st == cudaDriverEntryPointSuccess && fn != NULL);
    CUcontext ctx = NULL;
    EXPECT(((PFN_cuCtxGetCurrent_v4000)fn)(&ctx) == CUDA_SUCCESS && ctx != NULL);

    // Variants: legacy and per-thread default stream, the same as the
    // driver's exported functions of those names.
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    EXPECT(drv != NULL);
    CHECK(cudaGetDriverEntryPoint("cuMemcpyAsync", &fn, cudaEnablePerThreadDefaultStream, &st));
    EXPECT(fn == dlsym(drv, "cuMemcpyAsync_ptsz"));
    CHECK(cudaGetDriverEntryPoint("cuMemcpyAsync", &fn, cudaEnableLegacyStream, &st));
    EXPECT(fn == dlsym(drv, "cuMemcpyAsync"));
    CHECK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 3020, cudaEnableDefault, &st));
    EXPECT(fn == dlsym(drv, "cuMemAlloc_v2"));
    fn = (void *)1;
    cudaError_t e = cudaGetDriverEntryPoint("cuNoSuchFunction", &fn, cudaEnableDefault, &st);
    EXPECT(st == cudaDriverEntryPointSymbolNotFound && fn == NULL);
    (void)e;
    cudaGetLastError();

    // Device flags of the current device's primary context.
    unsigned flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));
    EXPECT(flags & cudaDeviceMapHost);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CHECK(cudaGetDeviceFlags(&flags));
    EXPECT((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);

    // cudaDeviceReset: allocations of the device are gone, the device works.
    void *q = NULL;
    CHECK(cudaMalloc(&q, 1024));
    CHECK(cudaDeviceReset());
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    EXPECT(dev == 1);
    CHECK(cudaPointerGetAttributes(&a, q));
    EXPECT(a.type == cudaMemoryTypeUnregistered);
    CHECK(cudaMalloc(&q, 1024));
    CHECK(cudaMemset(q, 0, 1024));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(q));
    printf("ok\n");
    return 0;
}
