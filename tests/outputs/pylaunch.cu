// pylaunch_bad(D, O): one launch on cuda:D of a buffer owned by cuda:O, for
// Python processes that load this library with ctypes (tests/outputs/tree.sh).
#include <cuda_runtime.h>

__global__ void py_add(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += b[i];
}

extern "C" int pylaunch_bad(int dev, int owner)
{
    float *a, *b;
    if (cudaSetDevice(owner) || cudaMalloc(&b, 32 * sizeof(float)) || cudaSetDevice(dev) ||
        cudaMalloc(&a, 32 * sizeof(float)))
        return 1;
    py_add<<<1, 32>>>(a, b, 32);
    return 0;
}
