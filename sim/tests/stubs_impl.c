/* stubs tests: stands for a sim library's own objects.  gen_stubs.py must
 * leave these two functions to it and stub the rest. */
#include <cuda.h>
#include <cuda_runtime_api.h>

__attribute__((visibility("default"))) CUresult cuInit(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 4;
    return cudaSuccess;
}
