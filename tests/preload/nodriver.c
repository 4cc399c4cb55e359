/* No libcuda.so.1 anywhere: a hooked driver call (found with dlsym, as a
 * program linked with -lcuda would bind it) makes devcheck say so in one line
 * and pass through; nothing crashes.  Prints "nodriver: ok". */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
    alloc_t alloc = (alloc_t)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
    if (!alloc) {
        printf("nodriver: no cuMemAlloc_v2 (not under devcheck)\n");
        return 1;
    }
    CUdeviceptr p = 0;
    CUresult r1 = alloc(&p, 64);
    CUresult r2 = alloc(&p, 64);
    printf("nodriver: %s\n", r1 != CUDA_SUCCESS && r2 != CUDA_SUCCESS ? "ok" : "unexpected success");
    return 0;
}
