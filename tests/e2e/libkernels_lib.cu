// The stand-in closed library (built as libcublasLt.so.13, so its file name
// is the soname of NVIDIA's): its fatbin lies in this object, which is what
// makes its kernels' origin "library" (report/FORMAT.md, what a word
// proves).  See libkernels.cuh.
#include "libkernels.cuh"

extern "C" __attribute__((visibility("default"))) int standin_reduce(float *out, const float *in,
                                                                     const float *alpha, const float *beta,
                                                                     int host_mode, int n)
{
    splitk_reduce<<<(n + 127) / 128, 128>>>(out, in, alpha, beta, host_mode, n);
    return (int)cudaGetLastError();
}

/* The same kernel from a cubin the library loads itself from the heap (cuDNN's
 * runtime-compiled engines do): its origin is the loading object's. */
extern "C" __attribute__((visibility("default"))) int standin_jit_reduce(const char *cubin, float *out,
                                                                         const float *in, const float *alpha,
                                                                         const float *beta, int n)
{
    return jit_reduce(cubin, out, in, alpha, beta, n);
}
