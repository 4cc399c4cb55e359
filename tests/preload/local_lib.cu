// A CUDA library that programs load RTLD_LOCAL (dlopen's default,
// ctypes.CDLL, Python extension imports), DEEPBIND, or next to CUDA 12's
// runtime: its libcudart.so.13 arrives as its own dependency
// (rtld_local.sh, rt12.sh).  Its kernel's host twin is in liblocal_twin.so.
//
// local_run(cross): on device 0, out[i] = 7 * in[i] for 100 ones through
// <<<>>> (__cudaLaunchKernel), and returns the sum (700), or -1000 - error
// when a call fails.  With cross != 0 it then launches the kernel again
// through cudaLaunchKernel, on device 0 with `in` on device 1 (a
// device_mismatch, param 1), without waiting for it.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void local_scale(int *out, const int *in, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = 7 * in[i];
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "local_run: %s: %s\n", #x, cudaGetErrorString(e_)); return -1000 - (int)e_; } } while (0)

extern "C" int local_run(int cross)
{
    const int n = 100;
    int host[n], *in = NULL, *out = NULL, *far = NULL;
    for (int i = 0; i < n; i++)
        host[i] = 1;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&in, sizeof host));
    CK(cudaMalloc(&out, sizeof host));
    CK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
    local_scale<<<1, n>>>(out, in, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += host[i];
    if (cross) {
        CK(cudaSetDevice(1));
        CK(cudaMalloc(&far, sizeof host));
        CK(cudaSetDevice(0));
        int count = n;
        void *args[] = { &out, &far, &count };
        CK(cudaLaunchKernel((const void *)local_scale, dim3(1), dim3(n), args, 0, 0));
    }
    return sum;
}
