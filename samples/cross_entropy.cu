// cross_entropy: the loss of a model split over four GPUs.
//
// Field report: GLM-4 fine-tuning with device_map="auto".  The logits come out
// of the last GPU of the split (cuda:3); the labels were placed on cuda:1 by
// the data collator's `.to(model.device)`, which names the first stage's GPU
// and not the last.  CrossEntropyLoss runs where the logits are.
// Fix: labels.to(logits.device).
//
// Build: buggy as cross_entropy, fixed (-DFIXED) as cross_entropy_fixed.
#define SAMPLE_NAME "cross_entropy"
#include "sample.h"

enum { ROWS = 64, CLASSES = 10 };

// loss[r] = logsumexp(logits[r]) - logits[r][labels[r]]
__host__ __device__ static void xent_one(unsigned r, const float *logits, const int *labels,
                                         float *loss, int rows, int classes)
{
    if (r >= (unsigned)rows)
        return;
    const float *z = logits + r * classes;
    float m = z[0], s = 0.0f;
    for (int c = 1; c < classes; c++)
        m = fmaxf(m, z[c]);
    for (int c = 0; c < classes; c++)
        s += expf(z[c] - m);
    loss[r] = m + logf(s) - z[labels[r]];
}

__global__ void cross_entropy(const float *logits, const int *labels, float *loss, int rows,
                              int classes)
{
    xent_one(blockIdx.x * blockDim.x + threadIdx.x, logits, labels, loss, rows, classes);
}

extern "C" void simcuda_twin_cross_entropy(void **args, const unsigned grid[3],
                                           const unsigned block[3])
{
    for (unsigned r = 0; r < twin_threads(grid, block); r++)
        xent_one(r, TWIN_ARG(args, 0, const float *), TWIN_ARG(args, 1, const int *),
                 TWIN_ARG(args, 2, float *), TWIN_ARG(args, 3, int), TWIN_ARG(args, 4, int));
}

int main()
{
    static float logits_h[ROWS * CLASSES], want[ROWS], got[ROWS];
    static int labels_h[ROWS];
    for (int i = 0; i < ROWS * CLASSES; i++)
        logits_h[i] = 0.1f * ((i * 37) % 23) - 1.0f;
    for (int r = 0; r < ROWS; r++)
        labels_h[r] = (r * 3) % CLASSES;
    for (int r = 0; r < ROWS; r++)
        xent_one(r, logits_h, labels_h, want, ROWS, CLASSES);
    need_devices(4);

    // Labels, placed on cuda:1.
    int *labels;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&labels, sizeof labels_h));
    CHECK(cudaMemcpy(labels, labels_h, sizeof labels_h, cudaMemcpyHostToDevice));

    // Logits from the last stage, on cuda:3; the loss is computed there.
    float *logits, *loss;
    CHECK(cudaSetDevice(3));
    CHECK(cudaMalloc(&logits, sizeof logits_h));
    CHECK(cudaMalloc(&loss, sizeof got));
    CHECK(cudaMemcpy(logits, logits_h, sizeof logits_h, cudaMemcpyHostToDevice));
#ifdef FIXED
    int *loss_labels;
    CHECK(cudaMalloc(&loss_labels, sizeof labels_h));
    CHECK(cudaMemcpyPeer(loss_labels, 3, labels, 1, sizeof labels_h)); // FIX: labels.to(cuda:3)
#else
    const int *loss_labels = labels; // BUG: the labels are on cuda:1
#endif
    cross_entropy<<<BLOCKS(ROWS), BLOCK>>>(logits, loss_labels, loss, ROWS, CLASSES);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, loss, sizeof got, cudaMemcpyDeviceToHost));
    return report_result(got, want, ROWS);
}
