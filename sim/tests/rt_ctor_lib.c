/* A library that uses CUDA from its constructor, before main and before any
 * other CUDA call of the program (libfaketime's _libtest.c pattern): the
 * runtime must initialise lazily from there. */
#include <cuda_runtime_api.h>

int rt_ctor_count = -1;
cudaError_t rt_ctor_status = cudaErrorUnknown;
void *rt_ctor_buffer;

__attribute__((constructor)) static void init(void)
{
    rt_ctor_status = cudaGetDeviceCount(&rt_ctor_count);
    if (rt_ctor_status == cudaSuccess)
        rt_ctor_status = cudaMalloc(&rt_ctor_buffer, 4096);
}
