// CuPy's RawKernel in miniature (tests/e2e/sync_rawkernel.cu): extern "C",
// built into a cubin, whose parameter records give sizes only -- no types.
extern "C" __global__ void add1(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] + 1.0f;
}
