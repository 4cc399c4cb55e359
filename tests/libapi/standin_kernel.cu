// The stand-in cuBLAS's one kernel (tests/libapi/standin_cublas.c): with
// STANDIN_LAUNCH=1 in the environment, cublasSgemm_v2 launches it on the
// handle's stream as the real library launches its GEMM kernels, so that a
// B of another device faults on the sim (sync=1 attributes the fault to the
// call) and devcheck's launch check sees a library kernel's words (origin
// "library": its fatbin lies in libcublas.so.13).
#include <cuda_runtime_api.h>

__global__ void standin_gemm(const float *A, const float *B, float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = A[i] * B[i];
}

extern "C" int standin_gemm_launch(const float *A, const float *B, float *C, int n, cudaStream_t s)
{
    standin_gemm<<<(n + 63) / 64, 64, 0, s>>>(A, B, C, n);
    return (int)cudaGetLastError();
}
