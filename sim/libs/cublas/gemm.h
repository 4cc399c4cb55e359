/* The GEMM of the sim's cuBLASLt, shared by the device kernels (gemm.cu,
 * the library's image) and their host twins (gemm_twin.c): one source for
 * both (simlib_hd.h).  A reference implementation: every element is a dot
 * product accumulated in double precision (complex: a pair of doubles).
 *
 *   D = epilogue(alpha * op(A) op(B) + beta * C)      (beta == 0: C unread)
 *
 * with the epilogues of cublasLt.h that PyTorch uses: BIAS (a vector of
 * m elements added to each column), RELU, GELU (the tanh approximation,
 * which PyTorch asks cuBLASLt for only when F.gelu's approximate="tanh"),
 * and GELU_AUX (the pre-activation stored to the aux matrix).  Types: the
 * real and complex float types of library_types.h (16F, 16BF, 32F, 64F),
 * 8-bit and 32-bit integers. */
#ifndef SIM_LIBS_CUBLAS_GEMM_H
#define SIM_LIBS_CUBLAS_GEMM_H

#include <cublasLt.h>
#include <library_types.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "simlib_hd.h"

/* One matmul, passed by value to the kernels: sizes, strides, types and
 * host-mode scalars; no pointers (those are the kernels' own parameters,
 * so the image's code says which it dereferences). */
struct sb_gemm {
    int64_t m, n, k;                    /* D is m x n, op(A) m x k, op(B) k x n */
    int64_t lda, ldb, ldc, ldd;
    int64_t stride_a, stride_b, stride_c, stride_d;     /* elements from one batch item to the next */
    int64_t batch;
    int64_t bias_stride, aux_ld, aux_stride;
    double alpha[2], beta[2];           /* the scalars, unless device_scalars */
    int32_t op_a, op_b;                 /* cublasOperation_t */
    int32_t row_a, row_b, row_c, row_d; /* CUBLASLT_ORDER_ROW: element (r, c) at r * ld + c */
    int32_t type_a, type_b, type_c, type_d, type_scale, type_bias, type_aux;      /* cudaDataType */
    int32_t epilogue;                   /* cublasLtEpilogue_t */
    int32_t device_scalars;             /* alpha and beta are device pointers of type_scale */
};

/* The element offset of (r, c) in a matrix of leading dimension ld. */
SIMLIB_HD int64_t sb_at(int row_major, int64_t r, int64_t c, int64_t ld)
{
    return row_major ? r * ld + c : c * ld + r;
}

/* p advanced by n elements of type t (a batch item; a pointer not used,
 * NULL, may come out non-NULL: it is not dereferenced either).  Plain
 * address arithmetic on the parameter: the image's PTX then shows the
 * loads through it, the sim's evidence that the kernel dereferences it. */
SIMLIB_HD const void *sb_skip(const void *p, int t, int64_t n)
{
    return (const void *)((const unsigned char *)p + n * simlib_type_size(t));
}

/* The scalars: the host-mode values, or read from the device pointers. */
SIMLIB_HD void sb_scalars(const struct sb_gemm *g, const void *alpha, const void *beta, double al[2], double be[2])
{
    if (g->device_scalars) {
        simlib_load(alpha, g->type_scale, 0, al);
        simlib_load(beta, g->type_scale, 0, be);
    } else {
        al[0] = g->alpha[0], al[1] = g->alpha[1];
        be[0] = g->beta[0], be[1] = g->beta[1];
    }
}

SIMLIB_HD double sb_gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* D(i, j) of one batch item (A..aux already at that item). */
SIMLIB_HD void sb_gemm_one(const struct sb_gemm *g, const void *A, const void *B, const void *C, void *D,
                           const void *bias, void *aux, const double al[2], const double be[2], int64_t i, int64_t j)
{
    double acc[2] = { 0, 0 }, a[2], b[2], c[2];
    for (int64_t l = 0; l < g->k; l++) {
        if (g->op_a == CUBLAS_OP_N)
            simlib_load(A, g->type_a, sb_at(g->row_a, i, l, g->lda), a);
        else
            simlib_load(A, g->type_a, sb_at(g->row_a, l, i, g->lda), a);
        if (g->op_b == CUBLAS_OP_N)
            simlib_load(B, g->type_b, sb_at(g->row_b, l, j, g->ldb), b);
        else
            simlib_load(B, g->type_b, sb_at(g->row_b, j, l, g->ldb), b);
        if (g->op_a == CUBLAS_OP_C)
            a[1] = -a[1];
        if (g->op_b == CUBLAS_OP_C)
            b[1] = -b[1];
        acc[0] += a[0] * b[0] - a[1] * b[1];
        acc[1] += a[0] * b[1] + a[1] * b[0];
    }
    double r[2] = { al[0] * acc[0] - al[1] * acc[1], al[0] * acc[1] + al[1] * acc[0] };
    if (be[0] != 0 || be[1] != 0) {
        simlib_load(C, g->type_c, sb_at(g->row_c, i, j, g->ldc), c);
        r[0] += be[0] * c[0] - be[1] * c[1];
        r[1] += be[0] * c[1] + be[1] * c[0];
    }
    int ep = g->epilogue;
    if (ep & CUBLASLT_EPILOGUE_BIAS) {
        simlib_load(bias, g->type_bias, i, c);
        r[0] += c[0];
        r[1] += c[1];
    }
    if ((ep & 128) && (ep & CUBLASLT_EPILOGUE_GELU))
        simlib_store(aux, g->type_aux, j * g->aux_ld + i, r);       /* GELU_AUX: the GELU's input */
    if (ep & CUBLASLT_EPILOGUE_RELU)
        r[0] = r[0] > 0 ? r[0] : 0;
    else if (ep & CUBLASLT_EPILOGUE_GELU)
        r[0] = sb_gelu(r[0]);
    simlib_store(D, g->type_d, sb_at(g->row_d, i, j, g->ldd), r);
}

/* Elements first, first + step, ... of the whole batch: a kernel's thread
 * takes its own, the twin all of them.  Strided batches (pointers to the
 * first item) unless arrays: then A..D are arrays of one pointer per item. */
SIMLIB_HD void sb_gemm_range(const struct sb_gemm *g, const void *A, const void *B, const void *C, void *D,
                             const void *bias, void *aux, const void *alpha, const void *beta, int arrays,
                             int64_t first, int64_t step)
{
    double al[2], be[2];
    sb_scalars(g, alpha, beta, al, be);
    int64_t mn = g->m * g->n, total = mn * g->batch;
    for (int64_t t = first; t < total; t += step) {
        int64_t b = t / mn, i = t % mn % g->m, j = t % mn / g->m;
        const void *a, *bb, *c;
        void *d;
        if (arrays) {
            a = ((const void *const *)A)[b];
            bb = ((const void *const *)B)[b];
            c = ((const void *const *)C)[b];
            d = ((void *const *)D)[b];
        } else {
            a = sb_skip(A, g->type_a, b * g->stride_a);
            bb = sb_skip(B, g->type_b, b * g->stride_b);
            c = sb_skip(C, g->type_c, b * g->stride_c);
            d = (void *)sb_skip(D, g->type_d, b * g->stride_d);
        }
        sb_gemm_one(g, a, bb, c, d, sb_skip(bias, g->type_bias, b * g->bias_stride),
                    (void *)sb_skip(aux, g->type_aux, b * g->aux_stride), al, be, i, j);
    }
}
#endif
