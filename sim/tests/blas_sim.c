/* The sim's cuBLAS and cuBLASLt compute (sim/libs/cublas/README.md;
 * blas_sim.sh runs each mode on two simulated GPUs):
 *   values    every GEMM form against a host reference: cublasSgemm_v2 with
 *             transposes, cublasGemmEx (fp16 in and out, fp32 compute),
 *             cublasGemmStridedBatchedEx (bf16), cublasSgemmBatched and
 *             cublasGemmBatchedEx (pointer arrays in device memory),
 *             cublasZgemm_v2 (conjugate transpose), device pointer mode,
 *             cublasGemmGroupedBatchedEx (three groups, one of m = 0;
 *             a negative m refused), cublasSgemv_v2 and its _64 form,
 *             cublasSdot_v2 (host and device results) and its _64 form,
 *             axpy, scal, nrm2, ger (vec_values: strided and negative
 *             increments, complex and real-alpha forms, Cgerc, device
 *             pointer mode, a host-mode nrm2 of a handle on cuda:0 called
 *             while cuda:1 is current), cublasCdotc_v2 with incx 2,
 *             cublasLtMatmul with the BIAS, RELU_BIAS, GELU_BIAS and
 *             GELU_AUX_BIAS epilogues, a heuristic's algorithm, a batched
 *             Lt matmul with a bias batch stride;
 *   wrong     cublasSgemm_v2 on cuda:0 with B on cuda:1 (no peer access):
 *             the call succeeds, the next synchronisation reports
 *             cudaErrorIllegalAddress, and again (sticky);
 *   peer      the same with peer access enabled: legal, right values;
 *   array     cublasSgemmBatched whose second B (an element of the device
 *             pointer array) is on cuda:1: faults at the synchronisation;
 *   host      cublasLtMatmul whose bias is pageable host memory: faults;
 *   lu        cublasDgetrfBatched / cublasDgetrsBatched (both transposes;
 *             a pivot outside 1..n refused: that item's B unchanged)
 *             and cublasSgetrfBatched without pivots: op(A) x = b for
 *             each item of the batch, LAPACK's pivots (each row the
 *             largest remaining in its column), a singular item's info the
 *             column of its zero pivot; an item whose pointer is NULL is
 *             left alone, the call succeeds (one line of the sim's);
 *   lu_wrong  cublasSgetrsBatched whose second B is on cuda:1: faults;
 *   dot_wrong cublasSdot_v2 in host pointer mode with y on cuda:1:
 *             CUBLAS_STATUS_EXECUTION_FAILED (the call waits for its
 *             result), the result untouched, the fault sticky.
 * Prints `blas_sim MODE: ok` or the first mismatch; exit 0, or 1. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                \
    do {                                                                                     \
        long long r_ = (long long)(x);                                                       \
        if (r_) {                                                                            \
            printf("%s:%d: %s = %lld\n", __FILE__, __LINE__, #x, r_);                        \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static int bad;

static void expect_close(const char *what, const float *got, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > tol * (1 + fabs(want[i]))) {
            printf("%s[%d] = %g, want %g\n", what, i, got[i], want[i]);
            bad = 1;
            return;
        }
}

/* column-major reference: C = alpha op(A) op(B) + beta C */
static void ref(int ta, int tb, int m, int n, int k, double alpha, const float *A, int lda, const float *B, int ldb,
                double beta, const float *C0, int ldc, double *C)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (double)(ta ? A[i * lda + l] : A[l * lda + i]) * (tb ? B[l * ldb + j] : B[j * ldb + l]);
            C[j * m + i] = alpha * s + beta * C0[j * ldc + i];
        }
}

static void *dev(const void *host, size_t bytes)
{
    void *p;
    CK(cudaMalloc(&p, bytes));
    if (host)
        CK(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
    else
        CK(cudaMemset(p, 0, bytes));
    return p;
}

static void fill(float *v, int n, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = (float)((i * 7 + seed * 13) % 11) - 5.0f;
}

/* fp16 / bf16 by their bits (the values used are exact in both) */
static unsigned short to_half(float f)
{
    unsigned x;
    memcpy(&x, &f, 4);
    if (f == 0)
        return 0;
    return (unsigned short)(((x >> 16) & 0x8000) | ((((x >> 23) & 0xff) - 112) << 10) | ((x >> 13) & 0x3ff));
}

static float from_half(unsigned short h)
{
    int e = (h >> 10) & 31;
    float v = e ? ldexpf((float)((h & 1023) | 1024), e - 25) : ldexpf((float)(h & 1023), -24);
    return h & 0x8000 ? -v : v;
}

/* rotg in host pointer mode (computed on the host): the reference BLAS's
 * (a, b) = (3, 4): r 5, c 0.6, s 0.8, z 1/c; (4, -3): r 5, z = s; complex
 * (3, 4i): c 0.6, s 0.8 (a/|a| = 1 times conj(4i) / 5 = -0.8i), a 5 */
static void rotg_values(cublasHandle_t h)
{
    cublasPointerMode_t m;
    CK(cublasGetPointerMode_v2(h, &m));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST));
    float a = 3, b = 4, c = 0, sn = 0, got[8];
    CK(cublasSrotg_v2(h, &a, &b, &c, &sn));
    got[0] = a, got[1] = b, got[2] = c, got[3] = sn;
    double a2 = 4, b2 = -3, c2 = 0, s2 = 0;
    CK(cublasDrotg_v2(h, &a2, &b2, &c2, &s2));
    got[4] = (float)a2, got[5] = (float)b2, got[6] = (float)c2, got[7] = (float)s2;
    double want[8] = { 5, 1 / 0.6, 0.6, 0.8, 5, -0.6, 0.8, -0.6 };
    expect_close("Srotg, Drotg", got, want, 8, 1e-6);
    cuComplex ca = { 3, 0 }, cb = { 0, 4 }, cs;
    float cc;
    CK(cublasCrotg_v2(h, &ca, &cb, &cc, &cs));
    float cgot[5] = { ca.x, ca.y, cc, cs.x, cs.y };
    double cwant[5] = { 5, 0, 0.6, 0, -0.8 };
    expect_close("Crotg", cgot, cwant, 5, 1e-6);
    CK(cublasSetPointerMode_v2(h, m));
}

/* symv (upper triangle read, the lower holds junk) and hemv (lower read;
 * the diagonal's imaginary part junk, taken as 0) against the full matrix
 * they stand for; y with increment 2, beta 1 (hemv: beta 0 over a NaN y);
 * syr, her, syr2, her2, syrk, herk, syr2k, her2k, symm, hemm, trmm, rotm
 * against values worked by hand */
static void symv_values(cublasHandle_t h)
{
    enum { N = 3 };
    const double full[N][N] = { { 1, 2, -1 }, { 2, 0.5, 3 }, { -1, 3, 4 } };
    float A[N * N], x[N] = { 1, -2, 0.5 }, y[2 * N] = { 1, 9, 2, 9, 3, 9 }, got[2 * N];
    double want[2 * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            A[j * N + i] = i <= j ? (float)full[i][j] : 99;
    float al = 2, be = 1;
    float *dA = dev(A, sizeof A), *dx = dev(x, sizeof x), *dy = dev(y, sizeof y);
    CK(cublasSsymv_v2(h, CUBLAS_FILL_MODE_UPPER, N, &al, dA, N, dx, 1, &be, dy, 2));
    CK(cudaMemcpy(got, dy, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2 * N; i++)
        want[i] = y[i];
    for (int i = 0; i < N; i++) {
        double t = 0;
        for (int j = 0; j < N; j++)
            t += full[i][j] * x[j];
        want[2 * i] = 2 * t + y[2 * i];
    }
    expect_close("Ssymv upper, incy 2", got, want, 2 * N, 1e-6);
    /* hemv: H = [[2, 1-i], [1+i, 3]], its lower triangle stored */
    cuDoubleComplex H[4] = { { 2, 7 }, { 1, 1 }, { 99, 99 }, { 3, -5 } }, hx[2] = { { 1, 0 }, { 0, 1 } },
                    hy[2] = { { NAN, 0 }, { NAN, 0 } }, one = { 1, 0 }, zero = { 0, 0 }, hgot[2];
    cuDoubleComplex *dH = dev(H, sizeof H), *dhx = dev(hx, sizeof hx), *dhy = dev(hy, sizeof hy);
    CK(cublasZhemv_v2(h, CUBLAS_FILL_MODE_LOWER, 2, &one, dH, 2, dhx, 1, &zero, dhy, 1));
    CK(cudaMemcpy(hgot, dhy, sizeof hgot, cudaMemcpyDeviceToHost));
    /* H x = (2 + (1-i) i, (1+i) + 3i) = (3 + i, 1 + 4i) */
    float fg[4] = { (float)hgot[0].x, (float)hgot[0].y, (float)hgot[1].x, (float)hgot[1].y };
    double fw[4] = { 3, 1, 1, 4 };
    expect_close("Zhemv lower, beta 0", fg, fw, 4, 1e-12);
    /* syr, her, syr2, her2 of n = 2 over a zero triangle; the other
     * triangle's element junk (99), left alone; her's diagonal real */
    double rA[4] = { 0, 0, 99, 0 }, dxv[2] = { 1, 2 }, one_d = 1;
    double *ddA = dev(rA, sizeof rA), *ddx = dev(dxv, sizeof dxv);
    CK(cublasDsyr_v2(h, CUBLAS_FILL_MODE_LOWER, 2, &one_d, ddx, 1, ddA, 2));
    CK(cudaMemcpy(rA, ddA, sizeof rA, cudaMemcpyDeviceToHost));
    float g1[4] = { (float)rA[0], (float)rA[1], (float)rA[2], (float)rA[3] };
    double w1[4] = { 1, 2, 99, 4 };
    expect_close("Dsyr lower", g1, w1, 4, 0);
    cuComplex cA[4] = { { 0, 5 }, { 7, 7 }, { 0, 0 }, { 0, 5 } }, cx[2] = { { 1, 0 }, { 0, 1 } };
    float two = 2;
    cuComplex *dcA = dev(cA, sizeof cA), *dcx = dev(cx, sizeof cx);
    CK(cublasCher_v2(h, CUBLAS_FILL_MODE_UPPER, 2, &two, dcx, 1, dcA, 2));
    CK(cudaMemcpy(cA, dcA, sizeof cA, cudaMemcpyDeviceToHost));
    float g2[8] = { cA[0].x, cA[0].y, cA[1].x, cA[1].y, cA[2].x, cA[2].y, cA[3].x, cA[3].y };
    double w2[8] = { 2, 0, 7, 7, 0, -2, 2, 0 };
    expect_close("Cher upper", g2, w2, 8, 0);
    float sA[4] = { 0, 99, 0, 0 }, sx[2] = { 1, 2 }, sy[2] = { 3, 1 }, one_f = 1;
    float *dsA = dev(sA, sizeof sA), *dsx = dev(sx, sizeof sx), *dsy = dev(sy, sizeof sy);
    CK(cublasSsyr2_v2(h, CUBLAS_FILL_MODE_UPPER, 2, &one_f, dsx, 1, dsy, 1, dsA, 2));
    CK(cudaMemcpy(sA, dsA, sizeof sA, cudaMemcpyDeviceToHost));
    double w3[4] = { 6, 99, 7, 4 };
    expect_close("Ssyr2 upper", sA, w3, 4, 0);
    cuDoubleComplex zA[4] = { { 0, 0 }, { 0, 0 }, { 99, 99 }, { 0, 0 } }, zx[2] = { { 1, 0 }, { 0, 1 } },
                    zy[2] = { { 1, 0 }, { 1, 0 } }, zi = { 0, 1 };
    cuDoubleComplex *dzA = dev(zA, sizeof zA), *dzx = dev(zx, sizeof zx), *dzy = dev(zy, sizeof zy);
    CK(cublasZher2_v2(h, CUBLAS_FILL_MODE_LOWER, 2, &zi, dzx, 1, dzy, 1, dzA, 2));
    CK(cudaMemcpy(zA, dzA, sizeof zA, cudaMemcpyDeviceToHost));
    /* alpha x[i] conj(y[j]) + conj(alpha) y[i] conj(x[j]), alpha = i */
    float g4[8] = { (float)zA[0].x, (float)zA[0].y, (float)zA[1].x, (float)zA[1].y, (float)zA[2].x,
                    (float)zA[2].y, (float)zA[3].x, (float)zA[3].y };
    double w4[8] = { 0, 0, -1, -1, 99, 99, -2, 0 };
    expect_close("Zher2 lower", g4, w4, 8, 0);
    /* syrk, herk, syr2k, her2k of n = 2: the same products as rank-k
     * updates (A A^T, A A^H, op(A) op(B)^T + op(B) op(A)^T, ...) */
    double kA[4] = { 1, 3, 2, 4 }, kC[4] = { 1, 1, 99, 1 };
    double *dkA = dev(kA, sizeof kA), *dkC = dev(kC, sizeof kC);
    CK(cublasDsyrk_v2(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 2, 2, &one_d, dkA, 2, &one_d, dkC, 2));
    CK(cudaMemcpy(kC, dkC, sizeof kC, cudaMemcpyDeviceToHost));
    float g5[4] = { (float)kC[0], (float)kC[1], (float)kC[2], (float)kC[3] };
    double w5[4] = { 6, 12, 99, 26 };
    expect_close("Dsyrk lower, beta 1", g5, w5, 4, 0);
    cuComplex hA[2] = { { 1, 1 }, { 2, 0 } }, hC[4] = { { 9, 9 }, { 7, 7 }, { 9, 9 }, { 9, 9 } };
    float zero_f = 0;
    cuComplex *dhA = dev(hA, sizeof hA), *dhC = dev(hC, sizeof hC);
    CK(cublasCherk_v2(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, 2, 1, &one_f, dhA, 2, &zero_f, dhC, 2));
    CK(cudaMemcpy(hC, dhC, sizeof hC, cudaMemcpyDeviceToHost));
    float g6[8] = { hC[0].x, hC[0].y, hC[1].x, hC[1].y, hC[2].x, hC[2].y, hC[3].x, hC[3].y };
    double w6[8] = { 2, 0, 7, 7, 2, 2, 4, 0 };
    expect_close("Cherk upper, beta 0", g6, w6, 8, 0);
    float tA[2] = { 1, 2 }, tB[2] = { 3, 1 }, tC[4] = { 9, 99, 9, 9 };
    float *dtA = dev(tA, sizeof tA), *dtB = dev(tB, sizeof tB), *dtC = dev(tC, sizeof tC);
    CK(cublasSsyr2k_v2(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, 2, 1, &one_f, dtA, 1, dtB, 1, &zero_f, dtC, 2));
    CK(cudaMemcpy(tC, dtC, sizeof tC, cudaMemcpyDeviceToHost));
    expect_close("Ssyr2k upper, op T", tC, w3, 4, 0);
    cuDoubleComplex kzC[4] = { { 5, 5 }, { 5, 5 }, { 99, 99 }, { 5, 5 } };
    double zero_d = 0;
    cuDoubleComplex *dkzC = dev(kzC, sizeof kzC);
    CK(cublasZher2k_v2(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 2, 1, &zi, dzx, 2, dzy, 2, &zero_d, dkzC, 2));
    CK(cudaMemcpy(kzC, dkzC, sizeof kzC, cudaMemcpyDeviceToHost));
    float g8[8] = { (float)kzC[0].x, (float)kzC[0].y, (float)kzC[1].x, (float)kzC[1].y, (float)kzC[2].x,
                    (float)kzC[2].y, (float)kzC[3].x, (float)kzC[3].y };
    expect_close("Zher2k lower, beta 0", g8, w4, 8, 0);
    /* symm left (upper read), hemm right (lower read, H as above, a 1 x 2
     * B: B H), trmm left op T with a unit diagonal (its stored 5 unread) */
    float mA[4] = { 1, 99, 2, 3 }, mB[4] = { 1, 3, 2, 4 }, mC[4] = { NAN, NAN, NAN, NAN };
    float *dmA = dev(mA, sizeof mA), *dmB = dev(mB, sizeof mB), *dmC = dev(mC, sizeof mC);
    CK(cublasSsymm_v2(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, 2, 2, &one_f, dmA, 2, dmB, 2, &zero_f, dmC, 2));
    CK(cudaMemcpy(mC, dmC, sizeof mC, cudaMemcpyDeviceToHost));
    double w9[4] = { 7, 11, 10, 16 };
    expect_close("Ssymm left upper", mC, w9, 4, 0);
    cuDoubleComplex hb[2] = { { 1, 0 }, { 0, 1 } }, hc[2], zone = { 1, 0 }, zzero = { 0, 0 };
    cuDoubleComplex *dhb = dev(hb, sizeof hb), *dhc = dev(NULL, sizeof hc);
    CK(cublasZhemm_v2(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, 1, 2, &zone, dH, 2, dhb, 1, &zzero, dhc, 1));
    CK(cudaMemcpy(hc, dhc, sizeof hc, cudaMemcpyDeviceToHost));
    float g10[4] = { (float)hc[0].x, (float)hc[0].y, (float)hc[1].x, (float)hc[1].y };
    double w10[4] = { 1, 1, 1, 2 };
    expect_close("Zhemm right lower", g10, w10, 4, 0);
    float tmA[4] = { 5, 4, 99, 5 }, rB[2] = { 1, 2 }, rC[2];
    float *drA = dev(tmA, sizeof tmA), *drB = dev(rB, sizeof rB), *drC = dev(NULL, sizeof rC);
    CK(cublasStrmm_v2(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, 2, 1, &one_f, drA,
                      2, drB, 2, drC, 2));
    CK(cudaMemcpy(rC, drC, sizeof rC, cudaMemcpyDeviceToHost));
    double w11[2] = { 9, 2 };
    expect_close("Strmm left lower op T unit", rC, w11, 2, 0);
    /* rotm: flag 1 (H = [[h11, 1], [-1, h22]]) in host pointer mode; flag
     * -1 (the full H) with param on the device, in device pointer mode */
    float ox[2] = { 1, 2 }, oy[2] = { 3, 4 }, prm[5] = { 1, 2, 0, 0, 3 }, og[4];
    float *dox = dev(ox, sizeof ox), *doy = dev(oy, sizeof oy);
    CK(cublasSrotm_v2(h, 2, dox, 1, doy, 1, prm));
    CK(cudaMemcpy(og, dox, sizeof ox, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(og + 2, doy, sizeof oy, cudaMemcpyDeviceToHost));
    double w12[4] = { 5, 8, 8, 10 };
    expect_close("Srotm flag 1", og, w12, 4, 0);
    double px[1] = { 1 }, py[1] = { 1 }, pp[5] = { -1, 1, 3, 2, 4 }, pg[2];
    double *dpx = dev(px, sizeof px), *dpy = dev(py, sizeof py), *dpp = dev(pp, sizeof pp);
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(cublasDrotm_v2(h, 1, dpx, 1, dpy, 1, dpp));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST));
    CK(cudaMemcpy(pg, dpx, sizeof px, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(pg + 1, dpy, sizeof py, cudaMemcpyDeviceToHost));
    float pgf[2] = { (float)pg[0], (float)pg[1] };
    double w13[2] = { 3, 7 };
    expect_close("Drotm flag -1, device param", pgf, w13, 2, 0);
}

/* axpy, scal, nrm2, ger against the reference BLAS's definitions: strided
 * and negative increments (a vector read from its far end), complex
 * alpha, the real-alpha and real-result forms, device pointer mode */
static void vec_values(cublasHandle_t h)
{
    float x[8] = { 1, -2, 3, 4, -5, 6, 7, 8 }, y[8] = { 2, 1, 0, -1, 3, 5, -2, 4 }, got[24];
    double want[24];
    float *dx = dev(x, sizeof x), *dy = dev(y, sizeof y);
    float a = 2;
    /* y(0..3, inc 2) += 2 x(inc -2): element i of x at (i - 3) * -2 */
    CK(cublasSaxpy_v2(h, 4, &a, dx, -2, dy, 2));
    CK(cudaMemcpy(got, dy, sizeof y, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++)
        want[i] = y[i];
    for (int i = 0; i < 4; i++)
        want[2 * i] += 2.0 * x[(3 - i) * 2];
    expect_close("Saxpy inc -2, 2", got, want, 8, 0);
    /* scal x(inc 3) by 0.5; an incx <= 0 leaves x alone */
    float half = 0.5f;
    CK(cublasSscal_v2(h, 3, &half, dx, 3));
    CK(cublasSscal_v2(h, 3, &half, dx, -1));
    CK(cudaMemcpy(got, dx, sizeof x, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++)
        want[i] = i % 3 == 0 && i < 9 ? x[i] * 0.5 : x[i];
    expect_close("Sscal inc 3", got, want, 8, 0);
    /* complex: Caxpy with alpha 1 + 2i, Csscal by 3, Cgerc, Scnrm2 */
    float cx[8] = { 1, 1, 2, -1, 0, 3, -2, 0 }, cy[8] = { 1, 0, 0, 1, 2, 2, 1, -1 };
    float *dcx = dev(cx, sizeof cx), *dcy = dev(cy, sizeof cy);
    cuComplex ca = { 1, 2 };
    CK(cublasCaxpy_v2(h, 4, &ca, (cuComplex *)dcx, 1, (cuComplex *)dcy, 1));
    CK(cudaMemcpy(got, dcy, sizeof cy, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4; i++) {
        want[2 * i] = cy[2 * i] + (1.0 * cx[2 * i] - 2.0 * cx[2 * i + 1]);
        want[2 * i + 1] = cy[2 * i + 1] + (1.0 * cx[2 * i + 1] + 2.0 * cx[2 * i]);
    }
    expect_close("Caxpy", got, want, 8, 0);
    float three = 3;
    CK(cublasCsscal_v2(h, 4, &three, (cuComplex *)dcx, 1));
    CK(cudaMemcpy(got, dcx, sizeof cx, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++)
        want[i] = 3.0 * cx[i];
    expect_close("Csscal", got, want, 8, 0);
    float nrm = 0;
    double ss = 0;
    for (int i = 0; i < 8; i++)
        ss += 9.0 * cx[i] * cx[i];
    want[0] = sqrt(ss);
    CK(cublasScnrm2_v2(h, 4, (cuComplex *)dcx, 1, &nrm));          /* host result */
    expect_close("Scnrm2 host", &nrm, want, 1, 1e-6);
    nrm = -1;
    CK(cublasSnrm2_v2(h, 0, dx, 1, &nrm));
    want[0] = 0;
    expect_close("Snrm2 n 0", &nrm, want, 1, 0);
    /* Cgerc: A (2 x 4, lda 3) += alpha x y^H, x of 2, y of 4 */
    float cA[24];
    for (int i = 0; i < 24; i++)
        cA[i] = (float)(i % 5) - 2;
    float *dA = dev(cA, sizeof cA);
    CK(cublasCgerc_v2(h, 2, 4, &ca, (cuComplex *)dcy, 1, (cuComplex *)dcx, 1, (cuComplex *)dA, 3));
    CK(cudaMemcpy(got, dA, sizeof cA, cudaMemcpyDeviceToHost));
    float ny[8];
    CK(cudaMemcpy(ny, dcy, sizeof ny, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 24; k++)
        want[k] = cA[k];
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 2; i++) {
            double xr = ny[2 * i], xi = ny[2 * i + 1], yr = 3.0 * cx[2 * j], yi = -3.0 * cx[2 * j + 1];
            double pr = xr * yr - xi * yi, pi = xr * yi + xi * yr;
            want[2 * (j * 3 + i)] += 1 * pr - 2 * pi;
            want[2 * (j * 3 + i) + 1] += 1 * pi + 2 * pr;
        }
    expect_close("Cgerc", got, want, 24, 1e-6);
    /* Cdotc: sum conj(x_i) y_i, x of increment 2 (every other element of
     * the 4 of dcy), y the first 2 of ny's source (dcx, scaled by 3) */
    cuComplex cd = { 0, 0 };
    CK(cublasCdotc_v2(h, 2, (cuComplex *)dcy, 2, (cuComplex *)dcx, 1, &cd));
    double dre = 0, dim = 0;
    for (int i = 0; i < 2; i++) {
        double xr = ny[4 * i], xi = -ny[4 * i + 1], yr = 3.0 * cx[2 * i], yi = 3.0 * cx[2 * i + 1];
        dre += xr * yr - xi * yi;
        dim += xr * yi + xi * yr;
    }
    want[0] = dre, want[1] = dim;
    expect_close("Cdotc inc 2", &cd.x, want, 1, 1e-6);
    expect_close("Cdotc inc 2 (imaginary)", &cd.y, want + 1, 1, 1e-6);
    if (cublasSger_v2(h, 2, 2, &a, dx, 0, dy, 1, dA, 2) != CUBLAS_STATUS_INVALID_VALUE) {
        printf("Sger with incx 0: not CUBLAS_STATUS_INVALID_VALUE\n");
        bad = 1;
    }
    /* device pointer mode: alpha read by the kernel, nrm2's result written there */
    float *dsc = dev(&a, sizeof a), *dres = dev(NULL, sizeof(float));
    CK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(cublasSscal_v2(h, 8, dsc, dx, 1));
    CK(cublasSnrm2_v2(h, 8, dx, 1, dres));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST));
    CK(cudaMemcpy(&nrm, dres, sizeof nrm, cudaMemcpyDeviceToHost));
    ss = 0;
    for (int i = 0; i < 8; i++)
        ss += 4.0 * x[i] * x[i];
    want[0] = sqrt(ss);
    expect_close("Snrm2 device", &nrm, want, 1, 1e-6);
    /* a host result of a handle on cuda:0 (its stream's device) called
     * while cuda:1 is current: the handle's device computes and holds it */
    cublasHandle_t h0;
    cudaStream_t s0;
    CK(cudaStreamCreate(&s0));
    CK(cublasCreate_v2(&h0));
    CK(cublasSetStream_v2(h0, s0));
    CK(cudaSetDevice(1));
    nrm = -1;
    CK(cublasSnrm2_v2(h0, 8, dx, 1, &nrm));
    CK(cudaSetDevice(0));
    expect_close("Snrm2 host, another device current", &nrm, want, 1, 1e-6);
    CK(cublasDestroy_v2(h0));
    CK(cudaStreamDestroy(s0));
}

static void values(void)
{
    enum { M = 5, N = 4, K = 3 };
    float A[K * M], B[N * K], C0[M * N], C[M * N];      /* A stored k x m (transposed), B k x n */
    double want[M * N];
    fill(A, K * M, 1), fill(B, N * K, 2), fill(C0, M * N, 3);
    cublasHandle_t h;
    CK(cublasCreate_v2(&h));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cublasSetStream_v2(h, s));
    float *dA = dev(A, sizeof A), *dB = dev(B, sizeof B), *dC = dev(C0, sizeof C0);
    float alpha = 2, beta = 0.5f;
    /* C = 2 A^T B + 0.5 C */
    CK(cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, dA, K, dB, K, &beta, dC, M));
    CK(cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost));
    ref(1, 0, M, N, K, 2, A, K, B, K, 0.5, C0, M, want);
    expect_close("Sgemm", C, want, M * N, 1e-6);

    /* device pointer mode: alpha, beta read from device memory */
    float sc[2] = { 1, 0 };
    float *dsc = dev(sc, sizeof sc);
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(cublasSgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, dsc, dA, K, dB, K, dsc + 1, dC, M));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST));
    CK(cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost));
    ref(1, 0, M, N, K, 1, A, K, B, K, 0, C0, M, want);
    expect_close("Sgemm device mode", C, want, M * N, 1e-6);

    /* GemmEx: fp16 A, B, C; fp32 compute */
    unsigned short hA[K * M], hB[N * K], hC[M * N];
    for (int i = 0; i < K * M; i++) hA[i] = to_half(A[i]);
    for (int i = 0; i < N * K; i++) hB[i] = to_half(B[i]);
    void *dhA = dev(hA, sizeof hA), *dhB = dev(hB, sizeof hB), *dhC = dev(NULL, sizeof hC);
    float one = 1, zero = 0;
    CK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, dhA, CUDA_R_16F, K, dhB, CUDA_R_16F, K, &zero, dhC,
                    CUDA_R_16F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(hC, dhC, sizeof hC, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M * N; i++) C[i] = from_half(hC[i]);
    ref(1, 0, M, N, K, 1, A, K, B, K, 0, C0, M, want);
    expect_close("GemmEx fp16", C, want, M * N, 1e-3);

    /* strided batched, bf16 (the values are exact in bf16): two items */
    unsigned short bA[2 * K * M], bB[2 * N * K], bC[2 * M * N];
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < K * M; i++) { float f = A[i] * (b + 1); unsigned x; memcpy(&x, &f, 4); bA[b * K * M + i] = (unsigned short)(x >> 16); }
        for (int i = 0; i < N * K; i++) { unsigned x; memcpy(&x, &B[i], 4); bB[b * N * K + i] = (unsigned short)(x >> 16); }
    }
    void *dbA = dev(bA, sizeof bA), *dbB = dev(bB, sizeof bB), *dbC = dev(NULL, sizeof bC);
    CK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, dbA, CUDA_R_16BF, K, K * M, dbB,
                                  CUDA_R_16BF, K, N * K, &zero, dbC, CUDA_R_16BF, M, M * N, 2, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(bC, dbC, sizeof bC, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < M * N; i++) { unsigned x = (unsigned)bC[b * M * N + i] << 16; memcpy(&C[i], &x, 4); }
        ref(1, 0, M, N, K, b + 1, A, K, B, K, 0, C0, M, want);
        expect_close("GemmStridedBatchedEx bf16", C, want, M * N, 1e-2);
    }

    /* pointer arrays in device memory: item b is A, B, C of batch b */
    float *pA[2] = { dA, dA }, *pB[2] = { dB, dB }, *pC[2] = { dev(NULL, sizeof C), dev(NULL, sizeof C) };
    float **dpA = dev(pA, sizeof pA), **dpB = dev(pB, sizeof pB), **dpC = dev(pC, sizeof pC);
    CK(cublasSgemmBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, (const float *const *)dpA, K,
                          (const float *const *)dpB, K, &zero, dpC, M, 2));
    ref(1, 0, M, N, K, 2, A, K, B, K, 0, C0, M, want);
    for (int b = 0; b < 2; b++) {
        CK(cudaMemcpy(C, pC[b], sizeof C, cudaMemcpyDeviceToHost));
        expect_close("SgemmBatched", C, want, M * N, 1e-6);
    }
    CK(cublasGemmBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, (const void *const *)dpA, CUDA_R_32F, K,
                           (const void *const *)dpB, CUDA_R_32F, K, &zero, (void *const *)dpC, CUDA_R_32F, M, 2,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    ref(1, 0, M, N, K, 1, A, K, B, K, 0, C0, M, want);
    CK(cudaMemcpy(C, pC[1], sizeof C, cudaMemcpyDeviceToHost));
    expect_close("GemmBatchedEx", C, want, M * N, 1e-6);
    /* the grouped GEMM: group 0 one problem C = 2 A^T B, group 1 one of
     * m = 0 (nothing), group 2 one C = 1 A^T B into pC[1] (the problems'
     * pointers follow each other in the arrays, group after group) */
    {
        cublasOperation_t ta[3] = { CUBLAS_OP_T, CUBLAS_OP_T, CUBLAS_OP_T }, tb[3] = { CUBLAS_OP_N, CUBLAS_OP_N, CUBLAS_OP_N };
        int gm[3] = { M, 0, M }, gn[3] = { N, N, N }, gk[3] = { K, K, K }, glda[3] = { K, K, K }, gldc[3] = { M, M, M };
        int gsize[3] = { 1, 1, 1 };
        float galpha[3] = { 2, 7, 1 }, gbeta[3] = { 0, 0, 0 };
        float *gA[3] = { dA, dA, dA }, *gB[3] = { dB, dB, dB }, *gC[3] = { pC[0], NULL, pC[1] };
        float **dgA = dev(gA, sizeof gA), **dgB = dev(gB, sizeof gB), **dgC = dev(gC, sizeof gC);
        CK(cudaMemset(pC[0], 0, sizeof C));
        CK(cudaMemset(pC[1], 0, sizeof C));
        CK(cublasGemmGroupedBatchedEx(h, ta, tb, gm, gn, gk, galpha, (const void *const *)dgA, CUDA_R_32F, glda,
                                      (const void *const *)dgB, CUDA_R_32F, glda, gbeta, (void *const *)dgC,
                                      CUDA_R_32F, gldc, 3, gsize, CUBLAS_COMPUTE_32F));
        ref(1, 0, M, N, K, 2, A, K, B, K, 0, C0, M, want);
        CK(cudaMemcpy(C, pC[0], sizeof C, cudaMemcpyDeviceToHost));
        expect_close("GemmGroupedBatchedEx group 0", C, want, M * N, 1e-6);
        ref(1, 0, M, N, K, 1, A, K, B, K, 0, C0, M, want);
        CK(cudaMemcpy(C, pC[1], sizeof C, cudaMemcpyDeviceToHost));
        expect_close("GemmGroupedBatchedEx group 2", C, want, M * N, 1e-6);
        int neg[3] = { M, -1, M };
        if (cublasGemmGroupedBatchedEx(h, ta, tb, neg, gn, gk, galpha, (const void *const *)dgA, CUDA_R_32F, glda,
                                       (const void *const *)dgB, CUDA_R_32F, glda, gbeta, (void *const *)dgC,
                                       CUDA_R_32F, gldc, 3, gsize, CUBLAS_COMPUTE_32F) != CUBLAS_STATUS_INVALID_VALUE) {
            printf("GemmGroupedBatchedEx: a negative m is not CUBLAS_STATUS_INVALID_VALUE\n");
            bad = 1;
        }
    }

    /* Zgemm, conjugate transpose of a 2x2 complex A: C = A^H A */
    cuDoubleComplex z[4] = { { 1, 2 }, { 3, -1 }, { 0, 1 }, { 2, 2 } }, zc[4];
    cuDoubleComplex zone = { 1, 0 }, zzero = { 0, 0 };
    void *dz = dev(z, sizeof z), *dzc = dev(NULL, sizeof zc);
    CK(cublasZgemm_v2(h, CUBLAS_OP_C, CUBLAS_OP_N, 2, 2, 2, &zone, dz, 2, dz, 2, &zzero, dzc, 2));
    CK(cudaMemcpy(zc, dzc, sizeof zc, cudaMemcpyDeviceToHost));
    /* (A^H A)(0,1) = conj(a00) a01 + conj(a10) a11 = (1-2i)(i) + (3+i)(2+2i) = (2+i) + (4+8i) = 6+9i */
    if (fabs(zc[2].x - 6) > 1e-12 || fabs(zc[2].y - 9) > 1e-12 || fabs(zc[0].x - 15) > 1e-12 || zc[0].y != 0) {
        printf("Zgemm: (%g,%g) (%g,%g)\n", zc[0].x, zc[0].y, zc[2].x, zc[2].y);
        bad = 1;
    }

    /* gemv y = A^T x (A stored k x m), and dot products */
    float x[K] = { 1, 2, 3 }, y[M];
    float *dx = dev(x, sizeof x), *dy = dev(NULL, sizeof y);
    CK(cublasSgemv_v2(h, CUBLAS_OP_T, K, M, &one, dA, K, dx, 1, &zero, dy, 1));
    CK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        want[i] = A[i * K] * 1.0 + A[i * K + 1] * 2.0 + A[i * K + 2] * 3.0;
    expect_close("Sgemv", y, want, M, 1e-6);
    CK(cudaMemset(dy, 0, sizeof y));
    CK(cublasSgemv_v2_64(h, CUBLAS_OP_T, K, M, &one, dA, K, dx, 1, &zero, dy, 1));
    CK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
    expect_close("Sgemv_64", y, want, M, 1e-6);
    float d = -1;
    CK(cublasSdot_v2(h, K, dx, 1, dA, 1, &d));          /* host pointer mode: a host result */
    want[0] = A[0] + 2.0 * A[1] + 3.0 * A[2];
    expect_close("Sdot host", &d, want, 1, 1e-6);
    d = -1;
    CK(cublasSdot_v2_64(h, K, dx, 1, dA, 1, &d));
    expect_close("Sdot_64 host", &d, want, 1, 1e-6);
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(cublasSdot_v2(h, K, dx, 1, dA, 1, dsc));
    CK(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST));
    CK(cudaMemcpy(&d, dsc, sizeof d, cudaMemcpyDeviceToHost));
    expect_close("Sdot device", &d, want, 1, 1e-6);

    /* cuBLASLt: D = A^T B + bias with the epilogues nn.Linear and
     * _addmm_activation use; GELU_AUX_BIAS also stores the GELU's input */
    cublasLtHandle_t lt;
    CK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t desc;
    CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    int32_t opT = CUBLAS_OP_T;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    cublasLtMatrixLayout_t la, lb, ld;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, K, M, K));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, K, N, K));
    CK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, M, N, M));
    float bias[M] = { 1, -2, 3, -4, 0.5f }, aux[M * N];
    float *dbias = dev(bias, sizeof bias), *daux = dev(NULL, sizeof aux), *dD = dev(NULL, sizeof C);
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &daux, sizeof daux));
    int64_t auxld = M;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &auxld, sizeof auxld));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    ref(1, 0, M, N, K, 1, A, K, B, K, 0, C0, M, want);
    static const uint32_t eps[] = { CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS,
                                    CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_DEFAULT };
    for (unsigned e = 0; e < sizeof eps / sizeof eps[0]; e++) {
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &eps[e], sizeof eps[e]));
        cublasLtMatmulHeuristicResult_t r;
        int n = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &r, &n));
        if (n != 1 || r.state != CUBLAS_STATUS_SUCCESS) {
            printf("heuristic: %d results\n", n);
            bad = 1;
        }
        CK(cublasLtMatmul(lt, desc, &one, dA, la, dB, lb, &zero, dD, ld, dD, ld, &r.algo, NULL, 0, s));
        CK(cudaMemcpy(C, dD, sizeof C, cudaMemcpyDeviceToHost));
        double w[M * N], pre[M * N];
        for (int i = 0; i < M * N; i++) {
            double v = want[i] + (eps[e] & CUBLASLT_EPILOGUE_BIAS ? bias[i % M] : 0);
            pre[i] = v;
            if (eps[e] & CUBLASLT_EPILOGUE_RELU)
                v = v > 0 ? v : 0;
            if (eps[e] & CUBLASLT_EPILOGUE_GELU)
                v = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
            w[i] = v;
        }
        char what[64];
        snprintf(what, sizeof what, "cublasLtMatmul epilogue %u", eps[e]);
        expect_close(what, C, w, M * N, 1e-6);
        if (eps[e] == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) {
            CK(cudaMemcpy(aux, daux, sizeof aux, cudaMemcpyDeviceToHost));
            expect_close("GELU_AUX_BIAS aux", aux, pre, M * N, 1e-6);
        }
    }
    /* batched: two items of D, the second with the bias advanced by M (the batch stride) */
    int32_t two = 2;
    int64_t sa = 0, sbst = 0, sd = M * N, bst = 0;
    float bias2[2 * M];
    for (int i = 0; i < 2 * M; i++) bias2[i] = (float)i;
    float *dbias2 = dev(bias2, sizeof bias2), *dD2 = dev(NULL, 2 * sizeof C);
    bst = M;
    uint32_t ep = CUBLASLT_EPILOGUE_BIAS;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias2, sizeof dbias2));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bst, sizeof bst));
    cublasLtMatrixLayout_t l2[3] = { la, lb, ld };
    int64_t strides[3] = { sa, sbst, sd };
    for (int i = 0; i < 3; i++) {
        CK(cublasLtMatrixLayoutSetAttribute(l2[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &two, sizeof two));
        CK(cublasLtMatrixLayoutSetAttribute(l2[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                            sizeof strides[i]));
    }
    CK(cublasLtMatmul(lt, desc, &one, dA, la, dB, lb, &zero, dD2, ld, dD2, ld, NULL, NULL, 0, s));
    float C2[2 * M * N];
    CK(cudaMemcpy(C2, dD2, sizeof C2, cudaMemcpyDeviceToHost));
    double w2[2 * M * N];
    for (int i = 0; i < 2 * M * N; i++)
        w2[i] = want[i % (M * N)] + bias2[(i / (M * N)) * M + i % M];
    expect_close("batched Lt bias", C2, w2, 2 * M * N, 1e-6);
    CK(cudaStreamSynchronize(s));
    rotg_values(h);
    symv_values(h);
    vec_values(h);
    CK(cublasDestroy_v2(h));
}

/* the n x n matrix item b of the lu tests (column-major), well conditioned
 * and needing row interchanges; item 2 singular (its column 1 zero) */
static void lu_matrix(double *a, int n, int b)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[j * n + i] = (double)((i * 5 + j * 3 + b * 7) % 9) - 4 + (i == (j + 1) % n ? 10 : 0);
    if (b == 2)
        for (int i = 0; i < n; i++)
            a[1 * n + i] = 0;
}

enum { LN = 5, LB = 4, LR = 2 };        /* order, batch (item 3: a NULL pointer), right-hand sides */

static void lu(cublasHandle_t h)
{
    double a[LB][LN * LN], b[LB][LN * LR], x[LN * LR], f[LN * LN];
    double *dA[LB], *dB[LB];
    int piv[LB * LN], info[LB], hinfo = 7;
    for (int k = 0; k < LB; k++) {
        lu_matrix(a[k], LN, k);
        for (int i = 0; i < LN * LR; i++)
            b[k][i] = (double)(i % 4) - 1.5 + k;
        dA[k] = dev(a[k], sizeof a[k]);
        dB[k] = dev(b[k], sizeof b[k]);
    }
    dA[3] = NULL;                       /* left alone */
    double **pA = dev(dA, sizeof dA), **pB = dev(dB, sizeof dB);
    int *dP = dev(NULL, sizeof piv), *dI = dev(NULL, sizeof info);
    CK(cublasDgetrfBatched(h, LN, pA, LN, dP, dI, LB));
    CK(cudaMemcpy(piv, dP, sizeof piv, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(info, dI, sizeof info, cudaMemcpyDeviceToHost));
    if (info[0] || info[1] || info[2] != 2 || info[3]) {
        printf("getrfBatched info = %d %d %d %d, want 0 0 2 0\n", info[0], info[1], info[2], info[3]);
        bad = 1;
    }
    /* LAPACK's partial pivoting on a host copy of item 0: the same pivots */
    memcpy(f, a[0], sizeof f);
    for (int j = 0; j < LN; j++) {
        int p = j;
        for (int i = j + 1; i < LN; i++)
            if (fabs(f[j * LN + i]) > fabs(f[j * LN + p]))
                p = i;
        if (piv[j] != p + 1) {
            printf("getrfBatched pivot %d = %d, want %d\n", j, piv[j], p + 1);
            bad = 1;
        }
        for (int c = 0; c < LN; c++) {
            double t = f[c * LN + j];
            f[c * LN + j] = f[c * LN + p], f[c * LN + p] = t;
        }
        for (int i = j + 1; i < LN; i++) {
            f[j * LN + i] /= f[j * LN + j];
            for (int c = j + 1; c < LN; c++)
                f[c * LN + i] -= f[j * LN + i] * f[c * LN + j];
        }
    }
    for (int t = 0; t < 2; t++) {       /* A x = b, then A^T x = b */
        cublasOperation_t op = t ? CUBLAS_OP_T : CUBLAS_OP_N;
        for (int k = 0; k < 2; k++)
            CK(cudaMemcpy(dB[k], b[k], sizeof b[k], cudaMemcpyHostToDevice));
        CK(cublasDgetrsBatched(h, op, LN, LR, (const double *const *)pA, LN, dP, pB, LN, &hinfo, 2));
        if (hinfo) {
            printf("getrsBatched info = %d\n", hinfo);
            bad = 1;
        }
        for (int k = 0; k < 2; k++) {
            CK(cudaMemcpy(x, dB[k], sizeof x, cudaMemcpyDeviceToHost));
            double r[LN * LR];
            for (int c = 0; c < LR; c++)
                for (int i = 0; i < LN; i++) {
                    double s = 0;
                    for (int l = 0; l < LN; l++)
                        s += (t ? a[k][i * LN + l] : a[k][l * LN + i]) * x[c * LN + l];
                    r[c * LN + i] = s;
                }
            char what[64];
            snprintf(what, sizeof what, "getrsBatched %s item %d: op(A) x", t ? "T" : "N", k);
            for (int i = 0; i < LN * LR; i++)
                if (fabs(r[i] - b[k][i]) > 1e-9 * (1 + fabs(b[k][i]))) {
                    printf("%s[%d] = %g, want %g\n", what, i, r[i], b[k][i]);
                    bad = 1;
                    break;
                }
        }
    }
    CK(cublasDgetrsBatched(h, CUBLAS_OP_N, -1, LR, (const double *const *)pA, LN, dP, pB, LN, &hinfo, 2) !=
       CUBLAS_STATUS_INVALID_VALUE);
    if (hinfo != -2) {
        printf("getrsBatched n = -1: info = %d, want -2\n", hinfo);
        bad = 1;
    }
    /* item 0's first pivot outside 1..n (not getrf's): the sim refuses that
     * item (B[0] unchanged, one line), computes item 1 (lapack.c sl_getrs) */
    int badpiv[2 * LN];
    memcpy(badpiv, piv, sizeof badpiv);
    badpiv[0] = LN + 1000;
    CK(cudaMemcpy(dP, badpiv, sizeof badpiv, cudaMemcpyHostToDevice));
    for (int k = 0; k < 2; k++)
        CK(cudaMemcpy(dB[k], b[k], sizeof b[k], cudaMemcpyHostToDevice));
    CK(cublasDgetrsBatched(h, CUBLAS_OP_N, LN, LR, (const double *const *)pA, LN, dP, pB, LN, &hinfo, 2));
    CK(cudaMemcpy(x, dB[0], sizeof x, cudaMemcpyDeviceToHost));
    if (memcmp(x, b[0], sizeof x)) {
        printf("getrsBatched with pivot %d: item 0's B written\n", badpiv[0]);
        bad = 1;
    }
    CK(cudaMemcpy(x, dB[1], sizeof x, cudaMemcpyDeviceToHost));
    if (!memcmp(x, b[1], sizeof x)) {
        printf("getrsBatched with a bad pivot in item 0: item 1 not computed\n");
        bad = 1;
    }
    /* without pivots (P NULL), in float: L U of item 0 as is */
    float s[LN * LN];
    for (int i = 0; i < LN * LN; i++)
        s[i] = (float)a[0][i] + (i % (LN + 1) == 0 ? 40.0f : 0.0f);       /* diagonally dominant */
    float *dS = dev(s, sizeof s), **pS = dev(&dS, sizeof dS);
    CK(cublasSgetrfBatched(h, LN, pS, LN, NULL, dI, 1));
    float lu_[LN * LN];
    CK(cudaMemcpy(lu_, dS, sizeof lu_, cudaMemcpyDeviceToHost));
    for (int j = 0; j < LN; j++)                /* (L U)(0, j) = U(0, j) = A(0, j): row 0 untouched */
        if (lu_[j * LN] != s[j * LN]) {
            printf("getrfBatched without pivots: U(0,%d) = %g, want %g\n", j, lu_[j * LN], s[j * LN]);
            bad = 1;
        }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "values";
    if (!strcmp(mode, "lu")) {
        cublasHandle_t h;
        CK(cublasCreate_v2(&h));
        lu(h);
        CK(cudaDeviceSynchronize());
        printf("blas_sim lu: %s\n", bad ? "FAILED" : "ok");
        return bad;
    }
    if (!strcmp(mode, "values")) {
        values();
        printf("blas_sim values: %s\n", bad ? "FAILED" : "ok");
        return bad;
    }
    /* the fault modes: an 8 x 8 GEMM on cuda:0 */
    float ones[64];
    for (int i = 0; i < 64; i++) ones[i] = 1;
    int peer = !strcmp(mode, "peer");
    CK(cudaSetDevice(1));
    float *B1 = dev(ones, sizeof ones);
    CK(cudaSetDevice(0));
    if (peer)
        CK(cudaDeviceEnablePeerAccess(1, 0));
    float *A = dev(ones, sizeof ones), *B = dev(ones, sizeof ones), *C = dev(NULL, sizeof ones);
    cublasHandle_t h;
    CK(cublasCreate_v2(&h));
    float one = 1, zero = 0, got[64];
    if (!strcmp(mode, "wrong") || peer) {
        CK(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, A, 8, B1, 8, &zero, C, 8));
    } else if (!strcmp(mode, "array")) {
        float *pA[2] = { A, A }, *pB[2] = { B, B1 }, *pC[2] = { C, C };
        void *dpA = dev(pA, sizeof pA), *dpB = dev(pB, sizeof pB), *dpC = dev(pC, sizeof pC);
        CK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, dpA, 8, dpB, 8, &zero, dpC, 8, 2));
    } else if (!strcmp(mode, "lu_wrong")) {
        float *pA[2] = { A, A }, *pB[2] = { B, B1 };
        int piv[16] = { 0 }, info = 0;
        for (int i = 0; i < 16; i++)
            piv[i] = i % 8 + 1;
        void *dpA = dev(pA, sizeof pA), *dpB = dev(pB, sizeof pB), *dP = dev(piv, sizeof piv);
        CK(cublasSgetrsBatched(h, CUBLAS_OP_N, 8, 8, dpA, 8, dP, dpB, 8, &info, 2));
    } else if (!strcmp(mode, "dot_wrong")) {
        /* host pointer mode: the result is the call's to wait for; the
         * kernel's fault fails the call, leaves *result alone and stays */
        float r = 42;
        cublasStatus_t st = cublasSdot_v2(h, 8, A, 1, B1, 1, &r);
        if (st != CUBLAS_STATUS_EXECUTION_FAILED || r != 42) {
            printf("Sdot of cuda:1's y, host result: status %d, result %g (want %d, 42 untouched)\n", st, r,
                   CUBLAS_STATUS_EXECUTION_FAILED);
            bad = 1;
        }
    } else if (!strcmp(mode, "host")) {
        cublasLtHandle_t lt;
        cublasLtMatmulDesc_t desc;
        cublasLtMatrixLayout_t l;
        CK(cublasLtCreate(&lt));
        CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        CK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8));
        static float hostbias[8];
        float *hb = hostbias;
        uint32_t ep = CUBLASLT_EPILOGUE_BIAS;
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
        CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &hb, sizeof hb));
        CK(cublasLtMatmul(lt, desc, &one, A, l, B, l, &zero, C, l, C, l, NULL, NULL, 0, NULL));
    } else {
        printf("unknown mode %s\n", mode);
        return 2;
    }
    cudaError_t e1 = cudaDeviceSynchronize(), e2 = cudaDeviceSynchronize();
    if (peer) {
        CK(e1);
        CK(cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost));
        double want[64];
        for (int i = 0; i < 64; i++) want[i] = 8;
        expect_close("peer Sgemm", got, want, 64, 0);
    } else if (e1 != cudaErrorIllegalAddress || e2 != cudaErrorIllegalAddress) {
        printf("synchronize after the fault: %d, then %d (want %d twice)\n", e1, e2, cudaErrorIllegalAddress);
        bad = 1;
    }
    printf("blas_sim %s: %s\n", mode, bad ? "FAILED" : "ok");
    return bad;
}
