// The module tests/e2e/unseen_memory.cu loads with the driver API (a fatbin
// file, cuModuleLoad) on each of two devices: a kernel and a __device__
// variable whose address only cuModuleGetGlobal gives -- memory devcheck
// never sees allocated.
__device__ float unseen_global[64];

extern "C" __global__ void scale_from(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
