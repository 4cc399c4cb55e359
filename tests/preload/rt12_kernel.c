/* Built against the cudart 12 stand-in (fake_rt12.c): imports
 * __cudaLaunchKernel@libcudart.so.12 and __cudaLaunchKernel_ptsz@
 * libcudart.so.12, the <<<>>> launches of a CUDA 12.9 binary.  Launches the
 * kernel of xdev.cu (a CUkernel from its cubin, CUBIN) through each, on
 * device 3's stream with a buffer of device 1 in parameter 1 (device 3 is
 * current, as the runtime's launch device for a stream of another device
 * would be a stream_mismatch).  Prints what each launch returned. */
#include "preload/rt_proto.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

#define CK(x)                                                                     \
    do {                                                                          \
        CUresult r_ = (x);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                 \
            fprintf(stderr, "rt12_kernel: %s: error %d\n", #x, (int)r_);          \
            return 1;                                                             \
        }                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rt12_kernel CUBIN\n");
        return 2;
    }
    CUdevice dev1, dev3;
    CUcontext ctx1, ctx3;
    CUdeviceptr a, b;
    CUstream s;
    CUlibrary lib;
    CUkernel k;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev1, 1));
    CK(cuDeviceGet(&dev3, 3));
    CK(cuDevicePrimaryCtxRetain(&ctx1, dev1));
    CK(cuCtxSetCurrent(ctx1));
    CK(cuMemAlloc(&b, 32 * sizeof(float)));
    CK(cuDevicePrimaryCtxRetain(&ctx3, dev3));
    CK(cuCtxSetCurrent(ctx3));
    CK(cuMemAlloc(&a, 32 * sizeof(float)));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuLibraryLoadFromFile(&lib, argv[1], NULL, NULL, 0, NULL, NULL, 0));
    CK(cuLibraryGetKernel(&k, lib, "_Z8xdev_addPfPKfi"));
    int n = 32;
    void *args[] = { &a, &b, &n };
    dim3 grid = { 1, 1, 1 }, block = { 32, 1, 1 };
    cudaError_t r = __cudaLaunchKernel((cudaKernel_t)k, grid, block, args, 0, (cudaStream_t)s);
    cudaError_t r_ptsz = __cudaLaunchKernel_ptsz((cudaKernel_t)k, grid, block, args, 0, (cudaStream_t)s);
    printf("rt12_kernel: %d %d\n", (int)r, (int)r_ptsz);
    return 0;
}
