// embedding_lookup: token ids on one GPU index an embedding table on another.
//
// Field reports: BERT in privateGPT, Gemma2 -- `index_select(): Expected all
// tensors to be on the same device, but found at least two devices, cuda:1 and
// cuda:0`.  The ids come out of a stage placed on cuda:1; the embedding table
// lives on cuda:0, where the lookup kernel runs.  A kernel without PyTorch's
// host-side check faults with an illegal memory access instead.
// Fix: move the ids to the table's device before the lookup.
//
// Build: buggy as embedding_lookup, fixed (-DFIXED) as embedding_lookup_fixed.
#define SAMPLE_NAME "embedding_lookup"
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
    static int ids_h[TOKENS];
    for (int i = 0; i < VOCAB * DIM; i++)
        table_h[i] = 0.01f * i;
    for (int t = 0; t < TOKENS; t++)
        ids_h[t] = (7 * t + 3) % VOCAB;
    for (int i = 0; i < TOKENS * DIM; i++)
        embed_one(i, ids_h, table_h, want, TOKENS, DIM);
    need_devices(2);

    // The token ids, produced on cuda:1.
    int *ids;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&ids, sizeof ids_h));
    CHECK(cudaMemcpy(ids, ids_h, sizeof ids_h, cudaMemcpyHostToDevice));

    // The embedding table and the lookup on cuda:0.
    float *table, *out;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&table, sizeof table_h));
    CHECK(cudaMalloc(&out, sizeof got));
    CHECK(cudaMemcpy(table, table_h, sizeof table_h, cudaMemcpyHostToDevice));
#ifdef FIXED
    int *lookup_ids;
    CHECK(cudaMalloc(&lookup_ids, sizeof ids_h));
    CHECK(cudaMemcpyPeer(lookup_ids, 0, ids, 1, sizeof ids_h)); // FIX: ids.to(table.device)
#else
    const int *lookup_ids = ids; // BUG: the ids are still on cuda:1
#endif
    embed<<<BLOCKS(TOKENS * DIM), BLOCK>>>(lookup_ids, table, out, TOKENS, DIM);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    return report_result(got, want, TOKENS * DIM);
}
