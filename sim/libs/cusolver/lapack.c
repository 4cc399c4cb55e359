/* lapack: reference dense linear algebra on the host, for the host twins of
 * the sim's cuSOLVER kernels (dn.c).  Every routine works on a column-major
 * matrix of `double complex` (real types are loaded with a zero imaginary
 * part) and follows LAPACK's definitions, which cuSOLVER's documentation
 * refers to (cusolverDn<t>potrf is LAPACK's potrf, ...):
 *  - Cholesky (potrf/potrs), LU with partial pivoting by |re| + |im| as
 *    LAPACK's izamax (getrf/getrs), Householder QR with LAPACK's reflectors
 *    (zlarfg: beta = -sign(re alpha) * norm, tau = (beta - alpha) / beta,
 *    v = x / (alpha - beta)), so that geqrf/orgqr give LAPACK's Q and R;
 *  - the Hermitian eigenproblem by cyclic Jacobi rotations, eigenvalues
 *    ascending; the SVD by one-sided Jacobi (Hestenes), singular values
 *    descending.  Eigen- and singular vectors are unique only up to a sign
 *    (a phase): they need not be the vectors a GPU's cuSOLVER returns.
 * Correctness over speed: O(n^3) loops, no blocking. */
#include "solver.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define A_(i, j) a[(size_t)(j) * (size_t)ld + (size_t)(i)]

static double cabs1(zd x) { return fabs(creal(x)) + fabs(cimag(x)); }

int sl_potrf(zd *a, int64_t n, int64_t ld, int upper)
{
    for (int64_t j = 0; j < n; j++) {
        double d = creal(A_(j, j));
        for (int64_t k = 0; k < j; k++) {
            zd x = upper ? A_(k, j) : A_(j, k);
            d -= creal(x * conj(x));
        }
        if (!(d > 0)) {
            A_(j, j) = d;
            return (int)(j + 1);
        }
        double r = sqrt(d);
        A_(j, j) = r;
        for (int64_t i = j + 1; i < n; i++) {
            if (upper) {            /* A = U^H U: row j of U */
                zd s = A_(j, i);
                for (int64_t k = 0; k < j; k++)
                    s -= conj(A_(k, j)) * A_(k, i);
                A_(j, i) = s / r;
            } else {                /* A = L L^H: column j of L */
                zd s = A_(i, j);
                for (int64_t k = 0; k < j; k++)
                    s -= A_(i, k) * conj(A_(j, k));
                A_(i, j) = s / r;
            }
        }
    }
    return 0;
}

void sl_potrs(const zd *a, int64_t n, int64_t ld, int upper, zd *b, int64_t nrhs, int64_t ldb)
{
    for (int64_t c = 0; c < nrhs; c++) {
        zd *x = b + (size_t)c * (size_t)ldb;
        /* forward: L y = b (L = U^H when upper) */
        for (int64_t i = 0; i < n; i++) {
            zd s = x[i];
            for (int64_t k = 0; k < i; k++)
                s -= (upper ? conj(A_(k, i)) : A_(i, k)) * x[k];
            x[i] = s / (upper ? conj(A_(i, i)) : A_(i, i));
        }
        /* backward: L^H x = y (U x = y) */
        for (int64_t i = n - 1; i >= 0; i--) {
            zd s = x[i];
            for (int64_t k = i + 1; k < n; k++)
                s -= (upper ? A_(i, k) : conj(A_(k, i))) * x[k];
            x[i] = s / (upper ? A_(i, i) : conj(A_(i, i)));
        }
    }
}

int sl_getrf(zd *a, int64_t m, int64_t n, int64_t ld, int64_t *ipiv, int pivot)
{
    int info = 0;
    int64_t k = m < n ? m : n;
    for (int64_t j = 0; j < k; j++) {
        int64_t p = j;
        if (pivot)
            for (int64_t i = j + 1; i < m; i++)
                if (cabs1(A_(i, j)) > cabs1(A_(p, j)))
                    p = i;
        if (ipiv)
            ipiv[j] = p + 1;
        if (A_(p, j) != 0) {
            if (p != j)
                for (int64_t c = 0; c < n; c++) {
                    zd t = A_(j, c);
                    A_(j, c) = A_(p, c);
                    A_(p, c) = t;
                }
            for (int64_t i = j + 1; i < m; i++)
                A_(i, j) /= A_(j, j);
        } else if (!info) {
            info = (int)(j + 1);
        }
        for (int64_t c = j + 1; c < n; c++)
            for (int64_t i = j + 1; i < m; i++)
                A_(i, c) -= A_(i, j) * A_(j, c);
    }
    return info;
}

int sl_getrs(const zd *a, int64_t n, int64_t ld, const int64_t *ipiv, int trans, zd *b, int64_t nrhs, int64_t ldb)
{
    /* LAPACK's getrs trusts ipiv (dlaswp swaps rows ipiv[i] unchecked), and
     * so do cuBLAS's and cuSOLVER's kernels, which would read and write past
     * the matrix on a GPU; the sim refuses such a pivot before writing
     * anything, rather than corrupt its own heap */
    for (int64_t i = 0; ipiv && i < n; i++)
        if (ipiv[i] < 1 || ipiv[i] > n)
            return -1;
    for (int64_t c = 0; c < nrhs; c++) {
        zd *x = b + (size_t)c * (size_t)ldb;
        if (trans == SL_N) {
            for (int64_t i = 0; ipiv && i < n; i++) {
                int64_t p = ipiv[i] - 1;
                zd t = x[i];
                x[i] = x[p];
                x[p] = t;
            }
            for (int64_t i = 0; i < n; i++)           /* L y = Pb, unit diagonal */
                for (int64_t k = 0; k < i; k++)
                    x[i] -= A_(i, k) * x[k];
            for (int64_t i = n - 1; i >= 0; i--) {    /* U x = y */
                for (int64_t k = i + 1; k < n; k++)
                    x[i] -= A_(i, k) * x[k];
                x[i] /= A_(i, i);
            }
        } else {
            /* A^T x = b (A^H with conj): U^T y = b, L^T z = y, x = P^T z */
#define OP(v) (trans == SL_C ? conj(v) : (v))
            for (int64_t i = 0; i < n; i++) {
                for (int64_t k = 0; k < i; k++)
                    x[i] -= OP(A_(k, i)) * x[k];
                x[i] /= OP(A_(i, i));
            }
            for (int64_t i = n - 1; i >= 0; i--)
                for (int64_t k = i + 1; k < n; k++)
                    x[i] -= OP(A_(k, i)) * x[k];
#undef OP
            for (int64_t i = n - 1; ipiv && i >= 0; i--) {
                int64_t p = ipiv[i] - 1;
                zd t = x[i];
                x[i] = x[p];
                x[p] = t;
            }
        }
    }
    return 0;
}

/* zlarfg on alpha = x[0], x[1..len-1]: x[1..] becomes v (v[0] = 1 implied),
 * x[0] beta; returns tau. */
static zd larfg(zd *x, int64_t len)
{
    double xnorm = 0;
    for (int64_t i = 1; i < len; i++)
        xnorm += creal(x[i] * conj(x[i]));
    xnorm = sqrt(xnorm);
    double ar = creal(x[0]), ai = cimag(x[0]);
    if (xnorm == 0 && ai == 0)
        return 0;
    double beta = -copysign(sqrt(ar * ar + ai * ai + xnorm * xnorm), ar);
    zd tau = (beta - ar) / beta + I * (-ai / beta);
    zd scale = 1.0 / (x[0] - beta);
    for (int64_t i = 1; i < len; i++)
        x[i] *= scale;
    x[0] = beta;
    return tau;
}

/* C (rows r0.., columns c0..c1) = (I - tau v v^H) C from the left, v the
 * column `vc` of a below row r0 (v[r0] = 1) */
static void apply_left(zd *c, int64_t ldc, int64_t r0, int64_t m, int64_t c0, int64_t c1, const zd *v, zd tau)
{
    if (tau == 0)
        return;
    for (int64_t j = c0; j < c1; j++) {
        zd *col = c + (size_t)j * (size_t)ldc;
        zd s = col[r0];
        for (int64_t i = r0 + 1; i < m; i++)
            s += conj(v[i]) * col[i];
        s *= tau;
        col[r0] -= s;
        for (int64_t i = r0 + 1; i < m; i++)
            col[i] -= v[i] * s;
    }
}

/* C (rows 0..m, columns c0..n) = C (I - tau v v^H) from the right, v[c0] = 1 */
static void apply_right(zd *c, int64_t ldc, int64_t m, int64_t c0, int64_t n, const zd *v, zd tau)
{
    if (tau == 0)
        return;
    for (int64_t i = 0; i < m; i++) {
        zd s = c[(size_t)c0 * (size_t)ldc + (size_t)i];
        for (int64_t j = c0 + 1; j < n; j++)
            s += c[(size_t)j * (size_t)ldc + (size_t)i] * v[j];
        s *= tau;
        c[(size_t)c0 * (size_t)ldc + (size_t)i] -= s;
        for (int64_t j = c0 + 1; j < n; j++)
            c[(size_t)j * (size_t)ldc + (size_t)i] -= s * conj(v[j]);
    }
}

void sl_geqrf(zd *a, int64_t m, int64_t n, int64_t ld, zd *tau)
{
    int64_t k = m < n ? m : n;
    for (int64_t i = 0; i < k; i++) {
        zd *col = &A_(0, i);
        tau[i] = larfg(col + i, m - i);
        zd beta = col[i];
        col[i] = 1;
        apply_left(a, ld, i, m, i + 1, n, col, conj(tau[i]));      /* H(i)^H from the left (zgeqr2) */
        col[i] = beta;
    }
}

void sl_orgqr(zd *a, int64_t m, int64_t n, int64_t k, int64_t ld, const zd *tau)
{
    /* zung2r */
    for (int64_t j = k; j < n; j++) {
        for (int64_t i = 0; i < m; i++)
            A_(i, j) = 0;
        if (j < m)
            A_(j, j) = 1;
    }
    for (int64_t i = k - 1; i >= 0; i--) {
        zd *col = &A_(0, i);
        if (i < n - 1) {
            col[i] = 1;
            apply_left(a, ld, i, m, i + 1, n, col, tau[i]);
        }
        for (int64_t r = i + 1; r < m; r++)
            col[r] *= -tau[i];
        col[i] = 1 - tau[i];
        for (int64_t r = 0; r < i; r++)
            col[r] = 0;
    }
}

void sl_ormqr(int side_left, int trans, int64_t m, int64_t n, int64_t k, const zd *a, int64_t ld, const zd *tau,
              zd *c, int64_t ldc)
{
    int64_t nq = side_left ? m : n;
    zd *v = malloc((size_t)nq * sizeof *v);
    if (!v)
        return;
    /* Q = H(0) ... H(k-1); Q^H = H(k-1)^H ... H(0)^H */
    int forward = side_left ? trans != SL_N : trans == SL_N;
    for (int64_t s = 0; s < k; s++) {
        int64_t i = forward ? s : k - 1 - s;
        for (int64_t r = 0; r < nq; r++)
            v[r] = r < i ? 0 : r == i ? 1 : A_(r, i);
        zd t = trans == SL_N ? tau[i] : conj(tau[i]);
        if (side_left)
            apply_left(c, ldc, i, m, 0, n, v, t);
        else
            apply_right(c, ldc, m, i, n, v, t);
    }
    free(v);
}

/* ---------------------------------------------------------------- */

/* Hermitian eigenproblem: a (n x n, both triangles filled) is destroyed;
 * w ascending; v (n x n, ld n) its eigenvectors when wanted. */
int sl_heev(zd *a, int64_t n, double *w, zd *v, int64_t max_sweeps)
{
    int64_t ld = n;
    if (v)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                v[j * n + i] = i == j;
    double norm = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            norm += creal(A_(i, j) * conj(A_(i, j)));
    int converged = n < 2;
    for (int64_t sweep = 0; sweep < max_sweeps && !converged; sweep++) {
        double off = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                if (i != j)
                    off += creal(A_(i, j) * conj(A_(i, j)));
        if (off <= DBL_EPSILON * DBL_EPSILON * norm || off == 0) {
            converged = 1;
            break;
        }
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                zd apq = A_(p, q);
                double g = cabs(apq);
                if (g == 0)
                    continue;
                zd ph = apq / g;                       /* D = diag(1, conj(ph)) makes a_pq real */
                double theta = (creal(A_(q, q)) - creal(A_(p, p))) / (2 * g);
                double t = copysign(1.0, theta) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                /* U = D G, G = [[c, s], [-s, c]]: u_pp = c, u_pq = s, u_qp = -s conj(ph), u_qq = c conj(ph) */
                zd upp = c, upq = s, uqp = -s * conj(ph), uqq = c * conj(ph);
                for (int64_t r = 0; r < n; r++) {     /* A U */
                    zd x = A_(r, p), y = A_(r, q);
                    A_(r, p) = x * upp + y * uqp;
                    A_(r, q) = x * upq + y * uqq;
                }
                for (int64_t r = 0; r < n; r++) {     /* U^H A */
                    zd x = A_(p, r), y = A_(q, r);
                    A_(p, r) = conj(upp) * x + conj(uqp) * y;
                    A_(q, r) = conj(upq) * x + conj(uqq) * y;
                }
                A_(p, q) = A_(q, p) = 0;
                for (int64_t r = 0; v && r < n; r++) {
                    zd x = v[p * n + r], y = v[q * n + r];
                    v[p * n + r] = x * upp + y * uqp;
                    v[q * n + r] = x * upq + y * uqq;
                }
            }
    }
    for (int64_t i = 0; i < n; i++)
        w[i] = creal(A_(i, i));
    /* ascending (insertion sort: stable, n small) */
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i; j > 0 && w[j] < w[j - 1]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            for (int64_t r = 0; v && r < n; r++) {
                zd x = v[j * n + r];
                v[j * n + r] = v[(j - 1) * n + r];
                v[(j - 1) * n + r] = x;
            }
        }
    return converged ? 0 : (int)n + 1;
}

/* Completes the first `have` orthonormal columns of q (rows m, ld m) to
 * `want` columns with the standard basis vectors' Gram-Schmidt remainders. */
static void complete_basis(zd *q, int64_t m, int64_t have, int64_t want)
{
    for (int64_t e = 0; have < want && e < m; e++) {
        zd *c = q + have * m;
        for (int64_t i = 0; i < m; i++)
            c[i] = i == e;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t j = 0; j < have; j++) {
                zd d = 0;
                for (int64_t i = 0; i < m; i++)
                    d += conj(q[j * m + i]) * c[i];
                for (int64_t i = 0; i < m; i++)
                    c[i] -= d * q[j * m + i];
            }
        double nrm = 0;
        for (int64_t i = 0; i < m; i++)
            nrm += creal(c[i] * conj(c[i]));
        nrm = sqrt(nrm);
        if (nrm > 1e-8) {
            for (int64_t i = 0; i < m; i++)
                c[i] /= nrm;
            have++;
        }
    }
}

/* One-sided Jacobi SVD of a (m x n, ld m, m >= n, destroyed): s (n values,
 * descending), u (m x ucols, ld m; ucols n or m) and v (n x n, ld n). */
static int svd_tall(zd *a, int64_t m, int64_t n, double *s, zd *u, int64_t ucols, zd *v, int64_t max_sweeps)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            v[j * n + i] = i == j;
    int converged = n < 2;
    for (int64_t sweep = 0; sweep < max_sweeps && !converged; sweep++) {
        converged = 1;
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                zd *wp = a + p * m, *wq = a + q * m;
                double al = 0, be = 0;
                zd ga = 0;
                for (int64_t i = 0; i < m; i++) {
                    al += creal(wp[i] * conj(wp[i]));
                    be += creal(wq[i] * conj(wq[i]));
                    ga += conj(wp[i]) * wq[i];
                }
                double g = cabs(ga);
                if (g == 0 || g <= DBL_EPSILON * sqrt(al * be))
                    continue;
                converged = 0;
                zd ph = ga / g;
                double zeta = (be - al) / (2 * g);
                double t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), sn = c * t;
                /* w_q~ = w_q conj(ph) makes the product real; then the real rotation */
                for (int64_t i = 0; i < m; i++) {
                    zd x = wp[i], y = wq[i] * conj(ph);
                    wp[i] = c * x - sn * y;
                    wq[i] = sn * x + c * y;
                }
                for (int64_t i = 0; i < n; i++) {
                    zd x = v[p * n + i], y = v[q * n + i] * conj(ph);
                    v[p * n + i] = c * x - sn * y;
                    v[q * n + i] = sn * x + c * y;
                }
            }
    }
    for (int64_t j = 0; j < n; j++) {
        double nrm = 0;
        for (int64_t i = 0; i < m; i++)
            nrm += creal(a[j * m + i] * conj(a[j * m + i]));
        s[j] = sqrt(nrm);
    }
    /* descending, columns of a and v along */
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i; j > 0 && s[j] > s[j - 1]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
            for (int64_t r = 0; r < m; r++) {
                zd x = a[j * m + r];
                a[j * m + r] = a[(j - 1) * m + r];
                a[(j - 1) * m + r] = x;
            }
            for (int64_t r = 0; r < n; r++) {
                zd x = v[j * n + r];
                v[j * n + r] = v[(j - 1) * n + r];
                v[(j - 1) * n + r] = x;
            }
        }
    if (u) {
        int64_t have = 0;
        double tol = s[0] * DBL_EPSILON * (double)(m > n ? m : n);
        for (int64_t j = 0; j < n && s[j] > tol && s[j] > 0; j++, have++)
            for (int64_t i = 0; i < m; i++)
                u[j * m + i] = a[j * m + i] / s[j];
        complete_basis(u, m, have, ucols);
    }
    return converged ? 0 : 1;
}

int sl_gesvd(const zd *a, int64_t m, int64_t n, int64_t ld, double *s, zd *u, int full_u, zd *v, int full_v,
             int64_t max_sweeps)
{
    /* u: m x (full_u ? m : min), v: n x (full_v ? n : min), both ld = rows */
    int64_t k = m < n ? m : n;
    int tall = m >= n;
    int64_t r = tall ? m : n, c = tall ? n : m;       /* the tall problem: W = A or A^H */
    zd *w = malloc((size_t)(r * c) * sizeof *w), *uu = malloc((size_t)(r * r) * sizeof *uu),
       *vv = malloc((size_t)(c * c) * sizeof *vv);
    if (!w || !uu || !vv) {
        free(w), free(uu), free(vv);
        return -1;
    }
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++)
            w[j * r + i] = tall ? A_(i, j) : conj(A_(j, i));
    int info = svd_tall(w, r, c, s, uu, r, vv, max_sweeps);
    /* tall: A = uu S vv^H;  wide: A^H = uu S vv^H, so A = vv S uu^H */
    zd *left = tall ? uu : vv, *right = tall ? vv : uu;     /* m x m and n x n, full */
    for (int64_t j = 0; u && j < (full_u ? m : k); j++)
        memcpy(u + j * m, left + j * m, (size_t)m * sizeof *u);
    for (int64_t j = 0; v && j < (full_v ? n : k); j++)
        memcpy(v + j * n, right + j * n, (size_t)n * sizeof *v);
    free(w), free(uu), free(vv);
    return info;
}
