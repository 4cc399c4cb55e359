// The sim cuBLASLt's kernels (gemm.h; sim/libs/cublas/README.md): compiled
// by nvcc into the library's image and launched by cublasLtMatmul.  On the
// sim their host twins (gemm_twin.c) do the same work with the same code.
// Every pointer is a parameter of its own, so the image's code says which
// the kernel dereferences (the sim's fault model, sim/driver/README.md).
#include "gemm.h"

extern "C" __global__ void simblas_gemm(struct sb_gemm g, const void *A, const void *B, const void *C, void *D,
                                        const void *bias, void *aux, const void *alpha, const void *beta)
{
    sb_gemm_range(&g, A, B, C, D, bias, aux, alpha, beta, 0, blockIdx.x * (int64_t)blockDim.x + threadIdx.x,
                  (int64_t)gridDim.x * blockDim.x);
}

// A..D: device arrays of one pointer per batch item (cublas<t>gemmBatched,
// cublasGemmBatchedEx, CUBLASLT_BATCH_MODE_POINTER_ARRAY)
extern "C" __global__ void simblas_gemm_batched(struct sb_gemm g, const void *const *A, const void *const *B,
                                                const void *const *C, void *const *D, const void *alpha,
                                                const void *beta)
{
    sb_gemm_range(&g, A, B, C, (void *)D, NULL, NULL, alpha, beta, 1, blockIdx.x * (int64_t)blockDim.x + threadIdx.x,
                  (int64_t)gridDim.x * blockDim.x);
}
