/* A stand-in for CUDA 12's libcudart.so.12 (SONAME and symbol version
 * libcudart.so.12), enough to see that a binary built against cudart 12 binds
 * its launches to devcheck and devcheck forwards them to the real library:
 * cudaLaunchKernel returns a marker error the program checks for. */
#include <cuda_runtime_api.h>

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    (void)func, (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
    return cudaErrorNotYetImplemented;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    (void)functionPtr, (void)symbolPtr;
    return cudaErrorInvalidDeviceFunction;
}
