// ctx_destroy: memory of a destroyed context is forgotten.  A context is
// created on cuda:1 (cuCtxCreate), 4 KiB allocated in it (cuMemAlloc), and
// with argument "destroy" the context is destroyed; then `touch` is launched
// on cuda:0 (cuLaunchKernel) with the pointer.  Kept: the pointer is cuda:1's
// memory (a device_mismatch).  Destroyed: devcheck must have dropped it (the
// interposer in its cuCtxDestroy hook, CUPTI on CONTEXT_DESTROY_STARTING), so
// no device_mismatch.  With argument "sibling": correct code whose memory
// outlives another context.  cuda:0's primary context has peer access to
// cuda:1's, a buffer lives in cuda:1's primary context, and a second context
// is created on cuda:1 and destroyed; `touch` on cuda:0 with the buffer is
// legal peer access (a peer_access warning), never a device_mismatch or host
// memory.  Prints one line; exit status 0.
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime_api.h>

__global__ void touch(float *x)
{
    x[0] = 1.0f;
}

extern "C" void simcuda_twin_touch(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)args, (void)grid, (void)block;
}

static int sibling(void)
{
    float *buf = nullptr;
    cudaFunction_t f = nullptr;
    CUcontext primary0 = nullptr, c1 = nullptr;
    CUdevice d1;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&buf, 4096) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaDeviceEnablePeerAccess(1, 0) != cudaSuccess ||
        cuCtxGetCurrent(&primary0) != CUDA_SUCCESS ||
        cudaGetFuncBySymbol(&f, (const void *)touch) != cudaSuccess ||
        cuDeviceGet(&d1, 1) != CUDA_SUCCESS || cuCtxCreate(&c1, nullptr, 0, d1) != CUDA_SUCCESS ||
        cuCtxDestroy(c1) != CUDA_SUCCESS || cuCtxSetCurrent(primary0) != CUDA_SUCCESS) {
        printf("ctx_destroy: sibling setup failed\n");
        return 1;
    }
    void *args[] = { &buf };
    CUresult r = cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr); // sibling launch
    cudaError_t s = cudaDeviceSynchronize();
    printf("ctx_destroy: sibling, launch %d, sync %d\n", (int)r, (int)s);
    return r == CUDA_SUCCESS && s == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "sibling"))
        return sibling();
    int destroy = argc > 1 && !strcmp(argv[1], "destroy");
    CUcontext primary = nullptr, c1 = nullptr;
    CUdevice d1;
    CUdeviceptr p = 0;
    cudaFunction_t f = nullptr;
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
        cuCtxGetCurrent(&primary) != CUDA_SUCCESS ||
        cudaGetFuncBySymbol(&f, (const void *)touch) != cudaSuccess ||
        cuDeviceGet(&d1, 1) != CUDA_SUCCESS || cuCtxCreate(&c1, nullptr, 0, d1) != CUDA_SUCCESS ||
        cuMemAlloc(&p, 4096) != CUDA_SUCCESS) {
        printf("ctx_destroy: setup failed\n");
        return 1;
    }
    if (destroy && cuCtxDestroy(c1) != CUDA_SUCCESS) {
        printf("ctx_destroy: cuCtxDestroy failed\n");
        return 1;
    }
    cuCtxSetCurrent(primary);
    void *args[] = { &p };
    CUresult r = cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
    printf("ctx_destroy: %s, launch %d\n", destroy ? "destroyed" : "kept", (int)r);
    return 0;
}
