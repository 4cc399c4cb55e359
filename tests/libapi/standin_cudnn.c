/* A stand-in for NVIDIA's libcudnn.so.9 (tests/libapi/README): a handle
 * with a stream; backend descriptors that keep the attributes they were
 * given (so cudnnBackendGetAttribute answers as the real library does);
 * execution and the legacy convolutions do no math.  The RNN calls are a
 * shim, as cuDNN 9's libcudnn.so.9 is: it dlopens libcudnn_adv.so.9 and
 * calls the definitions dlsym finds there (standin_cudnn_adv.c). */
#include <cudnn_graph.h>
#include <cudnn_cnn.h>
#include <cudnn_adv.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct cudnnContext {
    cudaStream_t stream;
};

cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t *handle)
{
    if (!handle || !(*handle = calloc(1, sizeof **handle)))
        return CUDNN_STATUS_ALLOC_FAILED;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle)
{
    free(handle);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    if (!handle)
        return CUDNN_STATUS_BAD_PARAM;
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    if (!handle || !streamId)
        return CUDNN_STATUS_BAD_PARAM;
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}

/* The legacy tensor, filter and convolution descriptors (tests/gpu/lib_progs.py's
 * cudnnConvolutionForward): set, never read. */
#define LEGACY_DESC(T, create, destroy)                                        \
    cudnnStatus_t CUDNNWINAPI create(T *d)                                    \
    {                                                                         \
        return d && (*d = calloc(1, 64)) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED; \
    }                                                                         \
    cudnnStatus_t CUDNNWINAPI destroy(T d)                                    \
    {                                                                         \
        free(d);                                                              \
        return CUDNN_STATUS_SUCCESS;                                          \
    }
LEGACY_DESC(cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor)
LEGACY_DESC(cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor)
LEGACY_DESC(cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor)

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                     cudnnDataType_t dataType, int n, int c, int h, int w)
{
    return tensorDesc && n > 0 && c > 0 && h > 0 && w > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    return filterDesc && k > 0 && c > 0 && h > 0 && w > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                          int u, int v, int dilation_h, int dilation_w,
                                                          cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
    return convDesc && u > 0 && v > 0 && dilation_h > 0 && dilation_w > 0 ? CUDNN_STATUS_SUCCESS
                                                                           : CUDNN_STATUS_BAD_PARAM;
}

/* A descriptor: up to NATTR attributes of up to 64 8-byte elements. */
#define NATTR 16
struct desc {
    int n;
    struct {
        cudnnBackendAttributeName_t name;
        int64_t count;
        unsigned char data[64 * 8];
    } attr[NATTR];
};

static size_t elem_size(cudnnBackendAttributeType_t t)
{
    return t == CUDNN_TYPE_INT64 || t == CUDNN_TYPE_VOID_PTR || t == CUDNN_TYPE_DOUBLE ||
                   t == CUDNN_TYPE_BACKEND_DESCRIPTOR
               ? 8
               : 4;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                                       cudnnBackendDescriptor_t *descriptor)
{
    if (!descriptor || !(*descriptor = calloc(1, sizeof(struct desc))))
        return CUDNN_STATUS_ALLOC_FAILED;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    free(descriptor);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    return descriptor ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                   const void *arrayOfElements)
{
    struct desc *d = (struct desc *)descriptor;
    size_t bytes = (size_t)elementCount * elem_size(attributeType);
    if (!d || elementCount < 0 || bytes > sizeof d->attr[0].data || !arrayOfElements)
        return CUDNN_STATUS_BAD_PARAM;
    int i = 0;
    while (i < d->n && d->attr[i].name != attributeName)
        i++;
    if (i == NATTR)
        return CUDNN_STATUS_BAD_PARAM;
    d->n += i == d->n;
    d->attr[i].name = attributeName;
    d->attr[i].count = elementCount;
    memcpy(d->attr[i].data, arrayOfElements, bytes);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType,
                                                   int64_t requestedElementCount, int64_t *elementCount,
                                                   void *arrayOfElements)
{
    const struct desc *d = (const struct desc *)descriptor;
    if (!d || requestedElementCount < 0)
        return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < d->n; i++)
        if (d->attr[i].name == attributeName) {
            int64_t n = d->attr[i].count < requestedElementCount ? d->attr[i].count : requestedElementCount;
            if (elementCount)
                *elementCount = d->attr[i].count;
            if (arrayOfElements)
                memcpy(arrayOfElements, d->attr[i].data, (size_t)n * elem_size(attributeType));
            return CUDNN_STATUS_SUCCESS;
        }
    if (elementCount)
        *elementCount = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                              cudnnBackendDescriptor_t variantPack)
{
    return handle && variantPack ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                                                  const cudnnTensorDescriptor_t xDesc, const void *x,
                                                  const cudnnFilterDescriptor_t wDesc, const void *w,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                  size_t workSpaceSizeInBytes, const void *beta,
                                                  const cudnnTensorDescriptor_t yDesc, void *y)
{
    return handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

/* libcudnn_adv.so.9's `name`, or NULL */
static void *adv_fn(const char *name)
{
    static void *lib;
    void *h = __atomic_load_n(&lib, __ATOMIC_ACQUIRE);
    if (!h && (h = dlopen("libcudnn_adv.so.9", RTLD_NOW | RTLD_LOCAL)))
        __atomic_store_n(&lib, h, __ATOMIC_RELEASE);
    return h ? dlsym(h, name) : NULL;
}
#define ADV_CALL(name, args)                                                   \
    do {                                                                       \
        __typeof__(&name) f = (__typeof__(&name))adv_fn(#name);                \
        return f ? f args : CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED;            \
    } while (0)

cudnnStatus_t CUDNNWINAPI cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                          cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
                                          cudnnRNNDataDescriptor_t xDesc, const void *x,
                                          cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc,
                                          const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx,
                                          void *cy, size_t weightSpaceSize, const void *weightSpace,
                                          size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                          void *reserveSpace)
{
    ADV_CALL(cudnnRNNForward, (handle, rnnDesc, fwdMode, devSeqLengths, xDesc, x, yDesc, y, hDesc, hx, hy, cDesc,
                               cx, cy, weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize,
                               reserveSpace));
}

cudnnStatus_t CUDNNWINAPI cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                  const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc,
                                                  const void *y, const void *dy, cudnnRNNDataDescriptor_t xDesc,
                                                  void *dx, cudnnTensorDescriptor_t hDesc, const void *hx,
                                                  const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
                                                  const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                                                  const void *weightSpace, size_t workSpaceSize, void *workSpace,
                                                  size_t reserveSpaceSize, void *reserveSpace)
{
    ADV_CALL(cudnnRNNBackwardData_v8, (handle, rnnDesc, devSeqLengths, yDesc, y, dy, xDesc, dx, hDesc, hx, dhy, dhx,
                                       cDesc, cx, dcy, dcx, weightSpaceSize, weightSpace, workSpaceSize, workSpace,
                                       reserveSpaceSize, reserveSpace));
}

cudnnStatus_t CUDNNWINAPI cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                     cudnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                                                     cudnnRNNDataDescriptor_t xDesc, const void *x,
                                                     cudnnTensorDescriptor_t hDesc, const void *hx,
                                                     cudnnRNNDataDescriptor_t yDesc, const void *y,
                                                     size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                                                     void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
{
    ADV_CALL(cudnnRNNBackwardWeights_v8, (handle, rnnDesc, addGrad, devSeqLengths, xDesc, x, hDesc, hx, yDesc, y,
                                          weightSpaceSize, dweightSpace, workSpaceSize, workSpace, reserveSpaceSize,
                                          reserveSpace));
}
