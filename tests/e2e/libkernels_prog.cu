// What a word of a closed library's kernel proves (tests/e2e/libkernels.sh):
// one scenario per run, on cuda:0.
//   library       the stand-in library (libcublasLt.so.13) launches its
//                 splitk_reduce with alpha on the stack, beta on the heap
//                 (host pointer mode: never read)
//   program       the same kernel compiled into this program, the same
//                 arguments: a user's kernel handed pageable host memory
//   library-peer  the library's kernel handed cuda:1's memory as `in`, no
//                 peer access
//   library-jit CUBIN, program-jit CUBIN
//                 the kernel built into a cubin, read onto the heap and
//                 loaded with cuModuleLoadData by the library, or by the
//                 program; launched as in `library` / `program`
// The sim cannot know that a kernel never reads a pointer parameter, so the
// host-pointer launches fault there (a real GPU runs them); the program
// prints what the synchronisation said and exits 0.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libkernels.cuh"

extern "C" int standin_reduce(float *out, const float *in, const float *alpha, const float *beta, int host_mode,
                              int n);
extern "C" int standin_jit_reduce(const char *cubin, float *out, const float *in, const float *alpha,
                                  const float *beta, int n);

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            printf("libkernels_prog: %s failed: %s\n", #call, cudaGetErrorName(e_)); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    const int n = 256;
    float *out, *in, *dev_scalars, *other = NULL;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&dev_scalars, 2 * sizeof(float)));
    float alpha = 1.0f;                                 /* host pointer mode: a stack address */
    float *beta = (float *)malloc(sizeof(float));       /* and a heap one */
    if (!beta)
        return 1;
    *beta = 0.0f;
    int r;
    if (!strcmp(what, "library")) {
        r = standin_reduce(out, in, &alpha, beta, 1, n);
    } else if (!strcmp(what, "program")) {
        splitk_reduce<<<(n + 127) / 128, 128>>>(out, in, &alpha, beta, 1, n);
        r = (int)cudaGetLastError();
    } else if (!strcmp(what, "library-peer")) {
        CK(cudaSetDevice(1));
        CK(cudaMalloc(&other, n * sizeof(float)));
        CK(cudaSetDevice(0));
        r = standin_reduce(out, other, dev_scalars, dev_scalars + 1, 0, n);
    } else if (!strcmp(what, "library-jit") && argc > 2) {
        r = standin_jit_reduce(argv[2], out, in, &alpha, beta, n);
    } else if (!strcmp(what, "program-jit") && argc > 2) {
        r = jit_reduce(argv[2], out, in, &alpha, beta, n);
    } else {
        printf("usage: libkernels_prog library|program|library-peer|library-jit CUBIN|program-jit CUBIN\n");
        return 2;
    }
    cudaError_t s = cudaDeviceSynchronize();
    printf("libkernels_prog %s: launch %d, synchronize: %s\n", what, r, cudaGetErrorName(s));
    free(beta);
    return 0;
}
