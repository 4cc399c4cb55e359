/* Fault injection: run with SIMCUDA_MEM_MB=64 and
 * SIMCUDA_FAIL=cuMemAlloc_v2:2,cuStreamCreate:1,cuMemcpyHtoD:1,cuCtxEnablePeerAccess:1
 * (see drv_fail.sh).  Each injected failure surfaces as the function's
 * documented error, once, at the Nth call. */
#include "drv_check.h"

#include <string.h>

int main(void)
{
    MUST(cuInit(0));
    CUcontext c0, c1;
    MUST(cuDevicePrimaryCtxRetain(&c0, 0));
    MUST(cuDevicePrimaryCtxRetain(&c1, 1));
    MUST(cuCtxSetCurrent(c0));

    /* SIMCUDA_FAIL=cuMemAlloc_v2:2 */
    CUdeviceptr a, b, c;
    OK(cuMemAlloc(&a, 1024));
    EXPECT(cuMemAlloc(&b, 1024), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemAlloc(&c, 1024));
    OK(cuMemFree(a));
    OK(cuMemFree(c));
    /* cuStreamCreate:1 */
    CUstream s;
    EXPECT(cuStreamCreate(&s, 0), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuStreamCreate(&s, 0));
    OK(cuStreamDestroy(s));
    /* cuMemcpyHtoD:1 matches cuMemcpyHtoD_v2 */
    char buf[16] = "0123456789";
    OK(cuMemAlloc(&a, 16));
    EXPECT(cuMemcpyHtoD(a, buf, 16), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyHtoD(a, buf, 16));
    OK(cuMemFree(a));
    /* cuCtxEnablePeerAccess:1 */
    EXPECT(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    OK(cuCtxEnablePeerAccess(c1, 0));

    /* SIMCUDA_MEM_MB=64: per-device capacity */
    size_t tot = 0, fr = 0;
    OK(cuDeviceTotalMem(&tot, 0));
    EQ(tot, 64 << 20);
    CUdeviceptr big;
    EXPECT(cuMemAlloc(&big, (64 << 20) + 1), CUDA_ERROR_OUT_OF_MEMORY);
    CUdeviceptr h1, h2, h3;
    OK(cuMemAlloc(&h1, 30 << 20));
    OK(cuMemAlloc(&h2, 30 << 20));
    OK(cuMemGetInfo(&fr, &tot));
    TRUE(fr < (5 << 20));
    EXPECT(cuMemAlloc(&h3, 30 << 20), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT(cuMemAllocAsync(&h3, 30 << 20, NULL), CUDA_ERROR_OUT_OF_MEMORY);
    /* another device has its own capacity */
    MUST(cuCtxSetCurrent(c1));
    OK(cuMemAlloc(&h3, 30 << 20));
    OK(cuMemFree(h3));
    MUST(cuCtxSetCurrent(c0));
    OK(cuMemFree(h1));
    OK(cuMemAlloc(&h3, 30 << 20));
    OK(cuMemFree(h2));
    OK(cuMemFree(h3));
    return drv_done("drv_fail");
}
