// A library whose destructor launches a kernel with an operand of another
// device (tests/outputs/exit_order.sh): the finding comes after main.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void dtor_kernel(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i];
}

static float *a, *b;

extern "C" void dtorlib_setup(void)
{
    cudaSetDevice(1);
    cudaMalloc(&b, 32 * sizeof(float));
    cudaSetDevice(0);
    cudaMalloc(&a, 32 * sizeof(float));
}

__attribute__((destructor)) static void dtorlib_fini(void)
{
    if (!a)
        return;                 /* dtorlib_setup was not called */
    cudaSetDevice(0);
    dtor_kernel<<<1, 32>>>(a, b, 32);
    fprintf(stderr, "dtorlib: destructor ran\n");
}
