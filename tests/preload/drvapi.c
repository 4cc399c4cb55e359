/* A driver-API program that gets every driver entry point with dlsym from
 * dlopen("libcuda.so.1"), as NVIDIA's libraries and Python wheels do, and
 * launches a kernel on device 0 with a buffer of device 1 (the kernel of
 * xdev.cu, loaded from its cubin).  C only, so it runs on every architecture
 * the project builds for.
 *
 * Usage: drvapi CUBIN base|new [exit]
 *   base  looks entry points up through dlsym@<glibc's base version>
 *         (GLIBC_2.2.5 on x86-64, GLIBC_2.17 on aarch64: preload/arch.h),
 *         what binaries linked against glibc before 2.34 import (manylinux
 *         wheels, NVIDIA's libraries)
 *   new   through dlsym@@GLIBC_2.34
 *   exit  ends with exit(0) instead of returning 0 from main
 * Prints "drvapi: done" and ends with status 0 (1 if the driver fails); the
 * cross-device launch itself is not checked here: it faults on a GPU and on
 * the sim, reported later and ignored. */
#include "preload/arch.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym at the base version, whatever glibc this is linked against */
void *dlsym_base(void *handle, const char *name);
__asm__(".symver dlsym_base, dlsym@" DC_GLIBC_BASE);

static void *(*lookup)(void *, const char *);
static void *libcuda;

#define GET(fn)                                                                   \
    __typeof__(&fn) p_##fn = (__typeof__(&fn))lookup(libcuda, #fn);               \
    if (!p_##fn) {                                                                \
        fprintf(stderr, "drvapi: dlsym(%s) failed\n", #fn);                       \
        return 1;                                                                 \
    }
#define CK(x)                                                                     \
    do {                                                                          \
        CUresult r_ = (x);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                 \
            fprintf(stderr, "drvapi: %s: error %d\n", #x, (int)r_);               \
            return 1;                                                             \
        }                                                                         \
    } while (0)

static int run(const char *cubin)
{
    GET(cuInit)
    GET(cuDeviceGet)
    GET(cuDevicePrimaryCtxRetain)
    GET(cuCtxSetCurrent)
    GET(cuCtxSynchronize)
    GET(cuMemAlloc_v2)
    GET(cuModuleLoad)
    GET(cuModuleGetFunction)
    GET(cuLaunchKernel)
    CUdevice dev0, dev1;
    CUcontext ctx0, ctx1;
    CUdeviceptr a, b;
    CK(p_cuInit(0));
    CK(p_cuDeviceGet(&dev0, 0));
    CK(p_cuDeviceGet(&dev1, 1));
    CK(p_cuDevicePrimaryCtxRetain(&ctx1, dev1));
    CK(p_cuCtxSetCurrent(ctx1));
    CK(p_cuMemAlloc_v2(&b, 32 * sizeof(float)));
    CK(p_cuDevicePrimaryCtxRetain(&ctx0, dev0));
    CK(p_cuCtxSetCurrent(ctx0));
    CK(p_cuMemAlloc_v2(&a, 32 * sizeof(float)));
    CUmodule mod;
    CUfunction f;
    CK(p_cuModuleLoad(&mod, cubin));
    CK(p_cuModuleGetFunction(&f, mod, "_Z8xdev_addPfPKfi"));
    int n = 32;
    void *args[] = { &a, &b, &n };
    (void)p_cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    (void)p_cuCtxSynchronize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "base") && strcmp(argv[2], "new"))) {
        fprintf(stderr, "usage: drvapi CUBIN base|new [exit]\n");
        return 2;
    }
    lookup = strcmp(argv[2], "base") ? dlsym : dlsym_base;
    libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        fprintf(stderr, "drvapi: %s\n", dlerror());
        return 1;
    }
    if (run(argv[1]))
        return 1;
    printf("drvapi: done\n");
    if (argc > 3 && !strcmp(argv[3], "exit")) {
        fflush(stdout);
        exit(0);
    }
    return 0;
}
