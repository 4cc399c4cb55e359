/* The sim's cuBLAS (libcublas.so.13; sim/libs/cublas/README.md): handles
 * (the device current at cublasCreate, a stream, a workspace, pointer,
 * math and atomics modes, an SM count target) and the BLAS calls PyTorch
 * makes.  Every GEMM, GEMV and dot product is one cublasLtMatmul, called
 * through the PLT as NVIDIA's libcublas calls into libcublasLt (it needs
 * libcublasLt.so.13): so a tool hooking both sees the cuBLAS call outside
 * and cuBLASLt's inside, as on a GPU.  axpy, scal, nrm2, ger, symv, hemv,
 * syr, her, syr2, her2, syrk, herk, syr2k, her2k, symm, hemm, trmm and rotm launch
 * vec.cu's kernels.  Not implemented (their stubs say so in one line): the
 * level-1 calls other than the dot products, axpy, scal, nrm2, rotm and rotg
 * (host pointer mode: computed on the CPU), level 2
 * other than GEMV, ger, symv, hemv, syr, her, syr2 and her2, level 3 other than the GEMMs, syrk, herk, syr2k, her2k, symm, hemm
 * and trmm (trsm, ...), the
 * batched solvers other than the LU's getrf/getrs Batched (geqrf, gels,
 * trsm, getri, matinv Batched), the _64 variants other than those of
 * GEMV, the dot products, axpy, scal, nrm2 and ger, the legacy API and
 * cublasSetVector/Matrix.  The
 * grouped GEMM (cublasGemmGroupedBatchedEx) is one matmul per group.  The batched LU (torch.linalg.solve, lu_factor)
 * launches lu.cu's kernels on the handle's stream. */
/* the API the headers declare has default visibility (SIMLIB_CFLAGS hides
 * the rest; the version script says which names are exported); libcublasLt's
 * functions are called through the PLT */
#pragma GCC visibility push(default)
#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#pragma GCC visibility pop
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "handle.h"
#include "lu.h"
#include "simlib.h"
#include "vec.h"

#define BLAS_LIB_NAME "libcublas.so.13"

extern const unsigned char lu_image[], vec_image[];
static struct simlib_image image = SIMLIB_IMAGE_INIT(lu_image, BLAS_LIB_NAME);
static struct simlib_image vimage = SIMLIB_IMAGE_INIT(vec_image, BLAS_LIB_NAME);

struct cublasContext {
    struct cublasLtContext head;        /* first: the handle is a cuBLASLt handle too (handle.h) */
    const int *lib;             /* &this_lib: a handle of this build, not of another version's */
    int device;
    CUcontext ctx;              /* current at cublasCreate: the handle's device's */
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
    cublasMath_t math_mode;
    cublasAtomicsMode_t atomics_mode;
    int sm_count_target;
    void *workspace;
    size_t workspace_size;
    cublasLtHandle_t lt;
    CUdeviceptr scratch;        /* 16 bytes of the handle's device: host-mode results */
    pthread_mutex_t lock;
};

/* Built twice (libcublas.so.13, and CUDA 12's libcublas.so.12): each build
 * rejects the other's handles with CUBLAS_STATUS_NOT_INITIALIZED. */
static const int this_lib;

static int mine(cublasHandle_t h)
{
    return h && h->lib == &this_lib;
}

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (simlib_driver(BLAS_LIB_NAME) != 0)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int dev = simlib_current_device();
    CUcontext ctx = NULL;
    if (dev < 0 || simlib_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasStatus_t s = cublasLtCreate(&h->lt);
    if (s != CUBLAS_STATUS_SUCCESS) {
        free(h);
        return s;
    }
    h->head.magic = SB_LT_MAGIC;
    h->lib = &this_lib;
    h->device = dev;
    h->ctx = ctx;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    pthread_mutex_init(&h->lock, NULL);
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (handle->scratch)
        simlib_drv.cuMemFree(handle->scratch);
    cublasLtDestroy(handle->lt);
    pthread_mutex_destroy(&handle->lock);
    handle->lib = NULL;
    handle->head.magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetProperty(libraryPropertyType type, int *value)
{
    return cublasLtGetProperty(type, value);
}

size_t CUBLASWINAPI cublasGetCudartVersion(void)
{
    return CUDART_VERSION;
}


const char *CUBLASWINAPI cublasGetStatusName(cublasStatus_t status)
{
    return cublasLtGetStatusName(status);
}

const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status)
{
    return cublasLtGetStatusString(status);
}

cublasStatus_t CUBLASWINAPI cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!workspace && workspaceSizeInBytes)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->workspace = workspace;
    handle->workspace_size = workspaceSizeInBytes;
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
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->atomics_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

/* The math mode is kept and answered; the sim computes every GEMM in
 * double precision whatever it says. */
cublasStatus_t CUBLASWINAPI cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!smCountTarget)
        return CUBLAS_STATUS_INVALID_VALUE;
    *smCountTarget = handle->sm_count_target;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget)
{
    if (!mine(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (smCountTarget < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->sm_count_target = smCountTarget;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- the matmul every call becomes ---- */

/* cublasGemmEx's table (cuBLAS documentation): alpha and beta are of the
 * compute type's scalar type, complex when C is. */
static cudaDataType scale_of(cublasComputeType_t compute, cudaDataType ctype)
{
    int cplx = simlib_type_complex(ctype);
    switch (compute) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
        return cplx ? CUDA_C_16F : CUDA_R_16F;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC:
        return cplx ? CUDA_C_64F : CUDA_R_64F;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
        return CUDA_R_32I;
    default:
        return cplx ? CUDA_C_32F : CUDA_R_32F;
    }
}

/* A handle's work goes to its device (cuBLAS ties a handle to the device
 * current at cublasCreate): a stream runs in its own context, and the
 * default stream is taken in the handle's context, whatever context is
 * current at the call.  enter() makes it current when it is not and returns
 * the context to restore (NULL: none), leave() restores it. */
static CUcontext enter(cublasHandle_t h)
{
    CUcontext cur = NULL;
    if (!h->stream && simlib_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != h->ctx &&
        simlib_drv.cuCtxSetCurrent(h->ctx) == CUDA_SUCCESS)
        return cur;
    return NULL;
}

static void leave(cublasHandle_t h, CUcontext cur)
{
    (void)h;
    if (cur)
        simlib_drv.cuCtxSetCurrent(cur);
}

struct operand {
    const void *p;
    cudaDataType type;
    int64_t rows, cols, ld, stride;
    int row;                    /* CUBLASLT_ORDER_ROW (0: column order) */
};

static int layout(cublasLtMatrixLayoutOpaque_t *l, const struct operand *o, int64_t batch, int arrays)
{
    int32_t b = (int32_t)batch;
    uint32_t mode = arrays ? CUBLASLT_BATCH_MODE_POINTER_ARRAY : CUBLASLT_BATCH_MODE_STRIDED;
    int32_t order = o->row ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
    return cublasLtMatrixLayoutInit(l, o->type, (uint64_t)o->rows, (uint64_t)o->cols, o->ld) ||
           cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order) ||
           cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b) ||
           cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &o->stride,
                                            sizeof o->stride) ||
           cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof mode);
}

/* D = C = alpha op(A) op(B) + beta C as one cublasLtMatmul on the handle's
 * stream, alpha and beta in `mode`. */
static cublasStatus_t matmul(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                             const struct operand *a, const struct operand *b, void *c, const struct operand *cl,
                             const void *alpha, const void *beta, cublasLtPointerMode_t mode,
                             cublasComputeType_t compute, cudaDataType scale, int64_t batch, int arrays)
{
    cublasLtMatmulDescOpaque_t desc;
    cublasLtMatrixLayoutOpaque_t la, lb, lc;
    int32_t opa = ta, opb = tb, pm = mode;
    if (cublasLtMatmulDescInit(&desc, compute, scale) ||
        cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa) ||
        cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb) ||
        cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof pm) ||
        layout(&la, a, batch, arrays) || layout(&lb, b, batch, arrays) || layout(&lc, cl, batch, arrays))
        return CUBLAS_STATUS_INTERNAL_ERROR;
    CUcontext cur = enter(h);
    cublasStatus_t s = cublasLtMatmul(h->lt, &desc, alpha, a->p, &la, b->p, &lb, beta, c, &lc, c, &lc, NULL,
                                      h->workspace, h->workspace_size, h->stream);
    leave(h, cur);
    return s;
}

static int op_ok(cublasOperation_t t)
{
    return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

/* The GEMM family: strided when stride* are given (batch > 1), arrays of
 * pointers when `arrays`. */
static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                           int64_t k, const void *alpha, const void *A, cudaDataType at, int64_t lda, int64_t sa,
                           const void *B, cudaDataType bt, int64_t ldb, int64_t sb, const void *beta, void *C,
                           cudaDataType ct, int64_t ldc, int64_t sc, int64_t batch, cublasComputeType_t compute,
                           int arrays)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || k < 0 || batch < 0 ||
        lda < (ta == CUBLAS_OP_N ? m : k) || lda < 1 || ldb < (tb == CUBLAS_OP_N ? k : n) || ldb < 1 ||
        ldc < m || ldc < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct operand a = { A, at, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda, sa, 0 };
    struct operand b = { B, bt, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb, sb, 0 };
    struct operand c = { C, ct, m, n, ldc, sc, 0 };
    return matmul(h, ta, tb, &a, &b, C, &c, alpha, beta, (cublasLtPointerMode_t)h->pointer_mode, compute,
                  scale_of(compute, ct), batch, arrays);
}

#define GEMM_T(name, T, CT, COMPUTE)                                                                               \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,     \
                                     int m, int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb, \
                                     const T *beta, T *C, int ldc)                                                 \
    {                                                                                                              \
        return gemm(handle, transa, transb, m, n, k, alpha, A, CT, lda, 0, B, CT, ldb, 0, beta, C, CT, ldc, 0, 1,   \
                    COMPUTE, 0);                                                                                   \
    }
GEMM_T(cublasSgemm_v2, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMM_T(cublasDgemm_v2, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMM_T(cublasCgemm_v2, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMM_T(cublasZgemm_v2, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

#define GEMM_STRIDED_T(name, T, CT, COMPUTE)                                                                       \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,     \
                                     int m, int n, int k, const T *alpha, const T *A, int lda,                     \
                                     long long int strideA, const T *B, int ldb, long long int strideB,            \
                                     const T *beta, T *C, int ldc, long long int strideC, int batchCount)          \
    {                                                                                                              \
        return gemm(handle, transa, transb, m, n, k, alpha, A, CT, lda, strideA, B, CT, ldb, strideB, beta, C, CT,  \
                    ldc, strideC, batchCount, COMPUTE, 0);                                                         \
    }
GEMM_STRIDED_T(cublasSgemmStridedBatched, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMM_STRIDED_T(cublasDgemmStridedBatched, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMM_STRIDED_T(cublasCgemmStridedBatched, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMM_STRIDED_T(cublasZgemmStridedBatched, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

#define GEMM_BATCHED_T(name, T, CT, COMPUTE)                                                                       \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,     \
                                     int m, int n, int k, const T *alpha, const T *const Aarray[], int lda,        \
                                     const T *const Barray[], int ldb, const T *beta, T *const Carray[], int ldc,  \
                                     int batchCount)                                                               \
    {                                                                                                              \
        return gemm(handle, transa, transb, m, n, k, alpha, Aarray, CT, lda, 0, Barray, CT, ldb, 0, beta,           \
                    (void *)Carray, CT, ldc, 0, batchCount, COMPUTE, 1);                                           \
    }
GEMM_BATCHED_T(cublasSgemmBatched, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMM_BATCHED_T(cublasDgemmBatched, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMM_BATCHED_T(cublasCgemmBatched, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMM_BATCHED_T(cublasZgemmBatched, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                         int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                                         void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo)
{
    (void)algo;
    return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1,
                computeType, 0);
}

cublasStatus_t CUBLASWINAPI cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                       cublasOperation_t transb, int m, int n, int k,
                                                       const void *alpha, const void *A, cudaDataType Atype, int lda,
                                                       long long int strideA, const void *B, cudaDataType Btype,
                                                       int ldb, long long int strideB, const void *beta, void *C,
                                                       cudaDataType Ctype, int ldc, long long int strideC,
                                                       int batchCount, cublasComputeType_t computeType,
                                                       cublasGemmAlgo_t algo)
{
    (void)algo;
    return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype,
                ldc, strideC, batchCount, computeType, 0);
}

cublasStatus_t CUBLASWINAPI cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                cublasOperation_t transb, int m, int n, int k, const void *alpha,
                                                const void *const Aarray[], cudaDataType Atype, int lda,
                                                const void *const Barray[], cudaDataType Btype, int ldb,
                                                const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
                                                int batchCount, cublasComputeType_t computeType,
                                                cublasGemmAlgo_t algo)
{
    (void)algo;
    return gemm(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, 0, Barray, Btype, ldb, 0, beta,
                (void *)Carray, Ctype, ldc, 0, batchCount, computeType, 1);
}

/* cublasSgemmEx: A, B, C of the given types, computed in float (alpha and
 * beta are floats); cublasCgemmEx the same with complex. */
cublasStatus_t CUBLASWINAPI cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const float *alpha, const void *A, cudaDataType Atype,
                                          int lda, const void *B, cudaDataType Btype, int ldb, const float *beta,
                                          void *C, cudaDataType Ctype, int ldc)
{
    return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1,
                CUBLAS_COMPUTE_32F, 0);
}

cublasStatus_t CUBLASWINAPI cublasCgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const cuComplex *alpha, const void *A,
                                          cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
                                          const cuComplex *beta, void *C, cudaDataType Ctype, int ldc)
{
    return gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1,
                CUBLAS_COMPUTE_32F, 0);
}

/* ---- GEMV and dot products as matmuls ---- */

static atomic_flag said_inc = ATOMIC_FLAG_INIT;

static cublasStatus_t no_negative_inc(void)
{
    simlib_note_once(&said_inc, BLAS_LIB_NAME,
                     "a negative or zero vector increment is not simulated: CUBLAS_STATUS_NOT_SUPPORTED");
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

/* y = alpha op(A) x + beta y.  With incy 1: y (m' x 1) = op(A) x, x an
 * n' x 1 matrix read as the transpose of a 1 x n' one of leading dimension
 * incx; otherwise y^T = x^T op(A)^T, y^T a 1 x m' matrix of leading
 * dimension incy (a conjugate op(A) then has no Lt form). */
static cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t trans, int m, int n, const void *alpha, const void *A,
                           int lda, const void *x, int incx, const void *beta, void *y, int incy, cudaDataType t,
                           cublasComputeType_t compute)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!op_ok(trans) || m < 0 || n < 0 || lda < m || lda < 1 || incx == 0 || incy == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (incx < 0 || incy < 0)
        return no_negative_inc();
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    int64_t rows = trans == CUBLAS_OP_N ? m : n, cols = trans == CUBLAS_OP_N ? n : m;    /* op(A) */
    struct operand a = { A, t, m, n, lda, 0, 0 };
    struct operand xv = { x, t, 1, cols, incx, 0, 0 };
    cublasLtPointerMode_t pm = (cublasLtPointerMode_t)h->pointer_mode;
    cudaDataType sc = scale_of(compute, t);
    if (incy == 1) {
        struct operand yv = { y, t, rows, 1, rows, 0, 0 };
        return matmul(h, trans, CUBLAS_OP_T, &a, &xv, y, &yv, alpha, beta, pm, compute, sc, 1, 0);
    }
    if (trans == CUBLAS_OP_C)
        return no_negative_inc();
    struct operand yv = { y, t, 1, rows, incy, 0, 0 };
    return matmul(h, CUBLAS_OP_N, trans == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N, &xv, &a, y, &yv, alpha, beta, pm,
                  compute, sc, 1, 0);
}

#define GEMV_T(name, T, CT, COMPUTE)                                                                               \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T *alpha,  \
                                     const T *A, int lda, const T *x, int incx, const T *beta, T *y, int incy)      \
    {                                                                                                              \
        return gemv(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, CT, COMPUTE);                      \
    }
GEMV_T(cublasSgemv_v2, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMV_T(cublasDgemv_v2, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMV_T(cublasCgemv_v2, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMV_T(cublasZgemv_v2, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

/* A host pointer mode result (dot products, nrm2): the kernel writes it to
 * the handle's 16 bytes of device memory (h->scratch, made by host_begin:
 * still 0 when it could not be), host_end waits for the handle's stream
 * and copies it to the caller's host memory, as NVIDIA's library returns a
 * host-mode result: the call blocks until the result is there (cuBLAS
 * documentation, "Scalar Parameters").  The 16 bytes are the handle's
 * device's even when the call comes while another device is current (a
 * handle with a stream; they were once the current device's, on which the
 * kernel faulted where NVIDIA's library computes).  A failed kernel, or a
 * sticky error already in the context, fails the synchronisation: the call
 * answers CUBLAS_STATUS_EXECUTION_FAILED, *result is left alone, and the
 * error stays in the context, where the program's next synchronising call
 * finds it (the sim's driver keeps a fault sticky, as a GPU's;
 * sim/tests/blas_sim.sh `dot_wrong`).  host_begin takes the handle's lock
 * and makes its context current; host_end gives both back. */
static CUcontext host_begin(cublasHandle_t h)
{
    pthread_mutex_lock(&h->lock);
    CUcontext cur = enter(h), now = NULL;
    /* the handle's device's memory, whatever device is current (with a
     * stream, enter() leaves the caller's context current) */
    if (!h->scratch && simlib_drv.cuCtxGetCurrent(&now) == CUDA_SUCCESS &&
        (now == h->ctx || simlib_drv.cuCtxSetCurrent(h->ctx) == CUDA_SUCCESS)) {
        if (simlib_drv.cuMemAlloc(&h->scratch, 16) != CUDA_SUCCESS)
            h->scratch = 0;
        if (now != h->ctx)
            simlib_drv.cuCtxSetCurrent(now);
    }
    return cur;
}

static cublasStatus_t host_end(cublasHandle_t h, CUcontext cur, cublasStatus_t s, void *result, int size)
{
    if (s == CUBLAS_STATUS_SUCCESS && (simlib_drv.cuStreamSynchronize((CUstream)h->stream) != CUDA_SUCCESS ||
                                       simlib_drv.cuMemcpyDtoH(result, h->scratch, (size_t)size) != CUDA_SUCCESS))
        s = CUBLAS_STATUS_EXECUTION_FAILED;
    leave(h, cur);
    pthread_mutex_unlock(&h->lock);
    return s;
}

/* result = sum x_i y_i (conj: of conj(x_i)) as a 1 x 1 matmul of depth n:
 * x a 1 x n matrix of leading dimension incx, y the transpose of another.
 * Host pointer mode: into the handle's 16 bytes of device memory, then
 * copied back after the stream synchronised, as NVIDIA's library returns a
 * host-mode result. */
static cublasStatus_t dot(cublasHandle_t h, int n, const void *x, cudaDataType xt, int incx, const void *y,
                          cudaDataType yt, int incy, void *result, cudaDataType rt, cudaDataType exec, int conj)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!result)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (incx <= 0 || incy <= 0))
        return no_negative_inc();
    int64_t k = n > 0 ? n : 0;
    /* n <= 0: x and y are not read (the reference BLAS's quick return), so
     * not the kernel's either: the result is 0 */
    struct operand xv = { k ? x : NULL, xt, 1, k, incx > 0 ? incx : 1, 0, 0 };
    struct operand yv = { k ? y : NULL, yt, 1, k, incy > 0 ? incy : 1, 0, 0 };
    /* conj: x^H is op C of x as a k x 1 matrix, read in row order with a
     * leading dimension of incx (op C of the 1 x k form would be k x 1, and
     * a matmul of depth 1: every conjugate dot was refused) */
    if (conj)
        xv = (struct operand){ k ? x : NULL, xt, k, 1, incx > 0 ? incx : 1, 0, 1 };
    struct operand r = { NULL, rt, 1, 1, 1, 0, 0 };
    double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    cudaDataType sc = simlib_type_complex(exec) ? CUDA_C_64F : CUDA_R_64F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
    int size = simlib_type_size(rt);
    if (!size)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
        return matmul(h, conj ? CUBLAS_OP_C : CUBLAS_OP_N, CUBLAS_OP_T, &xv, &yv, result, &r, one, zero,
                      CUBLASLT_POINTER_MODE_HOST, compute, sc, 1, 0);
    CUcontext cur = host_begin(h);
    cublasStatus_t s = h->scratch ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
    if (s == CUBLAS_STATUS_SUCCESS)
        s = matmul(h, conj ? CUBLAS_OP_C : CUBLAS_OP_N, CUBLAS_OP_T, &xv, &yv, (void *)(uintptr_t)h->scratch, &r, one,
                   zero, CUBLASLT_POINTER_MODE_HOST, compute, sc, 1, 0);
    return host_end(h, cur, s, result, size);
}

#define DOT_T(name, T, CT, CONJ)                                                                                   \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int n, const T *x, int incx, const T *y, int incy,      \
                                     T *result)                                                                    \
    {                                                                                                              \
        return dot(handle, n, x, CT, incx, y, CT, incy, result, CT, CT, CONJ);                                     \
    }
DOT_T(cublasSdot_v2, float, CUDA_R_32F, 0)
DOT_T(cublasDdot_v2, double, CUDA_R_64F, 0)
DOT_T(cublasCdotu_v2, cuComplex, CUDA_C_32F, 0)
DOT_T(cublasCdotc_v2, cuComplex, CUDA_C_32F, 1)
DOT_T(cublasZdotu_v2, cuDoubleComplex, CUDA_C_64F, 0)
DOT_T(cublasZdotc_v2, cuDoubleComplex, CUDA_C_64F, 1)

cublasStatus_t CUBLASWINAPI cublasDotEx(cublasHandle_t handle, int n, const void *x, cudaDataType xType, int incx,
                                        const void *y, cudaDataType yType, int incy, void *result,
                                        cudaDataType resultType, cudaDataType executionType)
{
    return dot(handle, n, x, xType, incx, y, yType, incy, result, resultType, executionType, 0);
}

cublasStatus_t CUBLASWINAPI cublasDotcEx(cublasHandle_t handle, int n, const void *x, cudaDataType xType, int incx,
                                         const void *y, cudaDataType yType, int incy, void *result,
                                         cudaDataType resultType, cudaDataType executionType)
{
    return dot(handle, n, x, xType, incx, y, yType, incy, result, resultType, executionType, 1);
}

/* The _64 forms of GEMV and the dot products (cublas_api.h: the same
 * calls with 64-bit sizes and increments): computed as the 32-bit ones when
 * every size fits an int; a larger one is not simulated (one line). */
static atomic_flag said_64 = ATOMIC_FLAG_INIT;

static int fits(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

static cublasStatus_t too_large(void)
{
    simlib_note_once(&said_64, BLAS_LIB_NAME, "a _64 call with a size past 2^31 is not simulated: "
                     "CUBLAS_STATUS_NOT_SUPPORTED");
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

#define GEMV64_T(name, T, CT, COMPUTE)                                                                             \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasOperation_t trans, int64_t m, int64_t n,          \
                                     const T *alpha, const T *A, int64_t lda, const T *x, int64_t incx,            \
                                     const T *beta, T *y, int64_t incy)                                            \
    {                                                                                                              \
        if (!fits(m) || !fits(n) || !fits(lda) || !fits(incx) || !fits(incy))                                      \
            return mine(handle) ? too_large() : CUBLAS_STATUS_NOT_INITIALIZED;                                     \
        return gemv(handle, trans, (int)m, (int)n, alpha, A, (int)lda, x, (int)incx, beta, y, (int)incy, CT,       \
                    COMPUTE);                                                                                      \
    }
GEMV64_T(cublasSgemv_v2_64, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
GEMV64_T(cublasDgemv_v2_64, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
GEMV64_T(cublasCgemv_v2_64, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
GEMV64_T(cublasZgemv_v2_64, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

#define DOT64_T(name, T, CT, CONJ)                                                                                 \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, const T *y,        \
                                     int64_t incy, T *result)                                                      \
    {                                                                                                              \
        if (!fits(n) || !fits(incx) || !fits(incy))                                                                \
            return mine(handle) ? too_large() : CUBLAS_STATUS_NOT_INITIALIZED;                                     \
        return dot(handle, (int)n, x, CT, (int)incx, y, CT, (int)incy, result, CT, CT, CONJ);                      \
    }
DOT64_T(cublasSdot_v2_64, float, CUDA_R_32F, 0)
DOT64_T(cublasDdot_v2_64, double, CUDA_R_64F, 0)
DOT64_T(cublasCdotu_v2_64, cuComplex, CUDA_C_32F, 0)
DOT64_T(cublasCdotc_v2_64, cuComplex, CUDA_C_32F, 1)
DOT64_T(cublasZdotu_v2_64, cuDoubleComplex, CUDA_C_64F, 0)
DOT64_T(cublasZdotc_v2_64, cuDoubleComplex, CUDA_C_64F, 1)

/* ---- axpy, scal, nrm2, ger (vec.h): one launch of vec.cu's kernels on
 * the handle's stream, their twins (vec_twin.c) computing; the arguments
 * as the cuBLAS documentation and the reference BLAS take them */

static cublasStatus_t vec_launch(cublasHandle_t h, const char *kernel, int64_t threads, void **params)
{
    CUcontext cur = enter(h);
    CUresult r = simlib_launch(&vimage, kernel, (unsigned long long)threads, (CUstream)h->stream, params);
    leave(h, cur);
    return r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

/* alpha as the handle's pointer mode has it: read now (host mode) into
 * v->alpha, or by the kernel (device mode).  Returns the kernel's alpha
 * parameter: NULL in host mode (the host pointer is no kernel's to read) */
static const void *vec_alpha(cublasHandle_t h, struct sb_vec *v, const void *alpha)
{
    v->device_scalars = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
    if (v->device_scalars)
        return alpha;
    simlib_load(alpha, v->type_s, 0, v->alpha);
    return NULL;
}

/* beta (of type t) as vec_alpha left the pointer mode in v: read now into
 * v->beta (host mode; returns NULL), or the kernel's to read (device mode) */
static const void *vec_beta(struct sb_vec *v, const void *beta, cudaDataType t)
{
    if (v->device_scalars)
        return beta;
    simlib_load(beta, t, 0, v->beta);
    return NULL;
}

/* y = alpha x + y; nothing when n <= 0, nor (host mode) when alpha is 0:
 * the reference BLAS's axpy returns then */
static cublasStatus_t axpy(cublasHandle_t h, int64_t n, const void *alpha, const void *x, int64_t incx, void *y,
                           int64_t incy, cudaDataType t)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_vec v = { .n = n, .incx = incx, .incy = incy, .type = t, .type_s = t };
    const void *al = vec_alpha(h, &v, alpha);
    if (!v.device_scalars && v.alpha[0] == 0 && v.alpha[1] == 0)
        return CUBLAS_STATUS_SUCCESS;
    void *params[] = { &v, &al, &x, &y };
    return vec_launch(h, "simblas_axpy", n, params);
}

/* x = alpha x (alpha of type s: Csscal's, Zdscal's real one); nothing when
 * n <= 0 or incx <= 0 (the reference BLAS's scal returns then) */
static cublasStatus_t scal(cublasHandle_t h, int64_t n, const void *alpha, cudaDataType s, void *x, int64_t incx,
                           cudaDataType t)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n <= 0 || incx <= 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_vec v = { .n = n, .incx = incx, .type = t, .type_s = s };
    const void *al = vec_alpha(h, &v, alpha);
    void *params[] = { &v, &al, &x };
    return vec_launch(h, "simblas_scal", n, params);
}

/* result = ||x||_2 of type s (Scnrm2's, Dznrm2's real one), 0 when n < 1 or
 * incx < 1 (the reference BLAS; x unread then: a host-mode 0 is written at
 * once); host mode: after the stream synchronised (host_begin / host_end) */
static cublasStatus_t nrm2(cublasHandle_t h, int64_t n, const void *x, int64_t incx, void *result, cudaDataType s,
                           cudaDataType t)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!result)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct sb_vec v = { .n = n, .incx = incx, .type = t, .type_s = s };
    if (n < 1 || incx < 1) {
        /* x is not read: not the kernel's either (a GPU's would not touch it) */
        x = NULL;
        if (h->pointer_mode != CUBLAS_POINTER_MODE_DEVICE) {
            double zero[2] = { 0, 0 };
            simlib_store(result, s, 0, zero);
            return CUBLAS_STATUS_SUCCESS;
        }
    }
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        void *params[] = { &v, &x, &result };
        return vec_launch(h, "simblas_nrm2", 1, params);
    }
    CUcontext cur = host_begin(h);
    cublasStatus_t st = h->scratch ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
    void *scratch = (void *)(uintptr_t)h->scratch;
    void *params[] = { &v, &x, &scratch };
    if (st == CUBLAS_STATUS_SUCCESS)
        st = vec_launch(h, "simblas_nrm2", 1, params);
    return host_end(h, cur, st, result, simlib_type_size(s));
}

/* A = alpha x y^T + A (conj: y^H); CUBLAS_STATUS_INVALID_VALUE when m or
 * n < 0, incx or incy 0, lda < max(1, m) (the cuBLAS documentation's, the
 * reference BLAS's xerbla cases); nothing when m or n is 0 */
static cublasStatus_t ger(cublasHandle_t h, int64_t m, int64_t n, const void *alpha, const void *x, int64_t incx,
                          const void *y, int64_t incy, void *A, int64_t lda, cudaDataType t, int conj)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || incx == 0 || incy == 0 || lda < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_vec v = { .m = m, .n = n, .incx = incx, .incy = incy, .lda = lda, .type = t, .type_s = t,
                        .conj = conj };
    const void *al = vec_alpha(h, &v, alpha);
    void *params[] = { &v, &al, &x, &y, &A };
    return vec_launch(h, "simblas_ger", m * n, params);
}

/* ---- the calls on a triangle (symv, hemv, syr, her, syr2, her2, syrk,
 * herk, syr2k, her2k, symm, hemm, trmm): one launch of vec.cu's kernels,
 * as axpy's; the argument checks and the sb_vec they share below */

/* max(1, rows): the least leading dimension of a matrix of `rows` rows */
static int64_t ld_min(int64_t rows)
{
    return rows > 1 ? rows : 1;
}

/* The argument checks every call on a triangle makes before anything runs:
 * a handle of another build is CUBLAS_STATUS_NOT_INITIALIZED; then
 * CUBLAS_STATUS_INVALID_VALUE (the cuBLAS documentation's checks) when n <
 * 0, lda < max(1, order) (order: the rows of A), uplo is neither LOWER nor
 * UPPER, trans is no operation (symv and syr, which take none, pass
 * CUBLAS_OP_N), or `bad`: the call's own documented checks.
 * CUBLAS_STATUS_SUCCESS: the call goes on (nothing to do when a size is 0:
 * the caller's to say). */
static cublasStatus_t uplo_call(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int64_t n,
                                int64_t lda, int64_t order, int bad)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (bad || n < 0 || lda < ld_min(order) || (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER) ||
        !op_ok(trans))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

/* The sb_vec fields every call on a triangle fills: n, lda, the types
 * (alpha's ts), conj, the uplo triangle, and trans as the kernels take it
 * (0 N, 1 T, 2 C; C of a real type is T).  The caller sets the rest
 * (increments, m, k, ldb, ldc, side, diag). */
static struct sb_vec uplo_vec(cublasFillMode_t uplo, cublasOperation_t trans, int64_t n, int64_t lda, cudaDataType t,
                              cudaDataType ts, int conj)
{
    return (struct sb_vec){ .n = n, .lda = lda, .type = t, .type_s = ts, .conj = conj,
                            .upper = uplo == CUBLAS_FILL_MODE_UPPER,
                            .trans = trans == CUBLAS_OP_N                              ? 0
                                     : trans == CUBLAS_OP_C && simlib_type_complex(t) ? 2
                                                                                       : 1 };
}

/* symv, hemv (conj): y = alpha A x + beta y, the n x n A symmetric
 * (Hermitian), its uplo triangle read (vec.h sb_symv_range); the cuBLAS
 * documentation's argument checks (n < 0, lda < max(1, n), an increment of
 * 0, uplo neither LOWER nor UPPER: CUBLAS_STATUS_INVALID_VALUE); nothing
 * when n is 0 */
static cublasStatus_t symv(cublasHandle_t h, cublasFillMode_t uplo, int64_t n, const void *alpha, const void *A,
                           int64_t lda, const void *x, int64_t incx, const void *beta, void *y, int64_t incy,
                           cudaDataType t, int conj)
{
    cublasStatus_t st = uplo_call(h, uplo, CUBLAS_OP_N, n, lda, n, incx == 0 || incy == 0);
    if (st != CUBLAS_STATUS_SUCCESS || n == 0)
        return st;
    struct sb_vec v = uplo_vec(uplo, CUBLAS_OP_N, n, lda, t, t, conj);
    v.incx = incx, v.incy = incy;
    const void *al = vec_alpha(h, &v, alpha), *be = vec_beta(&v, beta, t);
    void *params[] = { &v, &al, &A, &x, &be, &y };
    return vec_launch(h, "simblas_symv", n, params);
}

#define SYMV_T(name, T, CT, CONJ)                                                                                  \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha,          \
                                     const T *A, int lda, const T *x, int incx, const T *beta, T *y, int incy)     \
    {                                                                                                              \
        return symv(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, CT, CONJ);                             \
    }
SYMV_T(cublasSsymv_v2, float, CUDA_R_32F, 0)
SYMV_T(cublasDsymv_v2, double, CUDA_R_64F, 0)
SYMV_T(cublasCsymv_v2, cuComplex, CUDA_C_32F, 0)
SYMV_T(cublasZsymv_v2, cuDoubleComplex, CUDA_C_64F, 0)
SYMV_T(cublasChemv_v2, cuComplex, CUDA_C_32F, 1)
SYMV_T(cublasZhemv_v2, cuDoubleComplex, CUDA_C_64F, 1)

/* syr, her (conj), and with y syr2, her2: A's uplo triangle updated
 * (vec.h sb_syr_range); the documented argument checks as symv's; nothing
 * when n is 0.  alpha of type ts (her's real). */
static cublasStatus_t syr(cublasHandle_t h, cublasFillMode_t uplo, int64_t n, const void *alpha, const void *x,
                          int64_t incx, const void *y, int64_t incy, void *A, int64_t lda, cudaDataType t,
                          cudaDataType ts, int conj)
{
    cublasStatus_t st = uplo_call(h, uplo, CUBLAS_OP_N, n, lda, n, incx == 0 || (y && incy == 0));
    if (st != CUBLAS_STATUS_SUCCESS || n == 0)
        return st;
    struct sb_vec v = uplo_vec(uplo, CUBLAS_OP_N, n, lda, t, ts, conj);
    v.incx = incx, v.incy = incy;
    const void *al = vec_alpha(h, &v, alpha);
    void *p1[] = { &v, &al, &x, &A }, *p2[] = { &v, &al, &x, &y, &A };
    return y ? vec_launch(h, "simblas_syr2", n * n, p2) : vec_launch(h, "simblas_syr", n * n, p1);
}

#define SYR_T(name, T, S, CT, CS, CONJ)                                                                            \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasFillMode_t uplo, int n, const S *alpha,          \
                                     const T *x, int incx, T *A, int lda)                                          \
    {                                                                                                              \
        return syr(handle, uplo, n, alpha, x, incx, NULL, 0, A, lda, CT, CS, CONJ);                                \
    }
#define SYR2_T(name, T, CT, CONJ)                                                                                  \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha,          \
                                     const T *x, int incx, const T *y, int incy, T *A, int lda)                    \
    {                                                                                                              \
        return syr(handle, uplo, n, alpha, x, incx, y, incy, A, lda, CT, CT, CONJ);                                \
    }
SYR_T(cublasSsyr_v2, float, float, CUDA_R_32F, CUDA_R_32F, 0)
SYR_T(cublasDsyr_v2, double, double, CUDA_R_64F, CUDA_R_64F, 0)
SYR_T(cublasCsyr_v2, cuComplex, cuComplex, CUDA_C_32F, CUDA_C_32F, 0)
SYR_T(cublasZsyr_v2, cuDoubleComplex, cuDoubleComplex, CUDA_C_64F, CUDA_C_64F, 0)
SYR_T(cublasCher_v2, cuComplex, float, CUDA_C_32F, CUDA_R_32F, 1)
SYR_T(cublasZher_v2, cuDoubleComplex, double, CUDA_C_64F, CUDA_R_64F, 1)
SYR2_T(cublasSsyr2_v2, float, CUDA_R_32F, 0)
SYR2_T(cublasDsyr2_v2, double, CUDA_R_64F, 0)
SYR2_T(cublasCsyr2_v2, cuComplex, CUDA_C_32F, 0)
SYR2_T(cublasZsyr2_v2, cuDoubleComplex, CUDA_C_64F, 0)
SYR2_T(cublasCher2_v2, cuComplex, CUDA_C_32F, 1)
SYR2_T(cublasZher2_v2, cuDoubleComplex, CUDA_C_64F, 1)

/* syrk, herk (conj), and with B syr2k, her2k: C's uplo triangle := alpha
 * op(A) op(A or B)^T (^H) ... + beta C (vec.h sb_syrk_range); the
 * documented argument checks (n or k < 0, lda/ldb < max(1, n or k by
 * trans), ldc < max(1, n), uplo neither LOWER nor UPPER, trans: N or T for
 * the complex syrk/syr2k, N or C for herk/her2k, any for real types, where
 * C is T); nothing when n is 0; A and B unread when k is 0.  alpha of type
 * ta, beta of type tb (herk's both real, her2k's beta). */
static cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int64_t n, int64_t k,
                           const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                           const void *beta, void *C, int64_t ldc, cudaDataType t, cudaDataType ta,
                           cudaDataType tb, int conj)
{
    int64_t rows = trans == CUBLAS_OP_N ? n : k;        /* A's (and B's) */
    cublasStatus_t st = uplo_call(h, uplo, trans, n, lda, rows,
                                  k < 0 || (B && ldb < ld_min(rows)) || ldc < ld_min(n) ||
                                      (simlib_type_complex(t) && trans == (conj ? CUBLAS_OP_T : CUBLAS_OP_C)));
    if (st != CUBLAS_STATUS_SUCCESS || n == 0)
        return st;
    struct sb_vec v = uplo_vec(uplo, trans, n, lda, t, ta, conj);
    v.k = k, v.ldb = ldb, v.ldc = ldc;
    const void *al = vec_alpha(h, &v, alpha), *be = vec_beta(&v, beta, tb);
    if (v.device_scalars && tb != ta) {
        /* her2k in device pointer mode: a complex alpha, a real beta, one
         * device type for both in the kernel (type_s): not simulated */
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    void *p1[] = { &v, &al, &A, &be, &C }, *p2[] = { &v, &al, &A, &B, &be, &C };
    return B ? vec_launch(h, "simblas_syr2k", n * n, p2) : vec_launch(h, "simblas_syrk", n * n, p1);
}

#define SYRK_T(name, T, S, CT, CS, CONJ)                                                                           \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, \
                                     int k, const S *alpha, const T *A, int lda, const S *beta, T *C, int ldc)    \
    {                                                                                                              \
        return syrk(handle, uplo, trans, n, k, alpha, A, lda, NULL, 0, beta, C, ldc, CT, CS, CS, CONJ);            \
    }
#define SYR2K_T(name, T, S, CT, CS, CONJ)                                                                          \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, \
                                     int k, const T *alpha, const T *A, int lda, const T *B, int ldb,             \
                                     const S *beta, T *C, int ldc)                                                 \
    {                                                                                                              \
        return syrk(handle, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CT, CT, CS, CONJ);             \
    }
SYRK_T(cublasSsyrk_v2, float, float, CUDA_R_32F, CUDA_R_32F, 0)
SYRK_T(cublasDsyrk_v2, double, double, CUDA_R_64F, CUDA_R_64F, 0)
SYRK_T(cublasCsyrk_v2, cuComplex, cuComplex, CUDA_C_32F, CUDA_C_32F, 0)
SYRK_T(cublasZsyrk_v2, cuDoubleComplex, cuDoubleComplex, CUDA_C_64F, CUDA_C_64F, 0)
SYRK_T(cublasCherk_v2, cuComplex, float, CUDA_C_32F, CUDA_R_32F, 1)
SYRK_T(cublasZherk_v2, cuDoubleComplex, double, CUDA_C_64F, CUDA_R_64F, 1)
SYR2K_T(cublasSsyr2k_v2, float, float, CUDA_R_32F, CUDA_R_32F, 0)
SYR2K_T(cublasDsyr2k_v2, double, double, CUDA_R_64F, CUDA_R_64F, 0)
SYR2K_T(cublasCsyr2k_v2, cuComplex, cuComplex, CUDA_C_32F, CUDA_C_32F, 0)
SYR2K_T(cublasZsyr2k_v2, cuDoubleComplex, cuDoubleComplex, CUDA_C_64F, CUDA_C_64F, 0)
SYR2K_T(cublasCher2k_v2, cuComplex, float, CUDA_C_32F, CUDA_R_32F, 1)
SYR2K_T(cublasZher2k_v2, cuDoubleComplex, double, CUDA_C_64F, CUDA_R_64F, 1)

/* symm, hemm (conj): C := alpha A B + beta C (side right: alpha B A + beta
 * C), A symmetric (Hermitian) read from its uplo triangle; trmm (tri):
 * C := alpha op(A) B (right: alpha B op(A)), A triangular, out of place
 * (vec.h sb_symm_range).  The documented argument checks (m or n < 0, lda
 * < max(1, A's order), ldb and ldc < max(1, m), uplo, side, trans, diag out
 * of their enums); nothing when m or n is 0. */
static cublasStatus_t symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                           cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha, const void *A,
                           int64_t lda, const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                           cudaDataType t, int conj, int tri)
{
    int64_t ka = side == CUBLAS_SIDE_RIGHT ? n : m;     /* A's order */
    cublasStatus_t st = uplo_call(h, uplo, trans, n, lda, ka,
                                  m < 0 || ldb < ld_min(m) || ldc < ld_min(m) ||
                                      (side != CUBLAS_SIDE_LEFT && side != CUBLAS_SIDE_RIGHT) ||
                                      (diag != CUBLAS_DIAG_NON_UNIT && diag != CUBLAS_DIAG_UNIT));
    if (st != CUBLAS_STATUS_SUCCESS || m == 0 || n == 0)
        return st;
    struct sb_vec v = uplo_vec(uplo, trans, n, lda, t, t, conj);
    v.m = m, v.ldb = ldb, v.ldc = ldc, v.right = side == CUBLAS_SIDE_RIGHT, v.unit = diag == CUBLAS_DIAG_UNIT;
    v.tri = tri;
    const void *al = vec_alpha(h, &v, alpha);
    if (tri) {
        void *params[] = { &v, &al, &A, &B, &C };
        return vec_launch(h, "simblas_trmm", m * n, params);
    }
    const void *be = vec_beta(&v, beta, t);
    void *params[] = { &v, &al, &A, &B, &be, &C };
    return vec_launch(h, "simblas_symm", m * n, params);
}

#define SYMM_T(name, T, CT, CONJ)                                                                                  \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, int m,   \
                                     int n, const T *alpha, const T *A, int lda, const T *B, int ldb,             \
                                     const T *beta, T *C, int ldc)                                                 \
    {                                                                                                              \
        return symm(handle, side, uplo, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n, alpha, A, lda, B, ldb, beta, C,   \
                    ldc, CT, CONJ, 0);                                                                             \
    }
#define TRMM_T(name, T, CT)                                                                                        \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,          \
                                     cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T *alpha, \
                                     const T *A, int lda, const T *B, int ldb, T *C, int ldc)                     \
    {                                                                                                              \
        return symm(handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, NULL, C, ldc, CT, 0, 1);         \
    }
SYMM_T(cublasSsymm_v2, float, CUDA_R_32F, 0)
SYMM_T(cublasDsymm_v2, double, CUDA_R_64F, 0)
SYMM_T(cublasCsymm_v2, cuComplex, CUDA_C_32F, 0)
SYMM_T(cublasZsymm_v2, cuDoubleComplex, CUDA_C_64F, 0)
SYMM_T(cublasChemm_v2, cuComplex, CUDA_C_32F, 1)
SYMM_T(cublasZhemm_v2, cuDoubleComplex, CUDA_C_64F, 1)
TRMM_T(cublasStrmm_v2, float, CUDA_R_32F)
TRMM_T(cublasDtrmm_v2, double, CUDA_R_64F)
TRMM_T(cublasCtrmm_v2, cuComplex, CUDA_C_32F)
TRMM_T(cublasZtrmm_v2, cuDoubleComplex, CUDA_C_64F)

/* rotm: the modified Givens rotation of x and y (vec.h sb_rotm_range);
 * nothing when n <= 0; param read now in host pointer mode, by the kernel
 * in device mode */
static cublasStatus_t rotm(cublasHandle_t h, int64_t n, void *x, int64_t incx, void *y, int64_t incy,
                           const void *param, cudaDataType t)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_vec v = { .n = n, .incx = incx, .incy = incy, .type = t, .type_s = t,
                        .device_scalars = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE };
    const void *pm = param;
    if (!v.device_scalars) {
        for (int k = 0; k < 5; k++) {
            double e[2];
            simlib_load(param, t, k, e);
            v.param[k] = e[0];
        }
        pm = NULL;
    }
    void *params[] = { &v, &pm, &x, &y };
    return vec_launch(h, "simblas_rotm", n, params);
}
cublasStatus_t CUBLASWINAPI cublasSrotm_v2(cublasHandle_t handle, int n, float *x, int incx, float *y, int incy,
                                           const float *param)
{
    return rotm(handle, n, x, incx, y, incy, param, CUDA_R_32F);
}
cublasStatus_t CUBLASWINAPI cublasDrotm_v2(cublasHandle_t handle, int n, double *x, int incx, double *y, int incy,
                                           const double *param)
{
    return rotm(handle, n, x, incx, y, incy, param, CUDA_R_64F);
}

/* each in its 32-bit form and the _64 one (cublas_api.h: 64-bit sizes and
 * increments; all of int64_t computes here) */
#define AXPY_T(name, T, CT)                                                                                        \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int n, const T *alpha, const T *x, int incx, T *y,      \
                                     int incy)                                                                     \
    {                                                                                                              \
        return axpy(handle, n, alpha, x, incx, y, incy, CT);                                                       \
    }                                                                                                              \
    cublasStatus_t CUBLASWINAPI name##_64(cublasHandle_t handle, int64_t n, const T *alpha, const T *x,           \
                                          int64_t incx, T *y, int64_t incy)                                        \
    {                                                                                                              \
        return axpy(handle, n, alpha, x, incx, y, incy, CT);                                                       \
    }
AXPY_T(cublasSaxpy_v2, float, CUDA_R_32F)
AXPY_T(cublasDaxpy_v2, double, CUDA_R_64F)
AXPY_T(cublasCaxpy_v2, cuComplex, CUDA_C_32F)
AXPY_T(cublasZaxpy_v2, cuDoubleComplex, CUDA_C_64F)

#define SCAL_T(name, T, S, CT, CS)                                                                                 \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int n, const S *alpha, T *x, int incx)                  \
    {                                                                                                              \
        return scal(handle, n, alpha, CS, x, incx, CT);                                                            \
    }                                                                                                              \
    cublasStatus_t CUBLASWINAPI name##_64(cublasHandle_t handle, int64_t n, const S *alpha, T *x, int64_t incx)     \
    {                                                                                                              \
        return scal(handle, n, alpha, CS, x, incx, CT);                                                            \
    }
SCAL_T(cublasSscal_v2, float, float, CUDA_R_32F, CUDA_R_32F)
SCAL_T(cublasDscal_v2, double, double, CUDA_R_64F, CUDA_R_64F)
SCAL_T(cublasCscal_v2, cuComplex, cuComplex, CUDA_C_32F, CUDA_C_32F)
SCAL_T(cublasCsscal_v2, cuComplex, float, CUDA_C_32F, CUDA_R_32F)
SCAL_T(cublasZscal_v2, cuDoubleComplex, cuDoubleComplex, CUDA_C_64F, CUDA_C_64F)
SCAL_T(cublasZdscal_v2, cuDoubleComplex, double, CUDA_C_64F, CUDA_R_64F)

#define NRM2_T(name, T, S, CT, CS)                                                                                 \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int n, const T *x, int incx, S *result)                 \
    {                                                                                                              \
        return nrm2(handle, n, x, incx, result, CS, CT);                                                           \
    }                                                                                                              \
    cublasStatus_t CUBLASWINAPI name##_64(cublasHandle_t handle, int64_t n, const T *x, int64_t incx, S *result)    \
    {                                                                                                              \
        return nrm2(handle, n, x, incx, result, CS, CT);                                                           \
    }
NRM2_T(cublasSnrm2_v2, float, float, CUDA_R_32F, CUDA_R_32F)
NRM2_T(cublasDnrm2_v2, double, double, CUDA_R_64F, CUDA_R_64F)
NRM2_T(cublasScnrm2_v2, cuComplex, float, CUDA_C_32F, CUDA_R_32F)
NRM2_T(cublasDznrm2_v2, cuDoubleComplex, double, CUDA_C_64F, CUDA_R_64F)

#define GER_T(name, T, CT, CONJ)                                                                                   \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, int m, int n, const T *alpha, const T *x, int incx,     \
                                     const T *y, int incy, T *A, int lda)                                          \
    {                                                                                                              \
        return ger(handle, m, n, alpha, x, incx, y, incy, A, lda, CT, CONJ);                                       \
    }                                                                                                              \
    cublasStatus_t CUBLASWINAPI name##_64(cublasHandle_t handle, int64_t m, int64_t n, const T *alpha, const T *x,  \
                                          int64_t incx, const T *y, int64_t incy, T *A, int64_t lda)               \
    {                                                                                                              \
        return ger(handle, m, n, alpha, x, incx, y, incy, A, lda, CT, CONJ);                                       \
    }
GER_T(cublasSger_v2, float, CUDA_R_32F, 0)
GER_T(cublasDger_v2, double, CUDA_R_64F, 0)
GER_T(cublasCgeru_v2, cuComplex, CUDA_C_32F, 0)
GER_T(cublasCgerc_v2, cuComplex, CUDA_C_32F, 1)
GER_T(cublasZgeru_v2, cuDoubleComplex, CUDA_C_64F, 0)
GER_T(cublasZgerc_v2, cuDoubleComplex, CUDA_C_64F, 1)

/* cublasGemmGroupedBatchedEx (cuBLAS documentation): group g is a
 * pointer-array batched GEMM of group_size[g] problems with the g-th entry
 * of each per-group host array (transa_array ... ldc_array) and the g-th
 * scalar of alpha_array and beta_array (of the compute type's scalar type,
 * in the handle's pointer mode); the problems' pointers follow each other
 * in Aarray, Barray, Carray, group after group.  A negative group_count or
 * group_size, or a group the GEMM itself refuses, makes the call
 * CUBLAS_STATUS_INVALID_VALUE before anything runs; a group of m, n or
 * size 0 computes nothing.  One matmul per group on the handle's stream. */
#define GROUPED_T(name, I)                                                                                         \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, const cublasOperation_t transa_array[],                 \
                                     const cublasOperation_t transb_array[], const I m_array[], const I n_array[],  \
                                     const I k_array[], const void *alpha_array, const void *const Aarray[],        \
                                     cudaDataType_t Atype, const I lda_array[], const void *const Barray[],         \
                                     cudaDataType_t Btype, const I ldb_array[], const void *beta_array,             \
                                     void *const Carray[], cudaDataType_t Ctype, const I ldc_array[],               \
                                     I group_count, const I group_size[], cublasComputeType_t computeType)         \
    {                                                                                                              \
        if (!mine(handle))                                                                                         \
            return CUBLAS_STATUS_NOT_INITIALIZED;                                                                  \
        if (group_count < 0 || (group_count && (!transa_array || !transb_array || !m_array || !n_array ||          \
                                                !k_array || !lda_array || !ldb_array || !ldc_array || !group_size))) \
            return CUBLAS_STATUS_INVALID_VALUE;                                                                    \
        for (I g = 0; g < group_count; g++) {                                                                      \
            cublasOperation_t ta = transa_array[g], tb = transb_array[g];                                          \
            I m = m_array[g], n = n_array[g], k = k_array[g];                                                      \
            if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || k < 0 || group_size[g] < 0 ||                        \
                lda_array[g] < (ta == CUBLAS_OP_N ? m : k) || lda_array[g] < 1 ||                                  \
                ldb_array[g] < (tb == CUBLAS_OP_N ? k : n) || ldb_array[g] < 1 || ldc_array[g] < m ||              \
                ldc_array[g] < 1)                                                                                  \
                return CUBLAS_STATUS_INVALID_VALUE;                                                                \
        }                                                                                                          \
        size_t sz = (size_t)simlib_type_size(scale_of(computeType, Ctype));                                        \
        int64_t off = 0;                                                                                           \
        for (I g = 0; g < group_count; g++) {                                                                      \
            cublasStatus_t s = gemm(handle, transa_array[g], transb_array[g], m_array[g], n_array[g], k_array[g],  \
                                    (const char *)alpha_array + (size_t)g * sz, Aarray + off, Atype, lda_array[g], \
                                    0, Barray + off, Btype, ldb_array[g], 0,                                       \
                                    (const char *)beta_array + (size_t)g * sz, (void *)(Carray + off), Ctype,      \
                                    ldc_array[g], 0, group_size[g], computeType, 1);                               \
            if (s != CUBLAS_STATUS_SUCCESS)                                                                        \
                return s;                                                                                          \
            off += group_size[g];                                                                                  \
        }                                                                                                          \
        return CUBLAS_STATUS_SUCCESS;                                                                              \
    }
GROUPED_T(cublasGemmGroupedBatchedEx, int)
GROUPED_T(cublasGemmGroupedBatchedEx_64, int64_t)

/* ---- the batched LU (lu.h): one kernel launch per call on the handle's
 * stream, its twin (lu_twin.c) computing every batch item */

/* The matrix pointers of a call's device array arr (batch of them), read
 * into host memory for the twin (lu.h): each one the driver knows as an
 * allocation (cuPointerGetAttribute), else NULL and one line, once, naming
 * the call.  A GPU would follow such a pointer and fault; the sim's twin
 * cannot (it is not device memory the sim's guard covers), and the usual
 * reason on the sim is PyTorch's: its arange kernel, which the sim does not
 * compute, writes the array.  NULL and ALLOC_FAILED / EXECUTION_FAILED
 * when the array cannot be read. */
static void **lu_items(const char *call, const void *arr, int batch, cublasStatus_t *st)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    void **v = calloc((size_t)batch, sizeof *v);
    *st = v ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
    if (v && simlib_drv.cuMemcpyDtoH(v, (CUdeviceptr)(uintptr_t)arr, (size_t)batch * sizeof *v) != CUDA_SUCCESS) {
        *st = CUBLAS_STATUS_EXECUTION_FAILED;
        free(v);
        return NULL;
    }
    for (int i = 0; v && i < batch; i++) {
        CUdeviceptr base;
        if (v[i] && simlib_drv.cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                     (CUdeviceptr)(uintptr_t)v[i]) == CUDA_SUCCESS)
            continue;
        char line[200];
        snprintf(line, sizeof line, "%s: a matrix pointer of the batch (item %d: %p) is no allocation: "
                 "not computed (written by a kernel the sim does not compute?)", call, i, v[i]);
        simlib_note_once(&said, BLAS_LIB_NAME, line);
        v[i] = NULL;
    }
    return v;
}

static cublasStatus_t lu_launch(cublasHandle_t h, const char *call, const char *kernel, struct sb_lu *w,
                                const void *a, const void *p, const void *c, const void *b_arr)
{
    CUcontext cur = enter(h);
    cublasStatus_t st;
    void **items_a = lu_items(call, a, w->batch, &st), **items_b = NULL;
    if (items_a && b_arr)
        items_b = lu_items(call, b_arr, w->batch, &st);
    if (items_a && (items_b || !b_arr)) {
        w->a = items_a, w->b = items_b;
        void *params[] = { w, &a, &p, &c };
        CUresult r = simlib_launch(&image, kernel, 1, (CUstream)h->stream, params);
        st = r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
    }
    leave(h, cur);
    free(items_a), free(items_b);
    return st;
}

/* cublas<t>getrfBatched (cuBLAS documentation): each n x n A[i] := P L U,
 * P (n x batchSize, 1-based as LAPACK's; NULL: no pivoting) and info
 * (batchSize: 0, or the first k with U(k,k) = 0) in device memory.  The
 * documentation's CUBLAS_STATUS_INVALID_VALUE: n, lda or batchSize < 0; the
 * sim also refuses an lda < n, which holds no column of n rows. */
static cublasStatus_t getrf_batched(const char *call, cublasHandle_t h, cudaDataType t, int n, void *const *A, int lda, int *P,
                                    int *info, int batch)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_lu w = { t, n, 0, lda, 0, CUBLAS_OP_N, batch, NULL, NULL };
    return lu_launch(h, call, "simblas_getrf_batched", &w, A, P, info, NULL);
}

/* cublas<t>getrsBatched (cuBLAS documentation): each B[i] := op(A[i])^-1
 * B[i] from getrfBatched's factors and pivots (devIpiv NULL: none); info
 * is host memory: 0, or -k when the k-th parameter is invalid (counted as
 * LAPACK's getrs counts them: trans 1, n 2, nrhs 3, lda 5, ldb 8, then
 * batchSize 10), CUBLAS_STATUS_INVALID_VALUE then.  No singularity test, as
 * documented. */
static cublasStatus_t getrs_batched(const char *call, cublasHandle_t h, cudaDataType t, cublasOperation_t trans, int n, int nrhs,
                                    const void *const *A, int lda, const int *P, void *const *B, int ldb,
                                    int *info, int batch)
{
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!info)
        return CUBLAS_STATUS_INVALID_VALUE;
    int one = n > 1 ? n : 1;
    *info = trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C ? -1
            : n < 0                                                              ? -2
            : nrhs < 0                                                           ? -3
            : lda < one                                                          ? -5
            : ldb < one                                                          ? -8
            : batch < 0                                                          ? -10
                                                                                 : 0;
    if (*info)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0 || n == 0 || nrhs == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct sb_lu w = { t, n, nrhs, lda, ldb, trans, batch, NULL, NULL };
    return lu_launch(h, call, "simblas_getrs_batched", &w, A, P, B, B);
}

#define LU_T(S, T, CT)                                                                                             \
    cublasStatus_t CUBLASWINAPI cublas##S##getrfBatched(cublasHandle_t handle, int n, T *const A[], int lda, int *P, \
                                                        int *info, int batchSize)                                  \
    {                                                                                                              \
        return getrf_batched("cublas" #S "getrfBatched", handle, CT, n, (void *const *)A, lda, P, info, batchSize);                            \
    }                                                                                                              \
    cublasStatus_t CUBLASWINAPI cublas##S##getrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n,     \
                                                        int nrhs, const T *const Aarray[], int lda,                \
                                                        const int *devIpiv, T *const Barray[], int ldb, int *info, \
                                                        int batchSize)                                             \
    {                                                                                                              \
        return getrs_batched("cublas" #S "getrsBatched", handle, CT, trans, n, nrhs, (const void *const *)Aarray, lda, devIpiv,                \
                             (void *const *)Barray, ldb, info, batchSize);                                         \
    }
LU_T(S, float, CUDA_R_32F)
LU_T(D, double, CUDA_R_64F)
LU_T(C, cuComplex, CUDA_C_32F)
LU_T(Z, cuDoubleComplex, CUDA_C_64F)

/* cublas<t>rotg_v2, the Givens rotation generator (issue 37: torch 2.15
 * imports it).  In host pointer mode its four arguments are host memory
 * (cuBLAS documentation) and it is computed here, on the CPU, as the
 * reference BLAS's srotg/crotg define it (r = sign(roe) ||(a, b)||, c = a/r,
 * s = b/r, a := r, b := z, the reconstruction value; complex: c real, s
 * = (a/|a|) conj(b) / ||(a, b)||, a := (a/|a|) ||(a, b)||, b unchanged).  In
 * device pointer mode: not simulated (one line; CUBLAS_STATUS_NOT_SUPPORTED). */
static cublasStatus_t rotg_mode(cublasHandle_t h, const char *call)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!mine(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (h->pointer_mode == CUBLAS_POINTER_MODE_HOST)
        return CUBLAS_STATUS_SUCCESS;
    char line[120];
    snprintf(line, sizeof line, "%s in device pointer mode is not simulated", call);
    simlib_note_once(&said, BLAS_LIB_NAME, line);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

static void rotg_real(double *a, double *b, double *c, double *s)
{
    double roe = fabs(*a) > fabs(*b) ? *a : *b, scale = fabs(*a) + fabs(*b), r = 0, z = 0;
    if (scale == 0) {
        *c = 1, *s = 0;
    } else {
        r = copysign(scale * sqrt((*a / scale) * (*a / scale) + (*b / scale) * (*b / scale)), roe);
        *c = *a / r, *s = *b / r, z = 1;
        if (fabs(*a) > fabs(*b))
            z = *s;
        if (fabs(*b) >= fabs(*a) && *c != 0)
            z = 1 / *c;
    }
    *a = r, *b = z;
}

static void rotg_complex(double complex *a, double complex b, double *c, double complex *s)
{
    if (cabs(*a) == 0) {
        *c = 0, *s = 1, *a = b;
        return;
    }
    double scale = cabs(*a) + cabs(b), na = cabs(*a / scale), nb = cabs(b / scale);
    double norm = scale * sqrt(na * na + nb * nb);
    double complex alpha = *a / cabs(*a);
    *c = cabs(*a) / norm, *s = alpha * conj(b) / norm, *a = alpha * norm;
}

#define ROTG_REAL(name, T)                                                                                         \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, T *a, T *b, T *c, T *s)                               \
    {                                                                                                              \
        cublasStatus_t st = rotg_mode(handle, #name);                                                              \
        if (st != CUBLAS_STATUS_SUCCESS)                                                                           \
            return st;                                                                                             \
        double da = *a, db = *b, dc, ds;                                                                           \
        rotg_real(&da, &db, &dc, &ds);                                                                             \
        *a = (T)da, *b = (T)db, *c = (T)dc, *s = (T)ds;                                                            \
        return CUBLAS_STATUS_SUCCESS;                                                                              \
    }
#define ROTG_COMPLEX(name, T, R)                                                                                   \
    cublasStatus_t CUBLASWINAPI name(cublasHandle_t handle, T *a, T *b, R *c, T *s)                               \
    {                                                                                                              \
        cublasStatus_t st = rotg_mode(handle, #name);                                                              \
        if (st != CUBLAS_STATUS_SUCCESS)                                                                           \
            return st;                                                                                             \
        double complex za = a->x + I * a->y, zs;                                                                   \
        double dc;                                                                                                 \
        rotg_complex(&za, b->x + I * b->y, &dc, &zs);                                                              \
        a->x = (R)creal(za), a->y = (R)cimag(za), *c = (R)dc, s->x = (R)creal(zs), s->y = (R)cimag(zs);           \
        return CUBLAS_STATUS_SUCCESS;                                                                              \
    }
ROTG_REAL(cublasSrotg_v2, float)
ROTG_REAL(cublasDrotg_v2, double)
ROTG_COMPLEX(cublasCrotg_v2, cuComplex, float)
ROTG_COMPLEX(cublasZrotg_v2, cuDoubleComplex, double)
