// scale: the kernel of the CUPTI test programs (bypass.cu, peer_again.cu),
// x[i] *= 2 for i < n, and its host twin for the sim.
#ifndef TESTS_CUPTI_SCALE_CUH
#define TESTS_CUPTI_SCALE_CUH

__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}

extern "C" void simcuda_twin_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    int n = *(int *)args[1];
    for (unsigned i = 0; i < grid[0] * block[0] && (int)i < n; i++)
        x[i] *= 2.0f;
}

#endif
