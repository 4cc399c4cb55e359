// Kernels and variables for image_evidence.c: what the image says about
// pointer parameters (PTX address use) and __device__ / __constant__ variables.
struct ev_pair { float *a; int n; };

__global__ void ev_kernel(float *p, int n, struct ev_pair s, const double *q)
{
    if (n) p[0] = s.a[0] + (float)q[0];
}

extern "C" __global__ void ev_cfunc(float *p, long long word, int n)
{
    p[n] = (float)word;
}

__device__ int ev_zero[16];
__device__ float ev_init = 3.5f;
__device__ int ev_array[4] = { 1, 2, 3, 4 };
__constant__ int ev_const[4] = { 7, 8, 9, 10 };
__device__ __managed__ int ev_managed = 5;

__global__ void ev_use(int *o)
{
    o[0] = ev_zero[3] + ev_const[1] + (int)ev_init + ev_array[2] + ev_managed;
}
