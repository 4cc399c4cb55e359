// Kernels for the driver tests, compiled to a cubin and a fatbin and loaded
// with cuModuleLoadData / cuLibraryLoadData.  The tests export the host twins
// (simcuda_twin_<name>) that the simulated driver runs in their place.
struct drv_pair { void *a, *b; };

__global__ void mixed(float *p, int n, struct drv_pair s, double d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = (float)(d * i);
    if (i == 0 && s.a) *(int *)s.a = n;
}

__global__ void touch(int *p, int v)
{
    if (threadIdx.x == 0) *p = v;
}

namespace drv {
template <typename T> __global__ void fill(T *x, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
template __global__ void fill<float>(float *, float, int);
}

// No host twin exists for this one: launching it does nothing and succeeds.
__global__ void notwin(int *p) { *p = 1; }
