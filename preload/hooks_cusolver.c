/* hooks_cusolver: dense cuSOLVER calls checked at their API
 * (preload/hooks_lib.h has the machinery, preload/hooks_lib.def the table):
 * a handle's device (its stream's, else the device current at
 * cusolverDnCreate); the factorizations and solvers torch's linalg calls
 * (aten/src/ATen/native/cuda/linalg/CUDASolver.cpp), the legacy S/D ones
 * and the 64-bit X API.  The _bufferSize queries take no data: not hooked. */
#include "preload/hooks_lib.h"

#define LIB_THIS CUSOLVER

/* A handle's stream, recorded where the program sets it
 * (cusolverDnSetStream, as cuBLAS's: no getter per call, issue 37); a handle
 * devcheck never saw set (made before devcheck was loaded) is asked once,
 * then remembered; cusolverDnDestroy forgets both records. */
static int solver_stream(cusolverDnHandle_t h, cudaStream_t *s)
{
    uint64_t v;
    if (dc_libh_get(DC_LIBH_CUSOLVER_STREAM, P(h), &v)) {
        *s = (cudaStream_t)(uintptr_t)v;
        return 1;
    }
    *s = NULL;
    __typeof__(&cusolverDnGetStream) gs = REAL(cusolverDnGetStream);
    if (!gs || gs(h, s) != CUSOLVER_STATUS_SUCCESS)
        return 0;
    dc_libh_set(DC_LIBH_CUSOLVER_STREAM, P(h), P(*s));
    return 1;
}

/* The device a handle's calls run on (dc_lib_handle_device); cuSOLVER calls cuBLAS
 * inside (its handle's cuBLAS handle): the outermost call is checked. */
static void solver_check(cusolverDnHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    cudaStream_t s;
    uintptr_t stream;
    int got = solver_stream(h, &s);
    int d = dc_lib_handle_device(DC_LIBH_CUSOLVER, P(h), got, s, &stream);
    dc_lib_check(api, d, stream, a, n);
}

/* The elements of pointer array `array` (dc_check_libcall_array), on the
 * handle's device. */
static void solver_array(cusolverDnHandle_t h, const char *api, const char *name, uintptr_t array, int count)
{
    cudaStream_t s;
    uintptr_t stream;
    int got = solver_stream(h, &s);
    int d = dc_lib_handle_device(DC_LIBH_CUSOLVER, P(h), got, s, &stream);
    dc_check_libcall_array(api, d, stream, name, array, count);
}

LIB_CREATE_HOOK(cusolverStatus_t, CUSOLVERAPI, cusolverDnCreate, cusolverDnHandle_t, DC_LIBH_CUSOLVER,
                CUSOLVER_STATUS_NOT_INITIALIZED, CUSOLVER_STATUS_SUCCESS)

/* The setter the library took (any caller), recorded with or without the
 * guard (the table calls nothing; a setter missed would leave a stale
 * record).  Destroy: both records forgotten before the real call (the
 * address may be reused as soon as it returns). */
LIB_BODY(cusolverStatus_t, cusolverDnSetStream, (cusolverDnHandle_t handle, cudaStream_t streamId))
{
    LIB_REAL(cusolverDnSetStream);
    if (!real)
        return dc_lib_missing("cusolverDnSetStream"), CUSOLVER_STATUS_NOT_INITIALIZED;
    cusolverStatus_t r = real(handle, streamId);
    if (r == CUSOLVER_STATUS_SUCCESS)
        dc_libh_update(DC_LIBH_CUSOLVER_STREAM, P(handle), P(streamId));
    return r;
}
LIB_ENTRIES(cusolverStatus_t, CUSOLVERAPI, cusolverDnSetStream, (cusolverDnHandle_t handle, cudaStream_t streamId),
            (handle, streamId))

LIB_BODY(cusolverStatus_t, cusolverDnDestroy, (cusolverDnHandle_t handle))
{
    LIB_REAL(cusolverDnDestroy);
    if (!real)
        return dc_lib_missing("cusolverDnDestroy"), CUSOLVER_STATUS_NOT_INITIALIZED;
    dc_libh_forget(DC_LIBH_CUSOLVER, P(handle));
    dc_libh_forget(DC_LIBH_CUSOLVER_STREAM, P(handle));
    return real(handle);
}
LIB_ENTRIES(cusolverStatus_t, CUSOLVERAPI, cusolverDnDestroy, (cusolverDnHandle_t handle), (handle))

/* Every data argument is device memory (A, B, the factors, pivots,
 * eigen/singular values and vectors, the workspace, the info words); a
 * workspace of size 0 is not checked, nor vectors the job does not
 * compute (gesvdj's U, V unless jobz is CUSOLVER_EIG_MODE_VECTOR; Xgesvd's
 * U, VT unless jobu, jobvt is 'A' or 'S').  The X API's bufferOnHost is
 * host memory by design: never checked.
 *
 * Sizes of 0 (issue 37): a call with nothing to compute returns at once,
 * as LAPACK's quick returns (cuSOLVER's API follows LAPACK's: potrf, syevd,
 * heevd n = 0; potrs, getrs n or nrhs 0; getrf, geqrf, gesvdj m or n 0;
 * orgqr n = 0): its matrices, pivots, vectors and workspace are not read;
 * its info word is still written (LAPACK sets INFO = 0 before the quick
 * return), so it is checked. */
#define IF(live, p) ((live) ? (p) : NULL)
#define SOLVER_HOOK(name, params, args, ...)                                        \
    LIB_HOOK(cusolverStatus_t, CUSOLVERAPI, name, params, args, CUSOLVER_STATUS_NOT_INITIALIZED, \
             CUSOLVER_STATUS_SUCCESS,                                               \
             (struct dc_lib_arg a[] = { __VA_ARGS__ }; solver_check(handle, #name, a, NARGS(a))))
#define SOLVER_POTRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A, int lda, T *Workspace, int Lwork,  \
         int *devInfo),                                                             \
        (handle, uplo, n, A, lda, Workspace, Lwork, devInfo),                       \
        ARG("A", IF(n, A)), SPACE(Workspace, n ? Lwork : 0), ARG("devInfo", devInfo))
SOLVER_POTRF(cusolverDnSpotrf, float)
SOLVER_POTRF(cusolverDnDpotrf, double)
#define SOLVER_POTRS(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const T *A, int lda, T *B, int ldb, \
         int *devInfo),                                                             \
        (handle, uplo, n, nrhs, A, lda, B, ldb, devInfo),                           \
        ARG("A", IF(n && nrhs, A)), ARG("B", IF(n && nrhs, B)), ARG("devInfo", devInfo))
SOLVER_POTRS(cusolverDnSpotrs, float)
SOLVER_POTRS(cusolverDnDpotrs, double)
/* devIpiv NULL: no pivoting */
#define SOLVER_GETRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, T *A, int lda, T *Workspace, int *devIpiv, int *devInfo), \
        (handle, m, n, A, lda, Workspace, devIpiv, devInfo),                        \
        ARG("A", IF(m && n, A)), ARG("Workspace", IF(m && n, Workspace)), ARG("devIpiv", IF(m && n, devIpiv)), \
        ARG("devInfo", devInfo))
SOLVER_GETRF(cusolverDnSgetrf, float)
SOLVER_GETRF(cusolverDnDgetrf, double)
#define SOLVER_GETRS(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *A, int lda,  \
         const int *devIpiv, T *B, int ldb, int *devInfo),                          \
        (handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo),                 \
        ARG("A", IF(n && nrhs, A)), ARG("devIpiv", IF(n && nrhs, devIpiv)), ARG("B", IF(n && nrhs, B)), \
        ARG("devInfo", devInfo))
SOLVER_GETRS(cusolverDnSgetrs, float)
SOLVER_GETRS(cusolverDnDgetrs, double)
#define SOLVER_GEQRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, T *A, int lda, T *TAU, T *Workspace, int Lwork, int *devInfo), \
        (handle, m, n, A, lda, TAU, Workspace, Lwork, devInfo),                     \
        ARG("A", IF(m && n, A)), ARG("TAU", IF(m && n, TAU)), SPACE(Workspace, m && n ? Lwork : 0), \
        ARG("devInfo", devInfo))
SOLVER_GEQRF(cusolverDnSgeqrf, float)
SOLVER_GEQRF(cusolverDnDgeqrf, double)
#define SOLVER_ORGQR(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, int k, T *A, int lda, const T *tau, T *work, int lwork,  \
         int *info),                                                                \
        (handle, m, n, k, A, lda, tau, work, lwork, info),                          \
        ARG("A", IF(n, A)), ARG("tau", IF(n, tau)), SPACE(work, n ? lwork : 0), ARG("info", info))
SOLVER_ORGQR(cusolverDnSorgqr, float)
SOLVER_ORGQR(cusolverDnDorgqr, double)
/* syevd, heevd (W real) */
#define SOLVER_SYEVD(name, T, R)                                                    \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda, R *W, \
         T *work, int lwork, int *info),                                            \
        (handle, jobz, uplo, n, A, lda, W, work, lwork, info),                      \
        ARG("A", IF(n, A)), ARG("W", IF(n, W)), SPACE(work, n ? lwork : 0), ARG("info", info))
SOLVER_SYEVD(cusolverDnSsyevd, float, float)
SOLVER_SYEVD(cusolverDnDsyevd, double, double)
/* gesvdj, gesvdjBatched (S real); a batch: info holds batchSize words */
#define GESVDJ_ARGS(live, info_live)                                                \
    ARG("A", IF(live, A)), ARG("S", IF(live, S)), ARG("U", IF(live && jobz == CUSOLVER_EIG_MODE_VECTOR, U)), \
    ARG("V", IF(live && jobz == CUSOLVER_EIG_MODE_VECTOR, V)), SPACE(work, live ? lwork : 0), \
    ARG("info", IF(info_live, info))
#define SOLVER_GESVDJ(name, T, R)                                                   \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, int econ, int m, int n, T *A, int lda, R *S, T *U, \
         int ldu, T *V, int ldv, T *work, int lwork, int *info, gesvdjInfo_t params), \
        (handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params), GESVDJ_ARGS(m && n, 1))
SOLVER_GESVDJ(cusolverDnSgesvdj, float, float)
SOLVER_GESVDJ(cusolverDnDgesvdj, double, double)
#define SOLVER_GESVDJ_BATCHED(name, T, R)                                           \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, T *A, int lda, R *S, T *U, int ldu, \
         T *V, int ldv, T *work, int lwork, int *info, gesvdjInfo_t params, int batchSize),  \
        (handle, jobz, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params, batchSize), \
        GESVDJ_ARGS(m && n && batchSize, batchSize))
SOLVER_GESVDJ_BATCHED(cusolverDnSgesvdjBatched, float, float)
SOLVER_GESVDJ_BATCHED(cusolverDnDgesvdjBatched, double, double)

/* The 64-bit X API */
#define DEV_BUFFER SPACE(bufferOnDevice, workspaceInBytesOnDevice)
SOLVER_HOOK(cusolverDnXpotrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
     void *A, int64_t lda, cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
     void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, uplo, n, dataTypeA, A, lda, computeType, bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost,
     workspaceInBytesOnHost, info),
    ARG("A", A), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXpotrs,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n, int64_t nrhs,
     cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType dataTypeB, void *B, int64_t ldb, int *info),
    (handle, params, uplo, n, nrhs, dataTypeA, A, lda, dataTypeB, B, ldb, info),
    ARG("A", A), ARG("B", B), ARG("info", info))
SOLVER_HOOK(cusolverDnXgetrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
     int64_t lda, int64_t *ipiv, cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
     void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, m, n, dataTypeA, A, lda, ipiv, computeType, bufferOnDevice, workspaceInBytesOnDevice,
     bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("ipiv", ipiv), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXgetrs,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasOperation_t trans, int64_t n, int64_t nrhs,
     cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv, cudaDataType dataTypeB, void *B,
     int64_t ldb, int *info),
    (handle, params, trans, n, nrhs, dataTypeA, A, lda, ipiv, dataTypeB, B, ldb, info),
    ARG("A", A), ARG("ipiv", ipiv), ARG("B", B), ARG("info", info))
SOLVER_HOOK(cusolverDnXgeqrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
     int64_t lda, cudaDataType dataTypeTau, void *tau, cudaDataType computeType, void *bufferOnDevice,
     size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, m, n, dataTypeA, A, lda, dataTypeTau, tau, computeType, bufferOnDevice,
     workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("tau", tau), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXsyevd,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
     cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeW, void *W, cudaDataType computeType,
     void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
     int *info),
    (handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W, computeType, bufferOnDevice,
     workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("W", W), DEV_BUFFER, ARG("info", info))
#define SVD_VECTORS(job) ((job) == 'A' || (job) == 'S')
SOLVER_HOOK(cusolverDnXgesvd,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu, signed char jobvt, int64_t m, int64_t n,
     cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeS, void *S, cudaDataType dataTypeU, void *U,
     int64_t ldu, cudaDataType dataTypeVT, void *VT, int64_t ldvt, cudaDataType computeType, void *bufferOnDevice,
     size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, jobu, jobvt, m, n, dataTypeA, A, lda, dataTypeS, S, dataTypeU, U, ldu, dataTypeVT, VT, ldvt,
     computeType, bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("S", S), ARG("U", SVD_VECTORS(jobu) ? U : NULL), ARG("VT", SVD_VECTORS(jobvt) ? VT : NULL),
    DEV_BUFFER, ARG("info", info))

/* --- coverage of what PyTorch's and JAX's wheels import (issue 37 item 5;
 * sim/libs/imports.tsv: torch 2.15's libtorch_cuda_linalg.so imports each
 * of these; JAX's _solver.so binds them by dlsym) --- */

/* gesvd: U computed when jobu is 'A' or 'S', VT when jobvt is; rwork (the
 * unconverged superdiagonal) may be NULL */
#define SVD_VEC(job) ((job) == 'A' || (job) == 'S')
#define SOLVER_GESVD(name, T, R)                                                    \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n, T *A, int lda, R *S, T *U, \
         int ldu, T *VT, int ldvt, T *work, int lwork, R *rwork, int *info),        \
        (handle, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork, rwork, info), \
        ARG("A", A), ARG("S", S), ARG("U", SVD_VEC(jobu) ? U : NULL), ARG("VT", SVD_VEC(jobvt) ? VT : NULL), \
        SPACE(work, lwork), ARG("rwork", rwork), ARG("info", info))
SOLVER_GESVD(cusolverDnSgesvd, float, float)
SOLVER_GESVD(cusolverDnDgesvd, double, double)
SOLVER_GESVD(cusolverDnCgesvd, cuComplex, float)
SOLVER_GESVD(cusolverDnZgesvd, cuDoubleComplex, double)
#define SOLVER_SYEVJ_BATCHED(name, T, R)                                            \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda, R *W, \
         T *work, int lwork, int *info, syevjInfo_t params, int batchSize),         \
        (handle, jobz, uplo, n, A, lda, W, work, lwork, info, params, batchSize),   \
        ARG("A", A), ARG("W", W), SPACE(work, lwork), ARG("info", info))
SOLVER_SYEVJ_BATCHED(cusolverDnSsyevjBatched, float, float)
SOLVER_SYEVJ_BATCHED(cusolverDnDsyevjBatched, double, double)
/* Xgeev: VL, VR computed when jobvl, jobvr is CUSOLVER_EIG_MODE_VECTOR;
 * bufferOnHost is host memory by design.  New in CUDA 12.6's cuSOLVER: not
 * exported as CUDA 12's (cusolverDnXgeev@libcusolver.so.11 would answer a
 * program's reference that an older libcusolver.so.11 leaves unresolved);
 * CUDA 13's libcusolver.so.12 has it from its first version.  dlsym still
 * hands the hook out for the library's own definition (the door). */
#undef LIB_THIS
#define LIB_THIS CUSOLVER_NEW
#define SYMVER_CUSOLVER_NEW(name) LIB_SYMVER(name, "libcusolver.so.12")
__asm__(".macro dc_old_CUSOLVER_NEW name\n.endm\n");
SOLVER_HOOK(cusolverDnXgeev,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl, cusolverEigMode_t jobvr,
     int64_t n, cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeW, void *W,
     cudaDataType dataTypeVL, void *VL, int64_t ldvl, cudaDataType dataTypeVR, void *VR, int64_t ldvr,
     cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
     size_t workspaceInBytesOnHost, int *info),
    (handle, params, jobvl, jobvr, n, dataTypeA, A, lda, dataTypeW, W, dataTypeVL, VL, ldvl, dataTypeVR, VR, ldvr,
     computeType, bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("W", W), ARG("VL", jobvl == CUSOLVER_EIG_MODE_VECTOR ? VL : NULL),
    ARG("VR", jobvr == CUSOLVER_EIG_MODE_VECTOR ? VR : NULL), SPACE(bufferOnDevice, workspaceInBytesOnDevice),
    ARG("info", info))
/* XsyevBatched (torch.linalg.eigh of a batch; added to cuSOLVER within
 * CUDA 12, so CUDA 13's version only, as Xgeev): batchSize matrices of A and
 * eigenvalue vectors of W, strided */
SOLVER_HOOK(cusolverDnXsyevBatched,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
     cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeW, void *W, cudaDataType computeType,
     void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
     int *info, int64_t batchSize),
    (handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W, computeType, bufferOnDevice,
     workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info, batchSize),
    ARG("A", IF(n && batchSize, A)), ARG("W", IF(n && batchSize, W)), DEV_BUFFER, ARG("info", info))
/* Xsytrs (torch.linalg.ldl_solve; the 64-bit API's, added to cuSOLVER
 * within CUDA 12: exported under CUDA 13's version only, as Xgeev, since
 * not every libcusolver.so.11 has it): A and ipiv as Xsytrf left them, B
 * overwritten */
SOLVER_HOOK(cusolverDnXsytrs,
    (cusolverDnHandle_t handle, cublasFillMode_t uplo, int64_t n, int64_t nrhs, cudaDataType dataTypeA,
     const void *A, int64_t lda, const int64_t *ipiv, cudaDataType dataTypeB, void *B, int64_t ldb,
     void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
     int *info),
    (handle, uplo, n, nrhs, dataTypeA, A, lda, ipiv, dataTypeB, B, ldb, bufferOnDevice, workspaceInBytesOnDevice,
     bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", IF(n && nrhs, A)), ARG("ipiv", IF(n && nrhs, ipiv)), ARG("B", IF(n && nrhs, B)), DEV_BUFFER,
    ARG("info", info))
#undef LIB_THIS
#define LIB_THIS CUSOLVER
/* gesvdaStridedBatched (torch.linalg.svd's gesvda driver): batchSize
 * strided matrices; U and V computed when jobz is CUSOLVER_EIG_MODE_VECTOR;
 * h_R_nrmF is host memory (may be NULL) */
#define SOLVER_GESVDA(name, T, R)                                                   \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, int rank, int m, int n, const T *d_A, int lda, \
         long long int strideA, R *d_S, long long int strideS, T *d_U, int ldu, long long int strideU, T *d_V, \
         int ldv, long long int strideV, T *d_work, int lwork, int *d_info, double *h_R_nrmF, int batchSize), \
        (handle, jobz, rank, m, n, d_A, lda, strideA, d_S, strideS, d_U, ldu, strideU, d_V, ldv, strideV, d_work, \
         lwork, d_info, h_R_nrmF, batchSize),                                       \
        ARG("d_A", d_A), ARG("d_S", d_S), ARG("d_U", jobz == CUSOLVER_EIG_MODE_VECTOR ? d_U : NULL), \
        ARG("d_V", jobz == CUSOLVER_EIG_MODE_VECTOR ? d_V : NULL), SPACE(d_work, lwork), ARG("d_info", d_info))
SOLVER_GESVDA(cusolverDnSgesvdaStridedBatched, float, float)
SOLVER_GESVDA(cusolverDnDgesvdaStridedBatched, double, double)
SOLVER_GESVDA(cusolverDnCgesvdaStridedBatched, cuComplex, float)
SOLVER_GESVDA(cusolverDnZgesvdaStridedBatched, cuDoubleComplex, double)
/* potrfBatched: a pointer array (its elements read as cuBLAS's batched
 * calls' are: dc_check_libcall_array) */
#define SOLVER_POTRF_BATCHED(name, T)                                               \
    LIB_HOOK(cusolverStatus_t, CUSOLVERAPI, name,                                   \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *Aarray[], int lda, int *infoArray, \
         int batchSize),                                                            \
        (handle, uplo, n, Aarray, lda, infoArray, batchSize), CUSOLVER_STATUS_NOT_INITIALIZED, \
        CUSOLVER_STATUS_SUCCESS,                                                    \
        (struct dc_lib_arg a[] = { ARG("Aarray", IF(n && batchSize, Aarray)), ARG("infoArray", IF(batchSize, infoArray)) }; \
         solver_check(handle, #name, a, NARGS(a));                                  \
         if (n && batchSize)                                                        \
             solver_array(handle, #name, "Aarray[i]", P(Aarray), batchSize);))
SOLVER_POTRF_BATCHED(cusolverDnSpotrfBatched, float)
SOLVER_POTRF_BATCHED(cusolverDnDpotrfBatched, double)
SOLVER_POTRF_BATCHED(cusolverDnCpotrfBatched, cuComplex)
SOLVER_POTRF_BATCHED(cusolverDnZpotrfBatched, cuDoubleComplex)
#define SOLVER_ORMQR(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k, \
         const T *A, int lda, const T *tau, T *C, int ldc, T *work, int lwork, int *devInfo), \
        (handle, side, trans, m, n, k, A, lda, tau, C, ldc, work, lwork, devInfo),  \
        ARG("A", A), ARG("tau", tau), ARG("C", C), SPACE(work, lwork), ARG("devInfo", devInfo))
SOLVER_ORMQR(cusolverDnSormqr, float)
SOLVER_ORMQR(cusolverDnDormqr, double)
#define SOLVER_SYTRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A, int lda, int *ipiv, T *work, int lwork, \
         int *info),                                                                \
        (handle, uplo, n, A, lda, ipiv, work, lwork, info),                         \
        ARG("A", A), ARG("ipiv", ipiv), SPACE(work, lwork), ARG("info", info))
SOLVER_SYTRF(cusolverDnSsytrf, float)
SOLVER_SYTRF(cusolverDnDsytrf, double)
SOLVER_SYTRF(cusolverDnCsytrf, cuComplex)
SOLVER_SYTRF(cusolverDnZsytrf, cuDoubleComplex)
/* the complex forms torch 2.15's linalg imports of the factorizations above
 * (the same arguments; ungqr, unmqr are orgqr's, ormqr's) */
SOLVER_POTRF(cusolverDnCpotrf, cuComplex)
SOLVER_POTRF(cusolverDnZpotrf, cuDoubleComplex)
SOLVER_POTRS(cusolverDnCpotrs, cuComplex)
SOLVER_POTRS(cusolverDnZpotrs, cuDoubleComplex)
SOLVER_GETRF(cusolverDnCgetrf, cuComplex)
SOLVER_GETRF(cusolverDnZgetrf, cuDoubleComplex)
SOLVER_GETRS(cusolverDnCgetrs, cuComplex)
SOLVER_GETRS(cusolverDnZgetrs, cuDoubleComplex)
SOLVER_GEQRF(cusolverDnCgeqrf, cuComplex)
SOLVER_GEQRF(cusolverDnZgeqrf, cuDoubleComplex)
SOLVER_ORGQR(cusolverDnCungqr, cuComplex)
SOLVER_ORGQR(cusolverDnZungqr, cuDoubleComplex)
SOLVER_ORMQR(cusolverDnCunmqr, cuComplex)
SOLVER_ORMQR(cusolverDnZunmqr, cuDoubleComplex)

/* issue 37 item 5, the rest torch 2.15's linalg imports of these families:
 * heevd, the complex gesvdj and heevjBatched, potrsBatched */
SOLVER_SYEVD(cusolverDnCheevd, cuComplex, float)
SOLVER_SYEVD(cusolverDnZheevd, cuDoubleComplex, double)
SOLVER_GESVDJ(cusolverDnCgesvdj, cuComplex, float)
SOLVER_GESVDJ(cusolverDnZgesvdj, cuDoubleComplex, double)
SOLVER_GESVDJ_BATCHED(cusolverDnCgesvdjBatched, cuComplex, float)
SOLVER_GESVDJ_BATCHED(cusolverDnZgesvdjBatched, cuDoubleComplex, double)
SOLVER_SYEVJ_BATCHED(cusolverDnCheevjBatched, cuComplex, float)
SOLVER_SYEVJ_BATCHED(cusolverDnZheevjBatched, cuDoubleComplex, double)
/* potrsBatched: pointer arrays A and B (their elements as potrfBatched's);
 * d_info one word, written whatever the sizes; nothing else read when n,
 * nrhs or batchSize is 0 */
#define SOLVER_POTRS_BATCHED(name, T)                                               \
    LIB_HOOK(cusolverStatus_t, CUSOLVERAPI, name,                                   \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, T *A[], int lda, T *B[], int ldb, \
         int *d_info, int batchSize),                                               \
        (handle, uplo, n, nrhs, A, lda, B, ldb, d_info, batchSize), CUSOLVER_STATUS_NOT_INITIALIZED, \
        CUSOLVER_STATUS_SUCCESS,                                                    \
        (int live_ = n && nrhs && batchSize;                                        \
         struct dc_lib_arg a[] = { ARG("A", IF(live_, A)), ARG("B", IF(live_, B)), ARG("d_info", d_info) }; \
         solver_check(handle, #name, a, NARGS(a));                                  \
         if (live_) {                                                               \
             solver_array(handle, #name, "A[i]", P(A), batchSize);                  \
             solver_array(handle, #name, "B[i]", P(B), batchSize);                  \
         }))
SOLVER_POTRS_BATCHED(cusolverDnSpotrsBatched, float)
SOLVER_POTRS_BATCHED(cusolverDnDpotrsBatched, double)
SOLVER_POTRS_BATCHED(cusolverDnCpotrsBatched, cuComplex)
SOLVER_POTRS_BATCHED(cusolverDnZpotrsBatched, cuDoubleComplex)
