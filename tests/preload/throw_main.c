/* A C program (no C++ runtime at start-up) that starts CUDA, so devcheck is
 * initialised, then loads the C++ library argv[1] with dlopen and calls its
 * throw_through(5), which throws and catches through five frames.  Prints
 * "throw: <value>" (500 when the exception was caught). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr p;
    if (argc < 2 || cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cuMemAlloc(&p, 256) != CUDA_SUCCESS) {
        fprintf(stderr, "throw_main: CUDA start failed\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int (*f)(int) = h ? (int (*)(int))dlsym(h, "throw_through") : NULL;
    if (!f) {
        fprintf(stderr, "throw_main: %s\n", dlerror());
        return 2;
    }
    printf("throw: %d\n", f(5));
    cuMemFree(p);
    return 0;
}
