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

SIMLIB_HD int sb_type_size(int t)
{
    switch (t) {
    case CUDA_R_8I: case CUDA_R_8U: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

SIMLIB_HD int sb_type_complex(int t)
{
    return t == CUDA_C_16F || t == CUDA_C_16BF || t == CUDA_C_32F || t == CUDA_C_64F;
}

/* IEEE binary16 and bfloat16 by their bits, the same on host and device. */
SIMLIB_HD double sb_from_half(uint16_t h)
{
    int e = (h >> 10) & 31, f = h & 1023;
    double v = e == 0 ? ldexp((double)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp((double)(f + 1024), e - 25);
    return h >> 15 ? -v : v;
}

SIMLIB_HD uint16_t sb_to_half(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
    int32_t exp = (int32_t)((x >> 23) & 0xff);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {                       /* subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000;
        int shift = 14 - e;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;                            /* may carry into the exponent: correct rounding */
    return (uint16_t)h;
}

SIMLIB_HD double sb_from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

SIMLIB_HD uint16_t sb_to_bf16(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);            /* NaN stays NaN */
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* Element i of an array of type t: v[0] real, v[1] imaginary. */
SIMLIB_HD void sb_load(const void *p, int t, int64_t i, double v[2])
{
    const unsigned char *c = (const unsigned char *)p;
    uint16_t h[2];
    v[1] = 0;
    switch (t) {
    case CUDA_R_8I: v[0] = ((const int8_t *)c)[i]; break;
    case CUDA_R_8U: v[0] = c[i]; break;
    case CUDA_R_32I: v[0] = ((const int32_t *)c)[i]; break;
    case CUDA_R_16F: memcpy(h, c + 2 * i, 2); v[0] = sb_from_half(h[0]); break;
    case CUDA_R_16BF: memcpy(h, c + 2 * i, 2); v[0] = sb_from_bf16(h[0]); break;
    case CUDA_R_32F: v[0] = ((const float *)c)[i]; break;
    case CUDA_R_64F: v[0] = ((const double *)c)[i]; break;
    case CUDA_C_16F: memcpy(h, c + 4 * i, 4); v[0] = sb_from_half(h[0]); v[1] = sb_from_half(h[1]); break;
    case CUDA_C_16BF: memcpy(h, c + 4 * i, 4); v[0] = sb_from_bf16(h[0]); v[1] = sb_from_bf16(h[1]); break;
    case CUDA_C_32F: v[0] = ((const float *)c)[2 * i]; v[1] = ((const float *)c)[2 * i + 1]; break;
    case CUDA_C_64F: v[0] = ((const double *)c)[2 * i]; v[1] = ((const double *)c)[2 * i + 1]; break;
    default: v[0] = 0; break;
    }
}

SIMLIB_HD int64_t sb_saturate(double x, double lo, double hi)
{
    x = nearbyint(x);
    return (int64_t)(x < lo ? lo : x > hi ? hi : x);
}

SIMLIB_HD void sb_store(void *p, int t, int64_t i, const double v[2])
{
    unsigned char *c = (unsigned char *)p;
    uint16_t h[2];
    switch (t) {
    case CUDA_R_8I: ((int8_t *)c)[i] = (int8_t)sb_saturate(v[0], -128, 127); break;
    case CUDA_R_8U: c[i] = (unsigned char)sb_saturate(v[0], 0, 255); break;
    case CUDA_R_32I: ((int32_t *)c)[i] = (int32_t)sb_saturate(v[0], -2147483648.0, 2147483647.0); break;
    case CUDA_R_16F: h[0] = sb_to_half(v[0]); memcpy(c + 2 * i, h, 2); break;
    case CUDA_R_16BF: h[0] = sb_to_bf16(v[0]); memcpy(c + 2 * i, h, 2); break;
    case CUDA_R_32F: ((float *)c)[i] = (float)v[0]; break;
    case CUDA_R_64F: ((double *)c)[i] = v[0]; break;
    case CUDA_C_16F: h[0] = sb_to_half(v[0]); h[1] = sb_to_half(v[1]); memcpy(c + 4 * i, h, 4); break;
    case CUDA_C_16BF: h[0] = sb_to_bf16(v[0]); h[1] = sb_to_bf16(v[1]); memcpy(c + 4 * i, h, 4); break;
    case CUDA_C_32F: ((float *)c)[2 * i] = (float)v[0]; ((float *)c)[2 * i + 1] = (float)v[1]; break;
    case CUDA_C_64F: ((double *)c)[2 * i] = v[0]; ((double *)c)[2 * i + 1] = v[1]; break;
    default: break;
    }
}

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
    return (const void *)((const unsigned char *)p + n * sb_type_size(t));
}

/* The scalars: the host-mode values, or read from the device pointers. */
SIMLIB_HD void sb_scalars(const struct sb_gemm *g, const void *alpha, const void *beta, double al[2], double be[2])
{
    if (g->device_scalars) {
        sb_load(alpha, g->type_scale, 0, al);
        sb_load(beta, g->type_scale, 0, be);
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
            sb_load(A, g->type_a, sb_at(g->row_a, i, l, g->lda), a);
        else
            sb_load(A, g->type_a, sb_at(g->row_a, l, i, g->lda), a);
        if (g->op_b == CUBLAS_OP_N)
            sb_load(B, g->type_b, sb_at(g->row_b, l, j, g->ldb), b);
        else
            sb_load(B, g->type_b, sb_at(g->row_b, j, l, g->ldb), b);
        if (g->op_a == CUBLAS_OP_C)
            a[1] = -a[1];
        if (g->op_b == CUBLAS_OP_C)
            b[1] = -b[1];
        acc[0] += a[0] * b[0] - a[1] * b[1];
        acc[1] += a[0] * b[1] + a[1] * b[0];
    }
    double r[2] = { al[0] * acc[0] - al[1] * acc[1], al[0] * acc[1] + al[1] * acc[0] };
    if (be[0] != 0 || be[1] != 0) {
        sb_load(C, g->type_c, sb_at(g->row_c, i, j, g->ldc), c);
        r[0] += be[0] * c[0] - be[1] * c[1];
        r[1] += be[0] * c[1] + be[1] * c[0];
    }
    int ep = g->epilogue;
    if (ep & CUBLASLT_EPILOGUE_BIAS) {
        sb_load(bias, g->type_bias, i, c);
        r[0] += c[0];
        r[1] += c[1];
    }
    if ((ep & 128) && (ep & CUBLASLT_EPILOGUE_GELU))
        sb_store(aux, g->type_aux, j * g->aux_ld + i, r);       /* GELU_AUX: the GELU's input */
    if (ep & CUBLASLT_EPILOGUE_RELU)
        r[0] = r[0] > 0 ? r[0] : 0;
    else if (ep & CUBLASLT_EPILOGUE_GELU)
        r[0] = sb_gelu(r[0]);
    sb_store(D, g->type_d, sb_at(g->row_d, i, j, g->ldd), r);
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
