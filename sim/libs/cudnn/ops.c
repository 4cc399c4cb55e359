/* libcudnn_ops.so.9 of the sim (sim/libs/cudnn/README.md): the legacy
 * tensor and filter descriptors (cudnn_ops.h), which the legacy
 * convolutions of libcudnn_cnn.so.9 read back through the getters.  What
 * the setters accept and the getters answer is cuDNN 9.26's on the CPU
 * (the messages are its); the other functions of cudnn_ops.h (pooling,
 * activations, batch normalization, dropout...) are the generated stubs. */
#include <cudnn_ops.h>

#include "dnn.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define DIMS CUDNN_DIM_MAX

struct cudnnTensorStruct {
    cudnnDataType_t dtype;
    int nb;                         /* 0 until set */
    int dim[DIMS], stride[DIMS];
};

struct cudnnFilterStruct {
    cudnnDataType_t dtype;
    cudnnTensorFormat_t format;
    int nb;
    int dim[DIMS];
};

/* The data types a legacy tensor or filter may hold (9.26:
 * is_tensor_supported_datatype): a backend tensor's but
 * CUDNN_DATA_FAST_FLOAT_FOR_FP8; their sizes. */
static size_t dtype_size(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FAST_FLOAT_FOR_FP8 ? 0 : simdnn_dtype_size(t);
}

static bool format_ok(cudnnTensorFormat_t f)
{
    return f == CUDNN_TENSOR_NCHW || f == CUDNN_TENSOR_NHWC || f == CUDNN_TENSOR_NCHW_VECT_C;
}

/* Packed strides of dims in format f: NCHW row-major; NHWC with the
 * channel innermost ([N, C, spatial...] ordered N, spatial..., C). */
static void packed(int nb, const int *dim, cudnnTensorFormat_t f, int *stride)
{
    if (f == CUDNN_TENSOR_NHWC && nb >= 3) {
        int s = 1;
        stride[1] = s;
        s *= dim[1];
        for (int i = nb - 1; i >= 2; i--) {
            stride[i] = s;
            s *= dim[i];
        }
        stride[0] = s;
        return;
    }
    int s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        stride[i] = s;
        s *= dim[i];
    }
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)
{
    if (!tensorDesc)
        return CUDNN_STATUS_BAD_PARAM;
    return (*tensorDesc = calloc(1, sizeof **tensorDesc)) ? CUDNN_STATUS_SUCCESS
                                                           : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
    free(tensorDesc);           /* 9.26: NULL succeeds */
    return CUDNN_STATUS_SUCCESS;
}

/* 9.26: at least 2 dimensions (1: BAD_PARAM), more than CUDNN_DIM_MAX:
 * NOT_SUPPORTED; sizes > 0; a stride of 0 only for a dimension of size 1;
 * negative and overlapping strides are accepted. */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                                            cudnnDataType_t dataType, int nbDims, const int dimA[],
                                                            const int strideA[])
{
    if (!tensorDesc || !dimA || !strideA)
        return CUDNN_STATUS_BAD_PARAM;
    if (!dtype_size(dataType) || nbDims < 2)
        return CUDNN_STATUS_BAD_PARAM;
    if (nbDims > DIMS)
        return CUDNN_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < nbDims; i++)
        if (dimA[i] <= 0 || (strideA[i] == 0 && dimA[i] != 1))
            return CUDNN_STATUS_BAD_PARAM;
    tensorDesc->dtype = dataType;
    tensorDesc->nb = nbDims;
    for (int i = 0; i < nbDims; i++) {
        tensorDesc->dim[i] = dimA[i];
        tensorDesc->stride[i] = strideA[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                                              cudnnTensorFormat_t format, cudnnDataType_t dataType,
                                                              int nbDims, const int dimA[])
{
    int stride[DIMS];
    if (!dimA || !format_ok(format) || format == CUDNN_TENSOR_NCHW_VECT_C)
        return CUDNN_STATUS_BAD_PARAM;
    if (nbDims > DIMS)
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (nbDims < 2)
        return CUDNN_STATUS_BAD_PARAM;
    packed(nbDims, dimA, format, stride);
    return cudnnSetTensorNdDescriptor(tensorDesc, dataType, nbDims, dimA, stride);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                                            cudnnTensorFormat_t format, cudnnDataType_t dataType,
                                                            int n, int c, int h, int w)
{
    if (!tensorDesc || n <= 0 || c <= 0 || h <= 0 || w <= 0 || !format_ok(format) ||
        format == CUDNN_TENSOR_NCHW_VECT_C)
        return CUDNN_STATUS_BAD_PARAM;
    int dim[4] = { n, c, h, w };
    return cudnnSetTensorNdDescriptorEx(tensorDesc, format, dataType, 4, dim);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                                              cudnnDataType_t dataType, int n, int c, int h, int w,
                                                              int nStride, int cStride, int hStride, int wStride)
{
    int dim[4] = { n, c, h, w }, stride[4] = { nStride, cStride, hStride, wStride };
    return cudnnSetTensorNdDescriptor(tensorDesc, dataType, 4, dim, stride);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                            int nbDimsRequested, cudnnDataType_t *dataType,
                                                            int *nbDims, int dimA[], int strideA[])
{
    if (!tensorDesc || !dataType || !nbDims || nbDimsRequested < 0 || (nbDimsRequested > 0 && (!dimA || !strideA)))
        return CUDNN_STATUS_BAD_PARAM;
    *dataType = tensorDesc->dtype;
    *nbDims = tensorDesc->nb;
    for (int i = 0; i < nbDimsRequested && i < tensorDesc->nb; i++) {
        dimA[i] = tensorDesc->dim[i];
        strideA[i] = tensorDesc->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* 9.26: a fresh descriptor answers zeros */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                            cudnnDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                            int *nStride, int *cStride, int *hStride, int *wStride)
{
    if (!tensorDesc || !dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
        return CUDNN_STATUS_BAD_PARAM;
    if (tensorDesc->nb != 0 && tensorDesc->nb != 4)
        return CUDNN_STATUS_BAD_PARAM;
    const int *d = tensorDesc->dim, *s = tensorDesc->stride;
    *dataType = tensorDesc->dtype;
    *n = d[0], *c = d[1], *h = d[2], *w = d[3];
    *nStride = s[0], *cStride = s[1], *hStride = s[2], *wStride = s[3];
    return CUDNN_STATUS_SUCCESS;
}

/* The bytes a tensor spans: 1 + sum((dim - 1) * stride) elements (9.26:
 * 240 for a half [2,3,4,5] packed tensor). */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size)
{
    if (!tensorDesc || !size)
        return CUDNN_STATUS_BAD_PARAM;
    int64_t span = tensorDesc->nb ? 1 : 0;
    for (int i = 0; i < tensorDesc->nb; i++)
        span += (int64_t)(tensorDesc->dim[i] - 1) * (tensorDesc->stride[i] < 0 ? -tensorDesc->stride[i]
                                                                                : tensorDesc->stride[i]);
    *size = (size_t)span * dtype_size(tensorDesc->dtype);
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)
{
    if (!filterDesc)
        return CUDNN_STATUS_BAD_PARAM;
    return (*filterDesc = calloc(1, sizeof **filterDesc)) ? CUDNN_STATUS_SUCCESS
                                                           : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
    free(filterDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* 9.26: "Filter descriptor requires more than 2 dimensions"; sizes > 0. */
EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc,
                                                            cudnnDataType_t dataType, cudnnTensorFormat_t format,
                                                            int nbDims, const int filterDimA[])
{
    if (!filterDesc || !filterDimA || !dtype_size(dataType) || !format_ok(format) || nbDims <= 2)
        return CUDNN_STATUS_BAD_PARAM;
    if (nbDims > DIMS)
        return CUDNN_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < nbDims; i++)
        if (filterDimA[i] <= 0)
            return CUDNN_STATUS_BAD_PARAM;
    filterDesc->dtype = dataType;
    filterDesc->format = format;
    filterDesc->nb = nbDims;
    for (int i = 0; i < nbDims; i++)
        filterDesc->dim[i] = filterDimA[i];
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc,
                                                            cudnnDataType_t dataType, cudnnTensorFormat_t format,
                                                            int k, int c, int h, int w)
{
    int dim[4] = { k, c, h, w };
    return cudnnSetFilterNdDescriptor(filterDesc, dataType, format, 4, dim);
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                            int nbDimsRequested, cudnnDataType_t *dataType,
                                                            cudnnTensorFormat_t *format, int *nbDims,
                                                            int filterDimA[])
{
    if (!filterDesc || !dataType || !format || !nbDims || nbDimsRequested < 0 || (nbDimsRequested > 0 && !filterDimA))
        return CUDNN_STATUS_BAD_PARAM;
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *nbDims = filterDesc->nb;
    for (int i = 0; i < nbDimsRequested && i < filterDesc->nb; i++)
        filterDimA[i] = filterDesc->dim[i];
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                            cudnnDataType_t *dataType, cudnnTensorFormat_t *format,
                                                            int *k, int *c, int *h, int *w)
{
    if (!filterDesc || !dataType || !format || !k || !c || !h || !w || (filterDesc->nb && filterDesc->nb != 4))
        return CUDNN_STATUS_BAD_PARAM;
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *k = filterDesc->dim[0], *c = filterDesc->dim[1], *h = filterDesc->dim[2], *w = filterDesc->dim[3];
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size)
{
    if (!filterDesc || !size)
        return CUDNN_STATUS_BAD_PARAM;
    size_t n = filterDesc->nb ? 1 : 0;
    for (int i = 0; i < filterDesc->nb; i++)
        n *= (size_t)filterDesc->dim[i];
    *size = n * dtype_size(filterDesc->dtype);
    return CUDNN_STATUS_SUCCESS;
}

EXPORT cudnnStatus_t CUDNNWINAPI cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
