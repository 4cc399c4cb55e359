/* Built against the cudart 12 stand-in (fake_rt12.c): imports
 * cudaLaunchKernel@libcudart.so.12.  Prints what the launch returned.  With
 * arguments LIB TWIN it then loads TWIN RTLD_GLOBAL and the CUDA 13 library
 * LIB (libxlocal.so, with its own libcudart.so.13) RTLD_LOCAL, calls its
 * local_run(1) and prints "local: <value>": two runtimes in one process. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

static void stub(void) {}

int main(int argc, char **argv)
{
    dim3 one = { 1, 1, 1 };
    cudaError_t r = cudaLaunchKernel((const void *)stub, one, one, NULL, 0, NULL);
    printf("rt12: %d\n", (int)r);
    if (argc > 2) {
        void *h = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
        int (*run)(int) = h ? (int (*)(int))dlsym(h, "local_run") : NULL;
        if (!run) {
            fprintf(stderr, "rt12_main: %s\n", dlerror());
            return 2;
        }
        printf("local: %d\n", run(1));
    }
    return r == cudaErrorNotYetImplemented ? 0 : 1;
}
