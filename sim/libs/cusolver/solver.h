/* The sim's cuSOLVER (sim/libs/cusolver/): what its files share; nothing
 * here is exported. */
#ifndef SIM_LIBS_CUSOLVER_SOLVER_H
#define SIM_LIBS_CUSOLVER_SOLVER_H

#include <complex.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

typedef double complex zd;

enum { SL_N, SL_T, SL_C };      /* op(A): none, transpose, conjugate transpose */

/* lapack.c: column-major, ld the leading dimension; info as LAPACK's */
int sl_potrf(zd *a, int64_t n, int64_t ld, int upper);
void sl_potrs(const zd *a, int64_t n, int64_t ld, int upper, zd *b, int64_t nrhs, int64_t ldb);
int sl_getrf(zd *a, int64_t m, int64_t n, int64_t ld, int64_t *ipiv, int pivot);
/* sl_getrs: -1, b untouched, when a pivot lies outside 1..n (getrf makes
 * none; the swap would write outside the column: refused), else 0 */
int sl_getrs(const zd *a, int64_t n, int64_t ld, const int64_t *ipiv, int trans, zd *b, int64_t nrhs,
             int64_t ldb);
void sl_geqrf(zd *a, int64_t m, int64_t n, int64_t ld, zd *tau);
void sl_orgqr(zd *a, int64_t m, int64_t n, int64_t k, int64_t ld, const zd *tau);
void sl_ormqr(int side_left, int trans, int64_t m, int64_t n, int64_t k, const zd *a, int64_t ld, const zd *tau,
              zd *c, int64_t ldc);
int sl_heev(zd *a, int64_t n, double *w, zd *v, int64_t max_sweeps);
int sl_gesvd(const zd *a, int64_t m, int64_t n, int64_t ld, double *s, zd *u, int full_u, zd *v, int full_v,
             int64_t max_sweeps);

#pragma GCC visibility pop

#endif
