/* cuSOLVER at its API (tests/libapi/libapi.sh): `solver_prog MODE` on two
 * simulated GPUs.  A handle made on cuda:0 with a stream of cuda:0:
 *  - cusolverDnSpotrf with A, the workspace and devInfo on cuda:0; A on
 *    cuda:1 when buggy (the one finding: argument A; the stand-in calls
 *    cublasSgemm_v2 on A inside it: checked only as the outer call);
 *  - cusolverDnSgetrf without pivoting (devIpiv NULL: legal);
 *  - cusolverDnXgetrf with a host bufferOnHost (host by design: legal),
 *    ipiv on cuda:1 when `x` (the one finding: argument ipiv);
 *  - cusolverDnXgesvd with jobu = jobvt = 'N': U NULL and VT a host
 *    address, neither referenced (legal).
 * A second handle made while cuda:1 was current, on the default stream:
 * cusolverDnSpotrs with cuda:1's A, B and devInfo while cuda:0 is current
 * (the handle's device: legal); B on cuda:0 when `create` (the one finding:
 * the call runs on cuda:1).  `stream`: that handle's clean call on cuda:1
 * first, then the handle given a stream of cuda:0 (its calls run there:
 * devcheck's record of the stream follows cusolverDnSetStream), A and
 * devInfo on cuda:0, B still on cuda:1 (the one finding).
 * Issue 37 item 5, each with one argument on cuda:1 (the one finding) and
 * all of them right in `correct` (statuses printed, not checked: the sim's
 * cuSOLVER answers CUSOLVER_STATUS_NOT_SUPPORTED for some): `gesvd`
 * (cusolverDnSgesvd U, jobu 'A'; correct: jobu 'N' with U on cuda:1, not
 * referenced), `potrfb` (cusolverDnSpotrfBatched: its pointer array in
 * pinned host memory, element 1 A1: argument Aarray[i]), `xgeev`
 * (cusolverDnXgeev VR, jobvr VECTOR), `ormqr` (cusolverDnSormqr C),
 * `sytrf` (cusolverDnSsytrf ipiv), `syevjb` (cusolverDnSsyevjBatched W);
 * `heevd` (cusolverDnCheevd W), `gesvdjz` (cusolverDnZgesvdj U, jobz
 * VECTOR; correct: NOVECTOR with U on cuda:1, not referenced), `potrsb`
 * (cusolverDnSpotrsBatched: its B array in pinned host memory, element 0
 * on cuda:1: argument B[i]); `gesvda` (cusolverDnSgesvdaStridedBatched
 * d_V, jobz VECTOR), `xsyevb` (cusolverDnXsyevBatched W), `xsytrs`
 * (cusolverDnXsytrs ipiv).  `zero`: heevd, gesvdjz, potrsb, getrs, geqrf, orgqr
 * and syevd with a size of 0 and A (the arrays' elements) on cuda:1, info
 * on cuda:0 (nothing read but info): no finding. */
#include <cusolverDn.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnSetStream) X(cusolverDnCreateParams) \
    X(cusolverDnDestroyParams) X(cusolverDnSpotrf_bufferSize) X(cusolverDnSpotrf) X(cusolverDnSpotrs)    \
    X(cusolverDnSgetrf) X(cusolverDnXgetrf) X(cusolverDnXgesvd) X(cusolverDnSgesvd) X(cusolverDnSpotrfBatched) \
    X(cusolverDnXgeev) X(cusolverDnSormqr) X(cusolverDnSsytrf) X(cusolverDnSsyevjBatched)            \
    X(cusolverDnCheevd) X(cusolverDnZgesvdj) X(cusolverDnSpotrsBatched) X(cusolverDnSgetrs) X(cusolverDnSgeqrf) \
    X(cusolverDnSorgqr) X(cusolverDnSsyevd) X(cusolverDnSgesvdaStridedBatched) X(cusolverDnXsyevBatched) \
    X(cusolverDnXsytrs)
FNS(DECL_FN)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy"), x = !strcmp(mode, "x"), create = !strcmp(mode, "create");
    int stream = !strcmp(mode, "stream");
    BIND(SONAME("libcusolver.so.12"));
    float *A1, *B1, *A, *B0, *S, *work;
    int64_t *ipiv, *ipiv1;
    int *info, *info1;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&A1, 64 * sizeof(float)));             // @alloc-A
    CK(cudaMalloc((void **)&ipiv1, 8 * sizeof(int64_t)));         // @alloc-ipiv
    CK(cudaMalloc((void **)&B1, 64 * sizeof(float)));             // @alloc-B1
    CK(cudaMalloc((void **)&info1, sizeof(int)));
    int *ipiv32_1;
    CK(cudaMalloc((void **)&ipiv32_1, 8 * sizeof(int)));         // @alloc-ipiv32
    cusolverDnHandle_t h, h1;
    CK(F(cusolverDnCreate)(&h1));
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&A, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&B0, 64 * sizeof(float)));             // @alloc-B0
    CK(cudaMalloc((void **)&S, 8 * sizeof(float)));
    CK(cudaMalloc((void **)&ipiv, 8 * sizeof(int64_t)));
    CK(cudaMalloc((void **)&info, sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(F(cusolverDnCreate)(&h));
    CK(F(cusolverDnSetStream)(h, s));
    int lwork;
    CK(F(cusolverDnSpotrf_bufferSize)(h, CUBLAS_FILL_MODE_LOWER, 8, A, 8, &lwork));
    CK(cudaMalloc((void **)&work, (size_t)lwork * sizeof(float)));
    CK(F(cusolverDnSpotrf)(h, CUBLAS_FILL_MODE_LOWER, 8, buggy ? A1 : A, 8, work, lwork, info));
    CK(F(cusolverDnSgetrf)(h, 8, 8, A, 8, work, NULL, info));
    cusolverDnParams_t params;
    CK(F(cusolverDnCreateParams)(&params));
    char host_buf[256];
    CK(F(cusolverDnXgetrf)(h, params, 8, 8, CUDA_R_32F, A, 8, x ? ipiv1 : ipiv, CUDA_R_32F, work,
                           (size_t)lwork * sizeof(float), host_buf, sizeof host_buf, info));
    float not_referenced;
    CK(F(cusolverDnXgesvd)(h, params, 'N', 'N', 8, 8, CUDA_R_32F, A, 8, CUDA_R_32F, S, CUDA_R_32F, NULL, 8,
                           CUDA_R_32F, &not_referenced, 8, CUDA_R_32F, work, (size_t)lwork * sizeof(float),
                           host_buf, sizeof host_buf, info));
    int correct = !strcmp(mode, "correct");
#define ON(m) (correct || !strcmp(mode, m))
    if (ON("gesvd"))
        printf("cusolverDnSgesvd: %d\n", (int)F(cusolverDnSgesvd)(h, correct ? 'N' : 'A', 'N', 8, 8, A, 8, S,
               B1, 8, NULL, 8, work, lwork, NULL, info));
    if (ON("potrfb")) {
        float **arr;
        CK(cudaMallocHost((void **)&arr, 2 * sizeof *arr));
        arr[0] = A;
        arr[1] = correct ? B0 : A1;
        printf("cusolverDnSpotrfBatched: %d\n", (int)F(cusolverDnSpotrfBatched)(h, CUBLAS_FILL_MODE_LOWER, 8, arr,
               8, info, 2));
    }
    if (ON("xgeev"))
        printf("cusolverDnXgeev: %d\n", (int)F(cusolverDnXgeev)(h, params, CUSOLVER_EIG_MODE_NOVECTOR,
               CUSOLVER_EIG_MODE_VECTOR, 8, CUDA_R_32F, A, 8, CUDA_R_32F, S, CUDA_R_32F, NULL, 8, CUDA_R_32F,
               correct ? B0 : B1, 8, CUDA_R_32F, work, (size_t)lwork * sizeof(float), host_buf, sizeof host_buf,
               info));
    if (ON("ormqr"))
        printf("cusolverDnSormqr: %d\n", (int)F(cusolverDnSormqr)(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, 8, 8, 8, A, 8,
               S, correct ? B0 : B1, 8, work, lwork, info));
    if (ON("sytrf")) {
        int *ipiv32;
        CK(cudaMalloc((void **)&ipiv32, 8 * sizeof(int)));
        printf("cusolverDnSsytrf: %d\n", (int)F(cusolverDnSsytrf)(h, CUBLAS_FILL_MODE_LOWER, 8, A, 8,
               correct ? ipiv32 : ipiv32_1, work, lwork, info));
    }
    if (ON("syevjb"))
        printf("cusolverDnSsyevjBatched: %d\n", (int)F(cusolverDnSsyevjBatched)(h, CUSOLVER_EIG_MODE_VECTOR,
               CUBLAS_FILL_MODE_LOWER, 8, A, 8, correct ? S : B1, work, lwork, info, NULL, 1));
    /* issue 37 item 5: heevd, the complex gesvdj, potrsBatched */
    if (ON("heevd"))
        printf("cusolverDnCheevd: %d\n", (int)F(cusolverDnCheevd)(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER,
               4, (cuComplex *)A, 4, correct ? S : B1, (cuComplex *)work, lwork / 2, info));
    if (ON("gesvdjz"))
        printf("cusolverDnZgesvdj: %d\n", (int)F(cusolverDnZgesvdj)(h, correct ? CUSOLVER_EIG_MODE_NOVECTOR
               : CUSOLVER_EIG_MODE_VECTOR, 0, 2, 2, (cuDoubleComplex *)A, 2, (double *)S, (cuDoubleComplex *)B1, 2,
               (cuDoubleComplex *)B0, 2, (cuDoubleComplex *)work, lwork / 4, info, NULL));
    /* gesvda, XsyevBatched, Xsytrs (what torch's svd, eigh and ldl_solve
     * of a batch call) */
    if (ON("gesvda"))
        printf("cusolverDnSgesvdaStridedBatched: %d\n", (int)F(cusolverDnSgesvdaStridedBatched)(h,
               CUSOLVER_EIG_MODE_VECTOR, 2, 4, 2, A, 4, 8, S, 2, B0, 4, 8, correct ? B0 + 16 : B1, 2, 4, work, lwork,
               info, NULL, 2));
    if (ON("xsyevb"))
        printf("cusolverDnXsyevBatched: %d\n", (int)F(cusolverDnXsyevBatched)(h, params, CUSOLVER_EIG_MODE_VECTOR,
               CUBLAS_FILL_MODE_LOWER, 2, CUDA_R_32F, A, 2, CUDA_R_32F, correct ? S : B1, CUDA_R_32F, work,
               (size_t)lwork * sizeof(float), host_buf, sizeof host_buf, info, 2));
    if (ON("xsytrs"))
        printf("cusolverDnXsytrs: %d\n", (int)F(cusolverDnXsytrs)(h, CUBLAS_FILL_MODE_LOWER, 8, 1, CUDA_R_32F, A, 8,
               correct ? ipiv : ipiv1, CUDA_R_32F, B0, 8, work, (size_t)lwork * sizeof(float), host_buf,
               sizeof host_buf, info));
    if (ON("potrsb") || !strcmp(mode, "zero")) {
        float **aa, **bb;
        CK(cudaMallocHost((void **)&aa, sizeof *aa));
        CK(cudaMallocHost((void **)&bb, sizeof *bb));
        aa[0] = A;
        bb[0] = correct ? B0 : B1;
        int n = !strcmp(mode, "zero") ? 0 : 8;
        printf("cusolverDnSpotrsBatched: %d\n", (int)F(cusolverDnSpotrsBatched)(h, CUBLAS_FILL_MODE_LOWER, n, 1,
               aa, 8, bb, 8, info, 1));
    }
    if (!strcmp(mode, "zero")) {
        /* sizes of 0, A of cuda:1: quick returns, only info written */
        printf("cusolverDnCheevd: %d\n", (int)F(cusolverDnCheevd)(h, CUSOLVER_EIG_MODE_VECTOR,
               CUBLAS_FILL_MODE_LOWER, 0, (cuComplex *)A1, 1, B1, (cuComplex *)B1, 4, info));
        printf("cusolverDnSsyevd: %d\n", (int)F(cusolverDnSsyevd)(h, CUSOLVER_EIG_MODE_VECTOR,
               CUBLAS_FILL_MODE_LOWER, 0, A1, 1, B1, B1, 4, info));
        printf("cusolverDnZgesvdj: %d\n", (int)F(cusolverDnZgesvdj)(h, CUSOLVER_EIG_MODE_VECTOR, 0, 0, 2,
               (cuDoubleComplex *)A1, 1, (double *)B1, (cuDoubleComplex *)B1, 1, (cuDoubleComplex *)B1, 2,
               (cuDoubleComplex *)B1, 4, info, NULL));
        printf("cusolverDnSgetrs: %d\n", (int)F(cusolverDnSgetrs)(h, CUBLAS_OP_N, 8, 0, A1, 8, ipiv32_1, B1, 8,
               info));
        printf("cusolverDnSgeqrf: %d\n", (int)F(cusolverDnSgeqrf)(h, 0, 8, A1, 1, B1, B1, 4, info));
        printf("cusolverDnSorgqr: %d\n", (int)F(cusolverDnSorgqr)(h, 0, 0, 0, A1, 1, B1, B1, 4, info));
    }
    if (stream) {
        /* h1's calls on cuda:1 first (its default stream; clean), so a
         * record of that stream must give way to the one set below */
        CK(F(cusolverDnSpotrs)(h1, CUBLAS_FILL_MODE_LOWER, 8, 1, A1, 8, B1, 8, info1));
        CK(F(cusolverDnSetStream)(h1, s));
    }
    CK(F(cusolverDnSpotrs)(h1, CUBLAS_FILL_MODE_LOWER, 8, 1, stream ? A : A1, 8, create ? B0 : B1, 8,
                           stream ? info : info1));
    CK(F(cusolverDnDestroyParams)(params));
    CK(F(cusolverDnDestroy)(h));
    CK(F(cusolverDnDestroy)(h1));
    CK(cudaDeviceSynchronize());
    printf("solver_prog %s: done\n", mode);
    return 0;
}
