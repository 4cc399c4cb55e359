/* A stand-in for NVIDIA's libcusolver.so.12 (tests/libapi/README): a handle
 * holding a cuBLAS handle (made at cusolverDnCreate, given the stream at
 * cusolverDnSetStream), as the real cuSOLVER does; the factorizations do no
 * math, and cusolverDnSpotrf calls cublasSgemm_v2 on A through the PLT
 * (libcusolver.so.12 needs libcublas.so.13), as the real one calls cuBLAS,
 * so a checker that checks nested library calls reports one bug twice.
 * The X API's bufferOnHost is written (it is host memory by design). */
#include <cusolverDn.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

struct cusolverDnContext {
    cublasHandle_t blas;
    cudaStream_t stream;
};

#define HANDLE_OK(h) ((h) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED)

cusolverStatus_t CUSOLVERAPI cusolverDnCreate(cusolverDnHandle_t *handle)
{
    struct cusolverDnContext *h = calloc(1, sizeof *h);
    if (!handle || !h || cublasCreate_v2(&h->blas) != CUBLAS_STATUS_SUCCESS) {
        free(h);
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    }
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnDestroy(cusolverDnHandle_t handle)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    cublasDestroy_v2(handle->blas);
    free(handle);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)
{
    if (!handle || cublasSetStream_v2(handle->blas, streamId) != CUBLAS_STATUS_SUCCESS)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId)
{
    if (!handle || !streamId)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    *streamId = handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnCreateParams(cusolverDnParams_t *params)
{
    /* an opaque, empty object: one byte of the heap */
    if (!params || !(*params = calloc(1, 1)))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnDestroyParams(cusolverDnParams_t params)
{
    free(params);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                                                         float *A, int lda, int *Lwork)
{
    if (!handle || !Lwork || n < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *Lwork = n * n;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float *A,
                                              int lda, float *Workspace, int Lwork, int *devInfo)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm_v2(handle->blas, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, A, lda, A, lda, &zero, Workspace,
                          n) == CUBLAS_STATUS_SUCCESS
               ? CUSOLVER_STATUS_SUCCESS
               : CUSOLVER_STATUS_EXECUTION_FAILED;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSpotrs(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs,
                                              const float *A, int lda, float *B, int ldb, int *devInfo)
{
    return HANDLE_OK(handle);
}

cusolverStatus_t CUSOLVERAPI cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float *A, int lda,
                                              float *Workspace, int *devIpiv, int *devInfo)
{
    return HANDLE_OK(handle);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgetrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                              int64_t n, cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv,
                                              cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    if (bufferOnHost && workspaceInBytesOnHost)
        memset(bufferOnHost, 0, workspaceInBytesOnHost);
    return HANDLE_OK(handle);
}

cusolverStatus_t CUSOLVERAPI cusolverDnXgesvd(cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu,
                                              signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA,
                                              void *A, int64_t lda, cudaDataType dataTypeS, void *S,
                                              cudaDataType dataTypeU, void *U, int64_t ldu, cudaDataType dataTypeVT,
                                              void *VT, int64_t ldvt, cudaDataType computeType, void *bufferOnDevice,
                                              size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                              size_t workspaceInBytesOnHost, int *info)
{
    if (bufferOnHost && workspaceInBytesOnHost)
        memset(bufferOnHost, 0, workspaceInBytesOnHost);
    return HANDLE_OK(handle);
}
