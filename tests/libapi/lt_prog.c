/* cuBLASLt at its API (tests/libapi/libapi.sh): `lt_prog MODE` on two
 * simulated GPUs, a stream of cuda:0:
 *  - cublasLtMatmul in host pointer mode (alpha/beta on the host stack:
 *    legal), A, B, C, D and the workspace on cuda:0, epilogue BIAS with the
 *    bias (CUBLASLT_MATMUL_DESC_BIAS_POINTER) on cuda:1 when buggy (the one
 *    finding), on cuda:0 when correct;
 *  - again in device pointer mode, alpha/beta on cuda:0, a host workspace
 *    size of 0 with a host pointer (not read: legal);
 *  - stale: then the epilogue back to DEFAULT and the bias pointer of
 *    cuda:1 left set (cuBLASLt keeps it and does not read it: legal), 100
 *    matmuls on that cached descriptor (tests/libapi/lt_calls.sh counts
 *    devcheck's own calls into cuBLASLt there);
 *  - zero: a matmul with m = 0, A and B on cuda:1: cuBLASLt reads nothing
 *    and launches nothing (legal; the sim's returns at once too);
 *  - restream: the stream destroyed and streams made on cuda:1 until one gets the
 *    destroyed one's handle (said on stderr), then a matmul on it with B,
 *    C and D of cuda:1 and A of cuda:0: the call runs on cuda:1 (the one
 *    finding, A), not on the device devcheck saw the handle on before;
 *  - again: two equal matmuls (the second takes the hook's shortcut beside
 *    the thread's last clean call, preload/hooks_cublaslt.c), then the
 *    bias pointer set to cuda:1's and the same call once more: the one
 *    finding (a shortcut blind to the descriptor's change loses it). */
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cublasLtCreate) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescSetAttribute) \
    X(cublasLtMatrixLayoutCreate) X(cublasLtMatmul) X(cublasLtMatmulDescDestroy)
FNS(DECL_FN)

int main(int argc, char **argv)
{
    int buggy = argc > 1 && !strcmp(argv[1], "buggy"), stale = argc > 1 && !strcmp(argv[1], "stale");
    int zero = argc > 1 && !strcmp(argv[1], "zero"), restream = argc > 1 && !strcmp(argv[1], "restream");
    BIND(SONAME("libcublasLt.so.13"));
    float *A, *B, *C, *D, *bias, *bias1, *dscal;
    void *ws;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&bias1, 8 * sizeof(float)));      // @alloc-bias
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&A, 64 * sizeof(float)));      // @alloc-A
    CK(cudaMalloc((void **)&B, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&C, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&D, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&bias, 8 * sizeof(float)));
    CK(cudaMalloc((void **)&dscal, 2 * sizeof(float)));
    CK(cudaMalloc(&ws, 4096));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t l;
    CK(F(cublasLtCreate)(&lt));
    CK(F(cublasLtMatmulDescCreate)(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CK(F(cublasLtMatrixLayoutCreate)(&l, CUDA_R_32F, 8, 8, 8));
    float *b = buggy ? bias1 : bias;
    int32_t epi = CUBLASLT_EPILOGUE_BIAS;
    CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b));
    float alpha = 1.0f, beta = 0.0f;
    CK(F(cublasLtMatmul)(lt, desc, &alpha, A, l, B, l, &beta, C, l, D, l, NULL, ws, 4096, s));
    int32_t mode = CUBLASLT_POINTER_MODE_DEVICE;
    CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode));
    b = bias;
    CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b));
    char host_ws[16];
    CK(F(cublasLtMatmul)(lt, desc, dscal, A, l, B, l, dscal + 1, C, l, D, l, NULL, host_ws, 0, s));
    if (stale) {
        epi = CUBLASLT_EPILOGUE_DEFAULT;
        b = bias1;
        CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b));
        for (int i = 0; i < 100; i++)
            CK(F(cublasLtMatmul)(lt, desc, dscal, A, l, B, l, dscal + 1, C, l, D, l, NULL, ws, 4096, s));
    }
    if (argc > 1 && !strcmp(argv[1], "again")) {
        for (int i = 0; i < 2; i++)
            CK(F(cublasLtMatmul)(lt, desc, dscal, A, l, B, l, dscal + 1, C, l, D, l, NULL, ws, 4096, s));
        b = bias1;
        CK(F(cublasLtMatmulDescSetAttribute)(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b));
        CK(F(cublasLtMatmul)(lt, desc, dscal, A, l, B, l, dscal + 1, C, l, D, l, NULL, ws, 4096, s));
    }
    if (zero) {
        float *A1, *B1;
        cublasLtMatrixLayout_t l0;
        CK(cudaSetDevice(1));
        CK(cudaMalloc((void **)&A1, 64 * sizeof(float)));
        CK(cudaMalloc((void **)&B1, 64 * sizeof(float)));
        CK(cudaSetDevice(0));
        CK(F(cublasLtMatrixLayoutCreate)(&l0, CUDA_R_32F, 0, 8, 8));       /* m = 0 */
        CK(F(cublasLtMatmul)(lt, desc, dscal, A1, l0, B1, l, dscal + 1, C, l0, D, l0, NULL, ws, 4096, s));
        CK(cudaStreamSynchronize(s));
    }
    if (restream) {
        float *B1, *C1, *D1;
        cublasLtMatmulDesc_t desc1;
        CK(cudaSetDevice(1));
        CK(cudaMalloc((void **)&B1, 64 * sizeof(float)));
        CK(cudaMalloc((void **)&C1, 64 * sizeof(float)));
        CK(cudaMalloc((void **)&D1, 64 * sizeof(float)));
        CK(F(cublasLtMatmulDescCreate)(&desc1, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        /* The sim's stream handle is its calloc'd record, and glibc's
         * calloc skips the thread's cache of freed chunks (tcache): libapi.sh
         * runs this case with that cache off (GLIBC_TUNABLES
         * glibc.malloc.tcache_count=0), so the destroyed record goes to a
         * bin calloc takes from.  What else the allocator hands out between
         * the free and the calloc depends on the heap's history (the
         * paths' lengths, the environment): streams are made on cuda:1, and
         * kept, until one gets the old handle (the first, almost always). */
        cudaStream_t old = s;
        CK(cudaStreamDestroy(s));
        cudaStream_t made[64];
        int nmade = 0;
        do
            CK(cudaStreamCreate(&made[nmade]));
        while (made[nmade++] != old && nmade < 64);
        s = made[nmade - 1];
        if (s == old)
            fprintf(stderr, "lt_prog restream: the destroyed stream's handle reused\n");
        CK(F(cublasLtMatmul)(lt, desc1, &alpha, A, l, B1, l, &beta, C1, l, D1, l, NULL, NULL, 0, s));
    }
    CK(F(cublasLtMatmulDescDestroy)(desc));
    printf("lt_prog %s: done\n", argc > 1 ? argv[1] : "correct");
    return 0;
}
