/* cuBLAS at its API (tests/libapi/libapi.sh): `blas_prog buggy|correct` on
 * two simulated GPUs.  A handle made on cuda:0 with a stream of cuda:0:
 *  - cublasSgemm_v2 with alpha/beta host pointers (host pointer mode, the
 *    default: legal), A and C on cuda:0, B on cuda:1 when buggy (the one
 *    finding: argument B), on cuda:0 when correct; the stand-in calls
 *    cublasLtMatmul inside it (checked only as the outer call);
 *  - cublasGemmEx in device pointer mode, alpha/beta on cuda:0;
 *  - cublasSgemmStridedBatched on the default stream (the handle's device);
 *  - cublasSetWorkspace_v2 with a workspace on cuda:0;
 *  - cublasSdot_v2 with its result on the host stack (host pointer mode),
 *    then on cuda:0 (device pointer mode); on cuda:1 when `dot` (the one
 *    finding: argument result).
 * `peer`: as buggy, with peer access from cuda:0 to cuda:1 enabled first
 * (legal: a peer_access warning, as a kernel's operand); `capture`: as
 * buggy, the Sgemm captured into a graph (checked at capture).  `zero`:
 * then cublasSgemm_v2 with m = 0 and cublasSgemmStridedBatched with a
 * batchCount of 0, B of cuda:1 in both (cuBLAS returns at once: legal).
 * Issue 37 item 5, each with B1 of cuda:1 in one argument (the one
 * finding), and every one of them right in `correct`: `sgemmex`
 * (cublasSgemmEx B), `ex64` (cublasGemmEx_64 B), `trsm` (cublasStrsm_v2 B),
 * `getrf` (cublasSgetrfBatched: its pointer array A in pinned host memory,
 * element 1 of it B1: argument A[i]), `gels` (cublasSgelsBatched
 * devInfoArray: res1); level 1 and 2 from preload/hooks_blas.def's table:
 * `axpy` (cublasCaxpy_v2 y), `nrm2` (cublasSnrm2_v2_64 x), `scal`
 * (cublasZdscal_v2 x), `ger` (cublasSger_v2 A), `gemv64`
 * (cublasDgemv_v2_64 y), `dotc` (cublasZdotc_v2 x); `grouped`
 * (cublasGemmGroupedBatchedEx: two groups, its Carray in pinned host
 * memory, the second group's element B1: argument Carray[i]); `getrs`
 * (cublasSgetrsBatched: element 1 of Barray, in pinned host memory, B1:
 * argument Barray[i]), `geqrf` (cublasSgeqrfBatched: element 1 of
 * TauArray B1: TauArray[i]); `copy` (cublasScopy_v2 y), `amax`
 * (cublasIsamax_v2 x), `rot` (cublasZdrot_v2 y), `trsv` (cublasCtrsv_v2
 * A), `dotex` (cublasDotEx y); `symv` (cublasZhemv_v2 y), `syr`
 * (cublasCher_v2 A), `syr2` (cublasSsyr2_v2 y), `syrk` (cublasDsyrk_v2 C),
 * `syr2k` (cublasZher2k_v2 B), `symm` (cublasChemm_v2 A), `trmm`
 * (cublasStrmm_v2 C), `rotm` (cublasDrotm_v2 y, its param on the host);
 * `rotg` (cublasSrotg_v2 in device pointer mode: s) and `rotmg`
 * (cublasDrotmg_v2 in device pointer mode: y1), which in `correct` run in
 * both modes (host scalars on the host stack: not checked); `sym`: those
 * ten at once (ten findings, one process).  `zero`:
 * each of those with a size of 0 (n, m, or the group's m) and B1 in every
 * data argument: nothing read, no finding.  The sim's cuBLAS may answer
 * some of them CUBLAS_STATUS_NOT_SUPPORTED: their statuses are printed,
 * not checked. */
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSetPointerMode_v2) \
    X(cublasSgemm_v2) X(cublasGemmEx) X(cublasSgemmStridedBatched) X(cublasSetWorkspace_v2) X(cublasSdot_v2) \
    X(cublasSgemmEx) X(cublasGemmEx_64) X(cublasStrsm_v2) X(cublasSgetrfBatched) X(cublasSgelsBatched) \
    X(cublasCaxpy_v2) X(cublasSnrm2_v2_64) X(cublasZdscal_v2) X(cublasSger_v2) X(cublasDgemv_v2_64) X(cublasZdotc_v2) \
    X(cublasGemmGroupedBatchedEx) X(cublasSgetrsBatched) X(cublasSgeqrfBatched) X(cublasScopy_v2) \
    X(cublasIsamax_v2) X(cublasZdrot_v2) X(cublasCtrsv_v2) X(cublasDotEx) X(cublasZhemv_v2) X(cublasCher_v2) \
    X(cublasSsyr2_v2) X(cublasDsyrk_v2) X(cublasZher2k_v2) X(cublasChemm_v2) X(cublasStrmm_v2) X(cublasSrotg_v2) \
    X(cublasDrotm_v2) X(cublasDrotmg_v2)
FNS(DECL_FN)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int peer = !strcmp(mode, "peer"), capture = !strcmp(mode, "capture"), dot = !strcmp(mode, "dot");
    int buggy = !strcmp(mode, "buggy") || peer || capture, zero = !strcmp(mode, "zero");
    int correct = !strcmp(mode, "correct");
    BIND(SONAME("libcublas.so.13"));
    float *A, *B, *C, *dscal;
    CK(cudaSetDevice(1));
    float *B1, *res1;
    CK(cudaMalloc((void **)&B1, 64 * sizeof(float)));       // @alloc-B
    CK(cudaMalloc((void **)&res1, sizeof(float)));          // @alloc-result
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&A, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&B, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&C, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&dscal, 2 * sizeof(float)));
    void *work;
    CK(cudaMalloc(&work, 4096));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h, h2;
    CK(F(cublasCreate_v2)(&h));
    CK(F(cublasCreate_v2)(&h2));
    CK(F(cublasSetStream_v2)(h, s));
    CK(F(cublasSetWorkspace_v2)(h, work, 4096));
    if (peer)
        CK(cudaDeviceEnablePeerAccess(1, 0));
    float alpha = 1.0f, beta = 0.0f;
    cudaGraph_t g;
    if (capture)
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(F(cublasSgemm_v2)(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A, 8, buggy ? B1 : B, 8, &beta, C, 8));
    if (capture) {
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphDestroy(g));
    }
    float res;
    CK(F(cublasSdot_v2)(h, 8, A, 1, B, 1, &res));
    CK(F(cublasSetPointerMode_v2)(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(F(cublasSdot_v2)(h, 8, A, 1, B, 1, dot ? res1 : dscal));
    CK(F(cublasGemmEx)(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, dscal, A, CUDA_R_32F, 8, B, CUDA_R_32F, 8, dscal + 1, C,
                       CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    /* h2: the default stream, the handle's device (current again when called from cuda:1) */
    CK(cudaSetDevice(1));
    CK(cudaSetDevice(0));
    CK(F(cublasSgemmStridedBatched)(h2, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, A, 4, 16, B, 4, 16, &beta, C, 4,
                                    16, 2));
    if (zero) {
        CK(F(cublasSgemm_v2)(h2, CUBLAS_OP_N, CUBLAS_OP_N, 0, 8, 8, &alpha, A, 8, B1, 8, &beta, C, 8));
        CK(F(cublasSgemmStridedBatched)(h2, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, A, 4, 16, B1, 4, 16, &beta, C,
                                        4, 16, 0));
    }
    /* issue 37 item 5: the calls torch and JAX import (h2: cuda:0, the default stream) */
    if (correct || !strcmp(mode, "sgemmex"))
        printf("cublasSgemmEx: %d\n", (int)F(cublasSgemmEx)(h2, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A,
               CUDA_R_32F, 8, correct ? B : B1, CUDA_R_32F, 8, &beta, C, CUDA_R_32F, 8));
    if (correct || !strcmp(mode, "ex64"))
        printf("cublasGemmEx_64: %d\n", (int)F(cublasGemmEx_64)(h2, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A,
               CUDA_R_32F, 8, correct ? B : B1, CUDA_R_32F, 8, &beta, C, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT));
    if (correct || !strcmp(mode, "trsm"))
        printf("cublasStrsm_v2: %d\n", (int)F(cublasStrsm_v2)(h2, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
               CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 8, 8, &alpha, A, 8, correct ? B : B1, 8));
    if (correct || !strcmp(mode, "getrf")) {
        float **arr;
        int *piv, *info;
        CK(cudaMallocHost((void **)&arr, 2 * sizeof *arr));
        CK(cudaMalloc((void **)&piv, 2 * 8 * sizeof(int)));
        CK(cudaMalloc((void **)&info, 2 * sizeof(int)));
        arr[0] = A;
        arr[1] = correct ? C : B1;
        printf("cublasSgetrfBatched: %d\n", (int)F(cublasSgetrfBatched)(h2, 8, arr, 8, piv, info, 2));
    }
    if (correct || !strcmp(mode, "getrs") || !strcmp(mode, "geqrf")) {
        /* pointer arrays in pinned host memory: element 1 of B (getrs) or
         * of TauArray (geqrf) is B1 */
        float **aa, **bb;
        int *piv, info = 0;
        CK(cudaMallocHost((void **)&aa, 2 * sizeof *aa));
        CK(cudaMallocHost((void **)&bb, 2 * sizeof *bb));
        CK(cudaMalloc((void **)&piv, 2 * 8 * sizeof(int)));
        int ident[16];          /* LAPACK's 1-based pivots of n = 4: no interchange */
        for (int i = 0; i < 16; i++)
            ident[i] = i % 4 + 1;
        CK(cudaMemcpy(piv, ident, sizeof ident, cudaMemcpyHostToDevice));
        aa[0] = A, aa[1] = A + 8;
        bb[0] = C, bb[1] = correct ? C + 8 : B1;
        if (correct || !strcmp(mode, "getrs"))
            printf("cublasSgetrsBatched: %d\n", (int)F(cublasSgetrsBatched)(h2, CUBLAS_OP_N, 4, 1,
                   (const float *const *)aa, 8, piv, bb, 8, &info, 2));
        if (correct || !strcmp(mode, "geqrf"))
            printf("cublasSgeqrfBatched: %d\n", (int)F(cublasSgeqrfBatched)(h2, 4, 4, aa, 8, bb, &info, 2));
    }
    if (correct || !strcmp(mode, "gels")) {
        float **aa, **cc;
        int info = 0, *dinfo;
        CK(cudaMalloc((void **)&aa, sizeof *aa));
        CK(cudaMalloc((void **)&cc, sizeof *cc));
        CK(cudaMalloc((void **)&dinfo, sizeof(int)));
        CK(cudaMemcpy(aa, &A, sizeof A, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(cc, &C, sizeof C, cudaMemcpyHostToDevice));
        printf("cublasSgelsBatched: %d\n", (int)F(cublasSgelsBatched)(h2, CUBLAS_OP_N, 8, 8, 1, aa, 8, cc, 8, &info,
               correct ? dinfo : (int *)res1, 1));
    }
    /* level 1 and 2, the grouped GEMM (h2: host pointer mode); zero: sizes
     * of 0 with B1 everywhere */
#define ON(m) (correct || zero || !strcmp(mode, m))
#define OP(m, good) (zero || !strcmp(mode, m) ? (void *)B1 : (void *)(good))
    int nz = zero ? 0 : 4;
    cuComplex ca = { 1, 0 };
    double da = 2;
    cuDoubleComplex zres;
    if (ON("axpy"))
        printf("cublasCaxpy_v2: %d\n", (int)F(cublasCaxpy_v2)(h2, nz, &ca, zero ? (cuComplex *)B1 : (cuComplex *)A, 1,
               OP("axpy", C), 1));
    if (ON("nrm2"))
        printf("cublasSnrm2_v2_64: %d\n", (int)F(cublasSnrm2_v2_64)(h2, nz, OP("nrm2", A), 1, &res));
    if (ON("scal"))
        printf("cublasZdscal_v2: %d\n", (int)F(cublasZdscal_v2)(h2, nz, &da, OP("scal", C), 1));
    if (ON("ger"))
        printf("cublasSger_v2: %d\n", (int)F(cublasSger_v2)(h2, nz, 4, &alpha, zero ? B1 : A, 1, zero ? B1 : B, 1,
               OP("ger", C), 4));
    if (ON("gemv64"))
        printf("cublasDgemv_v2_64: %d\n", (int)F(cublasDgemv_v2_64)(h2, CUBLAS_OP_N, nz, 4, &da,
               zero ? (double *)B1 : (double *)A, 4, zero ? (double *)B1 : (double *)B, 1, &da, OP("gemv64", C), 1));
    if (ON("dotc"))
        printf("cublasZdotc_v2: %d\n", (int)F(cublasZdotc_v2)(h2, nz, OP("dotc", A), 1,
               zero ? (cuDoubleComplex *)B1 : (cuDoubleComplex *)B, 1, &zres));
    /* the rest of level 1, triangular level 2 (zero: n = 0, B1 everywhere) */
    int imax = 0;
    double rc = 0.5, rs = 0.5;
    if (ON("copy"))
        printf("cublasScopy_v2: %d\n", (int)F(cublasScopy_v2)(h2, nz, zero ? B1 : A, 1, OP("copy", C), 1));
    if (ON("amax"))
        printf("cublasIsamax_v2: %d\n", (int)F(cublasIsamax_v2)(h2, nz, OP("amax", A), 1, &imax));
    if (ON("rot"))
        printf("cublasZdrot_v2: %d\n", (int)F(cublasZdrot_v2)(h2, nz, zero ? (cuDoubleComplex *)B1 :
               (cuDoubleComplex *)A, 1, OP("rot", C), 1, &rc, &rs));
    if (ON("trsv"))
        printf("cublasCtrsv_v2: %d\n", (int)F(cublasCtrsv_v2)(h2, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
               CUBLAS_DIAG_UNIT, nz, OP("trsv", A), 4, zero ? (cuComplex *)B1 : (cuComplex *)C, 1));
    if (ON("dotex"))
        printf("cublasDotEx: %d\n", (int)F(cublasDotEx)(h2, nz, zero ? B1 : A, CUDA_R_32F, 1, OP("dotex", B),
               CUDA_R_32F, 1, &res, CUDA_R_32F, CUDA_R_32F));
    /* the symmetric/Hermitian level 2 and 3, trmm (zero: n = 0, B1
     * everywhere), rotm (host-mode param) */
    cuDoubleComplex za = { 1, 0 };
    float fa = 1;
    int sym = !strcmp(mode, "sym");     /* ON and OP for these families: in `sym` too */
#define ON3(m) (ON(m) || sym)
#define OP3(m, good) (sym ? (void *)B1 : OP(m, good))
#define CX(p) ((cuComplex *)(p))
#define ZX(p) ((cuDoubleComplex *)(p))
#define Z1(p) (zero ? (void *)B1 : (void *)(p))
    if (ON3("symv"))
        printf("cublasZhemv_v2: %d\n", (int)F(cublasZhemv_v2)(h2, CUBLAS_FILL_MODE_LOWER, nz, &za, ZX(Z1(A)), 4,
               ZX(Z1(B)), 1, &za, ZX(OP3("symv", C)), 1));
    if (ON3("syr"))
        printf("cublasCher_v2: %d\n", (int)F(cublasCher_v2)(h2, CUBLAS_FILL_MODE_UPPER, nz, &fa, CX(Z1(B)), 1,
               CX(OP3("syr", C)), 4));
    if (ON3("syr2"))
        printf("cublasSsyr2_v2: %d\n", (int)F(cublasSsyr2_v2)(h2, CUBLAS_FILL_MODE_LOWER, nz, &alpha, Z1(A), 1,
               OP3("syr2", B), 1, Z1(C), 4));
    if (ON3("syrk"))
        printf("cublasDsyrk_v2: %d\n", (int)F(cublasDsyrk_v2)(h2, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, nz, 4, &da,
               Z1(A), 4, &da, OP3("syrk", C), 4));
    if (ON3("syr2k"))
        printf("cublasZher2k_v2: %d\n", (int)F(cublasZher2k_v2)(h2, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, nz, 2, &za,
               ZX(Z1(A)), 4, ZX(OP3("syr2k", B)), 4, &da, ZX(Z1(C)), 4));
    if (ON3("symm"))
        printf("cublasChemm_v2: %d\n", (int)F(cublasChemm_v2)(h2, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, nz, 4,
               &ca, CX(OP3("symm", A)), 4, CX(Z1(B)), 4, &ca, CX(Z1(C)), 4));
    if (ON3("trmm"))
        printf("cublasStrmm_v2: %d\n", (int)F(cublasStrmm_v2)(h2, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
               CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 4, nz, &alpha, Z1(A), 4, Z1(B), 4, OP3("trmm", C), 4));
    if (ON3("rotm")) {
        double param[5] = { -1, 1, 0, 0, 1 };  /* flag -1: the full H, here the identity */
        printf("cublasDrotm_v2: %d\n", (int)F(cublasDrotm_v2)(h2, nz, Z1(A), 1, OP3("rotm", B), 1, param));
    }
    /* rotg, rotmg: scalars only; host pointer mode (h2): host memory, not
     * checked; device pointer mode (h): device memory, each checked (C's
     * first elements on cuda:0; B1 when buggy) */
    if (correct) {
        float ra = 3, rb = 4, rc_ = 0, rs_ = 0;
        double d1 = 1, d2 = 1, x1 = 1, y1 = 1, prm[5];
        printf("cublasSrotg_v2 host: %d\n", (int)F(cublasSrotg_v2)(h2, &ra, &rb, &rc_, &rs_));
        printf("cublasDrotmg_v2 host: %d\n", (int)F(cublasDrotmg_v2)(h2, &d1, &d2, &x1, &y1, prm));
    }
    if (correct || sym || !strcmp(mode, "rotg"))
        printf("cublasSrotg_v2: %d\n", (int)F(cublasSrotg_v2)(h, C, C + 1, C + 2, correct ? C + 3 : B1));
    if (correct || sym || !strcmp(mode, "rotmg"))
        printf("cublasDrotmg_v2: %d\n", (int)F(cublasDrotmg_v2)(h, (double *)C, (double *)C + 1, (double *)C + 2,
               correct ? (double *)C + 3 : (double *)B1, (double *)C + 4 /* param: 5 doubles */));
    if (ON("grouped")) {
        /* two groups of one 2x2x2 problem each (group 0's m 0 in zero) */
        cublasOperation_t ops[2] = { CUBLAS_OP_N, CUBLAS_OP_N };
        int ms[2] = { zero ? 0 : 2, 2 }, ns[2] = { 2, 2 }, ks[2] = { 2, 2 }, lds[2] = { 2, 2 }, sizes[2] = { 1, 1 };
        float al[2] = { 1, 1 }, be[2] = { 0, 0 };
        const void **aa, **bb;
        void **cc;
        CK(cudaMallocHost((void **)&aa, 2 * sizeof *aa));
        CK(cudaMallocHost((void **)&bb, 2 * sizeof *bb));
        CK(cudaMallocHost((void **)&cc, 2 * sizeof *cc));
        aa[0] = zero ? B1 : A, bb[0] = zero ? B1 : B, cc[0] = zero ? B1 : C;
        aa[1] = A + 16, bb[1] = B + 16, cc[1] = !strcmp(mode, "grouped") ? B1 : C + 16;
        printf("cublasGemmGroupedBatchedEx: %d\n", (int)F(cublasGemmGroupedBatchedEx)(h2, ops, ops, ms, ns, ks, al,
               aa, CUDA_R_32F, lds, bb, CUDA_R_32F, lds, be, cc, CUDA_R_32F, lds, zero ? 1 : 2, sizes,
               CUBLAS_COMPUTE_32F));
    }
    CK(F(cublasDestroy_v2)(h));
    CK(F(cublasDestroy_v2)(h2));
    CK(cudaDeviceSynchronize());
    printf("blas_prog %s: done\n", mode);
    return 0;
}
