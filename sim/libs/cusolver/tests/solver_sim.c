/* The sim's cuSOLVER (sim/libs/cusolver/) on the simulated GPUs:
 * `solver_sim MODE`, every result checked on the host by what defines it
 * (solver_sim.sh):
 *   all    on cuda:1 (a handle made there, a stream of it): potrf lower and
 *          upper in S, D, C, Z (L L^H = A; in panels through cuBLAS's GEMM
 *          with a workspace, in one kernel without), potrs, a matrix that
 *          is not positive definite (info = the order of the failing minor),
 *          getrf/getrs (P A = L U; A x = b; N, T, C; no pivoting with ipiv
 *          NULL), geqrf/orgqr (Q R = A, Q^H Q = I, R = LAPACK's: diagonal of
 *          the sign LAPACK's reflectors give), ormqr (Q^H A = R), syevd /
 *          heevd (A V = V diag(w), w ascending), gesvd / gesvdj /
 *          gesvdjBatched (U diag(s) V^H = A, s descending), the batched
 *          potrf/potrs of pointer arrays, the X API's potrf, potrs, getrf,
 *          getrs, geqrf, syevd, gesvd
 *   fault  A on cuda:0 while the handle's stream is cuda:1's: the call
 *          succeeds, cuda:1 faults (cudaErrorIllegalAddress at its next
 *          synchronization) */
#include <cusolverDn.h>
#include <cuda_runtime_api.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"


typedef double complex zd;
static cusolverDnHandle_t h;
static cudaStream_t st;

/* the four types: element size and conversions to/from double complex */
struct ty { const char *name; cudaDataType t; size_t sz; double tol; };
static const struct ty TYPES[] = { { "S", CUDA_R_32F, 4, 2e-4 }, { "D", CUDA_R_64F, 8, 1e-10 },
                                   { "C", CUDA_C_32F, 8, 2e-4 }, { "Z", CUDA_C_64F, 16, 1e-10 } };
static int cplx(const struct ty *y) { return y->t == CUDA_C_32F || y->t == CUDA_C_64F; }

static void put(void *p, const struct ty *y, size_t i, zd v)
{
    switch (y->t) {
    case CUDA_R_32F: ((float *)p)[i] = (float)creal(v); break;
    case CUDA_R_64F: ((double *)p)[i] = creal(v); break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)creal(v), ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)p)[2 * i] = creal(v), ((double *)p)[2 * i + 1] = cimag(v); break;
    }
}

static zd get(const void *p, const struct ty *y, size_t i)
{
    switch (y->t) {
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_C_32F: return ((const float *)p)[2 * i] + I * ((const float *)p)[2 * i + 1];
    default: return ((const double *)p)[2 * i] + I * ((const double *)p)[2 * i + 1];
    }
}

static unsigned seed = 12345;
static double rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return ((seed >> 8) & 0xffff) / 65536.0 - 0.5;
}

/* a random m x n matrix (column-major, ld m) of the type */
static zd *rand_mat(const struct ty *y, int m, int n)
{
    zd *a = malloc(sizeof(zd) * (size_t)(m * n));
    for (int i = 0; i < m * n; i++)
        a[i] = rnd() + (cplx(y) ? I * rnd() : 0);
    return a;
}

/* B B^H + n I: Hermitian positive definite */
static zd *spd(const struct ty *y, int n)
{
    zd *b = rand_mat(y, n, n), *a = malloc(sizeof(zd) * (size_t)(n * n));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            zd s = i == j ? n : 0;
            for (int k = 0; k < n; k++)
                s += b[k * n + i] * conj(b[k * n + j]);
            a[j * n + i] = s;
        }
    free(b);
    return a;
}

static void *to_dev(const struct ty *y, const zd *a, int n)
{
    void *h_ = malloc(y->sz * (size_t)n), *d;
    for (int i = 0; i < n; i++)
        put(h_, y, (size_t)i, a[i]);
    CK(cudaMalloc(&d, y->sz * (size_t)(n > 0 ? n : 1)));
    CK(cudaMemcpy(d, h_, y->sz * (size_t)n, cudaMemcpyHostToDevice));
    free(h_);
    return d;
}

static zd *from_dev(const struct ty *y, const void *d, int n)
{
    void *h_ = malloc(y->sz * (size_t)n);
    zd *a = malloc(sizeof(zd) * (size_t)n);
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(h_, d, y->sz * (size_t)n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        a[i] = get(h_, y, (size_t)i);
    free(h_);
    return a;
}

static int dev_int(const int *d)
{
    int v;
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
        fprintf(stderr, "%s: %.12g, want %.12g\n", what, got, want);
        exit(1);
    }
}

/* max |X - Y| over m x n (X ld lx, Y ld ly) */
static double diff(const zd *x, int lx, const zd *y, int ly, int m, int n)
{
    double d = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double e = cabs(x[j * lx + i] - y[j * ly + i]);
            d = e > d ? e : d;
        }
    return d;
}

/* C = op(A) op(B): A m x k (op N) or k x m (op C) */
static zd *mul(const zd *a, int la, int ca, const zd *b, int lb, int cb, int m, int n, int k)
{
    zd *c = calloc((size_t)(m * n), sizeof(zd));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            zd s = 0;
            for (int p = 0; p < k; p++)
                s += (ca ? conj(a[i * la + p]) : a[p * la + i]) * (cb ? conj(b[p * lb + j]) : b[j * lb + p]);
            c[j * m + i] = s;
        }
    return c;
}

#define WANT_SMALL(d, y, what)                                                                 \
    do {                                                                                       \
        double d_ = (d);                                                                       \
        if (!(d_ <= 50 * (y)->tol)) {                                                          \
            fprintf(stderr, "%s (%s): error %g\n", what, (y)->name, d_);                       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* ------------------------------------------------------------------ */

static cusolverStatus_t potrf_t(const struct ty *y, cublasFillMode_t u, int n, void *A, int lda, void *W, int lw,
                                int *info)
{
    switch (y->t) {
    case CUDA_R_32F: return cusolverDnSpotrf(h, u, n, A, lda, W, lw, info);
    case CUDA_R_64F: return cusolverDnDpotrf(h, u, n, A, lda, W, lw, info);
    case CUDA_C_32F: return cusolverDnCpotrf(h, u, n, A, lda, W, lw, info);
    default: return cusolverDnZpotrf(h, u, n, A, lda, W, lw, info);
    }
}

static void test_potrf(const struct ty *y)
{
    const int n = 11;
    int *info;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    for (int upper = 0; upper < 2; upper++)
        for (int blocked = 0; blocked < 2; blocked++) {
            zd *a = spd(y, n);
            void *A = to_dev(y, a, n * n), *W = NULL;
            int lw = 0;
            if (blocked) {
                CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, NULL, n, &lw));
                CK(cudaMalloc(&W, (size_t)lw * y->sz));
            }
            cublasFillMode_t u = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
            CK(potrf_t(y, u, n, A, n, W, lw, info));
            TRUE(dev_int(info) == 0);
            zd *f = from_dev(y, A, n * n), *t = calloc((size_t)(n * n), sizeof(zd));
            for (int j = 0; j < n; j++)        /* the factor's triangle only */
                for (int i = 0; i < n; i++)
                    if (upper ? i <= j : i >= j)
                        t[j * n + i] = f[j * n + i];
            zd *r = upper ? mul(t, n, 1, t, n, 0, n, n, n) : mul(t, n, 0, t, n, 1, n, n, n);
            if (getenv("SOLVER_DEBUG")) fprintf(stderr, "%s upper %d blocked %d: %g\n", y->name, upper, blocked, diff(r, n, a, n, n, n));
            WANT_SMALL(diff(r, n, a, n, n, n) / n, y, upper ? "potrf upper: U^H U = A" : "potrf lower: L L^H = A");
            /* the other triangle is not referenced */
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    if (upper ? i > j : i < j)
                        near(cabs(f[j * n + i] - a[j * n + i]), 0, y->tol, "potrf: the other triangle");
            /* potrs: A x = b */
            zd *b = rand_mat(y, n, 2);
            void *B = to_dev(y, b, 2 * n);
            cusolverStatus_t s;
            switch (y->t) {
            case CUDA_R_32F: s = cusolverDnSpotrs(h, u, n, 2, A, n, B, n, info); break;
            case CUDA_R_64F: s = cusolverDnDpotrs(h, u, n, 2, A, n, B, n, info); break;
            case CUDA_C_32F: s = cusolverDnCpotrs(h, u, n, 2, A, n, B, n, info); break;
            default: s = cusolverDnZpotrs(h, u, n, 2, A, n, B, n, info); break;
            }
            CK(s);
            zd *x = from_dev(y, B, 2 * n), *ax = mul(a, n, 0, x, n, 0, n, 2, n);
            WANT_SMALL(diff(ax, n, b, n, n, 2) / n, y, "potrs: A x = b");
            free(a), free(f), free(t), free(r), free(b), free(x), free(ax);
            CK(cudaFree(A)); CK(cudaFree(B));
            if (W)
                CK(cudaFree(W));
        }
    /* not positive definite at the 7th leading minor: info 7, in panels too */
    zd *a = spd(y, n);
    a[6 * n + 6] = -100;
    void *A = to_dev(y, a, n * n), *W;
    CK(cudaMalloc(&W, (size_t)(n * n) * y->sz));
    CK(potrf_t(y, CUBLAS_FILL_MODE_LOWER, n, A, n, W, n * n, info));
    TRUE(dev_int(info) == 7);
    CK(cudaFree(A)); CK(cudaFree(W)); CK(cudaFree(info));
    free(a);
}

static void test_getrf(const struct ty *y)
{
    const int n = 9;
    int *info, *ipiv;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    CK(cudaMalloc((void **)&ipiv, n * sizeof(int)));
    for (int pivot = 0; pivot < 2; pivot++)
        for (int tr = 0; tr < 3; tr++) {
            if (tr == 2 && !cplx(y))
                continue;
            zd *a = rand_mat(y, n, n);
            for (int i = 0; i < n; i++)
                a[i * n + i] += pivot ? 0 : 4;       /* no pivoting: diagonally dominant */
            void *A = to_dev(y, a, n * n);
            int *p = pivot ? ipiv : NULL;
            cublasOperation_t op = tr == 0 ? CUBLAS_OP_N : tr == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
            zd *b = rand_mat(y, n, 1);
            void *B = to_dev(y, b, n);
            switch (y->t) {
            case CUDA_R_32F:
                CK(cusolverDnSgetrf(h, n, n, A, n, NULL, p, info));
                CK(cusolverDnSgetrs(h, op, n, 1, A, n, p, B, n, info));
                break;
            case CUDA_R_64F:
                CK(cusolverDnDgetrf(h, n, n, A, n, NULL, p, info));
                CK(cusolverDnDgetrs(h, op, n, 1, A, n, p, B, n, info));
                break;
            case CUDA_C_32F:
                CK(cusolverDnCgetrf(h, n, n, A, n, NULL, p, info));
                CK(cusolverDnCgetrs(h, op, n, 1, A, n, p, B, n, info));
                break;
            default:
                CK(cusolverDnZgetrf(h, n, n, A, n, NULL, p, info));
                CK(cusolverDnZgetrs(h, op, n, 1, A, n, p, B, n, info));
                break;
            }
            TRUE(dev_int(info) == 0);
            zd *x = from_dev(y, B, n), *ax = mul(a, n, 0, x, n, 0, n, 1, n);
            if (tr) {       /* op(A) x: transpose (conjugated for C) */
                free(ax);
                ax = calloc((size_t)n, sizeof(zd));
                for (int i = 0; i < n; i++)
                    for (int k = 0; k < n; k++)
                        ax[i] += (tr == 2 ? conj(a[i * n + k]) : a[i * n + k]) * x[k];
            }
            WANT_SMALL(diff(ax, n, b, n, n, 1) / n, y, "getrf/getrs: op(A) x = b");
            if (pivot) {    /* LAPACK's pivots: 1-based, ipiv[i] >= i + 1 */
                int hp[n];
                CK(cudaMemcpy(hp, ipiv, sizeof hp, cudaMemcpyDeviceToHost));
                for (int i = 0; i < n; i++)
                    TRUE(hp[i] >= i + 1 && hp[i] <= n);
            }
            free(a), free(b), free(x), free(ax);
            CK(cudaFree(A)); CK(cudaFree(B));
        }
    CK(cudaFree(info)); CK(cudaFree(ipiv));
}

/* Q R = A with orgqr's Q; ormqr's Q^H A = R; R's diagonal as LAPACK's */
static void test_qr(const struct ty *y)
{
    const int m = 8, n = 5;
    int *info;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    zd *a = rand_mat(y, m, n);
    void *A = to_dev(y, a, m * n), *tau, *Q, *C = to_dev(y, a, m * n);
    CK(cudaMalloc(&tau, (size_t)n * y->sz));
    switch (y->t) {
    case CUDA_R_32F: CK(cusolverDnSgeqrf(h, m, n, A, m, tau, NULL, 0, info)); break;
    case CUDA_R_64F: CK(cusolverDnDgeqrf(h, m, n, A, m, tau, NULL, 0, info)); break;
    case CUDA_C_32F: CK(cusolverDnCgeqrf(h, m, n, A, m, tau, NULL, 0, info)); break;
    default: CK(cusolverDnZgeqrf(h, m, n, A, m, tau, NULL, 0, info)); break;
    }
    TRUE(dev_int(info) == 0);
    zd *f = from_dev(y, A, m * n), *r = calloc((size_t)(n * n), sizeof(zd));
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++)
            r[j * n + i] = f[j * m + i];
    /* LAPACK's reflector: beta = -sign(re alpha) |x|: R's diagonal has the
     * opposite sign of the real part of the column it eliminated */
    TRUE(creal(r[0]) * creal(a[0]) < 0 && fabs(cimag(r[0])) < 1e-6);
    Q = to_dev(y, f, m * n);
    switch (y->t) {
    case CUDA_R_32F:
        CK(cusolverDnSorgqr(h, m, n, n, Q, m, tau, NULL, 0, info));
        CK(cusolverDnSormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, n, A, m, tau, C, m, NULL, 0, info));
        break;
    case CUDA_R_64F:
        CK(cusolverDnDorgqr(h, m, n, n, Q, m, tau, NULL, 0, info));
        CK(cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, n, n, A, m, tau, C, m, NULL, 0, info));
        break;
    case CUDA_C_32F:
        CK(cusolverDnCungqr(h, m, n, n, Q, m, tau, NULL, 0, info));
        CK(cusolverDnCunmqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, m, n, n, A, m, tau, C, m, NULL, 0, info));
        break;
    default:
        CK(cusolverDnZungqr(h, m, n, n, Q, m, tau, NULL, 0, info));
        CK(cusolverDnZunmqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, m, n, n, A, m, tau, C, m, NULL, 0, info));
        break;
    }
    zd *q = from_dev(y, Q, m * n), *qr = mul(q, m, 0, r, n, 0, m, n, n), *qq = mul(q, m, 1, q, m, 0, n, n, m);
    WANT_SMALL(diff(qr, m, a, m, m, n), y, "geqrf/orgqr: Q R = A");
    zd *id = calloc((size_t)(n * n), sizeof(zd));
    for (int i = 0; i < n; i++)
        id[i * n + i] = 1;
    WANT_SMALL(diff(qq, n, id, n, n, n), y, "orgqr: Q^H Q = I");
    zd *c = from_dev(y, C, m * n);
    WANT_SMALL(diff(c, m, r, n, n, n), y, "ormqr: Q^H A = R");
    free(a), free(f), free(r), free(q), free(qr), free(qq), free(id), free(c);
    CK(cudaFree(A)); CK(cudaFree(tau)); CK(cudaFree(Q)); CK(cudaFree(C)); CK(cudaFree(info));
}

/* eigenvalues (real: float for S, C; double for D, Z) */
static void test_eig(const struct ty *y)
{
    const int n = 7;
    int *info;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    const struct ty *ry = &TYPES[y->t == CUDA_R_32F || y->t == CUDA_C_32F ? 0 : 1];
    for (int upper = 0; upper < 2; upper++) {
        zd *a = spd(y, n);
        for (int i = 0; i < n; i++)
            a[i * n + i] -= 6;              /* indefinite */
        void *A = to_dev(y, a, n * n), *Wd;
        CK(cudaMalloc(&Wd, (size_t)n * ry->sz));
        cublasFillMode_t u = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
        cusolverEigMode_t v = CUSOLVER_EIG_MODE_VECTOR;
        switch (y->t) {
        case CUDA_R_32F: CK(cusolverDnSsyevd(h, v, u, n, A, n, Wd, NULL, 0, info)); break;
        case CUDA_R_64F: CK(cusolverDnDsyevd(h, v, u, n, A, n, Wd, NULL, 0, info)); break;
        case CUDA_C_32F: CK(cusolverDnCheevd(h, v, u, n, A, n, Wd, NULL, 0, info)); break;
        default: CK(cusolverDnZheevd(h, v, u, n, A, n, Wd, NULL, 0, info)); break;
        }
        TRUE(dev_int(info) == 0);
        zd *w = from_dev(ry, Wd, n), *vv = from_dev(y, A, n * n), *av = mul(a, n, 0, vv, n, 0, n, n, n);
        for (int j = 0; j < n; j++) {
            if (j)
                TRUE(creal(w[j]) >= creal(w[j - 1]));
            for (int i = 0; i < n; i++)
                vv[j * n + i] *= w[j];
        }
        WANT_SMALL(diff(av, n, vv, n, n, n) / n, y, "syevd: A V = V diag(w)");
        free(a), free(w), free(vv), free(av);
        CK(cudaFree(A)); CK(cudaFree(Wd));
    }
    CK(cudaFree(info));
}

/* U diag(s) V^H = A for gesvd (V^H) and gesvdj (V), econ or full */
static void check_svd(const struct ty *y, const zd *a, int m, int n, const zd *u, int ucols, const zd *s,
                      const zd *v, int vcols, int vt, const char *what)
{
    int k = m < n ? m : n;
    zd *us = malloc(sizeof(zd) * (size_t)(m * k));
    for (int j = 0; j < k; j++) {
        if (j)
            TRUE(creal(s[j]) <= creal(s[j - 1]) + 1e-6);
        for (int i = 0; i < m; i++)
            us[j * m + i] = u[j * m + i] * s[j];
    }
    (void)ucols;
    zd *r = vt ? mul(us, m, 0, v, vcols, 0, m, n, k) : mul(us, m, 0, v, n, 1, m, n, k);
    WANT_SMALL(diff(r, m, a, m, m, n), y, what);
    free(us), free(r);
}

static void test_svd(const struct ty *y)
{
    const int m = 7, n = 5, k = 5;
    int *info;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    const struct ty *ry = &TYPES[y->t == CUDA_R_32F || y->t == CUDA_C_32F ? 0 : 1];
    zd *a = rand_mat(y, m, n);
    void *A = to_dev(y, a, m * n), *S, *U, *V;
    CK(cudaMalloc(&S, (size_t)k * ry->sz));
    CK(cudaMalloc(&U, (size_t)(m * m) * y->sz));
    CK(cudaMalloc(&V, (size_t)(n * n) * y->sz));
    /* gesvd 'A', 'A': U m x m, VT n x n */
    switch (y->t) {
    case CUDA_R_32F: CK(cusolverDnSgesvd(h, 'A', 'A', m, n, A, m, S, U, m, V, n, NULL, 0, NULL, info)); break;
    case CUDA_R_64F: CK(cusolverDnDgesvd(h, 'A', 'A', m, n, A, m, S, U, m, V, n, NULL, 0, NULL, info)); break;
    case CUDA_C_32F: CK(cusolverDnCgesvd(h, 'A', 'A', m, n, A, m, S, U, m, V, n, NULL, 0, NULL, info)); break;
    default: CK(cusolverDnZgesvd(h, 'A', 'A', m, n, A, m, S, U, m, V, n, NULL, 0, NULL, info)); break;
    }
    TRUE(dev_int(info) == 0);
    zd *s = from_dev(ry, S, k), *u = from_dev(y, U, m * m), *v = from_dev(y, V, n * n);
    check_svd(y, a, m, n, u, m, s, v, n, 1, "gesvd: U S VT = A");
    zd *uu = mul(u, m, 1, u, m, 0, m, m, m);
    double e = 0;
    for (int i = 0; i < m * m; i++) {
        double d = cabs(uu[i] - (i % (m + 1) == 0));
        e = d > e ? d : e;
    }
    WANT_SMALL(e, y, "gesvd: U^H U = I (full U)");
    free(s), free(u), free(v), free(uu);
    /* gesvdj, econ: U m x k, V n x k */
    CK(cudaFree(A));
    A = to_dev(y, a, m * n);
    gesvdjInfo_t gi;
    CK(cusolverDnCreateGesvdjInfo(&gi));
    CK(cusolverDnXgesvdjSetTolerance(gi, 1e-10));
    cusolverEigMode_t vec = CUSOLVER_EIG_MODE_VECTOR;
    switch (y->t) {
    case CUDA_R_32F: CK(cusolverDnSgesvdj(h, vec, 1, m, n, A, m, S, U, m, V, n, NULL, 0, info, gi)); break;
    case CUDA_R_64F: CK(cusolverDnDgesvdj(h, vec, 1, m, n, A, m, S, U, m, V, n, NULL, 0, info, gi)); break;
    case CUDA_C_32F: CK(cusolverDnCgesvdj(h, vec, 1, m, n, A, m, S, U, m, V, n, NULL, 0, info, gi)); break;
    default: CK(cusolverDnZgesvdj(h, vec, 1, m, n, A, m, S, U, m, V, n, NULL, 0, info, gi)); break;
    }
    TRUE(dev_int(info) == 0);
    s = from_dev(ry, S, k), u = from_dev(y, U, m * k), v = from_dev(y, V, n * k);
    check_svd(y, a, m, n, u, k, s, v, k, 0, "gesvdj econ: U S V^H = A");
    free(s), free(u), free(v);
    /* gesvdjBatched: 3 wide matrices (3 x 4), full U and V, strided */
    const int bm = 3, bn = 4, bb = 3, bk = 3;
    zd *ab = rand_mat(y, bm, bn * bb);
    void *Ab = to_dev(y, ab, bm * bn * bb), *Sb, *Ub, *Vb;
    int *infos;
    CK(cudaMalloc(&Sb, (size_t)(bk * bb) * ry->sz));
    CK(cudaMalloc(&Ub, (size_t)(bm * bm * bb) * y->sz));
    CK(cudaMalloc(&Vb, (size_t)(bn * bn * bb) * y->sz));
    CK(cudaMalloc((void **)&infos, bb * sizeof(int)));
    switch (y->t) {
    case CUDA_R_32F: CK(cusolverDnSgesvdjBatched(h, vec, bm, bn, Ab, bm, Sb, Ub, bm, Vb, bn, NULL, 0, infos, gi, bb)); break;
    case CUDA_R_64F: CK(cusolverDnDgesvdjBatched(h, vec, bm, bn, Ab, bm, Sb, Ub, bm, Vb, bn, NULL, 0, infos, gi, bb)); break;
    case CUDA_C_32F: CK(cusolverDnCgesvdjBatched(h, vec, bm, bn, Ab, bm, Sb, Ub, bm, Vb, bn, NULL, 0, infos, gi, bb)); break;
    default: CK(cusolverDnZgesvdjBatched(h, vec, bm, bn, Ab, bm, Sb, Ub, bm, Vb, bn, NULL, 0, infos, gi, bb)); break;
    }
    zd *sb = from_dev(ry, Sb, bk * bb), *ub = from_dev(y, Ub, bm * bm * bb), *vb = from_dev(y, Vb, bn * bn * bb);
    for (int b = 0; b < bb; b++)
        check_svd(y, ab + b * bm * bn, bm, bn, ub + b * bm * bm, bm, sb + b * bk, vb + b * bn * bn, bn, 0,
                  "gesvdjBatched: U S V^H = A");
    CK(cusolverDnDestroyGesvdjInfo(gi));
    free(a), free(ab), free(sb), free(ub), free(vb);
    CK(cudaFree(A)); CK(cudaFree(S)); CK(cudaFree(U)); CK(cudaFree(V)); CK(cudaFree(info));
    CK(cudaFree(Ab)); CK(cudaFree(Sb)); CK(cudaFree(Ub)); CK(cudaFree(Vb)); CK(cudaFree(infos));
}

/* pointer arrays: potrfBatched then potrsBatched (nrhs 1) */
static void test_batched(void)
{
    const struct ty *y = &TYPES[1];
    const int n = 6, bb = 3;
    zd *a[bb], *b[bb];
    void *Ad[bb], *Bd[bb], **Aarr, **Barr;
    int *infos;
    for (int i = 0; i < bb; i++) {
        a[i] = spd(y, n), b[i] = rand_mat(y, n, 1);
        Ad[i] = to_dev(y, a[i], n * n), Bd[i] = to_dev(y, b[i], n);
    }
    CK(cudaMalloc((void **)&Aarr, sizeof Ad));
    CK(cudaMalloc((void **)&Barr, sizeof Bd));
    CK(cudaMalloc((void **)&infos, bb * sizeof(int)));
    CK(cudaMemcpy(Aarr, Ad, sizeof Ad, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(Barr, Bd, sizeof Bd, cudaMemcpyHostToDevice));
    CK(cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, (double **)Aarr, n, infos, bb));
    CK(cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, n, 1, (double **)Aarr, n, (double **)Barr, n, infos, bb));
    TRUE(cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, n, 2, (double **)Aarr, n, (double **)Barr, n, infos,
                                 bb) == CUSOLVER_STATUS_INVALID_VALUE);
    for (int i = 0; i < bb; i++) {
        zd *x = from_dev(y, Bd[i], n), *ax = mul(a[i], n, 0, x, n, 0, n, 1, n);
        WANT_SMALL(diff(ax, n, b[i], n, n, 1), y, "potrfBatched/potrsBatched: A x = b");
        free(x), free(ax), free(a[i]), free(b[i]);
        CK(cudaFree(Ad[i])); CK(cudaFree(Bd[i]));
    }
    CK(cudaFree(Aarr)); CK(cudaFree(Barr)); CK(cudaFree(infos));
}

/* the 64-bit API, double and complex float */
static void test_x(const struct ty *y)
{
    const int n = 6;
    cusolverDnParams_t p;
    CK(cusolverDnCreateParams(&p));
    int *info;
    int64_t *ipiv;
    CK(cudaMalloc((void **)&info, sizeof(int)));
    CK(cudaMalloc((void **)&ipiv, n * sizeof(int64_t)));
    size_t dws, hws;
    /* Xpotrf + Xpotrs */
    zd *a = spd(y, n), *b = rand_mat(y, n, 1);
    void *A = to_dev(y, a, n * n), *B = to_dev(y, b, n), *W;
    CK(cusolverDnXpotrf_bufferSize(h, p, CUBLAS_FILL_MODE_LOWER, n, y->t, A, n, y->t, &dws, &hws));
    CK(cudaMalloc(&W, dws));
    CK(cusolverDnXpotrf(h, p, CUBLAS_FILL_MODE_LOWER, n, y->t, A, n, y->t, W, dws, NULL, hws, info));
    CK(cusolverDnXpotrs(h, p, CUBLAS_FILL_MODE_LOWER, n, 1, y->t, A, n, y->t, B, n, info));
    TRUE(dev_int(info) == 0);
    zd *x = from_dev(y, B, n), *ax = mul(a, n, 0, x, n, 0, n, 1, n);
    WANT_SMALL(diff(ax, n, b, n, n, 1), y, "Xpotrf/Xpotrs: A x = b");
    free(a), free(x), free(ax);
    CK(cudaFree(A)); CK(cudaFree(B));
    /* Xgetrf + Xgetrs */
    a = rand_mat(y, n, n);
    A = to_dev(y, a, n * n), B = to_dev(y, b, n);
    CK(cusolverDnXgetrf_bufferSize(h, p, n, n, y->t, A, n, y->t, &dws, &hws));
    CK(cusolverDnXgetrf(h, p, n, n, y->t, A, n, ipiv, y->t, W, dws, NULL, 0, info));
    CK(cusolverDnXgetrs(h, p, CUBLAS_OP_N, n, 1, y->t, A, n, ipiv, y->t, B, n, info));
    x = from_dev(y, B, n), ax = mul(a, n, 0, x, n, 0, n, 1, n);
    WANT_SMALL(diff(ax, n, b, n, n, 1), y, "Xgetrf/Xgetrs: A x = b");
    free(x), free(ax), free(b);
    CK(cudaFree(B));
    /* Xgeqrf: R's first diagonal element is -sign(a00) |a[:,0]| */
    CK(cudaFree(A));
    A = to_dev(y, a, n * n);
    void *tau;
    CK(cudaMalloc(&tau, (size_t)n * y->sz));
    CK(cusolverDnXgeqrf_bufferSize(h, p, n, n, y->t, A, n, y->t, tau, y->t, &dws, &hws));
    CK(cusolverDnXgeqrf(h, p, n, n, y->t, A, n, y->t, tau, y->t, W, dws, NULL, 0, info));
    zd *f = from_dev(y, A, n * n);
    double nrm = 0;
    for (int i = 0; i < n; i++)
        nrm += creal(a[i] * conj(a[i]));
    near(creal(f[0]), -copysign(sqrt(nrm), creal(a[0])), 10 * y->tol, "Xgeqrf: R[0][0]");
    free(f), free(a);
    CK(cudaFree(A)); CK(cudaFree(tau));
    /* Xsyevd: eigenvalues of diag(3, 1, 2, ...) ascending */
    a = calloc((size_t)(n * n), sizeof(zd));
    for (int i = 0; i < n; i++)
        a[i * n + i] = (i * 5) % n;
    A = to_dev(y, a, n * n);
    const struct ty *ry = &TYPES[y->t == CUDA_R_32F || y->t == CUDA_C_32F ? 0 : 1];
    void *Wv;
    CK(cudaMalloc(&Wv, (size_t)n * ry->sz));
    CK(cusolverDnXsyevd_bufferSize(h, p, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, y->t, A, n, ry->t,
                                   Wv, y->t, &dws, &hws));
    CK(cusolverDnXsyevd(h, p, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, y->t, A, n, ry->t, Wv, y->t,
                        W, dws, NULL, 0, info));
    zd *w = from_dev(ry, Wv, n);
    for (int i = 0; i < n; i++)
        near(creal(w[i]), i, y->tol, "Xsyevd: w");
    free(w), free(a);
    CK(cudaFree(A)); CK(cudaFree(Wv));
    /* Xgesvd 'S','S' */
    const int m = 8;
    a = rand_mat(y, m, n);
    A = to_dev(y, a, m * n);
    void *S, *U, *VT;
    CK(cudaMalloc(&S, (size_t)n * ry->sz)); CK(cudaMalloc(&U, (size_t)(m * n) * y->sz));
    CK(cudaMalloc(&VT, (size_t)(n * n) * y->sz));
    CK(cusolverDnXgesvd_bufferSize(h, p, 'S', 'S', m, n, y->t, A, m, ry->t, S, y->t, U, m, y->t, VT, n, y->t, &dws,
                                   &hws));
    CK(cusolverDnXgesvd(h, p, 'S', 'S', m, n, y->t, A, m, ry->t, S, y->t, U, m, y->t, VT, n, y->t, W, dws, NULL, 0,
                        info));
    zd *s = from_dev(ry, S, n), *u = from_dev(y, U, m * n), *vt = from_dev(y, VT, n * n);
    check_svd(y, a, m, n, u, n, s, vt, n, 1, "Xgesvd: U S VT = A");
    free(s), free(u), free(vt), free(a);
    CK(cudaFree(A)); CK(cudaFree(S)); CK(cudaFree(U)); CK(cudaFree(VT)); CK(cudaFree(W));
    /* a mixed type: not something the sim computes */
    TRUE(cusolverDnXpotrf(h, p, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_32F, NULL, n, CUDA_R_64F, NULL, 0, NULL, 0, info) ==
         CUSOLVER_STATUS_NOT_SUPPORTED);
    CK(cudaFree(info)); CK(cudaFree(ipiv));
    CK(cusolverDnDestroyParams(p));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    setvbuf(stdout, NULL, _IONBF, 0);
    CK(cudaSetDevice(1));
    CK(cusolverDnCreate(&h));
    CK(cudaStreamCreate(&st));
    CK(cusolverDnSetStream(h, st));
    cudaStream_t got;
    CK(cusolverDnGetStream(h, &got));
    TRUE(got == st);
    if (!strcmp(mode, "fault")) {
        CK(cudaSetDevice(0));
        const struct ty *y = &TYPES[0];
        zd *a = spd(y, 4);
        void *A = to_dev(y, a, 16);
        int *info;
        CK(cudaSetDevice(1));
        CK(cudaMalloc((void **)&info, sizeof(int)));
        CK(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, 4, A, 4, NULL, 0, info));
        cudaError_t e = cudaStreamSynchronize(st);
        printf("fault: cuda:1 after cusolverDnSpotrf of cuda:0's A: %s\n", cudaGetErrorName(e));
        TRUE(e == cudaErrorIllegalAddress);
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        const struct ty *y = &TYPES[i];
        test_potrf(y);
        test_getrf(y);
        test_qr(y);
        test_eig(y);
        test_svd(y);
        printf("%s: potrf, potrs, getrf, getrs, geqrf, orgqr, ormqr, syevd, gesvd, gesvdj, gesvdjBatched: ok\n",
               y->name);
    }
    test_batched();
    test_x(&TYPES[1]);
    test_x(&TYPES[2]);
    printf("potrfBatched, potrsBatched, the X API: ok\n");
    CK(cusolverDnDestroy(h));
    TRUE(cusolverDnDestroy(NULL) == CUSOLVER_STATUS_NOT_INITIALIZED);
    printf("solver_sim %s: done\n", mode);
    return 0;
}
