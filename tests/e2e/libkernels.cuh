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
#endif
