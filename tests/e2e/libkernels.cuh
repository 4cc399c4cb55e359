// A closed library's kernel in miniature, after cuBLASLt's split-K reduction
// (cublasLt::splitKreduce_kernel, params 5 and 6): alpha and beta arrive as
// `float const*`, and in host pointer mode they hold host addresses (a stack
// variable, a heap scalar) the kernel never reads.  Shared by the stand-in
// library (libkernels_lib.cu, built as libcublasLt.so.13) and the program
// that compiles the same kernel into itself (libkernels_prog.cu).
#ifndef LIBKERNELS_CUH
#define LIBKERNELS_CUH
#include <cuda_runtime.h>

__global__ void splitk_reduce(float *out, const float *in, const float *alpha, const float *beta, int host_mode,
                              int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = host_mode ? 1.0f : *alpha;
        float b = host_mode ? 0.0f : *beta;
        out[i] = a * in[i] + b * out[i];
    }
}

// A JIT image on the heap: the kernel above built into a cubin (FILE), read
// into malloc'd memory and loaded with cuModuleLoadData by the object this is
// compiled into (each has its own copy: static), then launched with the same
// host-pointer-mode arguments.  Its origin is the loading object's.
#ifndef LIBKERNELS_KERNEL_ONLY          /* the cubin's build: the kernel alone */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
static inline int jit_reduce(const char *file, float *out, const float *in, const float *alpha, const float *beta, int n)
{
    FILE *fp = fopen(file, "rb");
    char *image = (char *)malloc(1 << 20);
    size_t got = fp && image ? fread(image, 1, 1 << 20, fp) : 0;
    if (fp)
        fclose(fp);
    CUmodule mod;
    CUfunction fn;
    int r = !got ? -1 : (int)cuModuleLoadData(&mod, image);
    free(image);
    if (!r)
        r = (int)cuModuleGetFunction(&fn, mod, "_Z13splitk_reducePfPKfS1_S1_ii");
    int host_mode = 1;
    void *params[] = { &out, &in, &alpha, &beta, &host_mode, &n };
    if (!r)
        r = (int)cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
    return r;
}
#endif
#endif
