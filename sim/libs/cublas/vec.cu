// The sim cuBLAS's level-1 and level-2 kernels that are no GEMM (vec.h):
// launched by blas.c's cublas<t>axpy, scal, nrm2, ger, symv, hemv, syr, her, syr2,
// her2, syrk, herk, syr2k, her2k, symm, hemm, trmm and rotm into the handle's
// stream.  On the sim their host twins (vec_twin.c) do the same work with
// the same code.  Every pointer is a parameter of its own, so the image's
// code says which the kernel dereferences (the sim's fault model,
// sim/driver/README.md).
#include "vec.h"

#define SB_FIRST (blockIdx.x * (int64_t)blockDim.x + threadIdx.x)
#define SB_STEP ((int64_t)gridDim.x * blockDim.x)

extern "C" __global__ void simblas_axpy(struct sb_vec v, const void *alpha, const void *x, void *y)
{
    sb_axpy_range(&v, alpha, x, y, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_scal(struct sb_vec v, const void *alpha, void *x)
{
    sb_scal_range(&v, alpha, x, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_nrm2(struct sb_vec v, const void *x, void *result)
{
    sb_nrm2(&v, x, result, SB_FIRST);
}

extern "C" __global__ void simblas_ger(struct sb_vec v, const void *alpha, const void *x, const void *y, void *A)
{
    sb_ger_range(&v, alpha, x, y, A, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_symv(struct sb_vec v, const void *alpha, const void *A, const void *x,
                                        const void *beta, void *y)
{
    sb_symv_range(&v, alpha, A, x, beta, y, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_syr(struct sb_vec v, const void *alpha, const void *x, void *A)
{
    sb_syr_range(&v, alpha, x, NULL, A, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_syr2(struct sb_vec v, const void *alpha, const void *x, const void *y, void *A)
{
    sb_syr_range(&v, alpha, x, y, A, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_syrk(struct sb_vec v, const void *alpha, const void *A, const void *beta, void *C)
{
    sb_syrk_range(&v, alpha, A, NULL, beta, C, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_syr2k(struct sb_vec v, const void *alpha, const void *A, const void *B,
                                         const void *beta, void *C)
{
    sb_syrk_range(&v, alpha, A, B, beta, C, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_symm(struct sb_vec v, const void *alpha, const void *A, const void *B,
                                        const void *beta, void *C)
{
    sb_symm_range(&v, alpha, A, B, beta, C, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_trmm(struct sb_vec v, const void *alpha, const void *A, const void *B, void *C)
{
    sb_symm_range(&v, alpha, A, B, NULL, C, SB_FIRST, SB_STEP);
}

extern "C" __global__ void simblas_rotm(struct sb_vec v, const void *param, void *x, void *y)
{
    sb_rotm_range(&v, param, x, y, SB_FIRST, SB_STEP);
}
