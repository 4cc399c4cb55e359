/* The sim's cuSOLVER dense API (libcusolver.so.12, and CUDA 12's
 * libcusolver.so.11 from the same source): handles, streams, params, and
 * the factorizations and eigen/singular value solvers PyTorch's
 * torch.linalg calls (potrf/potrs and their batched forms, getrf/getrs,
 * geqrf, orgqr/ungqr, ormqr/unmqr, syevd/heevd, syevjBatched/heevjBatched,
 * gesvd, gesvdj, gesvdjBatched; the 64-bit X API: Xpotrf, Xpotrs, Xgetrf,
 * Xgetrs, Xgeqrf, Xsyevd, XsyevBatched, Xgesvd) with their bufferSize
 * calls, for the four types S, D, C, Z.  Every other name of NVIDIA's
 * export list is a stub (libs.mk): one line naming it, then
 * CUSOLVER_STATUS_NOT_SUPPORTED.
 *
 * As the sim's other libraries (sim/libs/README.md), a call computes in
 * kernels of the library's image (solve.cu) launched into the handle's
 * stream: their host twins do the work with lapack.c's reference routines,
 * so the sim's fault model decides what the device may touch (an A of
 * another device faults, at the next synchronization).  As NVIDIA's
 * cuSOLVER does, the handle holds a cuBLAS handle (made at
 * cusolverDnCreate, given the stream at cusolverDnSetStream: this library
 * needs libcublas.so.13), and a Cholesky factorization of more than one
 * panel updates its trailing matrix through cuBLAS's GEMM (into the
 * caller's workspace), through the PLT. */
#pragma GCC visibility push(default)
#include <cusolverDn.h>
#pragma GCC visibility pop
#include "simlib.h"
#include "solver.h"

#include <stdlib.h>
#include <string.h>

#ifndef SOLVER_LIB
#define SOLVER_LIB "libcusolver.so.12"
#endif

extern const unsigned char solve_image[];
static struct simlib_image image = SIMLIB_IMAGE_INIT(solve_image, SOLVER_LIB);
static atomic_flag said_piv = ATOMIC_FLAG_INIT;   /* run_one: getrs refused a pivot */

#define HANDLE_MAGIC 0x53494d736f6c7665ULL

struct cusolverDnContext {
    uint64_t magic;
    CUcontext ctx;              /* the device current at cusolverDnCreate */
    cudaStream_t stream;
    cublasHandle_t blas;
};
struct cusolverDnParams { int adv; };
struct gesvdjInfo { double tol, residual; int max_sweeps, sort, sweeps; };
struct syevjInfo { double tol, residual; int max_sweeps, sort, sweeps; };

/* ------------------------------------------------------------------ */
/* The kernels' work: what a twin needs besides its buffers            */

enum sop { OP_POTRF, OP_POTRF_UPDATE, OP_POTRS, OP_GETRF, OP_GETRS, OP_GEQRF, OP_ORGQR, OP_ORMQR, OP_HEEV,
           OP_GESVD };
struct swork {
    enum sop op;
    cudaDataType t, rt;         /* the matrices' type, the real type of S / W */
    int64_t m, n, k, nrhs, lda, ldb, ldu, ldv;
    int64_t batch, sa, sb, ss, su, sv;          /* strided batches: strides in elements */
    int upper, left, trans, vectors, full_u, full_v, vt, arrays, ipiv64, pivot, one_info;
    int64_t j0, j1;             /* OP_POTRF: the panel's columns; OP_POTRF_UPDATE: the trailing matrix from j1 */
    int64_t sweeps;
};
struct sim_work { const struct swork *work; };    /* solve.cu's SimWork */

static size_t tsize(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

static zd ld_el(const void *p, cudaDataType t, int64_t i)
{
    switch (t) {
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_C_32F: return ((const float *)p)[2 * i] + I * ((const float *)p)[2 * i + 1];
    default: return ((const double *)p)[2 * i] + I * ((const double *)p)[2 * i + 1];
    }
}

static void st_el(void *p, cudaDataType t, int64_t i, zd v)
{
    switch (t) {
    case CUDA_R_32F: ((float *)p)[i] = (float)creal(v); break;
    case CUDA_R_64F: ((double *)p)[i] = creal(v); break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)creal(v); ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)p)[2 * i] = creal(v); ((double *)p)[2 * i + 1] = cimag(v); break;
    }
}

/* m x n of p (leading dimension ld) into a fresh m x n array (ld m) */
static zd *load(const void *p, cudaDataType t, int64_t m, int64_t n, int64_t ld)
{
    zd *a = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *a);
    for (int64_t j = 0; a && j < n; j++)
        for (int64_t i = 0; i < m; i++)
            a[j * m + i] = ld_el(p, t, j * ld + i);
    return a;
}

static void store(void *p, cudaDataType t, int64_t m, int64_t n, int64_t ld, const zd *a)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            st_el(p, t, j * ld + i, a[j * m + i]);
}

/* Hermitian from the `upper` or lower triangle of p: both triangles filled */
static zd *load_herm(const void *p, cudaDataType t, int64_t n, int64_t ld, int upper)
{
    zd *a = malloc((size_t)(n * n > 0 ? n * n : 1) * sizeof *a);
    for (int64_t j = 0; a && j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int mine = upper ? i <= j : i >= j;
            a[j * n + i] = mine ? ld_el(p, t, j * ld + i) : conj(ld_el(p, t, i * ld + j));
            if (i == j)
                a[j * n + i] = creal(a[j * n + i]);
        }
    return a;
}

static void set_info(int *info, int64_t b, int v)
{
    if (info)
        info[b] = v;
}

/* One matrix (or batch item) of a kernel: p[] as the launch passed them. */
static void run_one(const struct swork *w, void *const *p, int64_t b)
{
    cudaDataType t = w->t;
    size_t sz = tsize(t);
    void *A = p[0], *B = p[1], *C = p[2];
    int *info = p[3];
    if (w->arrays) {                /* device arrays of one pointer per batch item */
        A = ((void *const *)p[0])[b];
        if (p[1])
            B = ((void *const *)p[1])[b];
    } else if (b) {
        A = (char *)A + (size_t)(b * w->sa) * sz;
        if (B)
            B = (char *)B + (size_t)(b * w->sb) * (w->op == OP_HEEV || w->op == OP_GESVD ? tsize(w->rt) : sz);
        if (C)
            C = (char *)C + (size_t)(b * w->su) * sz;
    }
    int64_t ib = w->one_info ? 0 : b;
    switch (w->op) {
    case OP_POTRF: {                /* the panel j0..j1: its diagonal block, then L21 / U12 below / right of it */
        if (w->j0 > 0 && info && info[ib])
            return;                 /* an earlier panel failed: the rest is left as it is */
        int64_t j0 = w->j0, nb = w->j1 - j0, n2 = w->n - w->j1, lda = w->lda;
        void *blk = (char *)A + (size_t)(j0 * lda + j0) * sz;
        zd *a = load(blk, t, nb, nb, lda);
        if (!a)
            return;
        int r = sl_potrf(a, nb, nb, w->upper);
        store(blk, t, nb, nb, lda, a);
        free(a);
        if (r) {
            set_info(info, ib, (int)j0 + r);
            return;
        }
        for (int64_t c = 0; c < nb; c++) {      /* L21 = A21 L11^-H (lower), U12 = U11^-H A12 (upper) */
            int64_t j = j0 + c;
            zd d = ld_el(A, t, j * lda + j);
            for (int64_t r2 = 0; r2 < n2; r2++) {
                int64_t i = w->j1 + r2, at = w->upper ? i * lda + j : j * lda + i;
                zd s = ld_el(A, t, at);
                for (int64_t k = j0; k < j; k++)
                    s -= w->upper ? conj(ld_el(A, t, j * lda + k)) * ld_el(A, t, i * lda + k)
                                  : ld_el(A, t, k * lda + i) * conj(ld_el(A, t, k * lda + j));
                st_el(A, t, at, s / d);       /* the diagonal is real */
            }
        }
        if (j0 == 0)
            set_info(info, ib, 0);
        break;
    }
    case OP_POTRF_UPDATE: {         /* the trailing triangle -= workspace's product (from cuBLAS's GEMM) */
        if (info && info[ib])
            return;
        int64_t n2 = w->n - w->j1;
        const void *W = p[5];
        for (int64_t j = 0; j < n2; j++)
            for (int64_t i = w->upper ? 0 : j; i < (w->upper ? j + 1 : n2); i++) {
                int64_t at = (w->j1 + j) * w->lda + w->j1 + i;
                st_el(A, t, at, ld_el(A, t, at) - ld_el(W, t, j * n2 + i));
            }
        break;
    }
    case OP_POTRS: {
        zd *a = load(A, t, w->n, w->n, w->lda), *x = load(B, t, w->n, w->nrhs, w->ldb);
        if (a && x) {
            sl_potrs(a, w->n, w->n, w->upper, x, w->nrhs, w->n);
            store(B, t, w->n, w->nrhs, w->ldb, x);
            set_info(info, ib, 0);
        }
        free(a), free(x);
        break;
    }
    case OP_GETRF: {
        zd *a = load(A, t, w->m, w->n, w->lda);
        int64_t k = w->m < w->n ? w->m : w->n, *piv = calloc((size_t)(k > 0 ? k : 1), sizeof *piv);
        if (a && piv) {
            int r = sl_getrf(a, w->m, w->n, w->m, piv, w->pivot && p[2]);
            store(A, t, w->m, w->n, w->lda, a);
            for (int64_t i = 0; p[2] && i < k; i++) {
                if (w->ipiv64)
                    ((int64_t *)p[2])[b * k + i] = piv[i];
                else
                    ((int *)p[2])[b * k + i] = (int)piv[i];
            }
            set_info(info, ib, r);
        }
        free(a), free(piv);
        break;
    }
    case OP_GETRS: {
        zd *a = load(A, t, w->n, w->n, w->lda), *x = load(B, t, w->n, w->nrhs, w->ldb);
        int64_t *piv = calloc((size_t)(w->n > 0 ? w->n : 1), sizeof *piv);
        if (a && x && piv) {
            for (int64_t i = 0; p[2] && i < w->n; i++)
                piv[i] = w->ipiv64 ? ((const int64_t *)p[2])[i] : ((const int *)p[2])[i];
            if (sl_getrs(a, w->n, w->n, p[2] ? piv : NULL, w->trans, x, w->nrhs, w->n) == 0)
                store(B, t, w->n, w->nrhs, w->ldb, x);
            else    /* a pivot outside 1..n (lapack.c sl_getrs): B left as it was */
                simlib_note_once(&said_piv, SOLVER_LIB, "getrs: a pivot outside 1..n (not getrf's): B is not "
                                 "computed (a GPU would read and write past the matrix)");
            set_info(info, ib, 0);
        }
        free(a), free(x), free(piv);
        break;
    }
    case OP_GEQRF: {
        int64_t k = w->m < w->n ? w->m : w->n;
        zd *a = load(A, t, w->m, w->n, w->lda), *tau = calloc((size_t)(k > 0 ? k : 1), sizeof *tau);
        if (a && tau) {
            sl_geqrf(a, w->m, w->n, w->m, tau);
            store(A, t, w->m, w->n, w->lda, a);
            store(B, t, k, 1, k, tau);
            set_info(info, ib, 0);
        }
        free(a), free(tau);
        break;
    }
    case OP_ORGQR: {
        zd *a = load(A, t, w->m, w->n, w->lda), *tau = load(B, t, w->k, 1, w->k);
        if (a && tau) {
            sl_orgqr(a, w->m, w->n, w->k, w->m, tau);
            store(A, t, w->m, w->n, w->lda, a);
            set_info(info, ib, 0);
        }
        free(a), free(tau);
        break;
    }
    case OP_ORMQR: {                /* A: the reflectors (nq x k), C: m x n */
        int64_t nq = w->left ? w->m : w->n;
        zd *a = load(A, t, nq, w->k, w->lda), *tau = load(B, t, w->k, 1, w->k), *c = load(C, t, w->m, w->n, w->ldb);
        if (a && tau && c) {
            sl_ormqr(w->left, w->trans, w->m, w->n, w->k, a, nq, tau, c, w->m);
            store(C, t, w->m, w->n, w->ldb, c);
            set_info(info, ib, 0);
        }
        free(a), free(tau), free(c);
        break;
    }
    case OP_HEEV: {
        zd *a = load_herm(A, t, w->n, w->lda, w->upper);
        zd *v = w->vectors ? malloc((size_t)(w->n * w->n > 0 ? w->n * w->n : 1) * sizeof *v) : NULL;
        double *ev = malloc((size_t)(w->n > 0 ? w->n : 1) * sizeof *ev);
        if (a && ev && (v || !w->vectors)) {
            int r = sl_heev(a, w->n, ev, v, w->sweeps);
            for (int64_t i = 0; i < w->n; i++)
                st_el(B, w->rt, i, ev[i]);
            if (v)
                store(A, t, w->n, w->n, w->lda, v);
            set_info(info, ib, r);
        }
        free(a), free(v), free(ev);
        break;
    }
    case OP_GESVD: {                /* B: S; C: U; p[4]: V (or V^H when w->vt) */
        int64_t m = w->m, n = w->n, k = m < n ? m : n;
        void *V = p[4];
        if (b && !w->arrays && V)
            V = (char *)V + (size_t)(b * w->sv) * sz;
        zd *a = load(A, t, m, n, w->lda);
        int64_t uc = w->full_u ? m : k, vc = w->full_v ? n : k;
        zd *u = C ? malloc((size_t)(m * uc > 0 ? m * uc : 1) * sizeof *u) : NULL;
        zd *v = V ? malloc((size_t)(n * vc > 0 ? n * vc : 1) * sizeof *v) : NULL;
        double *s = malloc((size_t)(k > 0 ? k : 1) * sizeof *s);
        if (a && s && (u || !C) && (v || !V)) {
            int r = sl_gesvd(a, m, n, m, s, u, w->full_u, v, w->full_v, w->sweeps);
            for (int64_t i = 0; i < k; i++)
                st_el(B, w->rt, i, s[i]);
            if (u)
                store(C, t, m, uc, w->ldu, u);
            if (v && !w->vt)
                store(V, t, n, vc, w->ldv, v);
            for (int64_t j = 0; v && w->vt && j < n; j++)      /* VT (vc x n) = V^H */
                for (int64_t i = 0; i < vc; i++)
                    st_el(V, t, j * w->ldv + i, conj(v[i * n + j]));
            set_info(info, ib, r < 0 ? 0 : r);
        }
        free(a), free(u), free(v), free(s);
        break;
    }
    }
}

/* Nothing to compute: LAPACK's quick returns (its reference routines,
 * which cuSOLVER's API follows: potrf, potrs, syevd/heevd with n = 0,
 * getrf, geqrf, gesvd with m or n 0, getrs, potrs with nrhs 0, orgqr with
 * n = 0, ormqr with m, n or k 0) read and write nothing but the info word,
 * which they set to 0 first.  Issue 37: a tool must see the same. */
static int quick(const struct swork *w)
{
    switch (w->op) {
    case OP_POTRF: case OP_HEEV: case OP_ORGQR:
        return w->n == 0;
    case OP_POTRS: case OP_GETRS:
        return w->n == 0 || w->nrhs == 0;
    case OP_GETRF: case OP_GEQRF: case OP_GESVD:
        return w->m == 0 || w->n == 0;
    case OP_ORMQR:
        return w->m == 0 || w->n == 0 || w->k == 0;
    default:
        return 0;
    }
}

static void run(void **args)
{
    void *p[6];
    for (int i = 0; i < 6; i++)
        p[i] = *(void **)args[i];
    const struct swork *w = ((const struct sim_work *)args[6])->work;
    if (quick(w)) {
        for (int64_t b = 0; b < (w->batch > 0 && !w->one_info ? w->batch : 1); b++)
            set_info(p[3], b, 0);
        return;
    }
    for (int64_t b = 0; b < (w->batch > 0 ? w->batch : 1); b++)
        run_one(w, p, b);
}

/* the kernels' twins (solve.cu's kernel names) */
#define TWIN(name)                                                                                      \
    SIMLIB_EXPORT void simcuda_twin_##name(void **args, const unsigned grid[3], const unsigned block[3]); \
    void simcuda_twin_##name(void **args, const unsigned grid[3], const unsigned block[3])              \
    {                                                                                                   \
        (void)grid, (void)block;                                                                        \
        run(args);                                                                                      \
    }
TWIN(cusolverSimPotrf)
TWIN(cusolverSimPotrfUpdate)
TWIN(cusolverSimPotrs)
TWIN(cusolverSimGetrf)
TWIN(cusolverSimGetrs)
TWIN(cusolverSimGeqrf)
TWIN(cusolverSimOrgqr)
TWIN(cusolverSimOrmqr)
TWIN(cusolverSimSyevd)
TWIN(cusolverSimGesvd)

static const char *const kernel_of[] = { "cusolverSimPotrf", "cusolverSimPotrfUpdate", "cusolverSimPotrs",
                                         "cusolverSimGetrf", "cusolverSimGetrs", "cusolverSimGeqrf",
                                         "cusolverSimOrgqr", "cusolverSimOrmqr", "cusolverSimSyevd",
                                         "cusolverSimGesvd" };

/* ------------------------------------------------------------------ */
/* Handles and launches                                               */

static int handle_ok(cusolverDnHandle_t h) { return h && h->magic == HANDLE_MAGIC; }

/* Launches w's kernel into the handle's stream with p[0..5]: a stream of
 * the handle's device or, for the NULL stream, the handle's context made
 * current around it (the device current at cusolverDnCreate). */
static cusolverStatus_t launch(cusolverDnHandle_t h, const struct swork *w, void *p0, void *p1, void *p2,
                               void *p3, void *p4, void *p5)
{
    struct sim_work sw = { w };
    if (quick(w))               /* the kernel is handed the info word only: nothing else is read */
        p0 = p1 = p2 = p4 = p5 = NULL;
    void *params[] = { &p0, &p1, &p2, &p3, &p4, &p5, &sw };
    CUcontext old = NULL;
    int null_stream = (uintptr_t)h->stream <= 2;
    if (null_stream && (simlib_drv.cuCtxGetCurrent(&old) != CUDA_SUCCESS ||
                        (old != h->ctx && simlib_drv.cuCtxSetCurrent(h->ctx) != CUDA_SUCCESS)))
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    CUresult r = simlib_launch(&image, kernel_of[w->op], 1, h->stream, params);
    if (null_stream && old != h->ctx)
        simlib_drv.cuCtxSetCurrent(old);
    return r == CUDA_SUCCESS ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

cusolverStatus_t CUSOLVERAPI cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (!handle)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (simlib_driver(SOLVER_LIB) != 0 || simlib_current_device() < 0)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    struct cusolverDnContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    if (simlib_drv.cuCtxGetCurrent(&h->ctx) != CUDA_SUCCESS || cublasCreate_v2(&h->blas) != CUBLAS_STATUS_SUCCESS) {
        free(h);
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    }
    h->magic = HANDLE_MAGIC;
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnDestroy(cusolverDnHandle_t handle)
{
    if (!handle_ok(handle))
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    cublasDestroy_v2(handle->blas);
    handle->magic = 0;
    free(handle);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle) || cublasSetStream_v2(handle->blas, streamId) != CUBLAS_STATUS_SUCCESS)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle))
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnCreateParams(cusolverDnParams_t *params)
{
    if (!params)
        return CUSOLVER_STATUS_INVALID_VALUE;
    return (*params = calloc(1, sizeof **params)) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t CUSOLVERAPI cusolverDnDestroyParams(cusolverDnParams_t params)
{
    free(params);
    return CUSOLVER_STATUS_SUCCESS;
}

/* the algorithm choice: the sim has one of each */
cusolverStatus_t CUSOLVERAPI cusolverDnSetAdvOptions(cusolverDnParams_t params, cusolverDnFunction_t function,
                                                     cusolverAlgMode_t algo)
{
    (void)function, (void)algo;
    return params ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}

/* Jacobi parameters: tolerance, sweeps, sorting (cusolverDn.h) */
#define JACOBI_INFO(Kind, kind)                                                                              \
    cusolverStatus_t CUSOLVERAPI cusolverDnCreate##Kind##Info(kind##Info_t *info)                       \
    {                                                                                                   \
        if (!info)                                                                                      \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        struct kind##Info *j = calloc(1, sizeof *j);                                                    \
        if (!j)                                                                                         \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                                        \
        j->tol = 1e-7;                                                                                  \
        j->max_sweeps = 100;                                                                            \
        j->sort = 1;                                                                                    \
        *info = j;                                                                                      \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnDestroy##Kind##Info(kind##Info_t info)                       \
    {                                                                                                   \
        free(info);                                                                                     \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnX##kind##SetTolerance(kind##Info_t info, double tolerance)   \
    {                                                                                                   \
        if (!info)                                                                                      \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        info->tol = tolerance;                                                                          \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnX##kind##SetMaxSweeps(kind##Info_t info, int max_sweeps)     \
    {                                                                                                   \
        if (!info || max_sweeps < 1)                                                                    \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        info->max_sweeps = max_sweeps;                                                                  \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnX##kind##SetSortEig(kind##Info_t info, int sort)             \
    {                                                                                                   \
        if (!info)                                                                                      \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        info->sort = sort;                                                                              \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnX##kind##GetSweeps(cusolverDnHandle_t handle, kind##Info_t info, \
                                                             int *executed_sweeps)                      \
    {                                                                                                   \
        if (!handle_ok(handle))                                                                         \
            return CUSOLVER_STATUS_NOT_INITIALIZED;                                                     \
        if (!info || !executed_sweeps)                                                                  \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        *executed_sweeps = info->sweeps;                                                                \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }                                                                                                   \
    cusolverStatus_t CUSOLVERAPI cusolverDnX##kind##GetResidual(cusolverDnHandle_t handle, kind##Info_t info, \
                                                               double *residual)                        \
    {                                                                                                   \
        if (!handle_ok(handle))                                                                         \
            return CUSOLVER_STATUS_NOT_INITIALIZED;                                                     \
        if (!info || !residual)                                                                         \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                       \
        *residual = info->residual;                                                                     \
        return CUSOLVER_STATUS_SUCCESS;                                                                 \
    }
JACOBI_INFO(Syevj, syevj)
JACOBI_INFO(Gesvdj, gesvdj)

/* ------------------------------------------------------------------ */
/* The work of each routine, type-generic                             */

#define CHECK_HANDLE(h)                                                                                  \
    do {                                                                                                 \
        if (!handle_ok(h))                                                                               \
            return CUSOLVER_STATUS_NOT_INITIALIZED;                                                      \
    } while (0)

static int real_of(cudaDataType t) { return t == CUDA_C_32F ? CUDA_R_32F : t == CUDA_C_64F ? CUDA_R_64F : t; }

/* Cholesky in panels of PANEL columns: each panel factored by a kernel,
 * the trailing matrix updated by cuBLAS's GEMM into the workspace (W =
 * L21 L21^H, or U12^H U12) and a kernel subtracting W's triangle, when the
 * workspace holds it; else one kernel. */
#define PANEL 4
static cusolverStatus_t potrf(cusolverDnHandle_t h, cudaDataType t, int upper, int64_t n, void *A, int64_t lda,
                              void *work, size_t work_bytes, int *info)
{
    CHECK_HANDLE(h);
    if (n < 0 || lda < (n > 1 ? n : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_POTRF, .t = t, .n = n, .lda = lda, .upper = upper };
    int64_t n2max = n - PANEL;
    int blocked = n > PANEL && work && work_bytes >= (size_t)(n2max * n2max) * tsize(t);
    if (!blocked) {
        w.j1 = n;
        return launch(h, &w, A, NULL, NULL, info, NULL, NULL);
    }
    size_t sz = tsize(t);
    for (int64_t j0 = 0; j0 < n; j0 += PANEL) {
        w.op = OP_POTRF;
        w.j0 = j0;
        w.j1 = j0 + PANEL < n ? j0 + PANEL : n;
        cusolverStatus_t s = launch(h, &w, A, NULL, NULL, info, NULL, NULL);
        if (s != CUSOLVER_STATUS_SUCCESS || w.j1 == n)
            return s;
        int n2 = (int)(n - w.j1), nb = (int)(w.j1 - j0);
        /* the panel's off-diagonal block: L21 (n2 x nb) at (j1, j0), or U12 (nb x n2) at (j0, j1) */
        char *blk = (char *)A + (size_t)(upper ? w.j1 * lda + j0 : j0 * lda + w.j1) * sz;
        cublasOperation_t ta = upper ? CUBLAS_OP_C : CUBLAS_OP_N, tb = upper ? CUBLAS_OP_N : CUBLAS_OP_C;
        if (t == CUDA_R_32F || t == CUDA_R_64F) {
            ta = ta == CUBLAS_OP_C ? CUBLAS_OP_T : ta;
            tb = tb == CUBLAS_OP_C ? CUBLAS_OP_T : tb;
        }
        cublasStatus_t bs;
        int ldb = (int)lda;
        switch (t) {
        case CUDA_R_32F: {
            const float one = 1, zero = 0;
            bs = cublasSgemm_v2(h->blas, ta, tb, n2, n2, nb, &one, (const float *)blk, ldb, (const float *)blk, ldb,
                                &zero, work, n2);
            break;
        }
        case CUDA_R_64F: {
            const double one = 1, zero = 0;
            bs = cublasDgemm_v2(h->blas, ta, tb, n2, n2, nb, &one, (const double *)blk, ldb, (const double *)blk,
                                ldb, &zero, work, n2);
            break;
        }
        case CUDA_C_32F: {
            const cuComplex one = { 1, 0 }, zero = { 0, 0 };
            bs = cublasCgemm_v2(h->blas, ta, tb, n2, n2, nb, &one, (const cuComplex *)blk, ldb,
                                (const cuComplex *)blk, ldb, &zero, work, n2);
            break;
        }
        default: {
            const cuDoubleComplex one = { 1, 0 }, zero = { 0, 0 };
            bs = cublasZgemm_v2(h->blas, ta, tb, n2, n2, nb, &one, (const cuDoubleComplex *)blk, ldb,
                                (const cuDoubleComplex *)blk, ldb, &zero, work, n2);
            break;
        }
        }
        if (bs != CUBLAS_STATUS_SUCCESS)
            return CUSOLVER_STATUS_EXECUTION_FAILED;
        w.op = OP_POTRF_UPDATE;
        if ((s = launch(h, &w, A, NULL, NULL, info, NULL, work)) != CUSOLVER_STATUS_SUCCESS)
            return s;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t potrs(cusolverDnHandle_t h, cudaDataType t, int upper, int64_t n, int64_t nrhs,
                              const void *A, int64_t lda, void *B, int64_t ldb, int *info)
{
    CHECK_HANDLE(h);
    if (n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_POTRS, .t = t, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb, .upper = upper };
    return launch(h, &w, (void *)A, B, NULL, info, NULL, NULL);
}

static cusolverStatus_t getrf(cusolverDnHandle_t h, cudaDataType t, int64_t m, int64_t n, void *A, int64_t lda,
                              void *ipiv, int ipiv64, int *info)
{
    CHECK_HANDLE(h);
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    /* devIpiv NULL: no pivoting (cusolverDn<t>getrf) */
    struct swork w = { .op = OP_GETRF, .t = t, .m = m, .n = n, .lda = lda, .ipiv64 = ipiv64, .pivot = 1 };
    return launch(h, &w, A, NULL, ipiv, info, NULL, NULL);
}

static cusolverStatus_t getrs(cusolverDnHandle_t h, cudaDataType t, cublasOperation_t trans, int64_t n,
                              int64_t nrhs, const void *A, int64_t lda, const void *ipiv, int ipiv64, void *B,
                              int64_t ldb, int *info)
{
    CHECK_HANDLE(h);
    if (n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int tr = trans == CUBLAS_OP_N ? SL_N : trans == CUBLAS_OP_T ? SL_T : SL_C;
    struct swork w = { .op = OP_GETRS, .t = t, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb, .ipiv64 = ipiv64,
                       .trans = tr };
    return launch(h, &w, (void *)A, B, (void *)ipiv, info, NULL, NULL);
}

static cusolverStatus_t geqrf(cusolverDnHandle_t h, cudaDataType t, int64_t m, int64_t n, void *A, int64_t lda,
                              void *tau, int *info)
{
    CHECK_HANDLE(h);
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_GEQRF, .t = t, .m = m, .n = n, .lda = lda };
    return launch(h, &w, A, tau, NULL, info, NULL, NULL);
}

static cusolverStatus_t orgqr(cusolverDnHandle_t h, cudaDataType t, int64_t m, int64_t n, int64_t k, void *A,
                              int64_t lda, const void *tau, int *info)
{
    CHECK_HANDLE(h);
    if (m < 0 || n < 0 || n > m || k < 0 || k > n || lda < (m > 1 ? m : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_ORGQR, .t = t, .m = m, .n = n, .k = k, .lda = lda };
    return launch(h, &w, A, (void *)tau, NULL, info, NULL, NULL);
}

static cusolverStatus_t ormqr(cusolverDnHandle_t h, cudaDataType t, cublasSideMode_t side, cublasOperation_t trans,
                              int64_t m, int64_t n, int64_t k, const void *A, int64_t lda, const void *tau, void *C,
                              int64_t ldc, int *info)
{
    CHECK_HANDLE(h);
    int left = side == CUBLAS_SIDE_LEFT;
    int64_t nq = left ? m : n;
    if (m < 0 || n < 0 || k < 0 || k > nq || lda < (nq > 1 ? nq : 1) || ldc < (m > 1 ? m : 1) || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_ORMQR, .t = t, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldc, .left = left,
                       .trans = trans == CUBLAS_OP_N ? SL_N : SL_C };
    return launch(h, &w, (void *)A, (void *)tau, C, info, NULL, NULL);
}

static cusolverStatus_t heev(cusolverDnHandle_t h, cudaDataType t, cusolverEigMode_t jobz, int upper, int64_t n,
                             void *A, int64_t lda, void *W, int *info, int64_t batch, int sweeps)
{
    CHECK_HANDLE(h);
    if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0 || !tsize(t))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_HEEV, .t = t, .rt = real_of(t), .n = n, .lda = lda, .upper = upper,
                       .vectors = jobz == CUSOLVER_EIG_MODE_VECTOR, .batch = batch, .sa = lda * n, .sb = n,
                       .sweeps = sweeps > 0 ? sweeps : 100 };
    return launch(h, &w, A, W, NULL, info, NULL, NULL);
}

/* gesvd (V^H, jobs A/S/O/N) and gesvdj (V, econ) */
static cusolverStatus_t gesvd(cusolverDnHandle_t h, cudaDataType t, int64_t m, int64_t n, void *A, int64_t lda,
                              void *S, void *U, int64_t ldu, int full_u, void *V, int64_t ldv, int full_v, int vt,
                              int *info, int64_t batch, int sweeps)
{
    CHECK_HANDLE(h);
    int64_t k = m < n ? m : n;
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || batch < 0 || !tsize(t) || (U && ldu < (m > 1 ? m : 1)) ||
        (V && ldv < (vt ? (full_v ? n : k) : n)))
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct swork w = { .op = OP_GESVD, .t = t, .rt = real_of(t), .m = m, .n = n, .lda = lda, .ldu = ldu,
                       .ldv = ldv, .full_u = full_u, .full_v = full_v, .vt = vt, .batch = batch, .sa = lda * n,
                       .sb = k, .su = ldu * (full_u ? m : k), .sv = ldv * (vt ? n : (full_v ? n : k)),
                       .sweeps = sweeps > 0 ? sweeps : 100 };
    return launch(h, &w, A, S, U, info, V, NULL);
}

/* ------------------------------------------------------------------ */
/* The typed entry points                                             */

/* workspace sizes (elements): what the kernels use is the sim's own; the
 * Cholesky's GEMM needs the trailing matrix */
static int lwork_of(int64_t m, int64_t n)
{
    int64_t x = m > n ? m : n;
    return (int)(x * x > 0 ? x * x : 1);
}

#define UPPER(uplo) ((uplo) == CUBLAS_FILL_MODE_UPPER)

#define TYPED(P, T, R, CT)                                                                                       \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo,    \
                                                                 int n, T *A, int lda, int *Lwork)               \
    {                                                                                                            \
        (void)uplo, (void)A, (void)lda;                                                                          \
        CHECK_HANDLE(h);                                                                                         \
        if (!Lwork || n < 0)                                                                                     \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *Lwork = lwork_of(n, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A,  \
                                                      int lda, T *Workspace, int Lwork, int *devInfo)            \
    {                                                                                                            \
        return potrf(h, CT, UPPER(uplo), n, A, lda, Workspace, Lwork > 0 ? (size_t)Lwork * sizeof(T) : 0,        \
                     devInfo);                                                                                   \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,        \
                                                      int nrhs, const T *A, int lda, T *B, int ldb, int *devInfo) \
    {                                                                                                            \
        return potrs(h, CT, UPPER(uplo), n, nrhs, A, lda, B, ldb, devInfo);                                      \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                             T *Aarray[], int lda, int *infoArray, int batchSize) \
    {                                                                                                            \
        CHECK_HANDLE(h);                                                                                         \
        if (n < 0 || lda < (n > 1 ? n : 1) || batchSize < 0)                                                     \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        struct swork w = { .op = OP_POTRF, .t = CT, .n = n, .j1 = n, .lda = lda, .upper = UPPER(uplo),           \
                           .batch = batchSize, .arrays = 1 };                                                    \
        return launch(h, &w, Aarray, NULL, NULL, infoArray, NULL, NULL);                                         \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrsBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                             int nrhs, T *A[], int lda, T *B[], int ldb,         \
                                                             int *d_info, int batchSize)                         \
    {                                                                                                            \
        CHECK_HANDLE(h);                                                                                         \
        if (n < 0 || nrhs != 1 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || batchSize < 0)               \
            return CUSOLVER_STATUS_INVALID_VALUE; /* "only support rhs = 1" (cusolverDn.h) */                    \
        struct swork w = { .op = OP_POTRS, .t = CT, .n = n, .nrhs = 1, .lda = lda, .ldb = ldb,                   \
                           .upper = UPPER(uplo), .batch = batchSize, .arrays = 1, .one_info = 1 };               \
        return launch(h, &w, A, B, NULL, d_info, NULL, NULL);                                                    \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A,       \
                                                                 int lda, int *Lwork)                            \
    {                                                                                                            \
        (void)A, (void)lda;                                                                                      \
        CHECK_HANDLE(h);                                                                                         \
        if (!Lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *Lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda,         \
                                                      T *Workspace, int *devIpiv, int *devInfo)                  \
    {                                                                                                            \
        (void)Workspace;                                                                                         \
        return getrf(h, CT, m, n, A, lda, devIpiv, 0, devInfo);                                                  \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n,      \
                                                      int nrhs, const T *A, int lda, const int *devIpiv, T *B,   \
                                                      int ldb, int *devInfo)                                     \
    {                                                                                                            \
        return getrs(h, CT, trans, n, nrhs, A, lda, devIpiv, 0, B, ldb, devInfo);                                \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A,       \
                                                                 int lda, int *lwork)                            \
    {                                                                                                            \
        (void)A, (void)lda;                                                                                      \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *TAU, \
                                                      T *Workspace, int Lwork, int *devInfo)                     \
    {                                                                                                            \
        (void)Workspace, (void)Lwork;                                                                            \
        return geqrf(h, CT, m, n, A, lda, TAU, devInfo);                                                         \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lwork) \
    {                                                                                                            \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvdj_bufferSize(                                               \
        cusolverDnHandle_t h, cusolverEigMode_t jobz, int econ, int m, int n, const T *A, int lda, const R *S,   \
        const T *U, int ldu, const T *V, int ldv, int *lwork, gesvdjInfo_t params)                               \
    {                                                                                                            \
        (void)jobz, (void)econ, (void)A, (void)lda, (void)S, (void)U, (void)ldu, (void)V, (void)ldv, (void)params; \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvdj(cusolverDnHandle_t h, cusolverEigMode_t jobz, int econ,   \
                                                       int m, int n, T *A, int lda, R *S, T *U, int ldu, T *V,   \
                                                       int ldv, T *work, int lwork, int *info,                   \
                                                       gesvdjInfo_t params)                                      \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        int vec = jobz == CUSOLVER_EIG_MODE_VECTOR;                                                              \
        return gesvd(h, CT, m, n, A, lda, S, vec ? U : NULL, ldu, !econ, vec ? V : NULL, ldv, !econ, 0, info, 0, \
                     params ? params->max_sweeps : 100);                                                         \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvdjBatched_bufferSize(                                        \
        cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, const T *A, int lda, const R *S, const T *U, \
        int ldu, const T *V, int ldv, int *lwork, gesvdjInfo_t params, int batchSize)                            \
    {                                                                                                            \
        (void)jobz, (void)A, (void)lda, (void)S, (void)U, (void)ldu, (void)V, (void)ldv, (void)params;           \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0 || batchSize < 0)                                                          \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvdjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz,      \
                                                              int m, int n, T *A, int lda, R *S, T *U, int ldu,  \
                                                              T *V, int ldv, T *work, int lwork, int *info,      \
                                                              gesvdjInfo_t params, int batchSize)                \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        int vec = jobz == CUSOLVER_EIG_MODE_VECTOR;                                                              \
        /* full U (m x m) and V (n x n) per matrix, strided (cusolverDn<t>gesvdjBatched) */                     \
        return gesvd(h, CT, m, n, A, lda, S, vec ? U : NULL, ldu, 1, vec ? V : NULL, ldv, 1, 0, info, batchSize, \
                     params ? params->max_sweeps : 100);                                                         \
    }

TYPED(S, float, float, CUDA_R_32F)
TYPED(D, double, double, CUDA_R_64F)
TYPED(C, cuComplex, float, CUDA_C_32F)
TYPED(Z, cuDoubleComplex, double, CUDA_C_64F)

/* gesvd (rwork: unused, as the sim needs no host-visible workspace) */
#define GESVD(P, T, R, CT)                                                                          \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, \
                                                      int m, int n, T *A, int lda, R *S, T *U, int ldu, T *VT,   \
                                                      int ldvt, T *work, int lwork, R *rwork, int *info)         \
    {                                                                                                            \
        (void)work, (void)lwork, (void)rwork;                                                                    \
        return gesvd_jobs(h, CT, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, info);                          \
    }

/* LAPACK's jobs: 'A' all columns of U (rows of V^H), 'S' the first
 * min(m, n), 'O' those overwriting A, 'N' none.  cuSOLVER's gesvd wants
 * m >= n (cusolverDn.h). */
static cusolverStatus_t gesvd_jobs(cusolverDnHandle_t h, cudaDataType t, signed char jobu, signed char jobvt,
                                   int64_t m, int64_t n, void *A, int64_t lda, void *S, void *U, int64_t ldu,
                                   void *VT, int64_t ldvt, int *info)
{
    CHECK_HANDLE(h);
    if (m < n || !strchr("ASON", jobu) || !strchr("ASON", jobvt) || (jobu == 'O' && jobvt == 'O'))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (jobu == 'O') {
        U = A;
        ldu = lda;
    }
    if (jobvt == 'O') {
        VT = A;
        ldvt = lda;
    }
    return gesvd(h, t, m, n, A, lda, S, jobu == 'N' ? NULL : U, ldu, jobu == 'A', jobvt == 'N' ? NULL : VT, ldvt,
                 jobvt == 'A', 1, info, 0, 100);
}

GESVD(S, float, float, CUDA_R_32F)
GESVD(D, double, double, CUDA_R_64F)
GESVD(C, cuComplex, float, CUDA_C_32F)
GESVD(Z, cuDoubleComplex, double, CUDA_C_64F)

/* orgqr/ungqr, ormqr/unmqr, syevd/heevd, syevjBatched/heevjBatched: the
 * real names (S, D) and the complex ones (C, Z) */
#define NAMED(P, T, R, CT, ORGQR, ORMQR, SYEVD, SYEVJB)                                                          \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##ORGQR##_bufferSize(cusolverDnHandle_t h, int m, int n, int k,    \
                                                                   const T *A, int lda, const T *tau,            \
                                                                   int *lwork)                                   \
    {                                                                                                            \
        (void)k, (void)A, (void)lda, (void)tau;                                                                  \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##ORGQR(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda,  \
                                                      const T *tau, T *work, int lwork, int *info)               \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        return orgqr(h, CT, m, n, k, A, lda, tau, info);                                                         \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##ORMQR##_bufferSize(                                              \
        cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k, const T *A,   \
        int lda, const T *tau, const T *C, int ldc, int *lwork)                                                  \
    {                                                                                                            \
        (void)side, (void)trans, (void)k, (void)A, (void)lda, (void)tau, (void)C, (void)ldc;                     \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || m < 0 || n < 0)                                                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(m, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##ORMQR(cusolverDnHandle_t h, cublasSideMode_t side,               \
                                                      cublasOperation_t trans, int m, int n, int k, const T *A,  \
                                                      int lda, const T *tau, T *C, int ldc, T *work, int lwork,  \
                                                      int *devInfo)                                              \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        return ormqr(h, CT, side, trans, m, n, k, A, lda, tau, C, ldc, devInfo);                                 \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##SYEVD##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz, \
                                                                   cublasFillMode_t uplo, int n, const T *A,     \
                                                                   int lda, const R *W, int *lwork)              \
    {                                                                                                            \
        (void)jobz, (void)uplo, (void)A, (void)lda, (void)W;                                                     \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || n < 0)                                                                                     \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(n, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##SYEVD(cusolverDnHandle_t h, cusolverEigMode_t jobz,              \
                                                      cublasFillMode_t uplo, int n, T *A, int lda, R *W, T *work, \
                                                      int lwork, int *info)                                      \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        return heev(h, CT, jobz, UPPER(uplo), n, A, lda, W, info, 0, 0);                                         \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##SYEVJB##_bufferSize(                                             \
        cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, const T *A, int lda,         \
        const R *W, int *lwork, syevjInfo_t params, int batchSize)                                               \
    {                                                                                                            \
        (void)jobz, (void)uplo, (void)A, (void)lda, (void)W, (void)params;                                       \
        CHECK_HANDLE(h);                                                                                         \
        if (!lwork || n < 0 || batchSize < 0)                                                                    \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                                \
        *lwork = lwork_of(n, n);                                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                                          \
    }                                                                                                            \
    cusolverStatus_t CUSOLVERAPI cusolverDn##P##SYEVJB(cusolverDnHandle_t h, cusolverEigMode_t jobz,             \
                                                       cublasFillMode_t uplo, int n, T *A, int lda, R *W,        \
                                                       T *work, int lwork, int *info, syevjInfo_t params,        \
                                                       int batchSize)                                            \
    {                                                                                                            \
        (void)work, (void)lwork;                                                                                 \
        return heev(h, CT, jobz, UPPER(uplo), n, A, lda, W, info, batchSize, params ? params->max_sweeps : 100); \
    }

NAMED(S, float, float, CUDA_R_32F, orgqr, ormqr, syevd, syevjBatched)
NAMED(D, double, double, CUDA_R_64F, orgqr, ormqr, syevd, syevjBatched)
NAMED(C, cuComplex, float, CUDA_C_32F, ungqr, unmqr, heevd, heevjBatched)
NAMED(Z, cuDoubleComplex, double, CUDA_C_64F, ungqr, unmqr, heevd, heevjBatched)

/* ------------------------------------------------------------------ */
/* The 64-bit API: the matrices' type in dataType*, computeType the same
 * (other mixes: CUSOLVER_STATUS_NOT_SUPPORTED, as for a type the sim
 * does not compute) */

#define X_TYPES(a, c)                                                                                     \
    do {                                                                                                  \
        if (!tsize(a) || (a) != (c))                                                                      \
            return CUSOLVER_STATUS_NOT_SUPPORTED;                                                         \
    } while (0)

static cusolverStatus_t x_sizes(cusolverDnHandle_t h, cudaDataType t, int64_t m, int64_t n, size_t *dev,
                                size_t *host)
{
    CHECK_HANDLE(h);
    if (!dev || !host || m < 0 || n < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *dev = (size_t)lwork_of(m, n) * (tsize(t) ? tsize(t) : 16);
    *host = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnXpotrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                         cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
                                                         const void *A, int64_t lda, cudaDataType computeType,
                                                         size_t *workspaceInBytesOnDevice,
                                                         size_t *workspaceInBytesOnHost)
{
    (void)params, (void)uplo, (void)A, (void)lda, (void)computeType;
    return x_sizes(handle, dataTypeA, n, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXpotrf(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                              cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A,
                                              int64_t lda, cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    (void)params, (void)bufferOnHost, (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    return potrf(handle, dataTypeA, UPPER(uplo), n, A, lda, bufferOnDevice, workspaceInBytesOnDevice, info);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXpotrs(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                              cublasFillMode_t uplo, int64_t n, int64_t nrhs, cudaDataType dataTypeA,
                                              const void *A, int64_t lda, cudaDataType dataTypeB, void *B,
                                              int64_t ldb, int *info)
{
    (void)params;
    X_TYPES(dataTypeA, dataTypeB);
    return potrs(handle, dataTypeA, UPPER(uplo), n, nrhs, A, lda, B, ldb, info);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgetrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                         int64_t m, int64_t n, cudaDataType dataTypeA, const void *A,
                                                         int64_t lda, cudaDataType computeType,
                                                         size_t *workspaceInBytesOnDevice,
                                                         size_t *workspaceInBytesOnHost)
{
    (void)params, (void)A, (void)lda, (void)computeType;
    return x_sizes(handle, dataTypeA, m, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgetrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                              int64_t n, cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv,
                                              cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    (void)params, (void)bufferOnDevice, (void)workspaceInBytesOnDevice, (void)bufferOnHost,
        (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    return getrf(handle, dataTypeA, m, n, A, lda, ipiv, 1, info);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgetrs(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                              cublasOperation_t trans, int64_t n, int64_t nrhs,
                                              cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv,
                                              cudaDataType dataTypeB, void *B, int64_t ldb, int *info)
{
    (void)params;
    X_TYPES(dataTypeA, dataTypeB);
    return getrs(handle, dataTypeA, trans, n, nrhs, A, lda, ipiv, 1, B, ldb, info);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                         int64_t m, int64_t n, cudaDataType dataTypeA, const void *A,
                                                         int64_t lda, cudaDataType dataTypeTau, const void *tau,
                                                         cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                                         size_t *workspaceInBytesOnHost)
{
    (void)params, (void)A, (void)lda, (void)dataTypeTau, (void)tau, (void)computeType;
    return x_sizes(handle, dataTypeA, m, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgeqrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                              int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                              cudaDataType dataTypeTau, void *tau, cudaDataType computeType,
                                              void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                              void *bufferOnHost, size_t workspaceInBytesOnHost, int *info)
{
    (void)params, (void)bufferOnDevice, (void)workspaceInBytesOnDevice, (void)bufferOnHost,
        (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    X_TYPES(dataTypeA, dataTypeTau);
    return geqrf(handle, dataTypeA, m, n, A, lda, tau, info);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXsyevd_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                         cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                                         cudaDataType dataTypeA, const void *A, int64_t lda,
                                                         cudaDataType dataTypeW, const void *W,
                                                         cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                                         size_t *workspaceInBytesOnHost)
{
    (void)params, (void)jobz, (void)uplo, (void)A, (void)lda, (void)dataTypeW, (void)W, (void)computeType;
    return x_sizes(handle, dataTypeA, n, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXsyevd(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                              cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                              cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeW,
                                              void *W, cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    (void)params, (void)bufferOnDevice, (void)workspaceInBytesOnDevice, (void)bufferOnHost,
        (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    if ((int)dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return heev(handle, dataTypeA, jobz, UPPER(uplo), n, A, lda, W, info, 0, 0);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXsyevBatched_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                               cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                                               int64_t n, cudaDataType dataTypeA, const void *A,
                                                               int64_t lda, cudaDataType dataTypeW, const void *W,
                                                               cudaDataType computeType,
                                                               size_t *workspaceInBytesOnDevice,
                                                               size_t *workspaceInBytesOnHost, int64_t batchSize)
{
    (void)params, (void)jobz, (void)uplo, (void)A, (void)lda, (void)dataTypeW, (void)W, (void)computeType,
        (void)batchSize;
    return x_sizes(handle, dataTypeA, n, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXsyevBatched(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                    cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                                    cudaDataType dataTypeA, void *A, int64_t lda,
                                                    cudaDataType dataTypeW, void *W, cudaDataType computeType,
                                                    void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                                    void *bufferOnHost, size_t workspaceInBytesOnHost, int *info,
                                                    int64_t batchSize)
{
    (void)params, (void)bufferOnDevice, (void)workspaceInBytesOnDevice, (void)bufferOnHost,
        (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    if ((int)dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return heev(handle, dataTypeA, jobz, UPPER(uplo), n, A, lda, W, info, batchSize, 0);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgesvd_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                                         signed char jobu, signed char jobvt, int64_t m, int64_t n,
                                                         cudaDataType dataTypeA, const void *A, int64_t lda,
                                                         cudaDataType dataTypeS, const void *S,
                                                         cudaDataType dataTypeU, const void *U, int64_t ldu,
                                                         cudaDataType dataTypeVT, const void *VT, int64_t ldvt,
                                                         cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                                         size_t *workspaceInBytesOnHost)
{
    (void)params, (void)jobu, (void)jobvt, (void)A, (void)lda, (void)dataTypeS, (void)S, (void)dataTypeU, (void)U,
        (void)ldu, (void)dataTypeVT, (void)VT, (void)ldvt, (void)computeType;
    return x_sizes(handle, dataTypeA, m, n, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgesvd(cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu,
                                              signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA,
                                              void *A, int64_t lda, cudaDataType dataTypeS, void *S,
                                              cudaDataType dataTypeU, void *U, int64_t ldu, cudaDataType dataTypeVT,
                                              void *VT, int64_t ldvt, cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    (void)params, (void)bufferOnDevice, (void)workspaceInBytesOnDevice, (void)bufferOnHost,
        (void)workspaceInBytesOnHost;
    X_TYPES(dataTypeA, computeType);
    if ((int)dataTypeS != real_of(dataTypeA) || (jobu != 'N' && dataTypeU != dataTypeA) ||
        (jobvt != 'N' && dataTypeVT != dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return gesvd_jobs(handle, dataTypeA, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, info);
}
