// host_tokens: tokenizer output left in host memory.
//
// Field reports: inputs never moved to the model's device (GLM-4 "inputs left
// on the CPU").  The token ids sit in ordinary pageable host memory (malloc)
// and go straight to the embedding kernel on cuda:0.  Without HMM/ATS the GPU
// cannot read pageable memory: an illegal memory access; with it, the lookup
// runs but every access crosses the bus.
// Fix: copy the ids to the device first (input_ids.to(model.device)).
//
// Build: buggy as host_tokens, fixed (-DFIXED) as host_tokens_fixed.
#define SAMPLE_NAME "host_tokens"
#include "sample.h"

enum { VOCAB = 50, TOKENS = 16, DIM = 24 };

// out[t][d] = table[ids[t]][d]
__host__ __device__ static void embed_one(unsigned i, const int *ids, const float *table,
                                          float *out, int ntokens, int dim)
{
    if (i < (unsigned)(ntokens * dim))
        out[i] = table[ids[i / dim] * dim + i % dim];
}

__global__ void embed(const int *ids, const float *table, float *out, int ntokens, int dim)
{
    embed_one(blockIdx.x * blockDim.x + threadIdx.x, ids, table, out, ntokens, dim);
}

extern "C" void simcuda_twin_embed(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        embed_one(i, TWIN_ARG(args, 0, const int *), TWIN_ARG(args, 1, const float *),
                  TWIN_ARG(args, 2, float *), TWIN_ARG(args, 3, int), TWIN_ARG(args, 4, int));
}

int main()
{
    static float table_h[VOCAB * DIM], want[TOKENS * DIM], got[TOKENS * DIM];
    // The tokenizer's output: pageable host memory.
    int *ids_h = (int *)malloc(TOKENS * sizeof(int));
    if (!ids_h)
        return 1;
    for (int i = 0; i < VOCAB * DIM; i++)
        table_h[i] = 0.01f * i;
    for (int t = 0; t < TOKENS; t++)
        ids_h[t] = (5 * t + 1) % VOCAB;
    for (int i = 0; i < TOKENS * DIM; i++)
        embed_one(i, ids_h, table_h, want, TOKENS, DIM);
    need_devices(1);

    float *table, *out;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&table, sizeof table_h));
    CHECK(cudaMalloc(&out, sizeof got));
    CHECK(cudaMemcpy(table, table_h, sizeof table_h, cudaMemcpyHostToDevice));
#ifdef FIXED
    int *ids;
    CHECK(cudaMalloc(&ids, TOKENS * sizeof(int)));
    CHECK(cudaMemcpy(ids, ids_h, TOKENS * sizeof(int), cudaMemcpyHostToDevice)); // FIX: to device
#else
    const int *ids = ids_h; // BUG: pageable host memory handed to a kernel
#endif
    embed<<<BLOCKS(TOKENS * DIM), BLOCK>>>(ids, table, out, TOKENS, DIM);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    free(ids_h);
    return report_result(got, want, TOKENS * DIM);
}
