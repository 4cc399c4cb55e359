/* Built against the cudart 12 stand-in (fake_rt12.c): imports
 * cudaLaunchKernel@libcudart.so.12.  Prints what the launch returned. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void stub(void) {}

int main(void)
{
    dim3 one = { 1, 1, 1 };
    cudaError_t r = cudaLaunchKernel((const void *)stub, one, one, NULL, 0, NULL);
    printf("rt12: %d\n", (int)r);
    return r == cudaErrorNotYetImplemented ? 0 : 1;
}
