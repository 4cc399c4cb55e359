/* Calls devcheck's exported hooks directly (as a program linked with -lcuda
 * would) on the fake driver of fake_driver.c.  Prints the result of an
 * optional entry point the driver lacks (cuMemAllocAsync) and of a required
 * one it has (cuMemAlloc_v2). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    typedef CUresult (*async_t)(CUdeviceptr *, size_t, CUstream);
    typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
    async_t a = (async_t)dlsym(RTLD_DEFAULT, "cuMemAllocAsync");
    alloc_t b = (alloc_t)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
    if (!a || !b) {
        printf("optional: not under devcheck\n");
        return 1;
    }
    CUdeviceptr p = 0;
    printf("optional: async=%d alloc=%d\n", (int)a(&p, 64, NULL), (int)b(&p, 64));
    return 0;
}
