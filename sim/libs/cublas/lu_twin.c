/* Host twins of lu.cu's kernels (sim/driver/README.md: the sim runs
 * simcuda_twin_<kernel> for each launch; its guard makes memory the
 * launch's device may not access fault, a matrix pointer of the arrays
 * included): each batch item with cuSOLVER's reference routines
 * (sim/libs/cusolver/lapack.c, linked in: LAPACK's partial pivoting, so the
 * pivots are LAPACK's and the CPU's), in complex double, then stored in the
 * call's type. */
#include <cublas_api.h>
#include <stdlib.h>

#include "cusolver/solver.h"
#include "lu.h"
#include "simlib.h"
#include "simlib_hd.h"

/* The value of pointer parameter i (the kernel's: 1 the array of A, 2 the
 * pivots, 3 info or the array of B); the items come from w.a, w.b. */
static void *param(void **args, int i)
{
    void *p;
    memcpy(&p, args[i], sizeof p);
    return p;
}

/* n x m of p (leading dimension ld) into a fresh array (leading dimension n) */
static zd *load(const void *p, int t, int64_t n, int64_t m, int64_t ld)
{
    zd *a = malloc((size_t)(n * m > 0 ? n * m : 1) * sizeof *a);
    for (int64_t j = 0; a && j < m; j++)
        for (int64_t i = 0; i < n; i++) {
            double v[2];
            simlib_load(p, t, j * ld + i, v);
            a[j * n + i] = v[0] + I * v[1];
        }
    return a;
}

static void store(void *p, int t, int64_t n, int64_t m, int64_t ld, const zd *a)
{
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < n; i++) {
            double v[2] = { creal(a[j * n + i]), cimag(a[j * n + i]) };
            simlib_store(p, t, j * ld + i, v);
        }
}

/* getrf: A[b] := L U with partial pivoting (none when P is NULL), P[b * n +
 * j] LAPACK's 1-based pivots, info[b] 0 or the first zero pivot's row (1-based) */
SIMLIB_EXPORT void simcuda_twin_simblas_getrf_batched(void **args, const unsigned grid[3], const unsigned block[3]);
SIMLIB_EXPORT void simcuda_twin_simblas_getrf_batched(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    struct sb_lu w;
    memcpy(&w, args[0], sizeof w);
    void *const *A = w.a;
    int *P = param(args, 2), *info = param(args, 3);
    int64_t n = w.n;
    int64_t *piv = malloc((size_t)(n > 0 ? n : 1) * sizeof *piv);
    for (int64_t b = 0; piv && b < w.batch; b++) {
        if (!A[b])
            continue;
        zd *a = load(A[b], w.type, n, n, w.lda);
        if (!a)
            break;
        int r = sl_getrf(a, n, n, n, piv, P != NULL);
        store(A[b], w.type, n, n, w.lda, a);
        for (int64_t j = 0; P && j < n; j++)
            P[b * n + j] = (int)piv[j];
        if (info)
            info[b] = r;
        free(a);
    }
    free(piv);
}

/* getrs: B[b] := op(A[b])^-1 B[b], A[b] and P as getrf left them (P NULL:
 * no row interchanges); an item whose pivots are not getrf's (one outside
 * 1..n) is refused: B[b] unchanged, one line on stderr */
static atomic_flag said_piv = ATOMIC_FLAG_INIT;
SIMLIB_EXPORT void simcuda_twin_simblas_getrs_batched(void **args, const unsigned grid[3], const unsigned block[3]);
SIMLIB_EXPORT void simcuda_twin_simblas_getrs_batched(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    struct sb_lu w;
    memcpy(&w, args[0], sizeof w);
    void *const *A = w.a, *const *B = w.b;
    const int *P = param(args, 2);
    int64_t n = w.n, nrhs = w.nrhs;
    int trans = w.trans == CUBLAS_OP_T ? SL_T : w.trans == CUBLAS_OP_C ? SL_C : SL_N;
    int64_t *piv = malloc((size_t)(n > 0 ? n : 1) * sizeof *piv);
    for (int64_t b = 0; piv && b < w.batch; b++) {
        if (!A[b] || !B[b])
            continue;
        zd *a = load(A[b], w.type, n, n, w.lda), *x = load(B[b], w.type, n, nrhs, w.ldb);
        for (int64_t j = 0; P && j < n; j++)
            piv[j] = P[b * n + j];
        if (a && x) {
            if (sl_getrs(a, n, n, P ? piv : NULL, trans, x, nrhs, n) == 0)
                store(B[b], w.type, n, nrhs, w.ldb, x);
            else    /* a pivot outside 1..n (lapack.c sl_getrs): B[b] left as it was */
                simlib_note_once(&said_piv, "libcublas.so.13", "cublas<t>getrsBatched: a pivot outside 1..n "
                                 "(not getrf's): that item is not computed (a GPU would read and write past "
                                 "the matrix)");
        }
        free(a), free(x);
    }
    free(piv);
}
