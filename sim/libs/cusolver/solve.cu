// The sim cuSOLVER's kernels (sim/libs/cusolver/): the library's code image
// (sim/libs/README.md), launched by dn.c with cuLaunchKernel into the
// handle's stream.  On the sim their host twins (dn.c, with lapack.c's
// reference routines) compute; their device code only says which
// parameters the kernel dereferences (the sim's fault model reads the
// image's PTX: sim/driver/README.md, "The fault model"): every buffer the
// call hands the kernel (the matrix, the right-hand sides or tau, the
// pivots or U, the info, V, the workspace), NULL when the call does not use
// it.  SimWork travels by value and points to the library's host memory,
// which only the twin reads.
struct SimWork {
    const void *work;
};

__device__ static void touch(const void *p)
{
    if (p)
        (void)*(const volatile char *)p;
}

#define KERNEL(name)                                                                                        \
    extern "C" __global__ void name(void *a, void *b, void *c, int *info, void *v, void *work, SimWork w)     \
    {                                                                                                      \
        touch(a);                                                                                          \
        touch(b);                                                                                          \
        touch(c);                                                                                          \
        touch(v);                                                                                          \
        touch(work);                                                                                       \
        if (info && threadIdx.x == 0)                                                                      \
            *info = 0;                                                                                     \
    }
KERNEL(cusolverSimPotrf)
KERNEL(cusolverSimPotrfUpdate)
KERNEL(cusolverSimPotrs)
KERNEL(cusolverSimGetrf)
KERNEL(cusolverSimGetrs)
KERNEL(cusolverSimGeqrf)
KERNEL(cusolverSimOrgqr)
KERNEL(cusolverSimOrmqr)
KERNEL(cusolverSimSyevd)
KERNEL(cusolverSimGesvd)
