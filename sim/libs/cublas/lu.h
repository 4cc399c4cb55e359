/* The batched LU calls of the sim's cuBLAS (cublas<t>getrfBatched,
 * cublas<t>getrsBatched; blas.c), shared by their kernels (lu.cu, the
 * library's image) and the kernels' host twins (lu_twin.c, which compute
 * with cuSOLVER's reference routines, sim/libs/cusolver/lapack.c: one LU
 * for both libraries). */
#ifndef SIM_LIBS_CUBLAS_LU_H
#define SIM_LIBS_CUBLAS_LU_H

#include <stdint.h>

/* One call, passed by value to the kernels: sizes and types; the device
 * pointers are the kernels' own parameters, so the image's code says which
 * it dereferences.  a and b point to the library's host memory, which only
 * the twin reads: the matrix pointers of the call's arrays as the library
 * read them before the launch, NULL for one that is no allocation of the
 * driver's (blas.c: the twin skips that item rather than follow it). */
struct sb_lu {
    int32_t type;               /* cudaDataType of the matrices */
    int32_t n, nrhs, lda, ldb;
    int32_t trans;              /* getrs: cublasOperation_t */
    int32_t batch;
    void *const *a, *const *b;  /* batch items each: A[i], B[i] (getrs) */
};
#endif
