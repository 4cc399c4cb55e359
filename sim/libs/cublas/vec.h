/* The level-1 and level-2 BLAS calls of the sim's cuBLAS that are no GEMM
 * (cublas<t>axpy, scal, nrm2, ger, symv, hemv, syr, her, syr2, her2,
 * syrk, herk, syr2k, her2k, symm, hemm, trmm, rotm: blas.c), shared by their kernels (vec.cu,
 * the library's image) and the kernels' host twins (vec_twin.c): one source
 * for both (simlib_hd.h).  Reference BLAS semantics, as the cuBLAS
 * documentation gives them (element i of a vector of n at 1 + (i - 1) * inc,
 * and, as the reference BLAS and the legacy cuBLAS documentation say, from
 * its far end when inc < 0); every element computed in double precision
 * (complex: a pair of doubles), then stored in the call's type. */
#ifndef SIM_LIBS_CUBLAS_VEC_H
#define SIM_LIBS_CUBLAS_VEC_H

#include <math.h>
#include <stdint.h>

#include "simlib_hd.h"

/* One call, passed by value to the kernels: sizes, increments, types and a
 * host-mode alpha; no pointers (those are the kernels' own parameters, so
 * the image's code says which it dereferences). */
struct sb_vec {
    int64_t m, n;               /* ger: A is m x n, x has m elements, y n; the others: n elements */
    int64_t incx, incy, lda;
    double alpha[2];            /* alpha, unless device_scalars */
    double beta[2];             /* symv: beta, unless device_scalars */
    int32_t type;               /* cudaDataType of x, y and A */
    int32_t type_s;             /* of alpha (scal: Csscal's float...), of nrm2's result */
    int32_t conj;               /* ger: A += alpha x y^H (gerc) */
    int32_t device_scalars;     /* alpha (and beta) are device pointers of type_s */
    int32_t upper;              /* symv, syr, syrk: A's (C's) upper triangle is used (else the lower) */
    int32_t trans;              /* syrk, trmm: op of A (and B): 0 N, 1 T, 2 C */
    int32_t right, unit;        /* symm, trmm: A on the right; trmm: A's diagonal taken as 1 */
    int32_t tri;                /* trmm (else symm) */
    double param[5];            /* rotm: flag, h11, h21, h12, h22, unless device_scalars */
    int64_t k, ldb, ldc;        /* syrk: op(A) is n x k */
};

/* The element offset of element i of a vector of n with increment inc. */
SIMLIB_HD int64_t sb_vec_at(int64_t i, int64_t n, int64_t inc)
{
    return inc >= 0 ? i * inc : (i - n + 1) * inc;
}

SIMLIB_HD void sb_vec_alpha(const struct sb_vec *v, const void *alpha, double al[2])
{
    if (v->device_scalars) {
        simlib_load(alpha, v->type_s, 0, al);
    } else {
        al[0] = v->alpha[0], al[1] = v->alpha[1];
    }
}

SIMLIB_HD void sb_vec_beta(const struct sb_vec *v, const void *beta, double be[2])
{
    if (v->device_scalars) {
        simlib_load(beta, v->type_s, 0, be);
    } else {
        be[0] = v->beta[0], be[1] = v->beta[1];
    }
}

/* axpy: y[i] += alpha x[i], elements first, first + step, ... */
SIMLIB_HD void sb_axpy_range(const struct sb_vec *v, const void *alpha, const void *x, void *y, int64_t first,
                             int64_t step)
{
    double al[2], a[2], b[2];
    sb_vec_alpha(v, alpha, al);
    for (int64_t i = first; i < v->n; i += step) {
        simlib_load(x, v->type, sb_vec_at(i, v->n, v->incx), a);
        simlib_load(y, v->type, sb_vec_at(i, v->n, v->incy), b);
        double r[2] = { b[0] + al[0] * a[0] - al[1] * a[1], b[1] + al[0] * a[1] + al[1] * a[0] };
        simlib_store(y, v->type, sb_vec_at(i, v->n, v->incy), r);
    }
}

/* scal: x[i] *= alpha (incx > 0: blas.c returns before otherwise) */
SIMLIB_HD void sb_scal_range(const struct sb_vec *v, const void *alpha, void *x, int64_t first, int64_t step)
{
    double al[2], a[2];
    sb_vec_alpha(v, alpha, al);
    for (int64_t i = first; i < v->n; i += step) {
        simlib_load(x, v->type, i * v->incx, a);
        double r[2] = { al[0] * a[0] - al[1] * a[1], al[0] * a[1] + al[1] * a[0] };
        simlib_store(x, v->type, i * v->incx, r);
    }
}

/* nrm2: result = sqrt(sum |x[i]|^2), 0 when n < 1 or incx < 1 (the
 * reference BLAS), scaled as the reference dnrm2 / dznrm2 (LAPACK 3.9's
 * classic form: scale and sum of squares) so that no square overflows.
 * One thread (first 0) computes it. */
SIMLIB_HD void sb_nrm2(const struct sb_vec *v, const void *x, void *result, int64_t first)
{
    if (first != 0)
        return;
    double scale = 0, ssq = 1, a[2];
    for (int64_t i = 0; v->incx > 0 && i < v->n; i++) {
        simlib_load(x, v->type, i * v->incx, a);
        for (int c = 0; c < 2; c++) {
            double t = fabs(a[c]);
            if (t == 0)
                continue;
            if (scale < t) {
                ssq = 1 + ssq * (scale / t) * (scale / t);
                scale = t;
            } else {
                ssq += (t / scale) * (t / scale);
            }
        }
    }
    double r[2] = { scale * sqrt(ssq), 0 };
    simlib_store(result, v->type_s, 0, r);
}

/* ger: A(i, j) += alpha x[i] y[j] (conj: alpha x[i] conj(y[j])), the
 * elements first, first + step, ... of the m x n A (column-major) */
SIMLIB_HD void sb_ger_range(const struct sb_vec *v, const void *alpha, const void *x, const void *y, void *A,
                            int64_t first, int64_t step)
{
    double al[2], a[2], b[2], c[2];
    sb_vec_alpha(v, alpha, al);
    for (int64_t t = first; t < v->m * v->n; t += step) {
        int64_t i = t % v->m, j = t / v->m;
        simlib_load(x, v->type, sb_vec_at(i, v->m, v->incx), a);
        simlib_load(y, v->type, sb_vec_at(j, v->n, v->incy), b);
        if (v->conj)
            b[1] = -b[1];
        double xy[2] = { a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0] };
        simlib_load(A, v->type, j * v->lda + i, c);
        c[0] += al[0] * xy[0] - al[1] * xy[1];
        c[1] += al[0] * xy[1] + al[1] * xy[0];
        simlib_store(A, v->type, j * v->lda + i, c);
    }
}

/* symv (hemv when conj): y[i] = alpha sum_j A(i, j) x[j] + beta y[i], the
 * n x n A symmetric (Hermitian) with only its upper (lower) triangle read:
 * an element of the other is A(j, i) (conjugated for hemv); a Hermitian
 * diagonal's imaginary part is taken as 0 (the reference zhemv); y is not
 * read when beta is 0 (the reference BLAS).  Rows first, first + step, ...
 * (each writes its own y[i]). */
SIMLIB_HD void sb_symv_range(const struct sb_vec *v, const void *alpha, const void *A, const void *x,
                             const void *beta, void *y, int64_t first, int64_t step)
{
    double al[2], be[2], a[2], b[2];
    sb_vec_alpha(v, alpha, al);
    sb_vec_beta(v, beta, be);
    for (int64_t i = first; i < v->n; i += step) {
        double s[2] = { 0, 0 };
        for (int64_t j = 0; j < v->n; j++) {
            int stored = v->upper ? i <= j : i >= j;
            simlib_load(A, v->type, stored ? j * v->lda + i : i * v->lda + j, a);
            if (v->conj && (i == j || !stored))
                a[1] = i == j ? 0 : -a[1];
            simlib_load(x, v->type, sb_vec_at(j, v->n, v->incx), b);
            s[0] += a[0] * b[0] - a[1] * b[1];
            s[1] += a[0] * b[1] + a[1] * b[0];
        }
        double r[2] = { al[0] * s[0] - al[1] * s[1], al[0] * s[1] + al[1] * s[0] };
        if (be[0] != 0 || be[1] != 0) {
            simlib_load(y, v->type, sb_vec_at(i, v->n, v->incy), b);
            r[0] += be[0] * b[0] - be[1] * b[1];
            r[1] += be[0] * b[1] + be[1] * b[0];
        }
        simlib_store(y, v->type, sb_vec_at(i, v->n, v->incy), r);
    }
}

/* syr, syr2 (y not NULL) and their Hermitian forms (conj): the upper
 * (lower) triangle of the n x n A updated, element (i, j) by
 *   syr  alpha x[i] x[j]              her  alpha x[i] conj(x[j]) (alpha real)
 *   syr2 alpha (x[i] y[j] + y[i] x[j]) her2 alpha x[i] conj(y[j]) + conj(alpha) y[i] conj(x[j])
 * a Hermitian diagonal left real (the reference zher, zher2).  Elements
 * first, first + step, ... of A (each written by one thread). */
SIMLIB_HD void sb_syr_range(const struct sb_vec *v, const void *alpha, const void *x, const void *y, void *A,
                            int64_t first, int64_t step)
{
    double al[2], xi[2], xj[2], yi[2] = { 0, 0 }, yj[2] = { 0, 0 }, c[2];
    sb_vec_alpha(v, alpha, al);
    for (int64_t t = first; t < v->n * v->n; t += step) {
        int64_t i = t % v->n, j = t / v->n;
        if (v->upper ? i > j : i < j)
            continue;
        simlib_load(x, v->type, sb_vec_at(i, v->n, v->incx), xi);
        simlib_load(x, v->type, sb_vec_at(j, v->n, v->incx), xj);
        if (y) {
            simlib_load(y, v->type, sb_vec_at(i, v->n, v->incy), yi);
            simlib_load(y, v->type, sb_vec_at(j, v->n, v->incy), yj);
        }
        double sa = v->conj ? -1 : 1;   /* conj(b) of b = (b0, b1): (b0, sa b1) */
        /* p = x[i] op(x or y [j]); q = y[i] op(x[j]) (syr2, her2) */
        const double *b = y ? yj : xj;
        double p[2] = { xi[0] * b[0] - xi[1] * sa * b[1], xi[0] * sa * b[1] + xi[1] * b[0] };
        double q[2] = { yi[0] * xj[0] - yi[1] * sa * xj[1], yi[0] * sa * xj[1] + yi[1] * xj[0] };
        double alq[2] = { al[0], v->conj ? -al[1] : al[1] };        /* her2: conj(alpha) for the second term */
        simlib_load(A, v->type, j * v->lda + i, c);
        c[0] += al[0] * p[0] - al[1] * p[1];
        c[1] += al[0] * p[1] + al[1] * p[0];
        if (y) {
            c[0] += alq[0] * q[0] - alq[1] * q[1];
            c[1] += alq[0] * q[1] + alq[1] * q[0];
        }
        if (v->conj && i == j)
            c[1] = 0;
        simlib_store(A, v->type, j * v->lda + i, c);
    }
}

/* op(X)(i, l) of syrk's n x k op(X): X(i, l), X(l, i) or conj(X(l, i)) */
SIMLIB_HD void sb_op_load(const struct sb_vec *v, const void *X, int64_t ld, int64_t i, int64_t l, double r[2])
{
    simlib_load(X, v->type, v->trans == 0 ? l * ld + i : i * ld + l, r);
    if (v->trans == 2)
        r[1] = -r[1];
}

/* syrk, herk (conj), and with B syr2k, her2k: the upper (lower) triangle
 * of the n x n C := alpha P + beta C (C unread when beta is 0), element
 * (i, j) of P
 *   syrk  sum_l op(A)(i,l) op(A)(j,l)      herk  sum_l op(A)(i,l) conj(op(A)(j,l))
 *   syr2k sum_l op(A)(i,l) op(B)(j,l) + op(B)(i,l) op(A)(j,l)
 *   her2k the same conjugating the second factor, conj(alpha) on the second sum
 * a Hermitian diagonal left real (the reference zherk, zher2k; their alpha
 * (herk) and beta are real).  Elements first, first + step, ... of C. */
SIMLIB_HD void sb_syrk_range(const struct sb_vec *v, const void *alpha, const void *A, const void *B,
                             const void *beta, void *C, int64_t first, int64_t step)
{
    double al[2], be[2], a[2], b[2], c[2];
    sb_vec_alpha(v, alpha, al);
    sb_vec_beta(v, beta, be);
    double sa = v->conj ? -1 : 1;
    for (int64_t t = first; t < v->n * v->n; t += step) {
        int64_t i = t % v->n, j = t / v->n;
        if (v->upper ? i > j : i < j)
            continue;
        double s1[2] = { 0, 0 }, s2[2] = { 0, 0 };
        for (int64_t l = 0; l < v->k; l++) {
            sb_op_load(v, A, v->lda, i, l, a);
            sb_op_load(v, B ? B : A, B ? v->ldb : v->lda, j, l, b);
            s1[0] += a[0] * b[0] - a[1] * sa * b[1];
            s1[1] += a[0] * sa * b[1] + a[1] * b[0];
            if (B) {
                sb_op_load(v, B, v->ldb, i, l, a);
                sb_op_load(v, A, v->lda, j, l, b);
                s2[0] += a[0] * b[0] - a[1] * sa * b[1];
                s2[1] += a[0] * sa * b[1] + a[1] * b[0];
            }
        }
        double alq[2] = { al[0], v->conj ? -al[1] : al[1] };
        double r[2] = { al[0] * s1[0] - al[1] * s1[1] + alq[0] * s2[0] - alq[1] * s2[1],
                        al[0] * s1[1] + al[1] * s1[0] + alq[0] * s2[1] + alq[1] * s2[0] };
        if (be[0] != 0 || be[1] != 0) {
            simlib_load(C, v->type, j * v->ldc + i, c);
            r[0] += be[0] * c[0] - be[1] * c[1];
            r[1] += be[0] * c[1] + be[1] * c[0];
        }
        if (v->conj && i == j)
            r[1] = 0;
        simlib_store(C, v->type, j * v->ldc + i, r);
    }
}

/* Element (r, c) of symm's symmetric (hemm's Hermitian: conj) A, read from
 * its upper (lower) triangle; of trmm's op(A), A triangular there (0
 * outside; 1 on a unit diagonal). */
SIMLIB_HD void sb_tri_load(const struct sb_vec *v, const void *A, int64_t r, int64_t c, double a[2])
{
    if (v->tri && v->trans) {   /* op(A)(r, c) = A(c, r), conjugated for C */
        int64_t t = r;
        r = c, c = t;
    }
    int stored = v->upper ? r <= c : r >= c;
    if (v->tri && (!stored || (v->unit && r == c))) {
        a[0] = stored ? 1 : 0, a[1] = 0;
        return;
    }
    simlib_load(A, v->type, stored ? c * v->lda + r : r * v->lda + c, a);
    if (v->tri) {
        if (v->trans == 2)
            a[1] = -a[1];
    } else if (v->conj && (r == c || !stored)) {
        a[1] = r == c ? 0 : -a[1];
    }
}

/* symm, hemm: C := alpha A B + beta C (right: alpha B A + beta C), C unread
 * when beta is 0; trmm: C := alpha op(A) B (right: alpha B op(A)), out of
 * place (cuBLAS's form).  The m x n C's elements first, first + step, ... */
SIMLIB_HD void sb_symm_range(const struct sb_vec *v, const void *alpha, const void *A, const void *B,
                             const void *beta, void *C, int64_t first, int64_t step)
{
    double al[2], be[2] = { 0, 0 }, a[2], b[2], c[2];
    sb_vec_alpha(v, alpha, al);
    if (!v->tri)
        sb_vec_beta(v, beta, be);
    int64_t inner = v->right ? v->n : v->m;
    for (int64_t t = first; t < v->m * v->n; t += step) {
        int64_t i = t % v->m, j = t / v->m;
        double s[2] = { 0, 0 };
        for (int64_t l = 0; l < inner; l++) {
            if (v->right) {
                simlib_load(B, v->type, l * v->ldb + i, b);
                sb_tri_load(v, A, l, j, a);
            } else {
                sb_tri_load(v, A, i, l, a);
                simlib_load(B, v->type, j * v->ldb + l, b);
            }
            s[0] += a[0] * b[0] - a[1] * b[1];
            s[1] += a[0] * b[1] + a[1] * b[0];
        }
        double r[2] = { al[0] * s[0] - al[1] * s[1], al[0] * s[1] + al[1] * s[0] };
        if (be[0] != 0 || be[1] != 0) {
            simlib_load(C, v->type, j * v->ldc + i, c);
            r[0] += be[0] * c[0] - be[1] * c[1];
            r[1] += be[0] * c[1] + be[1] * c[0];
        }
        simlib_store(C, v->type, j * v->ldc + i, r);
    }
}

/* rotm: (x[i], y[i]) := H (x[i], y[i]), H by param's flag (cuBLAS
 * documentation): -1 [[h11, h12], [h21, h22]], 0 [[1, h12], [h21, 1]],
 * 1 [[h11, 1], [-1, h22]], -2 the identity (nothing written).  param of
 * type `type` (real) on the device in device pointer mode.  Elements
 * first, first + step, ... */
SIMLIB_HD void sb_rotm_range(const struct sb_vec *v, const void *param, void *x, void *y, int64_t first, int64_t step)
{
    double p[5], e[2];
    for (int k = 0; k < 5; k++) {
        if (v->device_scalars) {
            simlib_load(param, v->type, k, e);
            p[k] = e[0];
        } else {
            p[k] = v->param[k];
        }
    }
    if (p[0] == -2)
        return;
    double h11 = p[0] == 0 ? 1 : p[1], h21 = p[0] == 1 ? -1 : p[2], h12 = p[0] == 1 ? 1 : p[3],
           h22 = p[0] == 0 ? 1 : p[4];
    for (int64_t i = first; i < v->n; i += step) {
        double a[2], b[2];
        simlib_load(x, v->type, sb_vec_at(i, v->n, v->incx), a);
        simlib_load(y, v->type, sb_vec_at(i, v->n, v->incy), b);
        double xa[2] = { h11 * a[0] + h12 * b[0], 0 }, yb[2] = { h21 * a[0] + h22 * b[0], 0 };
        simlib_store(x, v->type, sb_vec_at(i, v->n, v->incx), xa);
        simlib_store(y, v->type, sb_vec_at(i, v->n, v->incy), yb);
    }
}
#endif
