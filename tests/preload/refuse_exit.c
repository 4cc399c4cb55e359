/* A driver-API program that asks for the device address of device 1's
 * memory with device 0's context current (cuPointerGetAttribute,
 * CU_POINTER_ATTRIBUTE_DEVICE_POINTER: refused, cuda.h) and checks the
 * answer itself, without any launch (issue 36, pointer_refused at exit).
 *
 * Usage: refuse_exit exit|probe|peer
 *   exit   prints "refuse_exit: refused" and exits 2 (it gives up)
 *   probe  prints the same and carries on: exits 0
 *   peer   enables peer access 0 -> 1 after the refusal and asks again
 *          (answered), then exits 2: the refusal was answered since
 * Any other driver failure: a line on stderr and status 1.  The driver's
 * entry points come from dlopen("libcuda.so.1") (C only, no link against a
 * libcuda: it builds for every architecture the project builds for). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                     \
    do {                                                                          \
        CUresult r_ = (x);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                 \
            fprintf(stderr, "refuse_exit: %s: error %d\n", #x, (int)r_);          \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

#define FN(fn) static __typeof__(&fn) p_##fn;
#define GET(fn)                                                                   \
    do {                                                                          \
        p_##fn = (__typeof__(&fn))dlsym(lib, #fn);                                \
        if (!p_##fn) {                                                            \
            fprintf(stderr, "refuse_exit: no %s\n", #fn);                         \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
FN(cuInit)
FN(cuDeviceGet)
FN(cuDevicePrimaryCtxRetain)
FN(cuCtxSetCurrent)
FN(cuMemAlloc_v2)
FN(cuCtxEnablePeerAccess)
FN(cuPointerGetAttribute)

static CUresult device_address(CUdeviceptr p, CUdeviceptr *out)
{
    return p_cuPointerGetAttribute(out, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p);  /* QUERY */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    CUdevice d0, d1;
    CUcontext c0, c1;
    CUdeviceptr buf, addr;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "refuse_exit: %s\n", dlerror());
        return 1;
    }
    GET(cuInit);
    GET(cuDeviceGet);
    GET(cuDevicePrimaryCtxRetain);
    GET(cuCtxSetCurrent);
    GET(cuMemAlloc_v2);
    GET(cuCtxEnablePeerAccess);
    GET(cuPointerGetAttribute);
    CK(p_cuInit(0));
    CK(p_cuDeviceGet(&d0, 0));
    CK(p_cuDeviceGet(&d1, 1));
    CK(p_cuDevicePrimaryCtxRetain(&c0, d0));
    CK(p_cuDevicePrimaryCtxRetain(&c1, d1));
    CK(p_cuCtxSetCurrent(c1));
    CK(p_cuMemAlloc_v2(&buf, 256));                     /* ALLOC: device 1's memory */
    CK(p_cuCtxSetCurrent(c0));
    CUresult r = device_address(buf, &addr);            /* CALL */
    if (r != CUDA_ERROR_INVALID_VALUE) {
        fprintf(stderr, "refuse_exit: expected a refusal, got %d\n", (int)r);
        return 1;
    }
    printf("refuse_exit: refused\n");
    if (!strcmp(mode, "probe"))
        return 0;
    if (!strcmp(mode, "peer")) {
        CK(p_cuCtxEnablePeerAccess(c1, 0));
        CK(device_address(buf, &addr));
        printf("refuse_exit: answered\n");
    }
    exit(2);
}
