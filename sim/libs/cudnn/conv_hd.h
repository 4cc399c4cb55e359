/* The sim's cuDNN convolutions (sim/libs/cudnn/README.md): one problem
 * description and the arithmetic of one output element, shared by the
 * kernels of conv.cu (nvcc, the library's code image) and their host twins
 * (twins.c, the C compiler), so that what a GPU would run and what the sim
 * runs are one source.
 *
 * A convolution as cuDNN defines it (cudnn_cnn.h, the backend's
 * CUDNN_BACKEND_OPERATION_CONVOLUTION_*_DESCRIPTOR): tensors of 3 to 5
 * dimensions [N, C, spatial...] of any strides (NCHW, NHWC/channels_last
 * are strides), a filter [K, C/groups, spatial...], groups = Cx / Cw,
 *   y[n,k,o] = alpha * sum_{c,r} x[n, g*Cg + c, o*stride - pre + r*dilation] * w[k,c,r] + beta * y[n,k,o]
 * with g = k / (K / groups), cross-correlation (CUDNN_CONVOLUTION flips r).
 * Backward data and backward filter are the same sum gathered for dx and dw:
 * every output element is computed on its own, without atomics. */
#ifndef SIM_LIBS_CUDNN_CONV_HD_H
#define SIM_LIBS_CUDNN_CONV_HD_H

#include <stdint.h>
#include "simlib_hd.h"

#define SIMDNN_MAXSP 3          /* spatial dimensions: conv1d (as 2d), 2d, 3d */

enum simdnn_dtype { SIMDNN_F32 = 0, SIMDNN_F64 = 1, SIMDNN_F16 = 2, SIMDNN_BF16 = 3 };
enum simdnn_dir { SIMDNN_FWD = 0, SIMDNN_BWD_DATA = 1, SIMDNN_BWD_FILTER = 2 };

/* A tensor as the kernels see it: element type and, for each of N, C and
 * the spatial dimensions (unused ones of size 1, stride 0), size and
 * stride in elements. */
struct simdnn_tensor {
    int32_t dtype;
    int32_t pad_;
    int64_t dim[2 + SIMDNN_MAXSP];
    int64_t stride[2 + SIMDNN_MAXSP];
};

/* One convolution: x [N, C, in...], w [K, C/groups, filter...], y [N, K, out...]
 * (for backward data x is dx and y is dy; for backward filter w is dw). */
struct simdnn_conv {
    struct simdnn_tensor x, w, y;
    int64_t pre[SIMDNN_MAXSP], stride[SIMDNN_MAXSP], dilation[SIMDNN_MAXSP];
    int64_t groups;
    int64_t total;              /* elements of the output: y, dx or dw */
    double alpha, beta;
    int32_t dir;                /* enum simdnn_dir */
    int32_t flip;               /* CUDNN_CONVOLUTION: the filter is flipped */
    int32_t acc_double;         /* compute type double */
    int32_t pad_;
};

/* half and bfloat16 by their bits: simlib_hd.h's, as the sim's other
 * libraries. */
SIMLIB_HD double simdnn_load(const void *base, int32_t dtype, int64_t i)
{
    switch (dtype) {
    case SIMDNN_F64: return ((const double *)base)[i];
    case SIMDNN_F16: return simlib_from_half(((const uint16_t *)base)[i]);
    case SIMDNN_BF16: return simlib_from_bf16(((const uint16_t *)base)[i]);
    default: return ((const float *)base)[i];
    }
}

SIMLIB_HD void simdnn_store(void *base, int32_t dtype, int64_t i, double v)
{
    switch (dtype) {
    case SIMDNN_F64: ((double *)base)[i] = v; break;
    case SIMDNN_F16: ((uint16_t *)base)[i] = simlib_to_half(v); break;
    case SIMDNN_BF16: ((uint16_t *)base)[i] = simlib_to_bf16(v); break;
    default: ((float *)base)[i] = (float)v; break;
    }
}

/* Splits a linear index over a tensor's logical dimensions (row-major in
 * [d0, d1, s0, s1, s2]) into idx[]. */
SIMLIB_HD void simdnn_unflatten(const struct simdnn_tensor *t, int64_t i, int64_t idx[2 + SIMDNN_MAXSP])
{
    for (int d = 1 + SIMDNN_MAXSP; d >= 0; d--) {
        idx[d] = i % t->dim[d];
        i /= t->dim[d];
    }
}

SIMLIB_HD int64_t simdnn_offset(const struct simdnn_tensor *t, const int64_t idx[2 + SIMDNN_MAXSP])
{
    int64_t o = 0;
    for (int d = 0; d < 2 + SIMDNN_MAXSP; d++)
        o += idx[d] * t->stride[d];
    return o;
}

/* The filter tap r of spatial dimension s as the sum indexes the filter. */
SIMLIB_HD int64_t simdnn_tap(const struct simdnn_conv *p, int s, int64_t r)
{
    return p->flip ? p->w.dim[2 + s] - 1 - r : r;
}

/* Accumulates in float for a float compute type, as cuDNN's FLOAT engines
 * do, in double for CUDNN_DATA_DOUBLE. */
#define SIMDNN_ACC(p, acc, v)                                                                \
    do {                                                                                     \
        if ((p)->acc_double)                                                                 \
            (acc) += (v);                                                                    \
        else                                                                                 \
            (acc) = (double)((float)(acc) + (float)(v));                                     \
    } while (0)

/* y[n,k,o...] for the linear output index i (forward). */
SIMLIB_HD double simdnn_fwd_sum(const struct simdnn_conv *p, const void *x, const void *w, const int64_t o[5])
{
    int64_t kg = p->w.dim[0] / p->groups, cg = p->w.dim[1];
    int64_t g = o[1] / kg;
    double acc = 0;
    int64_t xi[5], wi[5];
    xi[0] = o[0];
    wi[0] = o[1];
    for (int64_t c = 0; c < cg; c++) {
        xi[1] = g * cg + c;
        wi[1] = c;
        for (int64_t r0 = 0; r0 < p->w.dim[2]; r0++) {
            xi[2] = o[2] * p->stride[0] - p->pre[0] + r0 * p->dilation[0];
            if (xi[2] < 0 || xi[2] >= p->x.dim[2])
                continue;
            wi[2] = simdnn_tap(p, 0, r0);
            for (int64_t r1 = 0; r1 < p->w.dim[3]; r1++) {
                xi[3] = o[3] * p->stride[1] - p->pre[1] + r1 * p->dilation[1];
                if (xi[3] < 0 || xi[3] >= p->x.dim[3])
                    continue;
                wi[3] = simdnn_tap(p, 1, r1);
                for (int64_t r2 = 0; r2 < p->w.dim[4]; r2++) {
                    xi[4] = o[4] * p->stride[2] - p->pre[2] + r2 * p->dilation[2];
                    if (xi[4] < 0 || xi[4] >= p->x.dim[4])
                        continue;
                    wi[4] = simdnn_tap(p, 2, r2);
                    double v = simdnn_load(x, p->x.dtype, simdnn_offset(&p->x, xi)) *
                               simdnn_load(w, p->w.dtype, simdnn_offset(&p->w, wi));
                    SIMDNN_ACC(p, acc, v);
                }
            }
        }
    }
    return acc;
}

/* dx[n,c,i...] (backward data): every (k, r) whose output position
 * o = (i + pre - r*dilation) / stride is whole and in range. */
SIMLIB_HD double simdnn_bwd_data_sum(const struct simdnn_conv *p, const void *dy, const void *w, const int64_t i[5])
{
    int64_t kg = p->w.dim[0] / p->groups, cg = p->w.dim[1];
    int64_t g = i[1] / cg;
    double acc = 0;
    int64_t yi[5], wi[5];
    yi[0] = i[0];
    wi[1] = i[1] - g * cg;
    for (int64_t kk = 0; kk < kg; kk++) {
        yi[1] = wi[0] = g * kg + kk;
        for (int64_t r0 = 0; r0 < p->w.dim[2]; r0++) {
            int64_t t0 = i[2] + p->pre[0] - r0 * p->dilation[0];
            if (t0 < 0 || t0 % p->stride[0] || (yi[2] = t0 / p->stride[0]) >= p->y.dim[2])
                continue;
            wi[2] = simdnn_tap(p, 0, r0);
            for (int64_t r1 = 0; r1 < p->w.dim[3]; r1++) {
                int64_t t1 = i[3] + p->pre[1] - r1 * p->dilation[1];
                if (t1 < 0 || t1 % p->stride[1] || (yi[3] = t1 / p->stride[1]) >= p->y.dim[3])
                    continue;
                wi[3] = simdnn_tap(p, 1, r1);
                for (int64_t r2 = 0; r2 < p->w.dim[4]; r2++) {
                    int64_t t2 = i[4] + p->pre[2] - r2 * p->dilation[2];
                    if (t2 < 0 || t2 % p->stride[2] || (yi[4] = t2 / p->stride[2]) >= p->y.dim[4])
                        continue;
                    wi[4] = simdnn_tap(p, 2, r2);
                    double v = simdnn_load(dy, p->y.dtype, simdnn_offset(&p->y, yi)) *
                               simdnn_load(w, p->w.dtype, simdnn_offset(&p->w, wi));
                    SIMDNN_ACC(p, acc, v);
                }
            }
        }
    }
    return acc;
}

/* dw[k,c,r...] (backward filter): over every n and output position. */
SIMLIB_HD double simdnn_bwd_filter_sum(const struct simdnn_conv *p, const void *x, const void *dy, const int64_t f[5])
{
    int64_t kg = p->w.dim[0] / p->groups, cg = p->w.dim[1];
    int64_t g = f[0] / kg;
    double acc = 0;
    int64_t xi[5], yi[5];
    int64_t r[3];
    for (int s = 0; s < 3; s++)
        r[s] = simdnn_tap(p, s, f[2 + s]);
    xi[1] = g * cg + f[1];
    yi[1] = f[0];
    for (int64_t n = 0; n < p->x.dim[0]; n++) {
        xi[0] = yi[0] = n;
        for (yi[2] = 0; yi[2] < p->y.dim[2]; yi[2]++) {
            xi[2] = yi[2] * p->stride[0] - p->pre[0] + r[0] * p->dilation[0];
            if (xi[2] < 0 || xi[2] >= p->x.dim[2])
                continue;
            for (yi[3] = 0; yi[3] < p->y.dim[3]; yi[3]++) {
                xi[3] = yi[3] * p->stride[1] - p->pre[1] + r[1] * p->dilation[1];
                if (xi[3] < 0 || xi[3] >= p->x.dim[3])
                    continue;
                for (yi[4] = 0; yi[4] < p->y.dim[4]; yi[4]++) {
                    xi[4] = yi[4] * p->stride[2] - p->pre[2] + r[2] * p->dilation[2];
                    if (xi[4] < 0 || xi[4] >= p->x.dim[4])
                        continue;
                    double v = simdnn_load(x, p->x.dtype, simdnn_offset(&p->x, xi)) *
                               simdnn_load(dy, p->y.dtype, simdnn_offset(&p->y, yi));
                    SIMDNN_ACC(p, acc, v);
                }
            }
        }
    }
    return acc;
}

/* Output element `i` of the convolution: a = x, b = w, out = y (forward);
 * a = dy, b = w, out = dx (backward data); a = x, b = dy, out = dw
 * (backward filter).  beta 0 does not read the output (cuDNN's rule:
 * with beta 0 the destination's prior contents, even NaN, do not matter). */
SIMLIB_HD void simdnn_conv_point(const struct simdnn_conv *p, const void *a, const void *b, void *out, int64_t i)
{
    int64_t idx[5];
    const struct simdnn_tensor *ot = p->dir == SIMDNN_FWD ? &p->y : p->dir == SIMDNN_BWD_DATA ? &p->x : &p->w;
    simdnn_unflatten(ot, i, idx);
    double acc = p->dir == SIMDNN_FWD        ? simdnn_fwd_sum(p, a, b, idx)
                 : p->dir == SIMDNN_BWD_DATA ? simdnn_bwd_data_sum(p, a, b, idx)
                                             : simdnn_bwd_filter_sum(p, a, b, idx);
    int64_t off = simdnn_offset(ot, idx);
    double v = p->alpha * acc;
    if (p->beta != 0)
        v += p->beta * simdnn_load(out, ot->dtype, off);
    simdnn_store(out, ot->dtype, off, v);
}
#endif
