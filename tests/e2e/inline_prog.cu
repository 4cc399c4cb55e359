// A launch made inside a function the compiler inlined into its caller
// (tests/e2e/inline_stack.sh): the launch stack must name both, innermost
// first, from one return address: the inlined function at the launch's line,
// then its caller at the line of the call (addr2line -i's answer).
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void inl_copy(float *a, const float *b) { a[threadIdx.x] = b[threadIdx.x]; }

__attribute__((always_inline)) static inline void launch_inlined(float *a, const float *b)
{
    inl_copy<<<1, 1>>>(a, b); // the launch
}

int main()
{
    float *a0 = NULL, *b1 = NULL;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&b1, 64) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaMalloc(&a0, 64) != cudaSuccess) {
        fprintf(stderr, "inline_prog: setup failed\n");
        return 1;
    }
    launch_inlined(a0, b1); // the call
    (void)cudaDeviceSynchronize();
    printf("inline_prog: done\n");
    return 0;
}
