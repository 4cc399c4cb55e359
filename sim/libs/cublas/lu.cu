// The batched LU kernels of the sim's cuBLAS (lu.h): launched by blas.c's
// cublas<t>getrfBatched / getrsBatched into the handle's stream.  On the sim
// their host twins (lu_twin.c) compute; the device code says only which
// parameters the kernel dereferences (the sim's fault model reads the
// image's PTX: sim/driver/README.md, "The fault model"): the arrays of
// matrix pointers, the pivots and the infos (NULL when the call has none).
#include "lu.h"

__device__ static void touch(const void *p)
{
    if (p)
        (void)*(const volatile char *)p;
}

extern "C" __global__ void simblas_getrf_batched(struct sb_lu w, void *const *A, int *P, int *info)
{
    touch(A);
    touch(P);
    touch(info);
}

extern "C" __global__ void simblas_getrs_batched(struct sb_lu w, const void *const *A, const int *P, void *const *B)
{
    touch(A);
    touch(P);
    touch(B);
}
