/* dnn_diff LIBCUDNN: drives one sequence of cuDNN calls that need no GPU
 * (descriptor create / set / get / finalize of the backend graph API and
 * of the legacy tensor, filter and convolution descriptors) through the
 * libcudnn.so.9 at path LIBCUDNN, and prints one line per call: its status
 * and what it gave back.  sim/tests/dnn_diff.sh runs it on NVIDIA's cuDNN
 * (the nvidia-cudnn-cu13 wheel, on the CPU) and on the sim's and compares
 * the transcripts line by line: the sim must answer as the real library.
 * The sequence leaves out what differs by design (how many engines each
 * has, their configurations and plans, which need a GPU on NVIDIA's) and
 * what crashes NVIDIA's (sim/libs/cudnn/README.md). */
#include <cudnn.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNS(X)                                                                                                     \
    X(cudnnGetVersion) X(cudnnGetProperty) X(cudnnGetErrorString) X(cudnnBackendCreateDescriptor)                  \
    X(cudnnBackendDestroyDescriptor) X(cudnnBackendSetAttribute) X(cudnnBackendGetAttribute) X(cudnnBackendFinalize) \
    X(cudnnCreateTensorDescriptor) X(cudnnSetTensor4dDescriptor) X(cudnnSetTensorNdDescriptor)                     \
    X(cudnnSetTensorNdDescriptorEx) X(cudnnGetTensorNdDescriptor) X(cudnnGetTensorSizeInBytes)                     \
    X(cudnnDestroyTensorDescriptor) X(cudnnCreateFilterDescriptor) X(cudnnSetFilter4dDescriptor)                   \
    X(cudnnSetFilterNdDescriptor) X(cudnnGetFilterNdDescriptor) X(cudnnGetFilterSizeInBytes)                       \
    X(cudnnDestroyFilterDescriptor) X(cudnnCreateConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor)         \
    X(cudnnSetConvolutionNdDescriptor) X(cudnnSetConvolutionGroupCount) X(cudnnGetConvolutionGroupCount)           \
    X(cudnnSetConvolutionMathType) X(cudnnGetConvolutionMathType) X(cudnnGetConvolutionNdForwardOutputDim)         \
    X(cudnnDestroyConvolutionDescriptor)
#define DECL(n) static __typeof__(&n) p_##n;
FNS(DECL)
#define F(n) p_##n

typedef cudnnBackendDescriptor_t bd;
static int line;

/* One line: a number (so that lines pair up), the call, its status. */
#define S(call) printf("%3d %-44.44s %d\n", ++line, #call, (int)(call))

static bd mk(cudnnBackendDescriptorType_t t)
{
    bd d = NULL;
    printf("%3d create type %d: %d\n", ++line, (int)t, (int)F(cudnnBackendCreateDescriptor)(t, &d));
    return d;
}

static void set(bd d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t n, const void *v)
{
    printf("%3d set %d type %d count %lld: %d\n", ++line, (int)a, (int)t, (long long)n,
           (int)F(cudnnBackendSetAttribute)(d, a, t, n, v));
}

static void fin(bd d, const char *what)
{
    printf("%3d finalize %s: %d\n", ++line, what, (int)F(cudnnBackendFinalize)(d));
}

/* A getter of up to 8 int64-sized elements: status, count, the values. */
static void get(bd d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t req, bool array)
{
    int64_t n = -7, v[8];
    memset(v, 0xa5, sizeof v);
    cudnnStatus_t s = F(cudnnBackendGetAttribute)(d, a, t, req, &n, array ? v : NULL);
    printf("%3d get %d type %d req %lld: %d count %lld", ++line, (int)a, (int)t, (long long)req, (int)s,
           (long long)n);
    if (s == CUDNN_STATUS_SUCCESS && array)
        for (int64_t i = 0; i < n && i < req && i < 8; i++) {
            if (t == CUDNN_TYPE_INT64)
                printf(" %lld", (long long)v[i]);
            else if (t == CUDNN_TYPE_BOOLEAN)
                printf(" %d", (int)((bool *)v)[i]);
            else if (t == CUDNN_TYPE_DOUBLE)
                printf(" %g", ((double *)v)[i]);
            else if (t == CUDNN_TYPE_FLOAT)
                printf(" %g", (double)((float *)v)[i]);
            else if (t == CUDNN_TYPE_VOID_PTR)
                printf(" %p", ((void **)v)[i]);
            else
                printf(" %d", ((int *)v)[i]);
        }
    printf("\n");
}

static bd tensor(int64_t uid, const int64_t *dims, const int64_t *strides, int nd, int64_t align)
{
    bd t = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    fin(t, "tensor");
    return t;
}

static bd conv(int64_t pad, int64_t stride)
{
    bd c = mk(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t sd = 2, p[2] = { pad, pad }, one[2] = { 1, 1 }, s[2] = { stride, stride };
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t m = CUDNN_CROSS_CORRELATION;
    set(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd);
    set(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    set(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &m);
    set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    set(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one);
    set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s);
    fin(c, "convolution");
    return c;
}

static void backend(void)
{
    int64_t d4[4] = { 1, 3, 8, 8 }, s4[4] = { 192, 64, 8, 1 }, s3[3] = { 64, 8, 1 }, neg[4] = { 192, 64, -8, 1 };
    int64_t v = 5, two[2] = { 5, 6 };
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    /* a tensor, step by step */
    bd t = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, true);
    fin(t, "empty tensor");
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, 4, d4);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, d4);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, two);
    set(t, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    S(F(cudnnBackendSetAttribute)(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &v));
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, d4);
    fin(t, "dimensions only");
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, s3);
    fin(t, "three strides");
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, s4);
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &v);
    fin(t, "no alignment (default 1)");
    v = 3;
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &v);
    fin(t, "alignment 3");
    v = 4;
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &v);
    fin(t, "alignment 4");
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &v);
    fin(t, "again");
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, true);
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, true);
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, false);
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, true);
    get(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, 4, true);
    get(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 8, true);
    get(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, true);
    get(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, true);
    get(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, true);
    get(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, true);
    get(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, true);
    get(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, true);
    get(t, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, true);
    get(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, true);
    get(t, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, true);
    S(F(cudnnBackendDestroyDescriptor)(t));
    S(F(cudnnBackendDestroyDescriptor)(NULL));
    S(F(cudnnBackendFinalize)(NULL));
    /* tensors finalize with a zero dimension and overlapping strides, not a negative stride */
    int64_t z4[4] = { 1, 0, 8, 8 }, ov[4] = { 1, 1, 1, 1 };
    F(cudnnBackendDestroyDescriptor)(tensor(1, z4, s4, 4, 16));
    F(cudnnBackendDestroyDescriptor)(tensor(1, d4, ov, 4, 16));
    F(cudnnBackendDestroyDescriptor)(tensor(1, d4, neg, 4, 16));

    /* a convolution descriptor */
    bd c = mk(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t sd = 2, p3[3] = { 1, 1, 1 }, one[2] = { 1, 1 }, zero[2] = { 0, 0 }, negp[2] = { -1, 0 };
    cudnnConvolutionMode_t m = CUDNN_CROSS_CORRELATION;
    fin(c, "empty convolution");
    set(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd);
    fin(c, "spatial dimensions only");
    set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 3, p3);
    set(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p3);
    set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one);
    set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one);
    fin(c, "three pre-paddings");
    set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, negp);
    fin(c, "a negative padding");
    set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p3);
    set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, zero);
    fin(c, "a zero stride");
    set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one);
    set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, zero);
    fin(c, "a zero dilation");
    set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one);
    fin(c, "complete (mode and type left to their defaults)");
    get(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, true);
    get(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 8, true);
    get(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, true);
    get(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, true);
    set(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &m);
    F(cudnnBackendDestroyDescriptor)(c);

    /* the three convolution operations: a wrong output shape, then right */
    int64_t xd[4] = { 1, 3, 8, 8 }, wd[4] = { 4, 3, 3, 3 }, yd[4] = { 1, 4, 6, 6 }, yb[4] = { 1, 4, 7, 7 };
    int64_t xs[4] = { 192, 64, 8, 1 }, ws[4] = { 27, 9, 3, 1 }, ys[4] = { 144, 36, 6, 1 }, ybs[4] = { 196, 49, 7, 1 };
    bd x = tensor('x', xd, xs, 4, 16), w = tensor('w', wd, ws, 4, 16), y = tensor('y', yd, ys, 4, 16),
       ybad = tensor('y', yb, ybs, 4, 16);
    c = conv(0, 1);
    static const struct {
        cudnnBackendDescriptorType_t type;
        cudnnBackendAttributeName_t x, w, y, c, alpha, beta;
    } ops[3] = {
        { CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA },
        { CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA },
        { CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA },
    };
    bd op[3];
    double one_d = 1;
    float zero_f = 0;
    for (int i = 0; i < 3; i++) {
        bd bad = mk(ops[i].type);
        fin(bad, "empty operation");
        set(bad, ops[i].x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
        set(bad, ops[i].w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
        set(bad, ops[i].y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ybad);
        set(bad, ops[i].c, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
        fin(bad, "an output of the wrong size");
        F(cudnnBackendDestroyDescriptor)(bad);
        op[i] = mk(ops[i].type);
        set(op[i], ops[i].x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
        set(op[i], ops[i].w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
        set(op[i], ops[i].y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
        set(op[i], ops[i].c, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
        set(op[i], ops[i].alpha, CUDNN_TYPE_DOUBLE, 1, &one_d);
        set(op[i], ops[i].beta, CUDNN_TYPE_FLOAT, 1, &zero_f);
        set(op[i], ops[i].alpha, CUDNN_TYPE_INT64, 1, &v);
        fin(op[i], "operation");
        get(op[i], ops[i].alpha, CUDNN_TYPE_FLOAT, 1, true);
        get(op[i], ops[i].alpha, CUDNN_TYPE_DOUBLE, 1, true);
        get(op[i], ops[i].beta, CUDNN_TYPE_FLOAT, 1, true);
    }

    /* an operation graph, heuristics, an engine */
    bd g = mk(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    fin(g, "empty graph");
    F(cudnnBackendDestroyDescriptor)(g);
    g = mk(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op[0]);
    fin(g, "graph");
    get(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, false);
    bd h = mk(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    fin(h, "heuristics without a graph");
    F(cudnnBackendDestroyDescriptor)(h);
    h = mk(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_INSTANT;
    set(h, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    set(h, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
    fin(h, "heuristics");
    get(h, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, true);
    bd e = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t zero64 = 0;
    set(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    set(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &zero64);
    fin(e, "engine 0");
    get(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, true);
    get(e, CUDNN_ATTR_ENGINE_SM_COUNT_TARGET, CUDNN_TYPE_INT32, 1, true);
    bd k = mk(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    cudnnBackendKnobType_t kt = CUDNN_KNOB_TYPE_TILE_SIZE;
    int64_t kv = 3;
    set(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &kt);
    set(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &kv);
    fin(k, "knob choice");
    get(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, true);

    /* variant packs: UNIQUE_IDS and DATA_POINTERS are not given back once finalized */
    int64_t uids[3] = { 'x', 'w', 'y' };
    void *ptrs[3] = { (void *)0x1000, (void *)0x2000, (void *)0x3000 }, *wsp = (void *)0x4000;
    bd vp = mk(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    set(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    set(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, ptrs);
    fin(vp, "3 ids, 2 pointers");
    get(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, true);
    set(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 2, ptrs);
    set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp);
    fin(vp, "variant pack");
    get(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, true);
    get(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, true);
    get(vp, CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR, 1, true);
    get(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, true);
    set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp);
    bd vp0 = mk(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    fin(vp0, "an empty variant pack");
    get(vp0, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, true);
    bd all[] = { vp0, vp, k, e, h, g, op[2], op[1], op[0], c, ybad, y, w, x };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        S(F(cudnnBackendDestroyDescriptor)(all[i]));
}

static void legacy(void)
{
    cudnnTensorDescriptor_t t;
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t c;
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    int nb = -1, gd[8], gs[8], d[8] = { 2, 3, 4, 5, 6, 7, 8, 9 }, st[4] = { 60, 20, 5, 1 }, z[4] = { 1, 0, 3, 3 },
        s0[4] = { 0, 0, 0, 1 };
    size_t sz = 0;
    S(F(cudnnCreateTensorDescriptor)(&t));
    S(F(cudnnSetTensor4dDescriptor)(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    S(F(cudnnGetTensorNdDescriptor)(t, 8, &dt, &nb, gd, gs));
    printf("%3d   %d %d: %d %d %d %d / %d %d %d %d\n", ++line, (int)dt, nb, gd[0], gd[1], gd[2], gd[3], gs[0], gs[1],
           gs[2], gs[3]);
    S(F(cudnnSetTensor4dDescriptor)(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 4, 5));
    S(F(cudnnSetTensorNdDescriptor)(t, CUDNN_DATA_FLOAT, 1, d, st + 3));
    S(F(cudnnSetTensorNdDescriptor)(t, CUDNN_DATA_FLOAT, 9, d, st));
    S(F(cudnnSetTensorNdDescriptor)(t, CUDNN_DATA_FLOAT, 4, z, st));
    S(F(cudnnSetTensorNdDescriptor)(t, CUDNN_DATA_FLOAT, 4, d, s0));
    S(F(cudnnSetTensorNdDescriptor)(t, CUDNN_DATA_HALF, 4, d, st));
    S(F(cudnnGetTensorSizeInBytes)(t, &sz));
    printf("%3d   size %zu\n", ++line, sz);
    S(F(cudnnSetTensorNdDescriptorEx)(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 5, d));
    S(F(cudnnGetTensorNdDescriptor)(t, 2, &dt, &nb, gd, gs));
    printf("%3d   %d: %d %d / %d %d\n", ++line, nb, gd[0], gd[1], gs[0], gs[1]);
    S(F(cudnnGetTensorSizeInBytes)(t, &sz));
    printf("%3d   size %zu\n", ++line, sz);
    S(F(cudnnDestroyTensorDescriptor)(NULL));
    S(F(cudnnCreateFilterDescriptor)(&f));
    S(F(cudnnSetFilter4dDescriptor)(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 4, 3, 2, 2));
    S(F(cudnnGetFilterNdDescriptor)(f, 8, &dt, &fmt, &nb, gd));
    printf("%3d   %d %d %d: %d %d %d %d\n", ++line, (int)dt, (int)fmt, nb, gd[0], gd[1], gd[2], gd[3]);
    S(F(cudnnGetFilterSizeInBytes)(f, &sz));
    printf("%3d   size %zu\n", ++line, sz);
    S(F(cudnnSetFilterNdDescriptor)(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, d));
    S(F(cudnnSetFilterNdDescriptor)(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, z));
    S(F(cudnnCreateConvolutionDescriptor)(&c));
    int g = -1;
    cudnnMathType_t mt;
    S(F(cudnnGetConvolutionGroupCount)(c, &g));
    S(F(cudnnGetConvolutionMathType)(c, &mt));
    printf("%3d   groups %d math %d\n", ++line, g, (int)mt);
    S(F(cudnnSetConvolution2dDescriptor)(c, -1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    S(F(cudnnSetConvolution2dDescriptor)(c, 1, 1, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    S(F(cudnnSetConvolution2dDescriptor)(c, 1, 1, 1, 1, 0, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    S(F(cudnnSetConvolution2dDescriptor)(c, 1, 1, 1, 1, 1, 1, (cudnnConvolutionMode_t)5, CUDNN_DATA_FLOAT));
    S(F(cudnnSetConvolution2dDescriptor)(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    S(F(cudnnSetConvolutionGroupCount)(c, 0));
    S(F(cudnnSetConvolutionMathType)(c, (cudnnMathType_t)9));
    S(F(cudnnSetTensor4dDescriptor)(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 8, 8));
    S(F(cudnnSetFilter4dDescriptor)(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    int od[4] = { -1, -1, -1, -1 };
    S(F(cudnnGetConvolutionNdForwardOutputDim)(c, t, f, 4, od));
    printf("%3d   out %d %d %d %d\n", ++line, od[0], od[1], od[2], od[3]);
    S(F(cudnnDestroyConvolutionDescriptor)(c));
    S(F(cudnnDestroyFilterDescriptor)(f));
    S(F(cudnnDestroyTensorDescriptor)(t));
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setvbuf(stdout, NULL, _IONBF, 0);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dnn_diff: %s\n", dlerror());
        return 2;
    }
#define BIND(n)                                                                  \
    if (!(*(void **)&p_##n = dlsym(lib, #n))) {                                  \
        fprintf(stderr, "dnn_diff: no %s in %s\n", #n, argv[1]);                 \
        return 2;                                                                \
    }
    FNS(BIND)
    printf("version %zu\n", F(cudnnGetVersion)());
    int v[3] = { -1, -1, -1 };
    S(F(cudnnGetProperty)(MAJOR_VERSION, &v[0]));
    S(F(cudnnGetProperty)(MINOR_VERSION, &v[1]));
    S(F(cudnnGetProperty)(PATCH_LEVEL, &v[2]));
    S(F(cudnnGetProperty)((libraryPropertyType)7, &v[2]));
    printf("%3d   %d.%d.%d\n", ++line, v[0], v[1], v[2]);
    static const int st[] = { 0, 1001, 2000, 2001, 2002, 2004, 2010, 3000, 3001, 4003, 5000, 9999, -1 };
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        printf("%3d status %d: %s\n", ++line, st[i], F(cudnnGetErrorString)((cudnnStatus_t)st[i]));
    backend();
    legacy();
    printf("dnn_diff: %d lines\n", line);
    return 0;
}
