/* A stand-in for CUDA 12's libcudart.so.12 (SONAME and symbol version
 * libcudart.so.12), enough to see that a binary built against cudart 12 binds
 * its launches to devcheck and devcheck forwards them to the real library:
 * cudaLaunchKernel and __cudaLaunchKernel(_ptsz) return a marker error the
 * program checks for; the latter two also say on stderr that they ran.  Its
 * cudaGetFuncBySymbol says on stderr that it was asked, and its current device
 * is 3: with a CUDA 13 runtime in the same process (rt12.sh), devcheck must
 * ask each runtime about its own launches only. */
#include "preload/rt_proto.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    (void)func, (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
    return cudaErrorNotYetImplemented;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    static const char line[] = "fake_rt12: cudaGetFuncBySymbol\n";
    ssize_t w = write(2, line, sizeof line - 1);
    (void)w, (void)functionPtr, (void)symbolPtr;
    return cudaErrorInvalidDeviceFunction;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 3;
    return cudaSuccess;
}

/* CUDA 12.9's libcudart.so.12 exports the <<<>>> launch of CUDA 13 too. */
#define LAUNCH_KERNEL(name)                                                                   \
    cudaError_t name(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, \
                     cudaStream_t stream)                                                     \
    {                                                                                         \
        static const char line[] = "fake_rt12: " #name "\n";                                  \
        ssize_t w = write(2, line, sizeof line - 1);                                          \
        (void)w, (void)kernel, (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream; \
        return cudaErrorNotYetImplemented;                                                    \
    }
LAUNCH_KERNEL(__cudaLaunchKernel)
LAUNCH_KERNEL(__cudaLaunchKernel_ptsz)
