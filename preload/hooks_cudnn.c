/* hooks_cudnn: cuDNN calls checked at their API (preload/hooks_lib.h has the
 * machinery, preload/hooks_lib.def the table): a handle's device (its
 * stream's, else the device current at cudnnCreate); the v9 backend's
 * variant pack, the legacy convolutions and the RNN calls. */
#include "preload/hooks_lib.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define LIB_THIS CUDNN

/* The device a handle's calls run on (dc_lib_handle_device). */
static int dnn_device(cudnnHandle_t h, uintptr_t *stream)
{
    cudaStream_t s = NULL;
    __typeof__(&cudnnGetStream) gs = REAL(cudnnGetStream);
    int got = gs && gs(h, &s) == CUDNN_STATUS_SUCCESS;
    return dc_lib_handle_device(DC_LIBH_CUDNN, P(h), got, s, stream);
}

static void dnn_check(cudnnHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    uintptr_t stream;
    int d = dnn_device(h, &stream);
    dc_lib_check(api, d, stream, a, n);
}

LIB_BODY(cudnnStatus_t, cudnnCreate, (cudnnHandle_t *handle))
{
    LIB_REAL(cudnnCreate);
    if (!real)
        return dc_lib_missing("cudnnCreate"), CUDNN_STATUS_NOT_INITIALIZED;
    cudnnStatus_t r = real(handle);
    if (r == CUDNN_STATUS_SUCCESS && handle && dc_enter()) {
        int d = dc_current_device();
        if (d >= 0)
            dc_libh_set(DC_LIBH_CUDNN, P(*handle), (uint64_t)d);
        dc_leave();
    }
    return r;
}
LIB_ENTRIES(cudnnStatus_t, CUDNNWINAPI, cudnnCreate, (cudnnHandle_t *handle), (handle))

LIB_DESTROY_HOOK(cudnnStatus_t, CUDNNWINAPI, cudnnDestroy, cudnnHandle_t, DC_LIBH_CUDNN,
                 CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_SUCCESS)

/* The v9 backend (issue 37): what devcheck needs at cudnnBackendExecute is
 * recorded when the program sets it, never asked back (real cuDNN 9.26
 * refuses a finalized variant pack's UNIQUE_IDS and DATA_POINTERS:
 * cudnnBackendGetAttribute returns CUDNN_STATUS_NOT_SUPPORTED,
 * tests/libapi/dnn_real.c).  A variant pack: its unique ids, data pointers
 * and workspace as last set (paired by index, at most VP_MAX); a tensor:
 * its unique id and whether it is by value (CUDNN_ATTR_TENSOR_IS_BY_VALUE:
 * SDPA's scale, a host pointer), counted per unique id (DC_LIBD_DNN_UID)
 * so that a data pointer is allowed host memory only when its uid is a
 * by-value tensor's or no tensor devcheck saw has it.  Records are forgotten
 * at cudnnBackendDestroyDescriptor. */
#define VP_MAX 64
struct dnn_pack {
    int64_t nuid, nptr;
    int64_t uids[VP_MAX];
    uintptr_t ptrs[VP_MAX];
    uintptr_t ws;
};
struct dnn_tensor {
    int64_t uid;
    int has_uid, by_value;
};
struct dnn_uid {
    int64_t plain, by_value;    /* live tensors with this uid */
};

struct dnn_set {
    cudnnBackendAttributeName_t name;
    int64_t n;
    const void *v;
};
static void pack_set(void *rec, const void *arg)
{
    struct dnn_pack *p = rec;
    const struct dnn_set *a = arg;
    int64_t n = a->n < 0 ? 0 : a->n > VP_MAX ? VP_MAX : a->n;
    if (a->name == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS) {
        memcpy(p->uids, a->v, (size_t)n * sizeof p->uids[0]);
        p->nuid = n;
    } else if (a->name == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS) {
        memcpy(p->ptrs, a->v, (size_t)n * sizeof p->ptrs[0]);
        p->nptr = n;
    } else if (n) {
        memcpy(&p->ws, a->v, sizeof p->ws);
    }
}
/* The tensor's new record (arg: a struct dnn_set); the old one is kept in
 * the set's `v`'s target below (tensor_set). */
struct tensor_change {
    struct dnn_set set;
    struct dnn_tensor old, now;
};
static void tensor_set(void *rec, const void *arg)
{
    struct dnn_tensor *t = rec;
    struct tensor_change *c = (struct tensor_change *)arg;
    c->old = *t;
    if (c->set.name == CUDNN_ATTR_TENSOR_UNIQUE_ID) {
        memcpy(&t->uid, c->set.v, sizeof t->uid);
        t->has_uid = 1;
    } else {
        bool b;
        memcpy(&b, c->set.v, sizeof b);
        t->by_value = b;
    }
    c->now = *t;
}
struct uid_change {
    const struct dnn_tensor *t;
    int d, empty;
};
static void uid_add(void *rec, const void *arg)
{
    struct dnn_uid *u = rec;
    struct uid_change *c = (struct uid_change *)arg;
    if (c->t->by_value)
        u->by_value += c->d;
    else
        u->plain += c->d;
    c->empty = u->by_value <= 0 && u->plain <= 0;
}
/* Moves a tensor's count from its old uid (forgotten when none is left)
 * to its new one. */
static void uid_move(const struct dnn_tensor *old, const struct dnn_tensor *now)
{
    if (old->has_uid) {
        struct uid_change c = { old, -1, 0 };
        if (dc_libd_update(DC_LIBD_DNN_UID, (uint64_t)old->uid, sizeof(struct dnn_uid), 0, uid_add, &c) && c.empty)
            dc_libd_forget(DC_LIBD_DNN_UID, (uint64_t)old->uid);
    }
    if (now && now->has_uid) {
        struct uid_change c = { now, 1, 0 };
        dc_libd_update(DC_LIBD_DNN_UID, (uint64_t)now->uid, sizeof(struct dnn_uid), 1, uid_add, &c);
    }
}

static void dnn_record(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                       int64_t n, const void *v)
{
    struct dnn_set a = { name, n, v };
    switch (name) {
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS:
        if (type == CUDNN_TYPE_INT64)
            dc_libd_update(DC_LIBD_DNN_PACK, P(d), sizeof(struct dnn_pack), 1, pack_set, &a);
        break;
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS:
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE:
        if (type == CUDNN_TYPE_VOID_PTR)
            dc_libd_update(DC_LIBD_DNN_PACK, P(d), sizeof(struct dnn_pack), 1, pack_set, &a);
        break;
    case CUDNN_ATTR_TENSOR_UNIQUE_ID:
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
        if (n == 1 && type == (name == CUDNN_ATTR_TENSOR_UNIQUE_ID ? CUDNN_TYPE_INT64 : CUDNN_TYPE_BOOLEAN)) {
            struct tensor_change c = { .set = a };
            if (dc_libd_update(DC_LIBD_DNN_TENSOR, P(d), sizeof(struct dnn_tensor), 1, tensor_set, &c))
                uid_move(&c.old, &c.now);
        }
        break;
    default:
        break;
    }
}

/* cudnnBackendSetAttribute: recorded once the library took it. */
LIB_BODY(cudnnStatus_t, cudnnBackendSetAttribute,
    (cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
     cudnnBackendAttributeType_t attributeType, int64_t elementCount, const void *arrayOfElements))
{
    LIB_REAL(cudnnBackendSetAttribute);
    if (!real)
        return dc_lib_missing("cudnnBackendSetAttribute"), CUDNN_STATUS_NOT_INITIALIZED;
    cudnnStatus_t r = real(descriptor, attributeName, attributeType, elementCount, arrayOfElements);
    if (r == CUDNN_STATUS_SUCCESS && arrayOfElements && elementCount >= 0 && dc_enter()) {
        dnn_record(descriptor, attributeName, attributeType, elementCount, arrayOfElements);
        dc_leave();
    }
    return r;
}
LIB_ENTRIES(cudnnStatus_t, CUDNNWINAPI, cudnnBackendSetAttribute,
    (cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
     cudnnBackendAttributeType_t attributeType, int64_t elementCount, const void *arrayOfElements),
    (descriptor, attributeName, attributeType, elementCount, arrayOfElements))

static void tensor_get(void *rec, const void *arg) { *(struct dnn_tensor *)arg = *(struct dnn_tensor *)rec; }

/* cudnnBackendDestroyDescriptor: its records forgotten (before the real
 * call: the address may be reused as soon as it returns). */
LIB_BODY(cudnnStatus_t, cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t descriptor))
{
    LIB_REAL(cudnnBackendDestroyDescriptor);
    if (!real)
        return dc_lib_missing("cudnnBackendDestroyDescriptor"), CUDNN_STATUS_NOT_INITIALIZED;
    if (descriptor && dc_enter()) {
        struct dnn_tensor t;
        if (dc_libd_update(DC_LIBD_DNN_TENSOR, P(descriptor), sizeof t, 0, tensor_get, &t)) {
            uid_move(&t, NULL);
            dc_libd_forget(DC_LIBD_DNN_TENSOR, P(descriptor));
        }
        dc_libd_forget(DC_LIBD_DNN_PACK, P(descriptor));
        dc_leave();
    }
    return real(descriptor);
}
LIB_ENTRIES(cudnnStatus_t, CUDNNWINAPI, cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t descriptor),
    (descriptor))

/* The variant pack's data pointers (by unique id) and workspace, as
 * recorded.  A pack devcheck never saw set is not checked (said, counted)
 * and its kernels' weak findings are reported (dc_libcall_active 2). */
static void dnn_variant_pack(cudnnHandle_t handle, cudnnBackendDescriptor_t vp)
{
    struct dnn_pack mine, *pk = &mine;
    if (!dc_libd_get(DC_LIBD_DNN_PACK, P(vp), pk, sizeof *pk)) {
        dc_libd_unseen("cudnnBackendExecute", "a variant pack");
        dnn_check(handle, "cudnnBackendExecute", NULL, 0);
        dc_libcall_active = 2;
        return;
    }
    int64_t n = pk->nuid < pk->nptr ? pk->nuid : pk->nptr;
    struct dc_lib_arg a[VP_MAX + 1];
    char names[VP_MAX][64];
    unsigned k = 0;
    a[k++] = (struct dc_lib_arg)ARG("CUDNN_ATTR_VARIANT_PACK_WORKSPACE", pk->ws);
    for (int64_t i = 0; i < n; i++) {
        struct dnn_uid u = { 0, 0 };
        int known = dc_libd_get(DC_LIBD_DNN_UID, (uint64_t)pk->uids[i], &u, sizeof u) && (u.plain || u.by_value);
        snprintf(names[i], sizeof names[i], "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=%lld]", (long long)pk->uids[i]);
        a[k++] = (struct dc_lib_arg){ .name = names[i], .ptr = pk->ptrs[i], .host_ok = !known || u.by_value > 0 };
    }
    dnn_check(handle, "cudnnBackendExecute", a, k);
}

LIB_HOOK(cudnnStatus_t, CUDNNWINAPI, cudnnBackendExecute,
    (cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan, cudnnBackendDescriptor_t variantPack),
    (handle, executionPlan, variantPack), CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_SUCCESS,
    (dnn_variant_pack(handle, variantPack)))

/* The legacy convolutions: alpha and beta are host memory (cuDNN's scaling
 * parameters always are); the tensors and the workspace device memory. */
#define DNN_HOOK(name, params, args, ...)                                           \
    LIB_HOOK(cudnnStatus_t, CUDNNWINAPI, name, params, args, CUDNN_STATUS_NOT_INITIALIZED,    \
             CUDNN_STATUS_SUCCESS,                                                  \
             (struct dc_lib_arg a[] = { __VA_ARGS__ }; dnn_check(handle, #name, a, NARGS(a))))
DNN_HOOK(cudnnConvolutionForward,
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
     const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnTensorDescriptor_t yDesc, void *y),
    (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc, y),
    ARG("x", x), ARG("w", w), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("y", y))
DNN_HOOK(cudnnConvolutionBackwardData,
    (cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc, const void *w,
     const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionBwdDataAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnTensorDescriptor_t dxDesc, void *dx),
    (handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dxDesc, dx),
    ARG("w", w), ARG("dy", dy), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("dx", dx))
DNN_HOOK(cudnnConvolutionBackwardFilter,
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
     const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnFilterDescriptor_t dwDesc, void *dw),
    (handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dwDesc, dw),
    ARG("x", x), ARG("dy", dy), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("dw", dw))

/* Issue 37 item 5, the legacy calls torch 2.15 imports (sim/libs/imports.tsv;
 * libcudnn.so.9 exports each, a shim into libcudnn_ops.so.9 or _cnn):
 * batch normalization (aten/src/ATen/native/cudnn/BatchNorm.cpp: training
 * and backward in their Ex forms, inference), cudnn.benchmark's search
 * (the Find...AlgorithmEx calls run the convolution on the program's own
 * tensors and workspace), the fused convolution + bias + activation, and
 * CTC loss.  Every tensor is device memory; alpha and beta host memory, as
 * every cuDNN scaling parameter; a NULL optional pointer (running or saved
 * statistics, gradients CTC does not compute) is not checked.  The z / dz
 * tensors are read only for CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION. */
#define BN_ADD(ops) ((ops) == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
DNN_HOOK(cudnnBatchNormalizationForwardTrainingEx,
    (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
     const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t zDesc, const void *zData,
     const cudnnTensorDescriptor_t yDesc, void *yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
     const void *bnScale, const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
     void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
     cudnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
     size_t reserveSpaceSizeInBytes),
    (handle, mode, bnOps, alpha, beta, xDesc, xData, zDesc, zData, yDesc, yData, bnScaleBiasMeanVarDesc, bnScale,
     bnBias, exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon, resultSaveMean,
     resultSaveInvVariance, activationDesc, workspace, workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes),
    ARG("xData", xData), ARG("zData", BN_ADD(bnOps) ? zData : NULL), ARG("yData", yData), ARG("bnScale", bnScale),
    ARG("bnBias", bnBias), ARG("resultRunningMean", resultRunningMean),
    ARG("resultRunningVariance", resultRunningVariance), ARG("resultSaveMean", resultSaveMean),
    ARG("resultSaveInvVariance", resultSaveInvVariance), SPACE(workspace, workSpaceSizeInBytes),
    SPACE(reserveSpace, reserveSpaceSizeInBytes))
DNN_HOOK(cudnnBatchNormalizationBackwardEx,
    (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alphaDataDiff,
     const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
     const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData,
     const cudnnTensorDescriptor_t dyDesc, const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
     const cudnnTensorDescriptor_t dxDesc, void *dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
     const void *bnScaleData, const void *bnBiasData, void *dBnScaleData, void *dBnBiasData, double epsilon,
     const void *savedMean, const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc,
     void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
    (handle, mode, bnOps, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData, yDesc, yData,
     dyDesc, dyData, dzDesc, dzData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData, bnBiasData, dBnScaleData,
     dBnBiasData, epsilon, savedMean, savedInvVariance, activationDesc, workSpace, workSpaceSizeInBytes,
     reserveSpace, reserveSpaceSizeInBytes),
    ARG("xData", xData), ARG("yData", BN_ADD(bnOps) || bnOps == CUDNN_BATCHNORM_OPS_BN_ACTIVATION ? yData : NULL),
    ARG("dyData", dyData), ARG("dzData", BN_ADD(bnOps) ? dzData : NULL), ARG("dxData", dxData),
    ARG("bnScaleData", bnScaleData), ARG("bnBiasData", bnBiasData), ARG("dBnScaleData", dBnScaleData),
    ARG("dBnBiasData", dBnBiasData), ARG("savedMean", savedMean), ARG("savedInvVariance", savedInvVariance),
    SPACE(workSpace, workSpaceSizeInBytes), SPACE(reserveSpace, reserveSpaceSizeInBytes))
DNN_HOOK(cudnnBatchNormalizationForwardInference,
    (cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
     const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
     const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
     const void *estimatedMean, const void *estimatedVariance, double epsilon),
    (handle, mode, alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias, estimatedMean,
     estimatedVariance, epsilon),
    ARG("x", x), ARG("y", y), ARG("bnScale", bnScale), ARG("bnBias", bnBias), ARG("estimatedMean", estimatedMean),
    ARG("estimatedVariance", estimatedVariance))
DNN_HOOK(cudnnFindConvolutionForwardAlgorithmEx,
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc,
     const void *w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,
     const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults,
     void *workSpace, size_t workSpaceSizeInBytes),
    (handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,
     workSpaceSizeInBytes),
    ARG("x", x), ARG("w", w), ARG("y", y), SPACE(workSpace, workSpaceSizeInBytes))
DNN_HOOK(cudnnFindConvolutionBackwardDataAlgorithmEx,
    (cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t dyDesc,
     const void *dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void *dx,
     const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
     void *workSpace, size_t workSpaceSizeInBytes),
    (handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount, perfResults,
     workSpace, workSpaceSizeInBytes),
    ARG("w", w), ARG("dy", dy), ARG("dx", dx), SPACE(workSpace, workSpaceSizeInBytes))
DNN_HOOK(cudnnFindConvolutionBackwardFilterAlgorithmEx,
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
     const void *y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
     const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
     void *workSpace, size_t workSpaceSizeInBytes),
    (handle, xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount, perfResults,
     workSpace, workSpaceSizeInBytes),
    ARG("x", x), ARG("y", y), ARG("dw", dw), SPACE(workSpace, workSpaceSizeInBytes))
DNN_HOOK(cudnnConvolutionBiasActivationForward,
    (cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
     const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
     const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc, const void *bias,
     const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y),
    (handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, alpha2, zDesc, z,
     biasDesc, bias, activationDesc, yDesc, y),
    ARG("x", x), ARG("w", w), SPACE(workSpace, workSpaceSizeInBytes), ARG("z", z), ARG("bias", bias), ARG("y", y))
/* CTC loss: the legacy form takes the labels and lengths in host memory
 * (cudnn_adv.h: "in CPU memory"), _v8 in device memory */
DNN_HOOK(cudnnCTCLoss,
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs, const int hostLabels[],
     const int hostLabelLengths[], const int hostInputLengths[], void *costs,
     const cudnnTensorDescriptor_t gradientsDesc, void *gradients, cudnnCTCLossAlgo_t algo,
     cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace, size_t workSpaceSizeInBytes),
    (handle, probsDesc, probs, hostLabels, hostLabelLengths, hostInputLengths, costs, gradientsDesc, gradients, algo,
     ctcLossDesc, workspace, workSpaceSizeInBytes),
    ARG("probs", probs), ARG("costs", costs), ARG("gradients", gradients), SPACE(workspace, workSpaceSizeInBytes))
DNN_HOOK(cudnnCTCLoss_v8,
    (cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
     const cudnnTensorDescriptor_t probsDesc, const void *probs, const int labels[], const int labelLengths[],
     const int inputLengths[], void *costs, const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
     size_t workSpaceSizeInBytes, void *workspace),
    (handle, algo, ctcLossDesc, probsDesc, probs, labels, labelLengths, inputLengths, costs, gradientsDesc,
     gradients, workSpaceSizeInBytes, workspace),
    ARG("probs", probs), ARG("labels", labels), ARG("labelLengths", labelLengths), ARG("inputLengths", inputLengths),
    ARG("costs", costs), ARG("gradients", gradients), SPACE(workspace, workSpaceSizeInBytes))

/* The RNN calls (cudnn_adv.h; cuDNN's documentation: every buffer is GPU
 * memory, devSeqLengths too; devSeqLengths may be NULL since cuDNN 8.9.1,
 * as OpenCV's DNN module passes it: a 0 pointer, not checked -- the RNN
 * data descriptors carry the lengths on the host).  hx, cx, hy, cy (and their gradients) may be
 * NULL (zeros, not saved; cx/cy are LSTM's only), reserveSpace NULL in
 * inference: a 0 pointer is never checked; a space is checked when its size
 * is not 0. */
DNN_HOOK(cudnnRNNForward,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t xDesc, const void *x, cudnnRNNDataDescriptor_t yDesc, void *y,
     cudnnTensorDescriptor_t hDesc, const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx,
     void *cy, size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize, void *workSpace,
     size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, fwdMode, devSeqLengths, xDesc, x, yDesc, y, hDesc, hx, hy, cDesc, cx, cy, weightSpaceSize,
     weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("x", x), ARG("y", y), ARG("hx", hx), ARG("hy", hy), ARG("cx", cx),
    ARG("cy", cy), SPACE(weightSpace, weightSpaceSize), SPACE(workSpace, workSpaceSize),
    SPACE(reserveSpace, reserveSpaceSize))
DNN_HOOK(cudnnRNNBackwardData_v8,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy, cudnnRNNDataDescriptor_t xDesc, void *dx,
     cudnnTensorDescriptor_t hDesc, const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
     const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize, const void *weightSpace,
     size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, devSeqLengths, yDesc, y, dy, xDesc, dx, hDesc, hx, dhy, dhx, cDesc, cx, dcy, dcx,
     weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("y", y), ARG("dy", dy), ARG("dx", dx), ARG("hx", hx), ARG("dhy", dhy),
    ARG("dhx", dhx), ARG("cx", cx), ARG("dcy", dcy), ARG("dcx", dcx), SPACE(weightSpace, weightSpaceSize),
    SPACE(workSpace, workSpaceSize), SPACE(reserveSpace, reserveSpaceSize))
DNN_HOOK(cudnnRNNBackwardWeights_v8,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t xDesc, const void *x, cudnnTensorDescriptor_t hDesc, const void *hx,
     cudnnRNNDataDescriptor_t yDesc, const void *y, size_t weightSpaceSize, void *dweightSpace,
     size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, addGrad, devSeqLengths, xDesc, x, hDesc, hx, yDesc, y, weightSpaceSize, dweightSpace,
     workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("x", x), ARG("hx", hx), ARG("y", y),
    SPACE(dweightSpace, weightSpaceSize), SPACE(workSpace, workSpaceSize), SPACE(reserveSpace, reserveSpaceSize))

/* Pooling and the spatial transformer (issue 37: what torch 2.15 imports of
 * them, report/LIBCOVERAGE.md: cudnnPoolingForward, the grid generator and
 * sampler both ways; cudnn_ops.h's prototypes).  Every tensor is device
 * memory, alpha and beta host memory (cuDNN's scaling parameters). */
DNN_HOOK(cudnnPoolingForward,
    (cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
     const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc,
     void *y),
    (handle, poolingDesc, alpha, xDesc, x, beta, yDesc, y), ARG("x", x), ARG("y", y))
DNN_HOOK(cudnnSpatialTfGridGeneratorForward,
    (cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc, const void *theta, void *grid),
    (handle, stDesc, theta, grid), ARG("theta", theta), ARG("grid", grid))
DNN_HOOK(cudnnSpatialTfGridGeneratorBackward,
    (cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc, const void *dgrid, void *dtheta),
    (handle, stDesc, dgrid, dtheta), ARG("dgrid", dgrid), ARG("dtheta", dtheta))
DNN_HOOK(cudnnSpatialTfSamplerForward,
    (cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
     const cudnnTensorDescriptor_t xDesc, const void *x, const void *grid, const void *beta,
     cudnnTensorDescriptor_t yDesc, void *y),
    (handle, stDesc, alpha, xDesc, x, grid, beta, yDesc, y), ARG("x", x), ARG("grid", grid), ARG("y", y))
DNN_HOOK(cudnnSpatialTfSamplerBackward,
    (cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
     const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta, const cudnnTensorDescriptor_t dxDesc,
     void *dx, const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *grid,
     const void *betaDgrid, void *dgrid),
    (handle, stDesc, alpha, xDesc, x, beta, dxDesc, dx, alphaDgrid, dyDesc, dy, grid, betaDgrid, dgrid),
    ARG("x", x), ARG("dx", dx), ARG("dy", dy), ARG("grid", grid), ARG("dgrid", dgrid))
