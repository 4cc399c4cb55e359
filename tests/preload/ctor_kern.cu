// The kernel of the constructor test, in its own library (libctor_kern.so):
// a dependency is initialised first, so its fatbinary is registered before
// libctor.so's constructor launches the kernel.
#include <cuda_runtime.h>

__global__ void ctor_kernel(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

extern "C" int ctor_launch(float *dst, const float *src)
{
    ctor_kernel<<<1, 16>>>(dst, src);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
