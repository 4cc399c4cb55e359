/* dnn_conv MODE: the sim's cuDNN computing convolutions on simulated GPUs
 * (sim/tests/dnn_conv.sh).  Each case builds its convolution the way
 * PyTorch's cudnn-frontend does (tensors, convolution, operation, graph,
 * heuristics INSTANT, the first engine configuration, a plan with the
 * handle, its workspace size, a variant pack) or calls the legacy API
 * (cudnnConvolutionForward/BackwardData/BackwardFilter), runs it on the
 * handle's stream and compares every element with a reference computed
 * here in double: "case NAME: max error E (tolerance T) ok".
 *   values   forward / backward data / backward filter; NCHW and NHWC
 *            strides; padding, stride, dilation, groups; CONVOLUTION mode;
 *            float, half, bfloat16, double; 1d (as 2d), 2d, 3d; legacy API
 *   wrongdev the handle on cuda:0, x on cuda:1 (no peer access): execute
 *            succeeds, the stream's synchronisation reports the fault
 *   stream   cudnnSetStream with a stream of cuda:1 on a cuda:0 handle */
#include <cudnn.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck.h"

typedef cudnnBackendDescriptor_t bd;
enum { FWD, BDATA, BFILT };

struct conv_case {
    const char *name;
    int dir, nsp;
    int64_t n, c, k, groups;
    int64_t in[3], f[3], pad[3], stride[3], dil[3];
    cudnnDataType_t dt;
    bool nhwc, flip, legacy;
    double alpha, beta;
};

/* ---- host values in the tensor's type */
static uint16_t to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 0xff, m = u & 0x7fffff;
    int ee = (int)e - 127 + 15;
    if (ee <= 0)
        return (uint16_t)s;                         /* the test's values stay normal */
    uint32_t h = ((uint32_t)ee << 10) | (m >> 13), r = m & 0x1fff;
    if (r > 0x1000 || (r == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(s | h);
}
static float from_half(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t u = e ? s | ((e + 112) << 23) | (m << 13) : s;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
static float from_bf16(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static size_t esize(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_FLOAT ? 4 : 2; }
static double get(const void *p, cudnnDataType_t t, int64_t i)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return from_half(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return from_bf16(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}
static void put(void *p, cudnnDataType_t t, int64_t i, double v)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = to_half((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

/* A tensor [d0, d1, s...] (nd = 2 + nsp), packed NCHW or NHWC. */
struct tens {
    int nd;
    int64_t dim[5], str[5], count;
};
static void layout(struct tens *t, int nd, const int64_t *dim, bool nhwc)
{
    t->nd = nd;
    t->count = 1;
    for (int i = 0; i < nd; i++)
        t->dim[i] = dim[i], t->count *= dim[i];
    int64_t s = 1;
    if (nhwc) {
        t->str[1] = s, s *= dim[1];
        for (int i = nd - 1; i >= 2; i--)
            t->str[i] = s, s *= dim[i];
        t->str[0] = s;
    } else {
        for (int i = nd - 1; i >= 0; i--)
            t->str[i] = s, s *= dim[i];
    }
}
static int64_t at(const struct tens *t, const int64_t *idx)
{
    int64_t o = 0;
    for (int i = 0; i < t->nd; i++)
        o += idx[i] * t->str[i];
    return o;
}

/* The reference: y[n,k,o] = sum x[n, g*cg+c, o*s - p + r*d] * w[k, c, r] (r flipped in
 * CONVOLUTION mode), accumulated for every (n,k,o,c,r) into the chosen output. */
static void reference(const struct conv_case *cc, const struct tens *X, const struct tens *W, const struct tens *Y,
                      const double *x, const double *w, const double *y, double *out)
{
    int nsp = cc->nsp;
    int64_t cg = cc->c / cc->groups, kg = cc->k / cc->groups;
    int64_t osz[3] = { 1, 1, 1 }, fsz[3] = { 1, 1, 1 };
    for (int i = 0; i < nsp; i++)
        osz[i] = Y->dim[2 + i], fsz[i] = cc->f[i];
    for (int64_t n = 0; n < cc->n; n++)
        for (int64_t k = 0; k < cc->k; k++)
            for (int64_t o0 = 0; o0 < osz[0]; o0++)
                for (int64_t o1 = 0; o1 < osz[1]; o1++)
                    for (int64_t o2 = 0; o2 < osz[2]; o2++)
                        for (int64_t c = 0; c < cg; c++)
                            for (int64_t r0 = 0; r0 < fsz[0]; r0++)
                                for (int64_t r1 = 0; r1 < fsz[1]; r1++)
                                    for (int64_t r2 = 0; r2 < fsz[2]; r2++) {
                                        int64_t o[3] = { o0, o1, o2 }, r[3] = { r0, r1, r2 };
                                        int64_t xi[5] = { n, (k / kg) * cg + c }, wi[5] = { k, c },
                                                yi[5] = { n, k };
                                        bool in = true;
                                        for (int s = 0; s < nsp; s++) {
                                            xi[2 + s] = o[s] * cc->stride[s] - cc->pad[s] + r[s] * cc->dil[s];
                                            in = in && xi[2 + s] >= 0 && xi[2 + s] < cc->in[s];
                                            wi[2 + s] = cc->flip ? fsz[s] - 1 - r[s] : r[s];
                                            yi[2 + s] = o[s];
                                        }
                                        if (!in)
                                            continue;
                                        int64_t xo = at(X, xi), wo = at(W, wi), yo = at(Y, yi);
                                        if (cc->dir == FWD)
                                            out[yo] += x[xo] * w[wo];
                                        else if (cc->dir == BDATA)
                                            out[xo] += y[yo] * w[wo];
                                        else
                                            out[wo] += x[xo] * y[yo];
                                    }
}

static void set1(bd d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, const void *v)
{
    CK(cudnnBackendSetAttribute(d, a, t, 1, v));
}

static bd tensor_desc(const struct tens *t, cudnnDataType_t dt, int64_t uid)
{
    bd d;
    int64_t align = 16;
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    set1(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &dt);
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, t->nd, t->dim));
    CK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, t->nd, t->str));
    set1(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid);
    set1(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &align);
    CK(cudnnBackendFinalize(d));
    return d;
}

/* The graph API, as cudnn-frontend drives it; returns execute's status. */
static cudnnStatus_t run_backend(cudnnHandle_t h, const struct conv_case *cc, const struct tens *X,
                                 const struct tens *W, const struct tens *Y, void *dx, void *dw, void *dy)
{
    static const cudnnBackendDescriptorType_t optype[3] = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR };
    static const cudnnBackendAttributeName_t attr[3][6] = {
        { CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA },
        { CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA },
        { CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA } };
    bd x = tensor_desc(X, cc->dt, 'x'), w = tensor_desc(W, cc->dt, 'w'), y = tensor_desc(Y, cc->dt, 'y'), c, op, g,
       heur, cfg, plan, vp;
    int64_t nsp = cc->nsp, post[3];
    for (int i = 0; i < 3; i++)     /* post padding so that the output size is exact */
        post[i] = cc->pad[i];
    cudnnDataType_t comp = cc->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = cc->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c));
    set1(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &nsp);
    set1(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &comp);
    set1(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode);
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsp, cc->pad));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsp, post));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsp, cc->stride));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsp, cc->dil));
    CK(cudnnBackendFinalize(c));
    const cudnnBackendAttributeName_t *a = attr[cc->dir];
    CK(cudnnBackendCreateDescriptor(optype[cc->dir], &op));
    set1(op, a[0], CUDNN_TYPE_BACKEND_DESCRIPTOR, &x);
    set1(op, a[1], CUDNN_TYPE_BACKEND_DESCRIPTOR, &w);
    set1(op, a[2], CUDNN_TYPE_BACKEND_DESCRIPTOR, &y);
    set1(op, a[3], CUDNN_TYPE_BACKEND_DESCRIPTOR, &c);
    set1(op, a[4], CUDNN_TYPE_DOUBLE, &cc->alpha);
    set1(op, a[5], CUDNN_TYPE_DOUBLE, &cc->beta);
    CK(cudnnBackendFinalize(op));
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    set1(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &h);
    set1(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &op);
    CK(cudnnBackendFinalize(g));
    cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_INSTANT;
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    set1(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &g);
    set1(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &hm);
    CK(cudnnBackendFinalize(heur));
    int64_t count = -1, got = -1, ws = -1;
    CK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    if (count < 1) {
        fprintf(stderr, "%s: no engine configuration\n", cc->name);
        exit(3);
    }
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &cfg));
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    set1(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &h);
    set1(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cfg);
    CK(cudnnBackendFinalize(plan));
    CK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &ws));
    void *ptrs[3] = { dx, dw, dy };
    int64_t uids[3] = { 'x', 'w', 'y' };
    CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CK(cudnnBackendFinalize(vp));
    cudnnStatus_t r = cudnnBackendExecute(h, plan, vp);
    bd all[] = { vp, plan, cfg, heur, g, op, c, y, w, x };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        CK(cudnnBackendDestroyDescriptor(all[i]));
    return r;
}

/* The legacy API (cudnn_ops.h / cudnn_cnn.h descriptors). */
static cudnnStatus_t run_legacy(cudnnHandle_t h, const struct conv_case *cc, const struct tens *X,
                                const struct tens *W, const struct tens *Y, void *dx, void *dw, void *dy)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int xdim[5], xstr[5], ydim[5], ystr[5], wdim[5], pad[3], str[3], dil[3];
    for (int i = 0; i < X->nd; i++) {
        xdim[i] = (int)X->dim[i], xstr[i] = (int)X->str[i];
        ydim[i] = (int)Y->dim[i], ystr[i] = (int)Y->str[i];
        wdim[i] = (int)W->dim[i];
    }
    for (int i = 0; i < cc->nsp; i++)
        pad[i] = (int)cc->pad[i], str[i] = (int)cc->stride[i], dil[i] = (int)cc->dil[i];
    CK(cudnnCreateTensorDescriptor(&xd));
    CK(cudnnCreateTensorDescriptor(&yd));
    CK(cudnnCreateFilterDescriptor(&wd));
    CK(cudnnCreateConvolutionDescriptor(&cd));
    CK(cudnnSetTensorNdDescriptor(xd, cc->dt, X->nd, xdim, xstr));
    CK(cudnnSetTensorNdDescriptor(yd, cc->dt, Y->nd, ydim, ystr));
    CK(cudnnSetFilterNdDescriptor(wd, cc->dt, cc->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, W->nd, wdim));
    CK(cudnnSetConvolutionNdDescriptor(cd, cc->nsp, pad, str, dil, cc->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                       cc->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    CK(cudnnSetConvolutionGroupCount(cd, (int)cc->groups));
    int od[5];
    CK(cudnnGetConvolutionNdForwardOutputDim(cd, xd, wd, X->nd, od));
    for (int i = 0; i < X->nd; i++)
        if (od[i] != ydim[i]) {
            fprintf(stderr, "%s: output dimension %d is %d, want %d\n", cc->name, i, od[i], ydim[i]);
            exit(3);
        }
    float fa = (float)cc->alpha, fb = (float)cc->beta;
    const void *alpha = cc->dt == CUDNN_DATA_DOUBLE ? (const void *)&cc->alpha : &fa;
    const void *beta = cc->dt == CUDNN_DATA_DOUBLE ? (const void *)&cc->beta : &fb;
    cudnnStatus_t r;
    size_t wsz = 1;
    if (cc->dir == FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf;
        int n = 0;
        CK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 1, &n, &perf));
        CK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, perf.algo, &wsz));
        r = cudnnConvolutionForward(h, alpha, xd, dx, wd, dw, cd, perf.algo, NULL, 0, beta, yd, dy);
    } else if (cc->dir == BDATA) {
        r = cudnnConvolutionBackwardData(h, alpha, wd, dw, yd, dy, cd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, NULL, 0,
                                         beta, xd, dx);
    } else {
        r = cudnnConvolutionBackwardFilter(h, alpha, xd, dx, yd, dy, cd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, NULL,
                                           0, beta, wd, dw);
    }
    CK(cudnnDestroyConvolutionDescriptor(cd));
    CK(cudnnDestroyFilterDescriptor(wd));
    CK(cudnnDestroyTensorDescriptor(yd));
    CK(cudnnDestroyTensorDescriptor(xd));
    return r;
}

/* Runs one case; -1 when execute failed, else the max error. */
static double run_case(cudnnHandle_t h, const struct conv_case *cc, int xdev, cudaStream_t s, cudnnStatus_t *st)
{
    int nd = 2 + cc->nsp;
    int64_t xdim[5] = { cc->n, cc->c }, wdim[5] = { cc->k, cc->c / cc->groups }, ydim[5] = { cc->n, cc->k };
    for (int i = 0; i < cc->nsp; i++) {
        xdim[2 + i] = cc->in[i];
        wdim[2 + i] = cc->f[i];
        ydim[2 + i] = (cc->in[i] + 2 * cc->pad[i] - cc->dil[i] * (cc->f[i] - 1) - 1) / cc->stride[i] + 1;
    }
    struct tens X, W, Y;
    layout(&X, nd, xdim, cc->nhwc);
    layout(&W, nd, wdim, cc->nhwc);
    layout(&Y, nd, ydim, cc->nhwc);
    size_t es = esize(cc->dt);
    const struct tens *T[3] = { &X, &W, &Y };
    double *hv[3], *ref = NULL;
    void *hb[3], *dv[3];
    int out = cc->dir == FWD ? 2 : cc->dir == BDATA ? 0 : 1;
    unsigned seed = 12345;
    for (int t = 0; t < 3; t++) {
        hv[t] = malloc((size_t)T[t]->count * sizeof(double));
        hb[t] = malloc((size_t)T[t]->count * es);
        for (int64_t i = 0; i < T[t]->count; i++) {
            seed = seed * 1103515245u + 12345u;
            put(hb[t], cc->dt, i, ((double)((seed >> 8) % 2001) - 1000.0) / 1000.0);
            hv[t][i] = get(hb[t], cc->dt, i);       /* the value the device holds */
        }
        CK(cudaSetDevice(t == 0 ? xdev : 0));
        CK(cudaMalloc(&dv[t], (size_t)T[t]->count * es));
        CK(cudaMemcpy(dv[t], hb[t], (size_t)T[t]->count * es, cudaMemcpyHostToDevice));
    }
    CK(cudaSetDevice(0));
    ref = calloc((size_t)T[out]->count, sizeof(double));
    reference(cc, &X, &W, &Y, hv[0], hv[1], hv[2], ref);
    for (int64_t i = 0; i < T[out]->count; i++)
        ref[i] = cc->alpha * ref[i] + cc->beta * hv[out][i];
    *st = cc->legacy ? run_legacy(h, cc, &X, &W, &Y, dv[0], dv[1], dv[2])
                     : run_backend(h, cc, &X, &W, &Y, dv[0], dv[1], dv[2]);
    double err = -1;
    cudaError_t e = cudaStreamSynchronize(s);
    if (*st == CUDNN_STATUS_SUCCESS && e == cudaSuccess) {
        CK(cudaMemcpy(hb[out], dv[out], (size_t)T[out]->count * es, cudaMemcpyDeviceToHost));
        err = 0;
        for (int64_t i = 0; i < T[out]->count; i++) {
            double d = fabs(get(hb[out], cc->dt, i) - ref[i]) / (1.0 + fabs(ref[i]));
            if (d > err)
                err = d;
        }
    } else if (e != cudaSuccess) {
        printf("%s: cudnn status %d, stream synchronize: %s\n", cc->name, (int)*st, cudaGetErrorName(e));
    }
    for (int t = 0; t < 3; t++) {
        free(hv[t]);
        free(hb[t]);
        cudaFree(dv[t]);
    }
    free(ref);
    return err;
}

#define P3(a, b, c) { a, b, c }
static const struct conv_case cases[] = {
    /* name, dir, nsp, n, c, k, groups, in, f, pad, stride, dil, dtype, nhwc, flip, legacy, alpha, beta */
    { "fwd_nchw_f32", FWD, 2, 2, 3, 4, 1, P3(7, 6, 1), P3(3, 3, 1), P3(1, 0, 0), P3(1, 1, 1), P3(1, 1, 1),
      CUDNN_DATA_FLOAT, false, false, false, 1, 0 },
    { "fwd_nhwc_f32", FWD, 2, 2, 4, 6, 2, P3(9, 8, 1), P3(3, 2, 1), P3(2, 1, 0), P3(2, 1, 1), P3(2, 1, 1),
      CUDNN_DATA_FLOAT, true, false, false, 1, 0 },
    { "fwd_conv_mode_beta", FWD, 2, 1, 2, 3, 1, P3(5, 5, 1), P3(3, 3, 1), P3(1, 1, 0), P3(1, 1, 1), P3(1, 1, 1),
      CUDNN_DATA_FLOAT, false, true, false, 0.5, 2 },
    { "fwd_1d_as_2d", FWD, 2, 2, 3, 5, 1, P3(1, 17, 1), P3(1, 4, 1), P3(0, 2, 0), P3(1, 3, 1), P3(1, 1, 1),
      CUDNN_DATA_FLOAT, false, false, false, 1, 0 },
    { "fwd_3d_f64", FWD, 3, 1, 2, 2, 1, P3(4, 5, 3), P3(2, 3, 2), P3(1, 1, 0), P3(1, 2, 1), P3(1, 1, 1),
      CUDNN_DATA_DOUBLE, false, false, false, 1, 0 },
    { "fwd_f16", FWD, 2, 2, 4, 4, 4, P3(6, 6, 1), P3(3, 3, 1), P3(1, 1, 0), P3(1, 1, 1), P3(1, 1, 1),
      CUDNN_DATA_HALF, true, false, false, 1, 0 },
    { "fwd_bf16", FWD, 2, 1, 3, 2, 1, P3(5, 7, 1), P3(2, 2, 1), P3(0, 0, 0), P3(1, 2, 1), P3(1, 1, 1),
      CUDNN_DATA_BFLOAT16, false, false, false, 1, 0 },
    { "bwd_data_nchw", BDATA, 2, 2, 4, 6, 2, P3(9, 8, 1), P3(3, 2, 1), P3(2, 1, 0), P3(2, 1, 1), P3(2, 1, 1),
      CUDNN_DATA_FLOAT, false, false, false, 1, 0 },
    { "bwd_data_nhwc_f16", BDATA, 2, 1, 3, 4, 1, P3(6, 5, 1), P3(3, 3, 1), P3(1, 1, 0), P3(2, 2, 1), P3(1, 1, 1),
      CUDNN_DATA_HALF, true, false, false, 1, 0 },
    { "bwd_filter_nchw", BFILT, 2, 2, 4, 6, 2, P3(9, 8, 1), P3(3, 2, 1), P3(2, 1, 0), P3(2, 1, 1), P3(2, 1, 1),
      CUDNN_DATA_FLOAT, false, false, false, 1, 0 },
    { "bwd_filter_nhwc_bf16", BFILT, 2, 2, 3, 2, 1, P3(5, 5, 1), P3(3, 3, 1), P3(1, 1, 0), P3(1, 1, 1),
      P3(1, 1, 1), CUDNN_DATA_BFLOAT16, true, false, false, 1, 0 },
    { "legacy_fwd", FWD, 2, 2, 4, 6, 2, P3(9, 8, 1), P3(3, 2, 1), P3(2, 1, 0), P3(2, 1, 1), P3(2, 1, 1),
      CUDNN_DATA_FLOAT, true, false, true, 1, 0 },
    { "legacy_bwd_data", BDATA, 2, 2, 3, 4, 1, P3(6, 6, 1), P3(3, 3, 1), P3(1, 1, 0), P3(2, 2, 1), P3(1, 1, 1),
      CUDNN_DATA_FLOAT, false, false, true, 1, 0 },
    { "legacy_bwd_filter_f64", BFILT, 2, 2, 3, 4, 1, P3(6, 6, 1), P3(3, 3, 1), P3(1, 1, 0), P3(1, 1, 1),
      P3(1, 1, 1), CUDNN_DATA_DOUBLE, false, true, true, 1, 1 },
};

/* Relative errors: float and double compute in float (double for double
 * data); half and bfloat16 round the result once (2^-11, 2^-8 of a value
 * up to the sum's size). */
static double tolerance(cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? 1e-12 : t == CUDNN_DATA_FLOAT ? 1e-5 : t == CUDNN_DATA_HALF ? 2e-3 : 1.6e-2;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "values";
    setvbuf(stdout, NULL, _IONBF, 0);
    cudnnHandle_t h;
    cudaStream_t s;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&s));
    CK(cudnnCreate(&h));
    CK(cudnnSetStream(h, s));
    if (!strcmp(mode, "values")) {
        int bad = 0;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            cudnnStatus_t st;
            double err = run_case(h, &cases[i], 0, s, &st), tol = tolerance(cases[i].dt);
            printf("case %s: status %d max error %.3g (tolerance %.3g) %s\n", cases[i].name, (int)st, err, tol,
                   st == 0 && err >= 0 && err <= tol ? "ok" : "FAILED");
            bad += !(st == 0 && err >= 0 && err <= tol);
        }
        printf("dnn_conv values: %d failed\n", bad);
        return bad != 0;
    }
    if (!strcmp(mode, "wrongdev")) {
        cudnnStatus_t st;
        double err = run_case(h, &cases[0], 1, s, &st);
        printf("wrongdev: execute status %d, %s\n", (int)st, err < 0 ? "no result" : "a result");
        return 0;
    }
    if (!strcmp(mode, "stream")) {
        cudaStream_t s1;
        CK(cudaSetDevice(1));
        CK(cudaStreamCreate(&s1));
        CK(cudaSetDevice(0));
        printf("stream: cudnnSetStream(cuda:1 stream) = %d, cudnnSetStream(NULL) = %d\n", (int)cudnnSetStream(h, s1),
               (int)cudnnSetStream(h, NULL));
        return 0;
    }
    fprintf(stderr, "dnn_conv: unknown mode %s\n", mode);
    return 2;
}
