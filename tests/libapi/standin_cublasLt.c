/* A stand-in for NVIDIA's libcublasLt.so.13 (tests/libapi/README): the
 * entry points the tests call, defined against the real header, exported
 * under the real version node (standin.map), doing no math.  A matmul
 * descriptor keeps what cublasLtMatmulDescSetAttribute was given, so
 * cublasLtMatmulDescGetAttribute answers as the real library does. */
#include <cublasLt.h>
#include <stdlib.h>
#include <string.h>

#define NATTR 64
struct desc {
    size_t size[NATTR];
    unsigned char value[NATTR][8];
};

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    static int dummy;
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    *lightHandle = (cublasLtHandle_t)&dummy;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    (void)lightHandle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                                     cublasComputeType_t computeType, cudaDataType_t scaleType)
{
    (void)computeType;
    (void)scaleType;
    struct desc *d = calloc(1, sizeof *d);
    if (!matmulDesc || !d) {
        free(d);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    *matmulDesc = (cublasLtMatmulDesc_t)d;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    free(matmulDesc);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                           cublasLtMatmulDescAttributes_t attr, const void *buf,
                                                           size_t sizeInBytes)
{
    struct desc *d = (struct desc *)matmulDesc;
    if (!d || (unsigned)attr >= NATTR || sizeInBytes > 8 || !buf)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(d->value[attr], buf, sizeInBytes);
    d->size[attr] = sizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

/* An attribute never set reads as its default: 0 (host pointer mode, NULL
 * pointers), of the size asked for. */
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                           cublasLtMatmulDescAttributes_t attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten)
{
    struct desc *d = (struct desc *)matmulDesc;
    if (!d || (unsigned)attr >= NATTR || sizeInBytes > 8 || !buf)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(buf, 0, sizeInBytes);
    memcpy(buf, d->value[attr], d->size[attr] && d->size[attr] < sizeInBytes ? d->size[attr] : sizeInBytes);
    if (sizeWritten)
        *sizeWritten = sizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld)
{
    static int dummy;
    (void)type, (void)rows, (void)cols, (void)ld;
    if (!matLayout)
        return CUBLAS_STATUS_INVALID_VALUE;
    *matLayout = (cublasLtMatrixLayout_t)&dummy;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    (void)matLayout;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                           const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                           const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                                           const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                           cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                                           void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
    (void)lightHandle, (void)alpha, (void)A, (void)Adesc, (void)B, (void)Bdesc, (void)beta, (void)C, (void)Cdesc;
    (void)D, (void)Ddesc, (void)algo, (void)workspace, (void)workspaceSizeInBytes, (void)stream;
    return computeDesc ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
