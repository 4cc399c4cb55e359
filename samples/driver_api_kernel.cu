// Device code of the driver_api sample, compiled on its own into a fatbin
// (nvcc -fatbin) that driver_api embeds and loads with cuModuleLoadData, as
// Triton and other JIT launchers load their cubins.
extern "C" __global__ void kv_append(float *cache, const float *kv, int pos, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        cache[pos * n + i] = kv[i];
}
