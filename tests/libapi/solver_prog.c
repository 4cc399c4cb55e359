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
 * the call runs on cuda:1).  `stream`: that handle given a stream of cuda:0
 * (its calls run there), A and devInfo on cuda:0, B still on cuda:1 (the
 * one finding). */
#include <cusolverDn.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnSetStream) X(cusolverDnCreateParams) \
    X(cusolverDnDestroyParams) X(cusolverDnSpotrf_bufferSize) X(cusolverDnSpotrf) X(cusolverDnSpotrs)    \
    X(cusolverDnSgetrf) X(cusolverDnXgetrf) X(cusolverDnXgesvd)
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
    if (stream)
        CK(F(cusolverDnSetStream)(h1, s));
    CK(F(cusolverDnSpotrs)(h1, CUBLAS_FILL_MODE_LOWER, 8, 1, stream ? A : A1, 8, create ? B0 : B1, 8,
                           stream ? info : info1));
    CK(F(cusolverDnDestroyParams)(params));
    CK(F(cusolverDnDestroy)(h));
    CK(F(cusolverDnDestroy)(h1));
    CK(cudaDeviceSynchronize());
    printf("solver_prog %s: done\n", mode);
    return 0;
}
