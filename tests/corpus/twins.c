/* Host twins of the kernels of NVIDIA's cuda-samples in the corpus
 * (tests/corpus/nvidia_samples.sh), so the samples' own result checks pass on
 * the sim, which cannot run device code (README: the simulated platform).
 * Preloaded with the sim; the sim calls simcuda_twin_NAME once per launch of
 * kernel NAME with the launch's arguments, and faults a twin that touches
 * memory the launch device may not access, as a GPU would.
 *
 * Each twin does what the sample's kernel does, written from its description,
 * for the 1-D launches the samples make.  Two samples name different kernels
 * incKernel; the program's name says which one runs. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#define TWIN(name) \
    __attribute__((visibility("default"))) void simcuda_twin_##name( \
        void **args, const unsigned grid[3], const unsigned block[3]); \
    void simcuda_twin_##name(void **args, const unsigned grid[3], const unsigned block[3])
#define ARG(i, type) (*(type *)args[i])

/* Threads of a 1-D launch. */
static size_t threads(const unsigned grid[3], const unsigned block[3])
{
    return (size_t)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
}

/* c[i] = a[i] + b[i], i < n: vectorAdd, VecAdd_kernel, vectorAddGPU. */
static void vadd(void **args, const unsigned grid[3], const unsigned block[3])
{
    const float *a = ARG(0, const float *), *b = ARG(1, const float *);
    float *c = ARG(2, float *);
    size_t n = (size_t)ARG(3, int), t = threads(grid, block);
    for (size_t i = 0; i < n && i < t; i++)
        c[i] = a[i] + b[i];
}
TWIN(vectorAdd) { vadd(args, grid, block); }
TWIN(VecAdd_kernel) { vadd(args, grid, block); }
TWIN(vectorAddGPU) { vadd(args, grid, block); }

/* g[i] += v for every thread: asyncAPI, cudaOpenMP. */
static void add_const(void **args, const unsigned grid[3], const unsigned block[3])
{
    int *g = ARG(0, int *), v = ARG(1, int);
    for (size_t i = 0, t = threads(grid, block); i < t; i++)
        g[i] += v;
}
TWIN(increment_kernel) { add_const(args, grid, block); }
TWIN(kernelAddConstant) { add_const(args, grid, block); }

/* simpleCallback: data[i]++ (i < N); simpleMultiCopy: out[i] = in[i] + 1. */
TWIN(incKernel)
{
    size_t t = threads(grid, block);
    if (strcmp(program_invocation_short_name, "simpleMultiCopy") == 0) {
        int *out = ARG(0, int *), *in = ARG(1, int *);
        size_t n = (size_t)ARG(2, int);
        if (ARG(3, int) > 0)
            for (size_t i = 0; i < n && i < t; i++)
                out[i] = in[i] + 1;
        return;
    }
    int *data = ARG(0, int *);
    for (size_t i = 0, n = (size_t)ARG(1, int); i < n && i < t; i++)
        data[i]++;
}

/* simpleMultiGPU: thread tid sums in[tid], in[tid + threads], ... */
TWIN(reduceKernel)
{
    float *res = ARG(0, float *);
    const float *in = ARG(1, const float *);
    size_t n = (size_t)ARG(2, int), t = threads(grid, block);
    for (size_t tid = 0; tid < t; tid++) {
        float sum = 0;
        for (size_t pos = tid; pos < n; pos += t)
            sum += in[pos];
        res[tid] = sum;
    }
}

/* simpleOccupancy: a[i] *= a[i], i < n. */
TWIN(square)
{
    int *a = ARG(0, int *);
    for (size_t i = 0, n = (size_t)ARG(1, int), t = threads(grid, block); i < n && i < t; i++)
        a[i] *= a[i];
}

/* simpleP2P: dst[i] = 2 src[i] for every thread. */
TWIN(SimpleKernel)
{
    const float *src = ARG(0, const float *);
    float *dst = ARG(1, float *);
    for (size_t i = 0, t = threads(grid, block); i < t; i++)
        dst[i] = src[i] * 2.0f;
}

/* streamOrderedAllocationP2P: dst[i] = 2 src[i], i < n. */
TWIN(copyP2PAndScale)
{
    const int *src = ARG(0, const int *);
    int *dst = ARG(1, int *);
    for (size_t i = 0, n = (size_t)ARG(2, int), t = threads(grid, block); i < n && i < t; i++)
        dst[i] = 2 * src[i];
}

/* simpleStreams: g[i] += *factor, iterations times, for every thread. */
TWIN(init_array)
{
    int *g = ARG(0, int *);
    const int *factor = ARG(1, const int *);
    int iters = ARG(2, int), add = 0;
    for (int k = 0; k < iters; k++)
        add += *factor;
    for (size_t i = 0, t = threads(grid, block); i < t; i++)
        g[i] += add;
}

/* threadMigration: input[x] = 32 - x for each thread of the block. */
TWIN(kernelFunction)
{
    int *input = ARG(0, int *);
    (void)grid;
    for (unsigned x = 0; x < block[0]; x++)
        input[x] = 32 - (int)x;
}

/* StreamPriorities: dst[i] = src[i] for n bytes of ints. */
TWIN(memcpy_kernel)
{
    int *dst = ARG(0, int *);
    const int *src = ARG(1, const int *);
    size_t n = ARG(2, size_t) / sizeof(int);
    (void)grid;
    (void)block;
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* p2pBandwidthLatencyTest --sm_copy: dest[i] = src[i], n 16-byte elements. */
TWIN(copyp2p)
{
    (void)grid;
    (void)block;
    memcpy(ARG(0, void *), ARG(1, const void *), ARG(2, size_t) * 16);
}

/* simpleIPC, streamOrderedAllocationIPC (simpleKernel), memMapIPCDrv
 * (memMapIpc_kernel): ptr[i] = val, i < sz. */
static void fill(void **args)
{
    char *p = ARG(0, char *);
    int sz = ARG(1, int);
    char val = ARG(2, char);
    if (sz > 0)
        memset(p, val, (size_t)sz);
}
TWIN(simpleKernel) { (void)grid; (void)block; fill(args); }
TWIN(memMapIpc_kernel) { (void)grid; (void)block; fill(args); }
