// pipeline_struct: a model split layer-wise over cuda:0..3 (pipeline
// parallelism, device_map="auto"), each stage's kernel taking its operands in a
// struct passed by value -- as PyTorch's elementwise kernels do -- so no
// pointer is visible in the kernel's signature.
//
// Field reports: intermediates left outside the device map; the stage hand-off
// copies the activation to the next GPU, but one stage still points at the
// previous stage's buffer.  A custom kernel does no device check and faults
// with "an illegal memory access was encountered", reported later, at an
// unrelated call.  Fix: read the copy on the stage's own GPU.
//
// Build: buggy as pipeline_struct, fixed (-DFIXED) as pipeline_struct_fixed.
#define SAMPLE_NAME "pipeline_struct"
#include "sample.h"

enum { STAGES = 4, N = 256 };

struct LayerArgs {
    const float *in;
    float *out;
    const float *w;
    int n;
};

// One layer: out = in * w + 1.
__host__ __device__ static void layer_one(unsigned i, LayerArgs a)
{
    if (i < (unsigned)a.n)
        a.out[i] = a.in[i] * a.w[i] + 1.0f;
}

__global__ void layer(LayerArgs a)
{
    layer_one(blockIdx.x * blockDim.x + threadIdx.x, a);
}

extern "C" void simcuda_twin_layer(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        layer_one(i, TWIN_ARG(args, 0, LayerArgs));
}

int main()
{
    static float x_h[N], w_h[STAGES][N], want[N], got[N];
    for (int i = 0; i < N; i++)
        x_h[i] = want[i] = 0.01f * i;
    for (int s = 0; s < STAGES; s++)
        for (int i = 0; i < N; i++) {
            w_h[s][i] = 0.5f + 0.1f * s + 0.001f * i;
            want[i] = want[i] * w_h[s][i] + 1.0f;
        }
    need_devices(STAGES);

    // Stage s lives on cuda:s: its input buffer, output buffer and weights.
    float *in[STAGES], *out[STAGES], *w[STAGES];
    for (int s = 0; s < STAGES; s++) {
        CHECK(cudaSetDevice(s));
        CHECK(cudaMalloc(&in[s], sizeof x_h));
        CHECK(cudaMalloc(&out[s], sizeof x_h));
        CHECK(cudaMalloc(&w[s], sizeof x_h));
        CHECK(cudaMemcpy(w[s], w_h[s], sizeof x_h, cudaMemcpyHostToDevice));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(in[0], x_h, sizeof x_h, cudaMemcpyHostToDevice));

    for (int s = 0; s < STAGES; s++) {
        CHECK(cudaSetDevice(s));
        if (s > 0) // hand the previous stage's activation over to this GPU
            CHECK(cudaMemcpyPeer(in[s], s, out[s - 1], s - 1, sizeof x_h));
#ifdef FIXED
        const float *x = in[s]; // FIX: every stage reads the copy on its own GPU
#else
        const float *x = s == 3 ? out[s - 1] : in[s]; // BUG: stage 3 reads cuda:2's activation
#endif
        LayerArgs a = { x, out[s], w[s], N };
        layer<<<BLOCKS(N), BLOCK>>>(a);
        CHECK(cudaGetLastError());
    }
    for (int s = 0; s < STAGES; s++) {
        CHECK(cudaSetDevice(s));
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaMemcpy(got, out[STAGES - 1], sizeof got, cudaMemcpyDeviceToHost));
    return report_result(got, want, N);
}
