/* drv_readback MODE: the line the sim prints the first time a process copies
 * device memory that nothing wrote into host memory (sim/driver/README.md,
 * "Memory nothing wrote").  Each mode prints `src=0x... n=N` (the read it
 * expects the line to name, or `src=none`) and reads back; drv_readback.sh
 * counts the lines on stderr.
 *   unwritten  cuMemcpyDtoH of fresh memory, twice: one line, naming the first
 *   written    HtoD, memset, DtoD of written memory, each read back: no line
 *   twin       a kernel with a host twin wrote it: no line
 *   notwin     a kernel without one "wrote" it: the line
 *   dtod       DtoD of unwritten memory carries it on: the line
 *   granule    512 bytes written, the next 512 read: the line (the first
 *              512 read back before: none)
 *   pinned     cuMemcpy into pinned host memory: the line
 *   async      cuMemcpyDtoHAsync: the line
 *   twod       cuMemcpy2D into host memory: the line */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>

#ifndef KDIR
#error KDIR must name the directory holding drv_kernels.cubin
#endif

void simcuda_twin_touch(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid; (void)block;
    **(int **)args[0] = *(int *)args[1];
}

static unsigned char host[4096];

static void say(CUdeviceptr src, size_t n)
{
    printf("src=0x%llx n=%zu\n", (unsigned long long)src, n);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    MUST(cuInit(0));
    CUdevice dev;
    CUcontext c;
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&c, dev));
    MUST(cuCtxSetCurrent(c));
    CUdeviceptr a, b;
    MUST(cuMemAlloc(&a, sizeof host));
    MUST(cuMemAlloc(&b, sizeof host));
    memset(host, 7, sizeof host);
    if (!strcmp(mode, "unwritten")) {
        say(a, 100);
        OK(cuMemcpyDtoH(host, a, 100));
        OK(cuMemcpyDtoH(host, b, 200));         /* once per process */
    } else if (!strcmp(mode, "written")) {
        say(0, 0);
        OK(cuMemcpyHtoD(a, host, sizeof host));
        OK(cuMemcpyDtoH(host, a, sizeof host));
        OK(cuMemsetD32(b, 5, sizeof host / 4));
        OK(cuMemcpyDtoH(host, b, sizeof host));
        CUdeviceptr d;
        MUST(cuMemAlloc(&d, sizeof host));
        OK(cuMemcpyDtoD(d, a, sizeof host));
        OK(cuMemcpyDtoH(host, d, sizeof host));
        OK(cuMemcpy((CUdeviceptr)(uintptr_t)host, a + 16, 32));
    } else if (!strcmp(mode, "twin") || !strcmp(mode, "notwin")) {
        int twin = !strcmp(mode, "twin");
        CUmodule m;
        CUfunction f;
        MUST(cuModuleLoadData(&m, drv_slurp(KDIR, "drv_kernels.cubin", NULL)));
        MUST(cuModuleGetFunction(&f, m, twin ? "_Z5touchPii" : "_Z6notwinPi"));
        int v = 42;
        void *args[] = { &a, &v };
        OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        OK(cuCtxSynchronize());
        twin ? say(0, 0) : say(a, 4);
        OK(cuMemcpyDtoH(host, a, 4));
        if (twin)
            TRUE(*(int *)host == 42);
    } else if (!strcmp(mode, "dtod")) {
        OK(cuMemcpyDtoD(b, a, 64));
        say(b, 64);
        OK(cuMemcpyDtoH(host, b, 64));
    } else if (!strcmp(mode, "granule")) {
        OK(cuMemcpyHtoD(a, host, 512));
        OK(cuMemcpyDtoH(host, a, 512));
        OK(cuMemcpyDtoH(host, a + 100, 400));
        say(a + 512, 512);
        OK(cuMemcpyDtoH(host, a + 512, 512));
    } else if (!strcmp(mode, "pinned")) {
        void *pinned;
        MUST(cuMemAllocHost(&pinned, 256));
        say(a, 256);
        OK(cuMemcpy((CUdeviceptr)(uintptr_t)pinned, a, 256));
    } else if (!strcmp(mode, "async")) {
        say(a, 128);
        OK(cuMemcpyDtoHAsync(host, a, 128, NULL));
        OK(cuCtxSynchronize());
    } else if (!strcmp(mode, "twod")) {
        CUDA_MEMCPY2D c2;
        memset(&c2, 0, sizeof c2);
        c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c2.srcDevice = a;
        c2.srcPitch = 256;
        c2.dstMemoryType = CU_MEMORYTYPE_HOST;
        c2.dstHost = host;
        c2.dstPitch = 64;
        c2.WidthInBytes = 64;
        c2.Height = 4;
        say(a, 3 * 256 + 64);
        OK(cuMemcpy2D(&c2));
    } else {
        fprintf(stderr, "drv_readback: unknown mode '%s'\n", mode);
        return 2;
    }
    return drv_done("drv_readback");
}
