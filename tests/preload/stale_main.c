/* A function handle reused after a context's end (stale.sh).  argv[1]:
 * `destroy` (contexts made with cuCtxCreate and destroyed) or `reset` (the
 * primary context of device 0, reset).  argv[2]: the cubin of
 * stale_kernels.cu.
 *   A. In context 1, one(int *) is launched on a buffer of device 0; the
 *      context ends; in context 2 the module is loaded again and three(int,
 *      int, int *) gets a function handle, the same as one's (the sim hands
 *      freed handles out again, as a driver's allocator may); it is launched
 *      with p on device 1: a device_mismatch of parameter 2.
 *   B. Context 2 ends; in context 3 one gets three's handle and is launched
 *      with its one-element argument array, on device 0: nothing to report,
 *      and nothing may be read past that array.
 * Prints "reused: A B" (1 where the handle came back) and exits 0. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "stale_main: %s: %d\n", #x, (int)r_); return 2; } } while (0)

static int reset_mode;
static CUdevice dev0;

/* A new context on device 0, current. */
static CUresult begin(CUcontext *c)
{
    if (reset_mode) {
        CUresult r = cuDevicePrimaryCtxRetain(c, dev0);
        return r == CUDA_SUCCESS ? cuCtxSetCurrent(*c) : r;
    }
    return cuCtxCreate(c, NULL, 0, dev0);
}

static CUresult end(CUcontext c)
{
    if (!reset_mode)
        return cuCtxDestroy(c);
    CUresult r = cuDevicePrimaryCtxReset(dev0);
    (void)cuDevicePrimaryCtxRelease(dev0);
    return r;
}

static CUresult launch(CUfunction f, void **args)
{
    return cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    reset_mode = !strcmp(argv[1], "reset");
    CUdevice dev1;
    CUcontext c1, c2, c3, p1;
    CUmodule m1, m2, m3;
    CUfunction one, three, one_again;
    CUdeviceptr far, near;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev0, 0));
    CK(cuDeviceGet(&dev1, 1));
    CK(cuDevicePrimaryCtxRetain(&p1, dev1));
    CK(cuCtxSetCurrent(p1));
    CK(cuMemAlloc(&far, 64));

    /* A */
    CK(begin(&c1));
    CK(cuMemAlloc(&near, 64));
    CK(cuModuleLoad(&m1, argv[2]));
    CK(cuModuleGetFunction(&one, m1, "_Z3onePi"));
    void *a1[] = { &near };
    CK(launch(one, a1));
    CK(cuCtxSynchronize());
    CK(end(c1));
    CK(begin(&c2));
    CK(cuModuleLoad(&m2, argv[2]));
    CK(cuModuleGetFunction(&three, m2, "_Z5threeiiPi"));
    int a = 1, b = 2;
    void *a3[] = { &a, &b, &far };
    CK(launch(three, a3));          /* faults on the device: not waited for */

    /* B */
    CK(end(c2));
    CK(begin(&c3));
    CK(cuMemAlloc(&near, 64));
    CK(cuModuleLoad(&m3, argv[2]));
    CK(cuModuleGetFunction(&one_again, m3, "_Z3onePi"));
    void *b1[] = { &near };
    CK(launch(one_again, b1));
    CK(cuCtxSynchronize());
    printf("reused: %d %d\n", three == one, one_again == three);
    CK(end(c3));
    return 0;
}
