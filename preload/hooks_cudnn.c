/* hooks_cudnn: cuDNN calls checked at their API (preload/hooks_lib.h has the
 * machinery, preload/hooks_lib.def the table): a handle's device (its
 * stream's, else the device current at cudnnCreate); the v9 backend's
 * variant pack, the legacy convolutions and the RNN calls. */
#include "preload/hooks_lib.h"

#include <stdio.h>

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

/* The variant pack's data pointers (by unique id) and workspace.  A tensor
 * marked CUDNN_ATTR_TENSOR_IS_BY_VALUE (SDPA's scale) is a host pointer,
 * and the variant pack does not say which: host memory is legal for every
 * data pointer, another device's memory never is.  At most VP_MAX. */
#define VP_MAX 64
static void dnn_variant_pack(cudnnHandle_t handle, cudnnBackendDescriptor_t vp)
{
    __typeof__(&cudnnBackendGetAttribute) get = REAL(cudnnBackendGetAttribute);
    if (!get)
        return;
    int64_t uids[VP_MAX], n = 0, m = 0, nw = 0;
    void *ptrs[VP_MAX], *ws = NULL;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, VP_MAX, &n, uids) != CUDNN_STATUS_SUCCESS)
        n = 0;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, VP_MAX, &m, ptrs) != CUDNN_STATUS_SUCCESS)
        m = 0;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &nw, &ws) != CUDNN_STATUS_SUCCESS || nw != 1)
        ws = NULL;
    n = n < m ? n : m;
    n = n < 0 ? 0 : n > VP_MAX ? VP_MAX : n;
    struct dc_lib_arg a[VP_MAX + 1];
    char names[VP_MAX][64];
    unsigned k = 0;
    a[k++] = (struct dc_lib_arg)ARG("CUDNN_ATTR_VARIANT_PACK_WORKSPACE", ws);
    for (int64_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=%lld]", (long long)uids[i]);
        a[k++] = (struct dc_lib_arg){ .name = names[i], .ptr = P(ptrs[i]), .host_ok = 1 };
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

/* The RNN calls (cudnn_adv.h; cuDNN's documentation: every buffer is GPU
 * memory, devSeqLengths too).  hx, cx, hy, cy (and their gradients) may be
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
