/* A stand-in for NVIDIA's libcublas.so.13 (tests/libapi/README): a handle
 * with the device current at cublasCreate, a stream and a pointer mode; the
 * GEMMs do no math, and cublasSgemm_v2 calls cublasLtMatmul through the PLT
 * as the real cuBLAS does (libcublas.so.13 needs libcublasLt.so.13), so a
 * checker that checks nested library calls reports one bug twice.  With
 * STANDIN_LAUNCH=1 cublasSgemm_v2 also launches a kernel on the handle's
 * stream (standin_kernel.cu), which faults on the sim when B is another
 * device's. */
#include <cublas_api.h>
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

int standin_gemm_launch(const float *A, const float *B, float *C, int n, cudaStream_t s);   /* standin_kernel.cu */

struct cublasContext {
    const int *lib;             /* &this_lib: a handle of this library, not of another version's */
    int device;
    cudaStream_t stream;
    cublasPointerMode_t mode;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t layout;
};

/* Built twice (libcublas.so.13 and CUDA 12's libcublas.so.12, tests/libapi/
 * README): each rejects the other's handles, so a call forwarded to the
 * wrong version fails. */
static const int this_lib;
static int mine(cublasHandle_t h) { return h && h->lib == &this_lib; }

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle)
{
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!handle || !h || cudaGetDevice(&h->device) != cudaSuccess || cublasLtCreate(&h->lt) ||
        cublasLtMatmulDescCreate(&h->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) ||
        cublasLtMatrixLayoutCreate(&h->layout, CUDA_R_32F, 1, 1, 1)) {
        free(h);
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    h->mode = CUBLAS_POINTER_MODE_HOST;
    h->lib = &this_lib;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasLtMatmulDescDestroy(handle->desc);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!mine(handle) || !streamId)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!mine(handle) || !mode)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *mode = handle->mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                           int m, int n, int k, const float *alpha, const float *A, int lda,
                                           const float *B, int ldb, const float *beta, float *C, int ldc)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)lda, (void)ldb, (void)ldc;
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    const char *launch = getenv("STANDIN_LAUNCH");
    if (launch && *launch == '1' && standin_gemm_launch(A, B, C, m * n, handle->stream))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    cublasLtPointerMode_t mode = (cublasLtPointerMode_t)handle->mode;
    cublasLtMatmulDescSetAttribute(handle->desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode);
    return cublasLtMatmul(handle->lt, handle->desc, alpha, A, handle->layout, B, handle->layout, beta, C,
                          handle->layout, C, handle->layout, NULL, NULL, 0, handle->stream);
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                         int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                                         void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)Atype, (void)lda, (void)B;
    (void)Btype, (void)ldb, (void)beta, (void)C, (void)Ctype, (void)ldc, (void)computeType, (void)algo;
    return mine(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                      cublasOperation_t transb, int m, int n, int k,
                                                      const float *alpha, const float *A, int lda,
                                                      long long int strideA, const float *B, int ldb,
                                                      long long int strideB, const float *beta, float *C, int ldc,
                                                      long long int strideC, int batchCount)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)strideA, (void)B;
    (void)ldb, (void)strideB, (void)beta, (void)C, (void)ldc, (void)strideC, (void)batchCount;
    return mine(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSdot_v2(cublasHandle_t handle, int n, const float *x, int incx, const float *y,
                                          int incy, float *result)
{
    (void)n, (void)x, (void)incx, (void)y, (void)incy;
    if (!mine(handle) || !result)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (handle->mode == CUBLAS_POINTER_MODE_HOST)
        *result = 0.0f;             /* the host pointer mode's result is written by the host */
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    (void)workspace, (void)workspaceSizeInBytes;
    return mine(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}
