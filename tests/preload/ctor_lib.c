/* A library whose constructor uses CUDA before anything else in the process
 * (and, in load order, possibly before libdevcheck.so's own constructor): it
 * allocates on devices 0 and 1 and launches on device 0 with device 1's
 * buffer (the kernel lives in libctor_kern.so). */
#include <cuda_runtime_api.h>

int ctor_launch(float *dst, const float *src);
int ctor_lib_status = -1;

__attribute__((constructor)) static void ctor_lib_init(void)
{
    float *a = 0, *b = 0;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc((void **)&b, 64) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaMalloc((void **)&a, 64) != cudaSuccess) {
        ctor_lib_status = 1;
        return;
    }
    ctor_lib_status = ctor_launch(a, b);
}
