// Memory devcheck never sees allocated, passed to kernels: a __device__
// variable (cudaGetSymbolAddress) and a module's global from the driver API
// (cuModuleGetGlobal, which devcheck does not hook).  Its owner comes from the
// driver, never "pageable host memory" (the sim, like NVIDIA's driver, maps
// device memory in the process).  Each device's own copy on its own device is
// correct; device 1's copy on device 0 is the bug (no peer access): the
// kernel faults, and the program says what it saw and exits 0.
//   unseen_memory FATBIN   (FATBIN: unseen_kernel.cu built with nvcc -fatbin)
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

__device__ float table[256];

__global__ void read_table(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = t[i];
}

#define CK(call)                                                                   \
    do {                                                                           \
        int e_ = (int)(call);                                                      \
        if (e_) {                                                                  \
            printf("unseen_memory: %s failed: %d\n", #call, e_);                  \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: unseen_memory FATBIN\n");
        return 2;
    }
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("unseen_memory: needs 2 devices\n");
        return 1;
    }
    float *t[2], *out[2];
    for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        CK(cudaGetSymbolAddress((void **)&t[d], table));
        CK(cudaMalloc(&out[d], 256 * sizeof(float)));
    }
    /* the driver API: a module on each device, its global from cuModuleGetGlobal */
    CUcontext ctx[2];
    CUmodule mod[2];
    CUfunction fn[2];
    CUdeviceptr g[2];
    CUdeviceptr dout[2];
    size_t gsize = 0;
    for (int d = 0; d < 2; d++) {
        CK(cuDevicePrimaryCtxRetain(&ctx[d], d));
        CK(cuCtxPushCurrent(ctx[d]));
        CK(cuModuleLoad(&mod[d], argv[1]));
        CK(cuModuleGetFunction(&fn[d], mod[d], "scale_from"));
        CK(cuModuleGetGlobal(&g[d], &gsize, mod[d], "unseen_global"));
        CK(cuMemAlloc(&dout[d], 64 * sizeof(float)));
        CK(cuCtxPopCurrent(NULL));
    }
    /* correct: each device's own copies */
    int count = 64;
    for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        read_table<<<1, 256>>>(t[d], out[d], 256);
        CK(cudaDeviceSynchronize());
        CK(cuCtxPushCurrent(ctx[d]));
        void *args[] = { &dout[d], &g[d], &count };
        CK(cuLaunchKernel(fn[d], 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
        CK(cuCtxSynchronize());
        CK(cuCtxPopCurrent(NULL));
    }
    /* BUG: device 1's __device__ copy read on device 0 (the fault is sticky
     * on device 0 from here on) */
    CK(cudaSetDevice(0));
    read_table<<<1, 256>>>(t[1], out[0], 256);
    cudaError_t e = cudaDeviceSynchronize();
    printf("unseen_memory: runtime %s\n", e == cudaSuccess ? "ran" : "faulted");
    /* BUG: device 0's module global read on device 1 */
    CK(cuCtxPushCurrent(ctx[1]));
    void *bad[] = { &dout[1], &g[0], &count };
    CUresult r = cuLaunchKernel(fn[1], 1, 1, 1, 64, 1, 1, 0, NULL, bad, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    printf("unseen_memory: driver %s\n", r == CUDA_SUCCESS ? "ran" : "faulted");
    return 0;
}
