/* The transform of the sim's cuFFT, shared by the device kernel (fft.cu,
 * the library's image) and its host twin (twins.c): one source for both
 * (simlib_hd.h).  A reference implementation: a plan of rank r runs as r
 * passes, one kernel launch each; a pass transforms every line of one
 * axis with a direct DFT accumulated in double precision (complex: a pair
 * of doubles), with exact twiddles (exp(+-2 pi i (jk mod n) / n)).
 *
 * A line is read whole into its scratch before any element is written, so
 * a pass may write where it reads (an in-place transform, or the passes
 * after the first, which work in the output).  Line l's scratch is the
 * 4 n doubles at work + 4 n l (doubles: the twiddles, then the line): the
 * plan's work area, on the device, as cuFFT's kernels use theirs. */
#ifndef SIM_LIBS_CUFFT_FFT_HD_H
#define SIM_LIBS_CUFFT_FFT_HD_H

#include "simlib_hd.h"

#define SIMFFT_MAXRANK 3

enum simfft_kind { SIMFFT_C2C, SIMFFT_R2C, SIMFFT_C2R };

/* Where element (b, x0, .., x[rank-1]) of an array is, in elements of its
 * type, as cuFFT's advanced data layout says (cuFFT documentation, "Advanced
 * Data Layout"): b * dist + stride * ((x0 * embed[1] + x1) * embed[2] + x2);
 * embed[0] is not used. */
struct simfft_layout {
    int64_t embed[SIMFFT_MAXRANK];
    int64_t stride, dist;
};

/* One pass, passed by value to the kernel; no pointers (they are the
 * kernel's own parameters, so the image's code says which it
 * dereferences). */
struct simfft_pass {
    int64_t lines;                      /* batch * the product of len[] but the axis's */
    int64_t len[SIMFFT_MAXRANK];        /* the extent walked along each axis: n, or n / 2 + 1 on the
                                         * last axis of a complex array of a real transform */
    int64_t n;                          /* the transform's length along the axis */
    struct simfft_layout in, out;
    int32_t rank, axis;
    int32_t kind;                       /* enum simfft_kind: R2C and C2R on the last axis only */
    int32_t sign;                       /* the exponent's: CUFFT_FORWARD -1, CUFFT_INVERSE +1 */
    int32_t itype, otype;               /* cudaDataType of an element of in and out */
};

/* The offset of line l's first element in layout y, and the step between
 * its elements. */
SIMLIB_HD void simfft_line_at(const struct simfft_pass *p, const struct simfft_layout *y, int64_t l, int64_t *at,
                              int64_t *step)
{
    int64_t x[SIMFFT_MAXRANK] = { 0, 0, 0 };
    for (int a = p->rank - 1; a >= 0; a--)
        if (a != p->axis) {
            x[a] = l % p->len[a];
            l /= p->len[a];
        }
    int64_t lin = x[0], s = 1;
    for (int a = 1; a < p->rank; a++)
        lin = lin * y->embed[a] + x[a];
    for (int a = p->axis + 1; a < p->rank; a++)
        s *= y->embed[a];
    *at = l * y->dist + y->stride * lin;
    *step = y->stride * s;
}

/* Transforms line l of pass p from in to out with the scratch at work. */
SIMLIB_HD void simfft_line(const struct simfft_pass *p, const void *in, void *out, double *work, int64_t l)
{
    const int64_t n = p->n;
    const int64_t ni = p->kind == SIMFFT_C2R ? n / 2 + 1 : n, no = p->kind == SIMFFT_R2C ? n / 2 + 1 : n;
    double *tw = work + 4 * n * l, *x = tw + 2 * n;
    int64_t at, step;
    const double turn = 6.283185307179586476925286766559;
    for (int64_t k = 0; k < n; k++) {
        tw[2 * k] = cos(turn * (double)k / (double)n);
        tw[2 * k + 1] = p->sign * sin(turn * (double)k / (double)n);
    }
    simfft_line_at(p, &p->in, l, &at, &step);
    for (int64_t j = 0; j < ni; j++)
        simlib_load(in, p->itype, at + j * step, x + 2 * j);
    simfft_line_at(p, &p->out, l, &at, &step);
    for (int64_t k = 0; k < no; k++) {
        double v[2] = { 0, 0 };
        if (p->kind == SIMFFT_C2R) {
            /* the Hermitian input's other half is implied, conj(x[n - j]):
             * each pair adds 2 Re(x[j] w^jk); x[0]'s and x[n/2]'s imaginary
             * parts do not count */
            v[0] = x[0];
            for (int64_t j = 1, t = k % n; j < ni; j++) {
                const double *w = tw + 2 * t;
                double re = x[2 * j] * w[0] - x[2 * j + 1] * w[1];
                v[0] += 2 * j == n ? re : 2 * re;
                t = (t + k) % n;
            }
        } else {
            for (int64_t j = 0, t = 0; j < ni; j++) {
                const double *w = tw + 2 * t;
                v[0] += x[2 * j] * w[0] - x[2 * j + 1] * w[1];
                v[1] += x[2 * j] * w[1] + x[2 * j + 1] * w[0];
                t = (t + k) % n;
            }
        }
        simlib_store(out, p->otype, at + k * step, v);
    }
}
#endif
