/* drv_globals: cuModuleGetGlobal_v2 / cuLibraryGetGlobal (sim/driver/globals.c).
 * A module loaded in each context has its own copy of each variable, with
 * the image's initial value, on that context's device; a library answers in
 * the current context; cuMemFree refuses a copy; unloading frees it;
 * __managed__ and unknown names are CUDA_ERROR_NOT_FOUND. */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>

#ifndef IDIR
#error IDIR must name the directory holding evidence.cubin and evidence.fatbin
#endif


int main(void)
{
    MUST(cuInit(0));
    CUcontext c[2];
    CUmodule m[2];
    CUdeviceptr p[2];
    void *cubin = drv_slurp(IDIR, "evidence.cubin", NULL);
    for (int d = 0; d < 2; d++) {
        CUdevice dev;
        MUST(cuDeviceGet(&dev, d));
        MUST(cuDevicePrimaryCtxRetain(&c[d], dev));
        MUST(cuCtxSetCurrent(c[d]));
        MUST(cuModuleLoadData(&m[d], cubin));
        size_t sz = 0;
        OK(cuModuleGetGlobal(&p[d], &sz, m[d], "ev_array"));
        EQ(sz, 16);
        int h[4] = { 0 };
        OK(cuMemcpyDtoH(h, p[d], sizeof h));
        TRUE(h[0] == 1 && h[1] == 2 && h[2] == 3 && h[3] == 4);
        int ord = -1;
        OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p[d]));
        EQ(ord, d);
        CUdeviceptr again;
        OK(cuModuleGetGlobal(&again, NULL, m[d], "ev_array"));
        TRUE(again == p[d]);
        OK(cuModuleGetGlobal(NULL, &sz, m[d], "ev_zero"));
        EQ(sz, 64);
        EXPECT(cuModuleGetGlobal(&again, &sz, m[d], "ev_managed"), CUDA_ERROR_NOT_FOUND);
        EXPECT(cuModuleGetGlobal(&again, &sz, m[d], "no_such_variable"), CUDA_ERROR_NOT_FOUND);
        EXPECT(cuModuleGetGlobal(&again, &sz, m[d], NULL), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuMemFree(p[d]), CUDA_ERROR_INVALID_VALUE);
    }
    TRUE(p[0] != p[1]);
    int v = 99, h = 0;
    MUST(cuCtxSetCurrent(c[0]));
    OK(cuMemcpyHtoD(p[0], &v, sizeof v));
    MUST(cuCtxSetCurrent(c[1]));
    OK(cuMemcpyDtoH(&h, p[1], sizeof h));
    EQ(h, 1);
    /* unloading frees the copy */
    OK(cuModuleUnload(m[1]));
    CUdeviceptr base;
    EXPECT(cuMemGetAddressRange(&base, NULL, p[1]), CUDA_ERROR_NOT_FOUND);
    /* a library: per current context */
    void *fat = drv_slurp(IDIR, "evidence.fatbin", NULL);
    CUlibrary lib;
    MUST(cuLibraryLoadData(&lib, fat, NULL, NULL, 0, NULL, NULL, 0));
    CUdeviceptr l[2];
    size_t sz = 0;
    for (int d = 0; d < 2; d++) {
        MUST(cuCtxSetCurrent(c[d]));
        OK(cuLibraryGetGlobal(&l[d], &sz, lib, "ev_const"));
        EQ(sz, 16);
        int k[4] = { 0 };
        OK(cuMemcpyDtoH(k, l[d], sizeof k));
        TRUE(k[0] == 7 && k[3] == 10);
    }
    TRUE(l[0] != l[1]);
    EXPECT(cuLibraryGetGlobal(&l[0], &sz, (CUlibrary)(uintptr_t)0x1234, "ev_const"), CUDA_ERROR_INVALID_HANDLE);
    OK(cuLibraryUnload(lib));
    free(fat);
    free(cubin);
    return drv_done("drv_globals");
}
