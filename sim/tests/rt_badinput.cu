// Bad input returns an error and never crashes: NULL out-parameters, bogus
// handles, foreign pointers, bad enums, unknown symbols.
#include "rt_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define BAD(call)                                                                   \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ == cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s succeeded\n", __FILE__, __LINE__, #call);    \
            exit(1);                                                                \
        }                                                                           \
        cudaGetLastError();                                                         \
    } while (0)

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    static char host[4096];
    void *d = NULL;
    CHECK(cudaMalloc(&d, 1024));

    BAD(cudaMalloc(NULL, 16));
    BAD(cudaMallocHost(NULL, 16));
    BAD(cudaMallocManaged(NULL, 16, cudaMemAttachGlobal));
    BAD(cudaMallocPitch(NULL, NULL, 16, 16));
    BAD(cudaGetDevice(NULL));
    BAD(cudaSetDevice(-1));
    BAD(cudaSetDevice(n));
    BAD(cudaGetDeviceProperties(NULL, 0));
    cudaDeviceProp prop;
    BAD(cudaGetDeviceProperties(&prop, n));
    BAD(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0));
    int v;
    BAD(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 42));
    BAD(cudaDeviceCanAccessPeer(&v, 0, 42));
    BAD(cudaPointerGetAttributes(NULL, d));
    BAD(cudaFree(host));                     // not device memory
    BAD(cudaFree((char *)d + 8));            // interior pointer
    BAD(cudaFreeHost(host));
    BAD(cudaHostUnregister(host));           // never registered
    BAD(cudaHostRegister(NULL, 16, 0));
    BAD(cudaMemcpy(d, host, 16, (cudaMemcpyKind)99));
    BAD(cudaMemcpy(NULL, host, 16, cudaMemcpyHostToDevice));
    BAD(cudaMemcpy2D(d, 8, host, 16, 16, 2, cudaMemcpyHostToDevice)); // width > dpitch
    BAD(cudaMemset(NULL, 0, 16));
    BAD(cudaMemcpyToSymbol(host, host, 4));  // not a registered symbol
    BAD(cudaGetSymbolAddress(NULL, host));
    BAD(cudaStreamCreate(NULL));
    BAD(cudaStreamDestroy(0));
    BAD(cudaEventCreate(NULL));
    BAD(cudaEventElapsedTime(NULL, 0, 0));
    BAD(cudaLaunchKernel(NULL, dim3(1), dim3(1), NULL, 0, 0));
    BAD(cudaLaunchKernel((const void *)host, dim3(1), dim3(1), NULL, 0, 0));
    BAD(cudaLaunchKernelExC(NULL, (const void *)vadd, NULL));
    BAD(cudaFuncGetAttributes(NULL, (const void *)vadd));
    cudaFuncAttributes fa;
    BAD(cudaFuncGetAttributes(&fa, (const void *)host));
    BAD(cudaFuncSetAttribute((const void *)vadd, (cudaFuncAttribute)1234, 0));
    BAD(cudaGetKernel(NULL, (const void *)vadd));
    cudaKernel_t k;
    BAD(cudaGetKernel(&k, NULL));
    cudaFunction_t f;
    BAD(cudaGetFuncBySymbol(&f, (const void *)main));
    BAD(cudaGetDriverEntryPoint(NULL, NULL, 0, NULL));
    BAD(cudaMemPoolSetAccess(NULL, NULL, 1));
    BAD(cudaIpcGetMemHandle(NULL, d));
    BAD(cudaDeviceEnablePeerAccess(0, 0));   // self
    BAD(cudaDeviceGetDefaultMemPool(NULL, 0));
    cudaMemPool_t pool;
    BAD(cudaDeviceGetDefaultMemPool(&pool, -3));
    BAD(cudaMemPoolCreate(NULL, NULL));
    BAD(cudaMallocAsync(NULL, 16, 0));
    BAD(cudaRuntimeGetVersion(NULL));
    BAD(cudaDriverGetVersion(NULL));

    // After all that the runtime still works and no error is sticky.
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(d, 1, 1024));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    printf("ok\n");
    return 0;
}
