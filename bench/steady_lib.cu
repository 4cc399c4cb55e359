// The library of bench/launches.cu's lib* sections (issue 38): a shared
// object built stripped (-s: no symbol table, .eh_frame kept) that launches
// its own kernels for its caller, as a vendor's closed library does.  The
// finding of a lib* section is made, and repeated, from inside it.
#include <cuda_runtime.h>

__global__ void k_lib(float *a, const float *b, const float *c, const float *d, const float *e,
                      const float *f, const float *g, const float *h)
{
    int i = threadIdx.x;
    a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i];
}

// the suppressed section's kernel: bench/run.sh's suppression matches *k_suppressed*
__global__ void k_suppressed_lib(float *a, const float *b, const float *c, const float *d, const float *e,
                                 const float *f, const float *g, const float *h)
{
    int i = threadIdx.x;
    a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i];
}

// Launches k_lib (k_suppressed_lib when suppressed) over p[0..7].
extern "C" void steady_lib_launch(float *const *p, int suppressed)
{
    if (suppressed)
        k_suppressed_lib<<<1, 32>>>(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
    else
        k_lib<<<1, 32>>>(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}
