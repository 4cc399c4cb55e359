// sync=1 names the culprit (tests/e2e/sync.sh): CuPy's RawKernel handed a
// numpy array's pointer, in C.  An extern "C" kernel in a cubin (no types:
// every word of unknown meaning), loaded with cuModuleLoadData, launched on
// cuda:0 with param 0 = pageable host memory (malloc) and param 1 = cuda:0's
// memory.  A real GPU faults reading param 0; the sim follows no word without
// evidence, so the kernel's twin stands for that read by touching memory
// cuda:0 may not access (cuda:1's, no peer access, held in a global: not an
// operand).  The program prints what the synchronisation said and exits 0.
//   sync_rawkernel CUBIN
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static volatile float *unreachable;     /* cuda:1's memory */

extern "C" void simcuda_twin_add1(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)args, (void)grid, (void)block;
    (void)unreachable[0];               /* the device's read of param 0 */
}

#define CK(call)                                                                   \
    do {                                                                           \
        int e_ = (int)(call);                                                      \
        if (e_) {                                                                  \
            printf("sync_rawkernel: %s failed: %d\n", #call, e_);                 \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: sync_rawkernel CUBIN\n");
        return 2;
    }
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) {
        printf("sync_rawkernel: cannot open %s\n", argv[1]);
        return 1;
    }
    char *image = (char *)malloc(1 << 20);     /* on the heap, as NVRTC's output is */
    size_t got = image ? fread(image, 1, 1 << 20, fp) : 0;
    fclose(fp);
    if (!got)
        return 1;
    CUdevice d0, d1;
    CUcontext c0, c1;
    CK(cuInit(0));
    CK(cuDeviceGet(&d0, 0));
    CK(cuDeviceGet(&d1, 1));
    CK(cuDevicePrimaryCtxRetain(&c0, d0));
    CK(cuDevicePrimaryCtxRetain(&c1, d1));
    CK(cuCtxSetCurrent(c1));
    CUdeviceptr far;
    CK(cuMemAlloc(&far, 4096));
    unreachable = (volatile float *)(uintptr_t)far;
    CK(cuCtxSetCurrent(c0));
    CUmodule mod;
    CUfunction fn;
    CK(cuModuleLoadData(&mod, image));
    CK(cuModuleGetFunction(&fn, mod, "add1"));
    const int n = 256;
    float *host = (float *)malloc(n * sizeof(float));   /* a numpy array's buffer */
    CUdeviceptr y;
    CK(cuMemAlloc(&y, n * sizeof(float)));
    int cnt = n;
    void *params[] = { &host, &y, &cnt };
    CK(cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CUresult r = cuCtxSynchronize();
    const char *name = "?";
    cuGetErrorName(r, &name);
    printf("sync_rawkernel: synchronize: %s\n", name);
    free(host);
    free(image);
    return 0;
}
