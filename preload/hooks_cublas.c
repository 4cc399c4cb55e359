/* hooks_cublas: cuBLAS calls checked at their API (preload/hooks_lib.h has
 * the machinery, preload/hooks_lib.def the table): a handle's device (the
 * device current at cublasCreate, or its stream's), its pointer mode, and
 * the device-pointer arguments of the GEMMs, GEMVs, dots and axpys torch
 * calls (CUDABlas.cpp). */
#include "preload/hooks_lib.h"

#define LIB_THIS CUBLAS

/* A handle's stream and pointer mode, recorded where the program sets them
 * (cublasSetStream_v2, cublasSetPointerMode_v2; issue 37: no getter per
 * call).  A handle devcheck never saw set (made before devcheck was
 * loaded, or by a library inside its own call) is asked once, then
 * remembered; cublasDestroy_v2 forgets all three records. */
static int blas_get(int kind, cublasHandle_t h, uint64_t *v)
{
    if (dc_libh_get(kind, P(h), v))
        return 1;
    int ok;
    if (kind == DC_LIBH_CUBLAS_STREAM) {
        cudaStream_t s = NULL;
        __typeof__(&cublasGetStream_v2) gs = REAL(cublasGetStream_v2);
        ok = gs && gs(h, &s) == CUBLAS_STATUS_SUCCESS;
        *v = P(s);
    } else {
        cublasPointerMode_t m = CUBLAS_POINTER_MODE_HOST;
        __typeof__(&cublasGetPointerMode_v2) g = REAL(cublasGetPointerMode_v2);
        ok = g && g(h, &m) == CUBLAS_STATUS_SUCCESS;
        *v = (uint64_t)m;
    }
    if (ok)
        dc_libh_set(kind, P(h), *v);
    return ok;
}

/* The device a handle's calls run on (dc_lib_handle_device). */
static int blas_device(cublasHandle_t h, uintptr_t *stream)
{
    uint64_t s = 0;
    int got = blas_get(DC_LIBH_CUBLAS_STREAM, h, &s);
    return dc_lib_handle_device(DC_LIBH_CUBLAS, P(h), got, (cudaStream_t)s, stream);
}

/* alpha, beta (and a dot's result) are host pointers under
 * CUBLAS_POINTER_MODE_HOST (the default), device pointers under _DEVICE. */
static int blas_host_scalars(cublasHandle_t h)
{
    uint64_t m = CUBLAS_POINTER_MODE_HOST;
    if (!blas_get(DC_LIBH_CUBLAS_MODE, h, &m))
        m = CUBLAS_POINTER_MODE_HOST;
    return m == CUBLAS_POINTER_MODE_HOST;
}

static void blas_check(cublasHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    uintptr_t stream;
    int d = blas_device(h, &stream);
    dc_lib_check(api, d, stream, a, n);
}

LIB_CREATE_HOOK(cublasStatus_t, CUBLASWINAPI, cublasCreate_v2, cublasHandle_t, DC_LIBH_CUBLAS,
                CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS)

/* A setter the library took (any caller: a library's own handle too):
 * recorded, with or without the guard (the table calls nothing; a setter
 * missed would leave a stale record).  Forgotten before the real destroy
 * (the address may be reused as soon as it returns). */
#define BLAS_SETTER(name, T, kind)                                                  \
    LIB_BODY(cublasStatus_t, name, (cublasHandle_t handle, T v))                    \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), CUBLAS_STATUS_NOT_INITIALIZED;            \
        cublasStatus_t r = real(handle, v);                                         \
        if (r == CUBLAS_STATUS_SUCCESS)                                             \
            dc_libh_update(kind, P(handle), (uint64_t)(uintptr_t)v);                \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cublasStatus_t, CUBLASWINAPI, name, (cublasHandle_t handle, T v), (handle, v))
BLAS_SETTER(cublasSetStream_v2, cudaStream_t, DC_LIBH_CUBLAS_STREAM)
BLAS_SETTER(cublasSetPointerMode_v2, cublasPointerMode_t, DC_LIBH_CUBLAS_MODE)

LIB_BODY(cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle))
{
    LIB_REAL(cublasDestroy_v2);
    if (!real)
        return dc_lib_missing("cublasDestroy_v2"), CUBLAS_STATUS_NOT_INITIALIZED;
    dc_libh_forget(DC_LIBH_CUBLAS, P(handle));
    dc_libh_forget(DC_LIBH_CUBLAS_STREAM, P(handle));
    dc_libh_forget(DC_LIBH_CUBLAS_MODE, P(handle));
    return real(handle);
}
LIB_ENTRIES(cublasStatus_t, CUBLASWINAPI, cublasDestroy_v2, (cublasHandle_t handle), (handle))

/* A cuBLAS entry point `name` with parameters `params`, arguments `args`,
 * and the device pointers `checked` (struct dc_lib_arg initialisers; a
 * scalar by SCALAR: not checked in host pointer mode). */
#define BLAS_HOOK(name, params, args, ...)                                          \
    LIB_HOOK(cublasStatus_t, CUBLASWINAPI, name, params, args, CUBLAS_STATUS_NOT_INITIALIZED,  \
             CUBLAS_STATUS_SUCCESS,                                                 \
             (int host_scalars_ = blas_host_scalars(handle); (void)host_scalars_;   \
              struct dc_lib_arg a[] = { __VA_ARGS__ }; blas_check(handle, #name, a, NARGS(a))))
#define SCALAR(name) ARG(#name, host_scalars_ ? NULL : (name))

/* Sizes of 0: cuBLAS returns at once and touches nothing when m, n (or
 * batchCount) is 0; with k = 0 it reads neither A nor B (C = beta C); a
 * vector call of n <= 0 reads nothing (a dot still writes its result, 0).
 * IF(live, p): p when the call uses it. */
#define IF(live, p) ((live) ? (p) : NULL)
#define SCALAR_IF(live, name) ARG(#name, host_scalars_ || !(live) ? NULL : (name))
#define GEMM_ARGS_(mn, mnk)                                                         \
    SCALAR_IF(mn, alpha), ARG("A", IF(mnk, A)), ARG("B", IF(mnk, B)), SCALAR_IF(mn, beta), ARG("C", IF(mn, C))
#define GEMM_ARGS GEMM_ARGS_(m && n, m && n && k)
#define SB_GEMM_ARGS GEMM_ARGS_(m && n && batchCount, m && n && k && batchCount)
BLAS_HOOK(cublasSgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasDgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasGemmEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
     const void *beta, void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo),
    GEMM_ARGS)
BLAS_HOOK(cublasSgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb,
     long long int strideB, const float *beta, float *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    SB_GEMM_ARGS)
BLAS_HOOK(cublasDgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb,
     long long int strideB, const double *beta, double *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    SB_GEMM_ARGS)
BLAS_HOOK(cublasGemmStridedBatchedEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA, const void *B,
     cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
     long long int strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
     strideC, batchCount, computeType, algo),
    SB_GEMM_ARGS)
/* A cuBLAS entry point taking pointer arrays: as BLAS_HOOK, then `arrays`
 * (a parenthesised statement of ELEMS) checks their elements.  cuBLAS's
 * kernels read an array, then each element's matrix: the array is an
 * argument; its elements are read when the array lies in pinned or
 * registered host memory (dc_check_libcall_array: an array in device memory
 * is checked as a whole, not read). */
#define BLAS_HOOK_ARRAYS(name, params, args, arrays, ...)                           \
    LIB_HOOK(cublasStatus_t, CUBLASWINAPI, name, params, args, CUBLAS_STATUS_NOT_INITIALIZED,  \
             CUBLAS_STATUS_SUCCESS,                                                 \
             (int host_scalars_ = blas_host_scalars(handle); (void)host_scalars_;   \
              struct dc_lib_arg a[] = { __VA_ARGS__ }; uintptr_t st_;               \
              int d_ = blas_device(handle, &st_); const char *api_ = #name;          \
              dc_lib_check(api_, d_, st_, a, NARGS(a)); DC_UNPAREN arrays))
/* the first `count` elements of array `arr` (none when not live) */
#define ELEMS(arr, live, count)                                                     \
    dc_check_libcall_array(api_, d_, st_, #arr "[i]", P((live) ? (const void *)(arr) : NULL), (int64_t)(count))
#define GEMM_ARRAYS (                                                               \
    ELEMS(Aarray, m && n && k, batchCount); ELEMS(Barray, m && n && k, batchCount); \
    ELEMS(Carray, m && n, batchCount);)
BLAS_HOOK_ARRAYS(cublasGemmBatchedEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *const Aarray[], cudaDataType Atype, int lda, const void *const Barray[],
     cudaDataType Btype, int ldb, const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
     int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc,
     batchCount, computeType, algo), GEMM_ARRAYS,
    SCALAR_IF(m && n && batchCount, alpha), ARG("Aarray", IF(m && n && k && batchCount, Aarray)),
    ARG("Barray", IF(m && n && k && batchCount, Barray)), SCALAR_IF(m && n && batchCount, beta),
    ARG("Carray", IF(m && n && batchCount, Carray)))

BLAS_HOOK(cublasCgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const cuComplex *A, int lda, const cuComplex *B, int ldb, const cuComplex *beta,
     cuComplex *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasZgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuDoubleComplex *alpha, const cuDoubleComplex *A, int lda, const cuDoubleComplex *B, int ldb,
     const cuDoubleComplex *beta, cuDoubleComplex *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasCgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const cuComplex *A, int lda, long long int strideA, const cuComplex *B, int ldb,
     long long int strideB, const cuComplex *beta, cuComplex *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    SB_GEMM_ARGS)
BLAS_HOOK(cublasZgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuDoubleComplex *alpha, const cuDoubleComplex *A, int lda, long long int strideA,
     const cuDoubleComplex *B, int ldb, long long int strideB, const cuDoubleComplex *beta, cuDoubleComplex *C,
     int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    SB_GEMM_ARGS)
#define BATCHED_ARGS SCALAR_IF(m && n && batchCount, alpha), ARG("Aarray", IF(m && n && k && batchCount, Aarray)), \
    ARG("Barray", IF(m && n && k && batchCount, Barray)), SCALAR_IF(m && n && batchCount, beta),               \
    ARG("Carray", IF(m && n && batchCount, Carray))
BLAS_HOOK_ARRAYS(cublasSgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *const Aarray[], int lda, const float *const Barray[], int ldb,
     const float *beta, float *const Carray[], int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), GEMM_ARRAYS,
    BATCHED_ARGS)
BLAS_HOOK_ARRAYS(cublasDgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *const Aarray[], int lda, const double *const Barray[], int ldb,
     const double *beta, double *const Carray[], int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), GEMM_ARRAYS,
    BATCHED_ARGS)
/* Level 1 and 2 (preload/hooks_blas.def: one row per entry point, its
 * shape's hook here).  What a size of 0 leaves unread, as reference BLAS's
 * quick returns (cuBLAS follows them): axpy, dot with n <= 0 (a dot still
 * writes its result, 0); nrm2, scal with n <= 0 or incx <= 0 (nrm2 writes
 * 0); gemv, ger with m or n 0. */
#define BLAS_AXPY(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, const T *alpha, const T *x, I incx, T *y, I incy), \
        (handle, n, alpha, x, incx, y, incy), SCALAR_IF(n > 0, alpha), ARG("x", IF(n > 0, x)), \
        ARG("y", IF(n > 0, y)))
#define BLAS_DOT(name, T, S, I)                                                     \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, const T *x, I incx, const T *y, I incy, T *result), \
        (handle, n, x, incx, y, incy, result), ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)), SCALAR(result))
#define BLAS_NRM2(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, const T *x, I incx, S *result),    \
        (handle, n, x, incx, result), ARG("x", IF(n > 0 && incx > 0, x)), SCALAR(result))
#define BLAS_SCAL(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, const S *alpha, T *x, I incx),     \
        (handle, n, alpha, x, incx), SCALAR_IF(n > 0 && incx > 0, alpha), ARG("x", IF(n > 0 && incx > 0, x)))
#define BLAS_GEMV(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasOperation_t trans, I m, I n, const T *alpha, const T *A, I lda, const T *x, \
         I incx, const T *beta, T *y, I incy),                                      \
        (handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy),               \
        SCALAR_IF(m && n, alpha), ARG("A", IF(m && n, A)), ARG("x", IF(m && n, x)), SCALAR_IF(m && n, beta), \
        ARG("y", IF(m && n, y)))
#define BLAS_GER(name, T, S, I)                                                     \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, I m, I n, const T *alpha, const T *x, I incx, const T *y, I incy, T *A, I lda), \
        (handle, m, n, alpha, x, incx, y, incy, A, lda), SCALAR_IF(m && n, alpha), ARG("x", IF(m && n, x)), \
        ARG("y", IF(m && n, y)), ARG("A", IF(m && n, A)))
/* copy, swap, rot: nothing when n <= 0; trsv, trmv: nothing when n is 0
 * (the reference BLAS's quick returns); rot's c and s are scalars */
#define BLAS_COPY(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, const T *x, I incx, T *y, I incy), \
        (handle, n, x, incx, y, incy), ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)))
#define BLAS_SWAP(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, T *x, I incx, T *y, I incy),       \
        (handle, n, x, incx, y, incy), ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)))
#define BLAS_ROT_(name, T, S, ST, I)                                                \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, T *x, I incx, T *y, I incy, const S *c, const ST *s), \
        (handle, n, x, incx, y, incy, c, s), ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)), \
        SCALAR_IF(n > 0, c), SCALAR_IF(n > 0, s))
#define BLAS_ROT(name, T, S, I) BLAS_ROT_(name, T, S, T, I)
#define BLAS_ROTR(name, T, S, I) BLAS_ROT_(name, T, S, S, I)
#define BLAS_TRSV(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag, I n, \
         const T *A, I lda, T *x, I incx),                                          \
        (handle, uplo, trans, diag, n, A, lda, x, incx), ARG("A", IF(n, A)), ARG("x", IF(n, x)))
/* The symmetric/Hermitian level 2 and 3, trmm, the rotation generators
 * (issue 37: the rest of what torch 2.15 imports; their prototypes are
 * cublas_api.h's).  Sizes of 0, as the reference BLAS's quick returns
 * (cuBLAS follows them): symv, syr, syr2 (and the Hermitian forms) read
 * nothing when n is 0; syrk, syr2k nothing when n is 0, neither A nor B
 * when k is 0 (C = beta C); symm, trmm nothing when m or n is 0 (cuBLAS's
 * trmm is out of place: reads A and B, writes C).  rotg and rotmg take
 * scalars only, each in host or device memory by the pointer mode (cuBLAS
 * documentation: "a, b, c, s ... host or device memory"): nothing is
 * checked in host pointer mode.  rotm's param (5 elements) follows the
 * pointer mode too; with n <= 0 it is not checked (cuBLAS returns before
 * its kernel; the reference drotm reads param[0] first, on the host). */
#define BLAS_SYMV(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasFillMode_t uplo, I n, const T *alpha, const T *A, I lda, const T *x, I incx, \
         const T *beta, T *y, I incy),                                              \
        (handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy), SCALAR_IF(n, alpha), ARG("A", IF(n, A)), \
        ARG("x", IF(n, x)), SCALAR_IF(n, beta), ARG("y", IF(n, y)))
#define BLAS_SYR(name, T, S, I)                                                     \
    BLAS_HOOK(name, (cublasHandle_t handle, cublasFillMode_t uplo, I n, const S *alpha, const T *x, I incx, T *A, \
                     I lda),                                                        \
        (handle, uplo, n, alpha, x, incx, A, lda), SCALAR_IF(n, alpha), ARG("x", IF(n, x)), ARG("A", IF(n, A)))
#define BLAS_SYR2(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasFillMode_t uplo, I n, const T *alpha, const T *x, I incx, const T *y, I incy, \
         T *A, I lda),                                                              \
        (handle, uplo, n, alpha, x, incx, y, incy, A, lda), SCALAR_IF(n, alpha), ARG("x", IF(n, x)), \
        ARG("y", IF(n, y)), ARG("A", IF(n, A)))
#define BLAS_SYRK(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k, const S *alpha, \
         const T *A, I lda, const S *beta, T *C, I ldc),                            \
        (handle, uplo, trans, n, k, alpha, A, lda, beta, C, ldc), SCALAR_IF(n, alpha), ARG("A", IF(n && k, A)), \
        SCALAR_IF(n, beta), ARG("C", IF(n, C)))
#define BLAS_SYR2K(name, T, S, I)                                                   \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k, const T *alpha, \
         const T *A, I lda, const T *B, I ldb, const S *beta, T *C, I ldc),         \
        (handle, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc), SCALAR_IF(n, alpha), \
        ARG("A", IF(n && k, A)), ARG("B", IF(n && k, B)), SCALAR_IF(n, beta), ARG("C", IF(n, C)))
#define BLAS_SYMM(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, I m, I n, const T *alpha, \
         const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc),         \
        (handle, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc), SCALAR_IF(m && n, alpha), \
        ARG("A", IF(m && n, A)), ARG("B", IF(m && n, B)), SCALAR_IF(m && n, beta), ARG("C", IF(m && n, C)))
#define BLAS_TRMM(name, T, S, I)                                                    \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans, \
         cublasDiagType_t diag, I m, I n, const T *alpha, const T *A, I lda, const T *B, I ldb, T *C, I ldc), \
        (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc), SCALAR_IF(m && n, alpha), \
        ARG("A", IF(m && n, A)), ARG("B", IF(m && n, B)), ARG("C", IF(m && n, C)))
#define SCALAR_AS(name, p) ARG(name, host_scalars_ ? NULL : (p))
/* (rotg's a would be hidden by BLAS_HOOK's array a: parameters renamed) */
#define BLAS_ROTG(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, T *pa, T *pb, S *pc, T *ps), (handle, pa, pb, pc, ps), \
        SCALAR_AS("a", pa), SCALAR_AS("b", pb), SCALAR_AS("c", pc), SCALAR_AS("s", ps))
#define BLAS_ROTM(name, T, S, I)                                                    \
    BLAS_HOOK(name, (cublasHandle_t handle, I n, T *x, I incx, T *y, I incy, const T *param), \
        (handle, n, x, incx, y, incy, param), ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)), \
        SCALAR_IF(n > 0, param))
#define BLAS_ROTMG(name, T, S, I)                                                   \
    BLAS_HOOK(name, (cublasHandle_t handle, T *d1, T *d2, T *x1, const T *y1, T *param), \
        (handle, d1, d2, x1, y1, param), SCALAR(d1), SCALAR(d2), SCALAR(x1), SCALAR(y1), SCALAR(param))
#define DC_BLAS(shape, name, T, S, I) BLAS_##shape(name, T, S, I)
#include "preload/hooks_blas.def"
/* cublasDotEx, cublasDotcEx: the dot products of the given types (as DOT) */
#define DOTEX_HOOK(name)                                                            \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, int n, const void *x, cudaDataType xType, int incx, const void *y, \
         cudaDataType yType, int incy, void *result, cudaDataType resultType, cudaDataType executionType), \
        (handle, n, x, xType, incx, y, yType, incy, result, resultType, executionType), \
        ARG("x", IF(n > 0, x)), ARG("y", IF(n > 0, y)), SCALAR(result))
DOTEX_HOOK(cublasDotEx)
DOTEX_HOOK(cublasDotcEx)
/* The workspace the handle's calls will use: checked where it is handed over. */
BLAS_HOOK(cublasSetWorkspace_v2, (cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes),
    (handle, workspace, workspaceSizeInBytes), ARG("workspace", workspaceSizeInBytes ? workspace : NULL))

/* --- coverage of what PyTorch's and JAX's wheels import (issue 37 item 5;
 * sim/libs/imports.tsv): torch 2.15 imports cublasSgemmEx, the trsm_v2
 * and the trsmBatched, getrfBatched and gelsBatched families; JAX's plugins
 * (dlsym) the _64 forms and cublasCgemmEx too. */

/* cublasSgemmEx / cublasCgemmEx: A, B, C of the given types, alpha and beta
 * float (complex) */
BLAS_HOOK(cublasSgemmEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
     const float *beta, void *C, cudaDataType Ctype, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc), GEMM_ARGS)
BLAS_HOOK(cublasCgemmEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
     const cuComplex *beta, void *C, cudaDataType Ctype, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc), GEMM_ARGS)
/* the _64 forms: 64-bit sizes, the same arguments */
BLAS_HOOK(cublasSgemm_v2_64,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
     const float *alpha, const float *A, int64_t lda, const float *B, int64_t ldb, const float *beta, float *C,
     int64_t ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasDgemm_v2_64,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
     const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta,
     double *C, int64_t ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasGemmEx_64,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
     const void *alpha, const void *A, cudaDataType Atype, int64_t lda, const void *B, cudaDataType Btype,
     int64_t ldb, const void *beta, void *C, cudaDataType Ctype, int64_t ldc, cublasComputeType_t computeType,
     cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo),
    GEMM_ARGS)
BLAS_HOOK(cublasGemmStridedBatchedEx_64,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
     const void *alpha, const void *A, cudaDataType Atype, int64_t lda, long long int strideA, const void *B,
     cudaDataType Btype, int64_t ldb, long long int strideB, const void *beta, void *C, cudaDataType Ctype,
     int64_t ldc, long long int strideC, int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
     strideC, batchCount, computeType, algo),
    SB_GEMM_ARGS)
BLAS_HOOK_ARRAYS(cublasGemmBatchedEx_64,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
     const void *alpha, const void *const Aarray[], cudaDataType Atype, int64_t lda, const void *const Barray[],
     cudaDataType Btype, int64_t ldb, const void *beta, void *const Carray[], cudaDataType Ctype, int64_t ldc,
     int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc,
     batchCount, computeType, algo), GEMM_ARRAYS, BATCHED_ARGS)

/* trsm: B := alpha op(A)^-1 B (or B op(A)^-1); nothing is read when m or n
 * is 0 */
#define TRSM_ARGS SCALAR_IF(m && n, alpha), ARG("A", IF(m && n, A)), ARG("B", IF(m && n, B))
#define TRSM_HOOK(name, T, I)                                                       \
    BLAS_HOOK(name,                                                                 \
        (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans, \
         cublasDiagType_t diag, I m, I n, const T *alpha, const T *A, I lda, T *B, I ldb), \
        (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb), TRSM_ARGS)
TRSM_HOOK(cublasStrsm_v2, float, int)
TRSM_HOOK(cublasDtrsm_v2, double, int)
TRSM_HOOK(cublasCtrsm_v2, cuComplex, int)
TRSM_HOOK(cublasZtrsm_v2, cuDoubleComplex, int)
TRSM_HOOK(cublasStrsm_v2_64, float, int64_t)
TRSM_HOOK(cublasDtrsm_v2_64, double, int64_t)
/* trsmBatched: pointer arrays A and B */
#define TRSM_BATCHED_HOOK(name, T)                                                  \
    BLAS_HOOK_ARRAYS(name,                                                          \
        (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans, \
         cublasDiagType_t diag, int m, int n, const T *alpha, const T *const A[], int lda, T *const B[], int ldb, \
         int batchCount),                                                           \
        (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount), \
        (ELEMS(A, m && n, batchCount); ELEMS(B, m && n, batchCount);),              \
        SCALAR_IF(m && n && batchCount, alpha), ARG("A", IF(m && n && batchCount, A)), \
        ARG("B", IF(m && n && batchCount, B)))
TRSM_BATCHED_HOOK(cublasStrsmBatched, float)
TRSM_BATCHED_HOOK(cublasDtrsmBatched, double)
TRSM_BATCHED_HOOK(cublasCtrsmBatched, cuComplex)
TRSM_BATCHED_HOOK(cublasZtrsmBatched, cuDoubleComplex)
/* getrfBatched: A[i] factorized in place, pivots P (NULL: none), info per
 * matrix; nothing when n or batchSize is 0 */
#define GETRF_BATCHED_HOOK(name, T)                                                 \
    BLAS_HOOK_ARRAYS(name,                                                          \
        (cublasHandle_t handle, int n, T *const A[], int lda, int *P, int *info, int batchSize), \
        (handle, n, A, lda, P, info, batchSize), (ELEMS(A, n, batchSize);),         \
        ARG("A", IF(n && batchSize, A)), ARG("P", IF(n && batchSize, P)), ARG("info", IF(batchSize, info)))
GETRF_BATCHED_HOOK(cublasSgetrfBatched, float)
GETRF_BATCHED_HOOK(cublasDgetrfBatched, double)
GETRF_BATCHED_HOOK(cublasCgetrfBatched, cuComplex)
GETRF_BATCHED_HOOK(cublasZgetrfBatched, cuDoubleComplex)
/* getrsBatched (torch.linalg.solve, lu_solve of a batch): op(A[i])^-1 B[i]
 * from getrfBatched's factors and pivots devIpiv (NULL: none); info is a
 * host pointer (the argument check's answer); nothing when n, nrhs or
 * batchSize is 0 (cuBLAS documentation: no computation then) */
#define GETRS_BATCHED_HOOK(name, T)                                                 \
    BLAS_HOOK_ARRAYS(name,                                                          \
        (cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *const Aarray[], int lda, \
         const int *devIpiv, T *const Barray[], int ldb, int *info, int batchSize), \
        (handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize), \
        (ELEMS(Aarray, n && nrhs, batchSize); ELEMS(Barray, n && nrhs, batchSize);), \
        ARG("Aarray", IF(n && nrhs && batchSize, Aarray)), ARG("devIpiv", IF(n && nrhs && batchSize, devIpiv)), \
        ARG("Barray", IF(n && nrhs && batchSize, Barray)))
GETRS_BATCHED_HOOK(cublasSgetrsBatched, float)
GETRS_BATCHED_HOOK(cublasDgetrsBatched, double)
GETRS_BATCHED_HOOK(cublasCgetrsBatched, cuComplex)
GETRS_BATCHED_HOOK(cublasZgetrsBatched, cuDoubleComplex)
/* geqrfBatched (torch.linalg.qr, geqrf of a batch): Aarray[i] := its QR,
 * TauArray[i] the reflectors' scalars; info a host pointer; nothing when m
 * or n is 0 */
#define GEQRF_BATCHED_HOOK(name, T)                                                 \
    BLAS_HOOK_ARRAYS(name,                                                          \
        (cublasHandle_t handle, int m, int n, T *const Aarray[], int lda, T *const TauArray[], int *info, \
         int batchSize),                                                            \
        (handle, m, n, Aarray, lda, TauArray, info, batchSize),                     \
        (ELEMS(Aarray, m && n, batchSize); ELEMS(TauArray, m && n, batchSize);),    \
        ARG("Aarray", IF(m && n && batchSize, Aarray)), ARG("TauArray", IF(m && n && batchSize, TauArray)))
GEQRF_BATCHED_HOOK(cublasSgeqrfBatched, float)
GEQRF_BATCHED_HOOK(cublasDgeqrfBatched, double)
GEQRF_BATCHED_HOOK(cublasCgeqrfBatched, cuComplex)
GEQRF_BATCHED_HOOK(cublasZgeqrfBatched, cuDoubleComplex)
/* gelsBatched: least squares of Aarray[i], Carray[i]; info is a host
 * pointer (the argument check's answer), devInfoArray device memory */
#define GELS_BATCHED_HOOK(name, T)                                                  \
    BLAS_HOOK_ARRAYS(name,                                                          \
        (cublasHandle_t handle, cublasOperation_t trans, int m, int n, int nrhs, T *const Aarray[], int lda, \
         T *const Carray[], int ldc, int *info, int *devInfoArray, int batchSize),  \
        (handle, trans, m, n, nrhs, Aarray, lda, Carray, ldc, info, devInfoArray, batchSize), \
        (ELEMS(Aarray, m && n, batchSize); ELEMS(Carray, m && n, batchSize);),      \
        ARG("Aarray", IF(m && n && batchSize, Aarray)), ARG("Carray", IF(m && n && batchSize, Carray)), \
        ARG("devInfoArray", IF(batchSize, devInfoArray)))
GELS_BATCHED_HOOK(cublasSgelsBatched, float)
GELS_BATCHED_HOOK(cublasDgelsBatched, double)
GELS_BATCHED_HOOK(cublasCgelsBatched, cuComplex)
GELS_BATCHED_HOOK(cublasZgelsBatched, cuDoubleComplex)
/* the complex pointer-array GEMMs torch 2.15 imports */
BLAS_HOOK_ARRAYS(cublasCgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const cuComplex *const Aarray[], int lda, const cuComplex *const Barray[], int ldb,
     const cuComplex *beta, cuComplex *const Carray[], int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), GEMM_ARRAYS,
    BATCHED_ARGS)
BLAS_HOOK_ARRAYS(cublasZgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuDoubleComplex *alpha, const cuDoubleComplex *const Aarray[], int lda,
     const cuDoubleComplex *const Barray[], int ldb, const cuDoubleComplex *beta, cuDoubleComplex *const Carray[],
     int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), GEMM_ARRAYS,
    BATCHED_ARGS)

/* cublasGemmGroupedBatchedEx (cuBLAS documentation): group g holds
 * group_size[g] problems, C = alpha op(A) op(B) + beta C with op(A)
 * m_array[g] x k_array[g]; Aarray, Barray, Carray are device-visible arrays
 * of the problems' matrices, group after group; transa_array ... ldc_array
 * and group_size are host arrays, one entry per group (read here as the
 * library reads them); alpha_array, beta_array one scalar per group, host
 * or device memory by the pointer mode.  A group of m or n 0 reads nothing,
 * of k 0 neither A nor B; a negative size or count makes the call
 * CUBLAS_STATUS_INVALID_VALUE (nothing read: nothing checked).  The
 * elements of a group are checked as a batched GEMM's (ELEMS), the first
 * GROUPED_MAX groups. */
#define GROUPED_MAX 4096
#define GROUPED_FNS(sfx, I, G)                                                      \
    /* *mn: some problem writes C, *mnk: reads A and B; 0 for an invalid call */  \
    static void grouped_live_##sfx(const I *m, const I *n, const I *k, G groups, const G *size, int *mn, int *mnk) \
    {                                                                               \
        *mn = *mnk = 0;                                                             \
        if (!m || !n || !k || !size || groups < 0)                                  \
            return;                                                                 \
        int a = 0, b = 0;                                                           \
        for (G g = 0; g < groups && g < GROUPED_MAX; g++) {                         \
            if (m[g] < 0 || n[g] < 0 || k[g] < 0 || size[g] < 0)                    \
                return;                                                             \
            a |= size[g] && m[g] && n[g];                                           \
            b |= size[g] && m[g] && n[g] && k[g];                                   \
        }                                                                           \
        *mn = a, *mnk = b;                                                          \
    }                                                                               \
    static void grouped_elems_##sfx(const char *api, int d, uintptr_t st, const void *const *A,  \
                                    const void *const *B, void *const *C, const I *m, const I *n, const I *k, \
                                    G groups, const G *size)                        \
    {                                                                               \
        int64_t off = 0;                                                            \
        for (G g = 0; g < groups && g < GROUPED_MAX && off < DC_LIB_ARRAY_MAX; g++) { \
            if (m[g] && n[g] && k[g]) {                                             \
                dc_check_libcall_array(api, d, st, "Aarray[i]", P(A + off), (int64_t)size[g]); \
                dc_check_libcall_array(api, d, st, "Barray[i]", P(B + off), (int64_t)size[g]); \
            }                                                                       \
            if (m[g] && n[g])                                                       \
                dc_check_libcall_array(api, d, st, "Carray[i]", P(C + off), (int64_t)size[g]); \
            off += (int64_t)size[g];                                                \
        }                                                                           \
    }
GROUPED_FNS(32, int, int)
GROUPED_FNS(64, int64_t, int64_t)
/* as BLAS_HOOK_ARRAYS, with the groups' liveness first */
#define GROUPED_HOOK(name, sfx, I, G)                                               \
    LIB_HOOK(cublasStatus_t, CUBLASWINAPI, name,                                    \
        (cublasHandle_t handle, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[], \
         const I m_array[], const I n_array[], const I k_array[], const void *alpha_array, \
         const void *const Aarray[], cudaDataType_t Atype, const I lda_array[], const void *const Barray[], \
         cudaDataType_t Btype, const I ldb_array[], const void *beta_array, void *const Carray[], \
         cudaDataType_t Ctype, const I ldc_array[], G group_count, const G group_size[], \
         cublasComputeType_t computeType),                                          \
        (handle, transa_array, transb_array, m_array, n_array, k_array, alpha_array, Aarray, Atype, lda_array, \
         Barray, Btype, ldb_array, beta_array, Carray, Ctype, ldc_array, group_count, group_size, computeType), \
        CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS,                       \
        (int host_scalars_ = blas_host_scalars(handle); int mn_, mnk_;              \
         grouped_live_##sfx(m_array, n_array, k_array, group_count, group_size, &mn_, &mnk_); \
         struct dc_lib_arg a[] = { SCALAR_IF(mn_, alpha_array), ARG("Aarray", IF(mnk_, Aarray)), \
                                   ARG("Barray", IF(mnk_, Barray)), SCALAR_IF(mn_, beta_array), \
                                   ARG("Carray", IF(mn_, Carray)) };                \
         uintptr_t st_; int d_ = blas_device(handle, &st_);                         \
         dc_lib_check(#name, d_, st_, a, NARGS(a));                                 \
         if (mn_)                                                                   \
             grouped_elems_##sfx(#name, d_, st_, Aarray, Barray, Carray, m_array, n_array, k_array, group_count, \
                                 group_size);))
/* new in cuBLAS 12.5: not exported as CUDA 12's (hooks_lib.def's
 * DC_LIBCUR; a CUDA 12 libcublas.so.12 older than 12.5 lacks it), as
 * cusolverDnXgeev in hooks_cusolver.c */
#undef LIB_THIS
#define LIB_THIS CUBLAS_NEW
#define SYMVER_CUBLAS_NEW(name) LIB_SYMVER(name, "libcublas.so.13")
__asm__(".macro dc_old_CUBLAS_NEW name\n.endm\n");
GROUPED_HOOK(cublasGemmGroupedBatchedEx, 32, int, int)
GROUPED_HOOK(cublasGemmGroupedBatchedEx_64, 64, int64_t, int64_t)
#undef LIB_THIS
#define LIB_THIS CUBLAS
