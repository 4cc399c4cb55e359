// A library whose constructor uses CUDA before anything else in the process
// (and, in load order, possibly before libdevcheck.so's own constructor): it
// allocates on devices 0 and 1 and launches on device 0 with device 1's buffer.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void ctor_kernel(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

int ctor_lib_status = -1;

__attribute__((constructor)) static void ctor_lib_init(void)
{
    float *a = NULL, *b = NULL;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&b, 64) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaMalloc(&a, 64) != cudaSuccess) {
        ctor_lib_status = 1;
        return;
    }
    ctor_kernel<<<1, 16>>>(a, b);
    ctor_lib_status = 0;
}
