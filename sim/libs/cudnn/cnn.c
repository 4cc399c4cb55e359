/* libcudnn_cnn.so.9 of the sim (sim/libs/cudnn/README.md): the legacy
 * convolution descriptor and convolutions (cudnn_cnn.h).  As in cuDNN 9,
 * where the legacy API runs on the graph engines, each convolution builds
 * a backend graph of one operation through libcudnn_graph.so.9's public
 * API (tensors, convolution, operation, graph, engine 0, configuration,
 * plan, variant pack) and executes it: one implementation computes both.
 * The descriptor's rules are cuDNN 9.26's on the CPU (its messages); the
 * sim has one algorithm of each kind (IMPLICIT_GEMM / ALGO_0), needs no
 * workspace, and accepts every algorithm the header names. */
#include <cudnn_cnn.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv_attrs.h"

#define EXPORT __attribute__((visibility("default")))
#define NSP (CUDNN_DIM_MAX - 2)

struct cudnnConvolutionStruct {
    int nsp;                        /* spatial dimensions; 0 until set */
    int pad[NSP], stride[NSP], dilation[NSP];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
    cudnnMathType_t math;
    int groups;
    cudnnReorderType_t reorder;
};

EXPORT cudnnStatus_t CUDNNWINAPI cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)
{
    if (!convDesc)
        return CUDNN_STATUS_BAD_PARAM;
    struct cudnnConvolutionStruct *c = calloc(1, sizeof *c);
    if (!c)
        return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    c->groups = 1;                  /* 9.26: a fresh descriptor has 1 group, DEFAULT_MATH */
    c->mode = CUDNN_CONVOLUTION;
    *convDesc = c;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
    free(convDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* 9.26: paddings >= 0, strides and dilations > 0, mode CONVOLUTION or
 * CROSS_CORRELATION; 1 to CUDNN_DIM_MAX - 2 spatial dimensions. */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                                                 int arrayLength, const int padA[],
                                                                 const int filterStrideA[], const int dilationA[],
                                                                 cudnnConvolutionMode_t mode,
                                                                 cudnnDataType_t computeType)
{
    if (!convDesc || !padA || !filterStrideA || !dilationA || arrayLength < 1 || arrayLength > NSP ||
        (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
        return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < arrayLength; i++)
        if (padA[i] < 0 || filterStrideA[i] <= 0 || dilationA[i] <= 0)
            return CUDNN_STATUS_BAD_PARAM;
    convDesc->nsp = arrayLength;
    for (int i = 0; i < arrayLength; i++) {
        convDesc->pad[i] = padA[i];
        convDesc->stride[i] = filterStrideA[i];
        convDesc->dilation[i] = dilationA[i];
    }
    convDesc->mode = mode;
    convDesc->compute = computeType;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h,
                                                                 int pad_w, int u, int v, int dilation_h,
                                                                 int dilation_w, cudnnConvolutionMode_t mode,
                                                                 cudnnDataType_t computeType)
{
    int pad[2] = { pad_h, pad_w }, stride[2] = { u, v }, dil[2] = { dilation_h, dilation_w };
    return cudnnSetConvolutionNdDescriptor(convDesc, 2, pad, stride, dil, mode, computeType);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                                 int arrayLengthRequested, int *arrayLength,
                                                                 int padA[], int strideA[], int dilationA[],
                                                                 cudnnConvolutionMode_t *mode,
                                                                 cudnnDataType_t *computeType)
{
    if (!convDesc || !arrayLength || !mode || !computeType || arrayLengthRequested < 0 ||
        (arrayLengthRequested > 0 && (!padA || !strideA || !dilationA)))
        return CUDNN_STATUS_BAD_PARAM;
    *arrayLength = convDesc->nsp;
    for (int i = 0; i < arrayLengthRequested && i < convDesc->nsp; i++) {
        padA[i] = convDesc->pad[i];
        strideA[i] = convDesc->stride[i];
        dilationA[i] = convDesc->dilation[i];
    }
    *mode = convDesc->mode;
    *computeType = convDesc->compute;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                                 int *pad_h, int *pad_w, int *u, int *v,
                                                                 int *dilation_h, int *dilation_w,
                                                                 cudnnConvolutionMode_t *mode,
                                                                 cudnnDataType_t *computeType)
{
    if (!convDesc || !pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode || !computeType ||
        convDesc->nsp != 2)
        return CUDNN_STATUS_BAD_PARAM;
    *pad_h = convDesc->pad[0], *pad_w = convDesc->pad[1];
    *u = convDesc->stride[0], *v = convDesc->stride[1];
    *dilation_h = convDesc->dilation[0], *dilation_w = convDesc->dilation[1];
    *mode = convDesc->mode;
    *computeType = convDesc->compute;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                             cudnnMathType_t mathType)
{
    if (!convDesc || (unsigned)mathType > CUDNN_FMA_MATH)
        return CUDNN_STATUS_BAD_PARAM;
    convDesc->math = mathType;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                             cudnnMathType_t *mathType)
{
    if (!convDesc || !mathType)
        return CUDNN_STATUS_BAD_PARAM;
    *mathType = convDesc->math;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount)
{
    if (!convDesc || groupCount < 1)
        return CUDNN_STATUS_BAD_PARAM;
    convDesc->groups = groupCount;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc,
                                                               int *groupCount)
{
    if (!convDesc || !groupCount)
        return CUDNN_STATUS_BAD_PARAM;
    *groupCount = convDesc->groups;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                                cudnnReorderType_t reorderType)
{
    if (!convDesc || (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER))
        return CUDNN_STATUS_BAD_PARAM;
    convDesc->reorder = reorderType;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                                cudnnReorderType_t *reorderType)
{
    if (!convDesc || !reorderType)
        return CUDNN_STATUS_BAD_PARAM;
    *reorderType = convDesc->reorder;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- shapes */
struct shape {
    cudnnDataType_t dtype;
    int nb;
    int64_t dim[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
};

static int tensor_shape(cudnnTensorDescriptor_t t, struct shape *s)
{
    int dim[CUDNN_DIM_MAX], str[CUDNN_DIM_MAX];
    if (!t || cudnnGetTensorNdDescriptor(t, CUDNN_DIM_MAX, &s->dtype, &s->nb, dim, str) != CUDNN_STATUS_SUCCESS ||
        s->nb < 3)
        return -1;
    for (int i = 0; i < s->nb; i++)
        s->dim[i] = dim[i], s->stride[i] = str[i];
    return 0;
}

/* A filter's strides come from its format: NCHW is [K, C, spatial...]
 * packed, NHWC has the channel innermost. */
static int filter_shape(cudnnFilterDescriptor_t f, struct shape *s)
{
    int dim[CUDNN_DIM_MAX];
    cudnnTensorFormat_t fmt;
    if (!f || cudnnGetFilterNdDescriptor(f, CUDNN_DIM_MAX, &s->dtype, &fmt, &s->nb, dim) != CUDNN_STATUS_SUCCESS ||
        s->nb < 3)
        return -1;
    int64_t st = 1;
    for (int i = 0; i < s->nb; i++)
        s->dim[i] = dim[i];
    if (fmt == CUDNN_TENSOR_NHWC) {
        s->stride[1] = st;
        st *= s->dim[1];
        for (int i = s->nb - 1; i >= 2; i--) {
            s->stride[i] = st;
            st *= s->dim[i];
        }
        s->stride[0] = st;
    } else {
        for (int i = s->nb - 1; i >= 0; i--) {
            s->stride[i] = st;
            st *= s->dim[i];
        }
    }
    return 0;
}

static int out_dims(const struct cudnnConvolutionStruct *c, const struct shape *x, const struct shape *w, int64_t *o)
{
    if (!c || c->nsp != x->nb - 2 || w->nb != x->nb || x->dim[1] % (w->dim[1] * c->groups) != 0 ||
        x->dim[1] != w->dim[1] * c->groups)
        return -1;
    o[0] = x->dim[0];
    o[1] = w->dim[0];
    for (int i = 0; i < c->nsp; i++) {
        int64_t span = x->dim[2 + i] + 2 * c->pad[i] - (int64_t)c->dilation[i] * (w->dim[2 + i] - 1) - 1;
        if (span < 0)
            return -1;
        o[2 + i] = span / c->stride[i] + 1;
    }
    return 0;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                      const cudnnTensorDescriptor_t inputTensorDesc,
                                                                      const cudnnFilterDescriptor_t filterDesc,
                                                                      int nbDims, int tensorOuputDimA[])
{
    struct shape x, w;
    int64_t o[CUDNN_DIM_MAX];
    if (!tensorOuputDimA || tensor_shape(inputTensorDesc, &x) || filter_shape(filterDesc, &w) ||
        nbDims != x.nb || out_dims(convDesc, &x, &w, o))
        return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < nbDims; i++)
        tensorOuputDimA[i] = (int)o[i];
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                      const cudnnTensorDescriptor_t inputTensorDesc,
                                                                      const cudnnFilterDescriptor_t filterDesc,
                                                                      int *n, int *c, int *h, int *w)
{
    int o[4];
    if (!n || !c || !h || !w)
        return CUDNN_STATUS_BAD_PARAM;
    cudnnStatus_t s = cudnnGetConvolutionNdForwardOutputDim(convDesc, inputTensorDesc, filterDesc, 4, o);
    if (s == CUDNN_STATUS_SUCCESS)
        *n = o[0], *c = o[1], *h = o[2], *w = o[3];
    return s;
}

/* ---- one convolution through the backend */
typedef cudnnBackendDescriptor_t bd;

static cudnnStatus_t set1(bd d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, const void *v)
{
    return cudnnBackendSetAttribute(d, a, t, 1, v);
}

static cudnnStatus_t make_tensor(bd *t, const struct shape *s, int64_t uid)
{
    int64_t align = 16;
    cudnnStatus_t r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t);
    if (r)
        return r;
    if ((r = set1(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &s->dtype)) ||
        (r = cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, s->nb, s->dim)) ||
        (r = cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, s->nb, s->stride)) ||
        (r = set1(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)) ||
        (r = set1(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &align)))
        return r;
    return cudnnBackendFinalize(*t);
}

enum { X, W, Y, CONV, OP, GRAPH, ENGINE, CFG, PLAN, VPACK, NDESC };

/* x, w, y as the operation names them: forward x -> y; backward data
 * dy -> dx (x is dx, y is dy); backward filter x, dy -> dw (w is dw). */
static cudnnStatus_t run(cudnnHandle_t handle, cudnnBackendDescriptorType_t optype, const void *alpha,
                         const void *beta, const struct shape *xs, void *x, const struct shape *ws, void *w,
                         const struct shape *ys, void *y, const struct cudnnConvolutionStruct *c)
{
    /* optype is one of the three: a convolution's (run's callers) */
    const cudnnBackendAttributeName_t *a = simdnn_conv_attrs[simdnn_conv_row(optype)];
    bd d[NDESC] = { 0 };
    cudnnStatus_t r;
    int64_t nsp = c->nsp, pre[NSP], post[NSP], str[NSP], dil[NSP], zero = 0;
    for (int i = 0; i < c->nsp; i++)
        pre[i] = post[i] = c->pad[i], str[i] = c->stride[i], dil[i] = c->dilation[i];
    /* alpha and beta are host scalars: double for double data, float otherwise */
    bool dbl = xs->dtype == CUDNN_DATA_DOUBLE;
    cudnnBackendAttributeType_t rt = dbl ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT;
    cudnnDataType_t comp = dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    void *ptrs[3] = { x, w, y };
    int64_t uids[3] = { 1, 2, 3 };
    if ((r = make_tensor(&d[X], xs, 1)) || (r = make_tensor(&d[W], ws, 2)) || (r = make_tensor(&d[Y], ys, 3)))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &d[CONV])) ||
        (r = set1(d[CONV], CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &nsp)) ||
        (r = set1(d[CONV], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &comp)) ||
        (r = set1(d[CONV], CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &c->mode)) ||
        (r = cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsp, pre)) ||
        (r = cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsp, post)) ||
        (r = cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsp, str)) ||
        (r = cudnnBackendSetAttribute(d[CONV], CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsp, dil)) ||
        (r = cudnnBackendFinalize(d[CONV])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(optype, &d[OP])) ||
        (r = set1(d[OP], a[0], CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[X])) ||
        (r = set1(d[OP], a[1], CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[W])) ||
        (r = set1(d[OP], a[2], CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[Y])) ||
        (r = set1(d[OP], a[3], CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[CONV])) || (r = set1(d[OP], a[4], rt, alpha)) ||
        (r = set1(d[OP], a[5], rt, beta)) || (r = cudnnBackendFinalize(d[OP])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d[GRAPH])) ||
        (r = set1(d[GRAPH], CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)) ||
        (r = set1(d[GRAPH], CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[OP])) ||
        (r = cudnnBackendFinalize(d[GRAPH])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &d[ENGINE])) ||
        (r = set1(d[ENGINE], CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[GRAPH])) ||
        (r = set1(d[ENGINE], CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &zero)) ||
        (r = cudnnBackendFinalize(d[ENGINE])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &d[CFG])) ||
        (r = set1(d[CFG], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[ENGINE])) ||
        (r = cudnnBackendFinalize(d[CFG])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &d[PLAN])) ||
        (r = set1(d[PLAN], CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle)) ||
        (r = set1(d[PLAN], CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &d[CFG])) ||
        (r = cudnnBackendFinalize(d[PLAN])))
        goto out;
    if ((r = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &d[VPACK])) ||
        (r = cudnnBackendSetAttribute(d[VPACK], CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids)) ||
        (r = cudnnBackendSetAttribute(d[VPACK], CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs)) ||
        (r = cudnnBackendFinalize(d[VPACK])))
        goto out;
    r = cudnnBackendExecute(handle, d[PLAN], d[VPACK]);
out:
    for (int i = NDESC - 1; i >= 0; i--)
        if (d[i])
            cudnnBackendDestroyDescriptor(d[i]);
    return r;
}

/* The shapes of a legacy call, checked as the legacy API documents:
 * x, w, y consistent with the convolution (BAD_PARAM otherwise). */
static cudnnStatus_t shapes(cudnnHandle_t handle, const void *alpha, const void *beta,
                            cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd,
                            const cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t yd, struct shape *x,
                            struct shape *w, struct shape *y)
{
    int64_t o[CUDNN_DIM_MAX];
    if (!handle || !alpha || !beta || !c || tensor_shape(xd, x) || filter_shape(wd, w) || tensor_shape(yd, y) ||
        out_dims(c, x, w, o))
        return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < y->nb; i++)
        if (y->dim[i] != o[i])
            return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                                                         const cudnnTensorDescriptor_t xDesc, const void *x,
                                                         const cudnnFilterDescriptor_t wDesc, const void *w,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                         size_t workSpaceSizeInBytes, const void *beta,
                                                         const cudnnTensorDescriptor_t yDesc, void *y)
{
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    struct shape xs, ws, ys;
    cudnnStatus_t r = shapes(handle, alpha, beta, xDesc, wDesc, convDesc, yDesc, &xs, &ws, &ys);
    if (r)
        return r;
    if ((unsigned)algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    return run(handle, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, alpha, beta, &xs, (void *)x, &ws,
               (void *)w, &ys, y, convDesc);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha,
                                                              const cudnnFilterDescriptor_t wDesc, const void *w,
                                                              const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                              const cudnnConvolutionDescriptor_t convDesc,
                                                              cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                              size_t workSpaceSizeInBytes, const void *beta,
                                                              const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    struct shape xs, ws, ys;
    cudnnStatus_t r = shapes(handle, alpha, beta, dxDesc, wDesc, convDesc, dyDesc, &xs, &ws, &ys);
    if (r)
        return r;
    if ((unsigned)algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    return run(handle, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, alpha, beta, &xs, dx, &ws,
               (void *)w, &ys, (void *)dy, convDesc);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha,
                                                                const cudnnTensorDescriptor_t xDesc, const void *x,
                                                                const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                                const cudnnConvolutionDescriptor_t convDesc,
                                                                cudnnConvolutionBwdFilterAlgo_t algo,
                                                                void *workSpace, size_t workSpaceSizeInBytes,
                                                                const void *beta,
                                                                const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    struct shape xs, ws, ys;
    cudnnStatus_t r = shapes(handle, alpha, beta, xDesc, dwDesc, convDesc, dyDesc, &xs, &ws, &ys);
    if (r)
        return r;
    if ((unsigned)algo >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    return run(handle, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, alpha, beta, &xs, (void *)x,
               &ws, dw, &ys, (void *)dy, convDesc);
}

/* ---- algorithms: one of each kind, no workspace, deterministic */
#define ALGO_FNS(Kind, kind_t, perf_t, first, count, xT, xd, wT, wd, yT, yd)                                     \
    EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolution##Kind##AlgorithmMaxCount(cudnnHandle_t handle, int *n)   \
    {                                                                                                             \
        if (!handle)                                                                                              \
            return CUDNN_STATUS_BAD_PARAM; /* 9.26: "nullptr == handle" */                                       \
        if (!n)                                                                                                   \
            return CUDNN_STATUS_BAD_PARAM;                                                                        \
        *n = count;                                                                                               \
        return CUDNN_STATUS_SUCCESS;                                                                              \
    }                                                                                                             \
    static cudnnStatus_t perf_##Kind(cudnnHandle_t handle, const cudnnConvolutionDescriptor_t c, int req,        \
                                     int *got, perf_t *res)                                                       \
    {                                                                                                             \
        if (!handle || !c || !got || !res || req < 1)                                                             \
            return CUDNN_STATUS_BAD_PARAM;                                                                        \
        memset(res, 0, sizeof *res);                                                                              \
        res->algo = first;                                                                                        \
        res->status = CUDNN_STATUS_SUCCESS;                                                                       \
        res->determinism = CUDNN_DETERMINISTIC;                                                                   \
        res->mathType = c->math;                                                                                  \
        *got = 1;                                                                                                 \
        return CUDNN_STATUS_SUCCESS;                                                                              \
    }                                                                                                             \
    EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolution##Kind##Algorithm_v7(                                     \
        cudnnHandle_t handle, const xT xd, const wT wd, const cudnnConvolutionDescriptor_t convDesc, const yT yd, \
        const int requestedAlgoCount, int *returnedAlgoCount, perf_t *perfResults)                               \
    {                                                                                                             \
        (void)xd, (void)wd, (void)yd;                                                                             \
        return perf_##Kind(handle, convDesc, requestedAlgoCount, returnedAlgoCount, perfResults);                 \
    }                                                                                                             \
    EXPORT cudnnStatus_t CUDNNWINAPI cudnnFindConvolution##Kind##Algorithm(                                       \
        cudnnHandle_t handle, const xT xd, const wT wd, const cudnnConvolutionDescriptor_t convDesc, const yT yd, \
        const int requestedAlgoCount, int *returnedAlgoCount, perf_t *perfResults)                               \
    {                                                                                                             \
        (void)xd, (void)wd, (void)yd;                                                                             \
        return perf_##Kind(handle, convDesc, requestedAlgoCount, returnedAlgoCount, perfResults);                 \
    }

ALGO_FNS(Forward, cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, cudnnTensorDescriptor_t, xDesc, cudnnFilterDescriptor_t, wDesc,
         cudnnTensorDescriptor_t, yDesc)
ALGO_FNS(BackwardData, cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdDataAlgoPerf_t,
         CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, cudnnFilterDescriptor_t, wDesc,
         cudnnTensorDescriptor_t, dyDesc, cudnnTensorDescriptor_t, dxDesc)
ALGO_FNS(BackwardFilter, cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionBwdFilterAlgoPerf_t,
         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, cudnnTensorDescriptor_t, xDesc,
         cudnnTensorDescriptor_t, dyDesc, cudnnFilterDescriptor_t, dwDesc)

/* The *Ex searches time the algorithms on the given buffers; the sim
 * reports its one algorithm without running it (what a search writes into
 * the output is unspecified). */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    (void)xDesc, (void)x, (void)wDesc, (void)w, (void)yDesc, (void)y, (void)workSpace, (void)workSpaceSizeInBytes;
    return perf_Forward(handle, convDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    (void)wDesc, (void)w, (void)dyDesc, (void)dy, (void)dxDesc, (void)dx, (void)workSpace, (void)workSpaceSizeInBytes;
    return perf_BackwardData(handle, convDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
    const void *y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    (void)xDesc, (void)x, (void)dyDesc, (void)y, (void)dwDesc, (void)dw, (void)workSpace, (void)workSpaceSizeInBytes;
    return perf_BackwardFilter(handle, convDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

/* No algorithm of the sim needs a workspace. */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo,
    size_t *sizeInBytes)
{
    (void)xDesc, (void)wDesc, (void)yDesc;
    if (!handle || !convDesc || !sizeInBytes || (unsigned)algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes)
{
    (void)wDesc, (void)dyDesc, (void)dxDesc;
    if (!handle || !convDesc || !sizeInBytes || (unsigned)algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
    (void)xDesc, (void)dyDesc, (void)gradDesc;
    if (!handle || !convDesc || !sizeInBytes || (unsigned)algo >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)
        return CUDNN_STATUS_BAD_PARAM;
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
