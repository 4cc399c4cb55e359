// pipeline_peer: a correct multi-GPU pipeline; devcheck must not call it an
// error.  Four stages on cuda:0..3, one stream per GPU; activations move
// between stages with asynchronous peer copies ordered by events recorded on
// one GPU and waited for on another (legal across devices), and the last stage
// reads stage 2's activation directly over peer access (cudaDeviceEnablePeerAccess):
// legal, but it crosses NVLink/PCIe, so at most a peer_access warning.
// Where the two GPUs cannot peer, the last hop is a copy like the others.
// No fixed twin: there is nothing to fix.
#define SAMPLE_NAME "pipeline_peer"
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

    float *in[STAGES], *out[STAGES], *w[STAGES];
    cudaStream_t stream[STAGES];
    cudaEvent_t done[STAGES];
    for (int s = 0; s < STAGES; s++) {
        CHECK(cudaSetDevice(s));
        CHECK(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
        CHECK(cudaMalloc(&in[s], sizeof x_h));
        CHECK(cudaMalloc(&out[s], sizeof x_h));
        CHECK(cudaMalloc(&w[s], sizeof x_h));
        CHECK(cudaMemcpy(w[s], w_h[s], sizeof x_h, cudaMemcpyHostToDevice));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(in[0], x_h, sizeof x_h, cudaMemcpyHostToDevice));

    // The last stage reads stage 2's output in place when the GPUs can peer.
    int direct = 0;
    CHECK(cudaDeviceCanAccessPeer(&direct, STAGES - 1, STAGES - 2));
    if (direct) {
        CHECK(cudaSetDevice(STAGES - 1));
        CHECK(cudaDeviceEnablePeerAccess(STAGES - 2, 0));
    }

    for (int s = 0; s < STAGES; s++) {
        CHECK(cudaSetDevice(s));
        LayerArgs a = { in[s], out[s], w[s], N };
        if (s > 0) {
            CHECK(cudaStreamWaitEvent(stream[s], done[s - 1], 0)); // event of another GPU
            if (s == STAGES - 1 && direct)
                a.in = out[s - 1]; // legal: peer access enabled above
            else
                CHECK(cudaMemcpyPeerAsync(in[s], s, out[s - 1], s - 1, sizeof x_h, stream[s]));
        }
        layer<<<BLOCKS(N), BLOCK, 0, stream[s]>>>(a);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(done[s], stream[s]));
    }
    CHECK(cudaSetDevice(STAGES - 1));
    CHECK(cudaStreamSynchronize(stream[STAGES - 1]));
    CHECK(cudaMemcpy(got, out[STAGES - 1], sizeof got, cudaMemcpyDeviceToHost));
    return report_result(got, want, N);
}
