/* bench/libcalls.c: the instructions of a library call checked at its API
 * (bench/libcalls.sh), on the libraries of tests/libapi/ (the real sonames
 * and symbol versions: the sim's cuBLAS and cuBLASLt, which compute an 8 x 8
 * GEMM through their kernel, and the sim's NCCL and cuSOLVER, sim/libs/).
 * Under callgrind (--instr-atstart=no) only the measured loops count; each
 * is dumped as its name: sgemm (cublasSgemm_v2, which calls cublasLtMatmul
 * inside, host pointer mode), ltmatmul (cublasLtMatmul with a bias pointer
 * attribute), allreduce (ncclAllReduce on one communicator), potrf
 * (cusolverDnSpotrf, 8 x 8 in two panels: its kernel launched three times
 * and cublasSgemm_v2 for the trailing update), all operands on
 * cuda:0 (the clean path).  Usage: libcalls N. */
#include <cublas_api.h>
#include <cublasLt.h>
#include <nccl.h>
#include <cusolverDn.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#define CK(x)                                                              \
    do {                                                                   \
        if ((x) != 0) {                                                    \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
            return 1;                                                      \
        }                                                                  \
    } while (0)

#define SECTION(name, n, body)                  \
    do {                                        \
        CALLGRIND_START_INSTRUMENTATION;        \
        CALLGRIND_ZERO_STATS;                   \
        for (long i_ = 0; i_ < (n); i_++)       \
            body;                               \
        CALLGRIND_DUMP_STATS_AT(name);          \
        CALLGRIND_STOP_INSTRUMENTATION;         \
    } while (0)

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    float *A, *B, *C, *bias;
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&A, 4096));
    CK(cudaMalloc((void **)&B, 4096));
    CK(cudaMalloc((void **)&C, 4096));
    CK(cudaMalloc((void **)&bias, 256));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h;
    CK(cublasCreate_v2(&h));
    CK(cublasSetStream_v2(h, s));
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t l;
    CK(cublasLtCreate(&lt));
    CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    ncclComm_t comm;
    int dev = 0;
    CK(ncclCommInitAll(&comm, 1, &dev));
    cusolverDnHandle_t sol;
    CK(cusolverDnCreate(&sol));
    CK(cusolverDnSetStream(sol, s));
    int *info;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    float alpha = 1.0f, beta = 0.0f;
    /* warm: the first call binds and resolves */
    CK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A, 8, B, 8, &beta, C, 8));
    CK(cublasLtMatmul(lt, desc, &alpha, A, l, B, l, &beta, C, l, C, l, NULL, NULL, 0, s));
    CK(ncclAllReduce(A, C, 256, ncclFloat, ncclSum, comm, s));
    CK(cusolverDnSpotrf(sol, CUBLAS_FILL_MODE_LOWER, 8, A, 8, C, 64, info));
    SECTION("sgemm", n, cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A, 8, B, 8, &beta, C, 8));
    SECTION("ltmatmul", n, cublasLtMatmul(lt, desc, &alpha, A, l, B, l, &beta, C, l, C, l, NULL, NULL, 0, s));
    SECTION("allreduce", n, ncclAllReduce(A, C, 256, ncclFloat, ncclSum, comm, s));
    SECTION("potrf", n, cusolverDnSpotrf(sol, CUBLAS_FILL_MODE_LOWER, 8, A, 8, C, 64, info));
    printf("libcalls: %ld calls per section\n", n);
    return 0;
}
