// vision_merge: a vision-language model's merge step.
//
// Field reports: GLM-4v (`torch.cat`), MiniCPM-V (`scatter_`), CogVLM, InternVL.
// The vision tower sits on cuda:1, the language model's embeddings on cuda:0,
// and the merge concatenates text and image tokens on cuda:0.  PyTorch says
// "Expected all tensors to be on the same device"; a custom kernel faults with
// "an illegal memory access was encountered" at a later call.
// Fix: images_features[i].to(inputs_embeds.device) -- a peer copy to cuda:0.
//
// Build: buggy as vision_merge, fixed (-DFIXED) as vision_merge_fixed.
#define SAMPLE_NAME "vision_merge"
#include "sample.h"

enum { TEXT_TOKENS = 6, IMAGE_TOKENS = 4, DIM = 32 };

// Vision tower stand-in: features = pixels * scale.
__host__ __device__ static void project_one(unsigned i, const float *pixels, float *features,
                                            float scale, int n)
{
    if (i < (unsigned)n)
        features[i] = pixels[i] * scale;
}

__global__ void project(const float *pixels, float *features, float scale, int n)
{
    project_one(blockIdx.x * blockDim.x + threadIdx.x, pixels, features, scale, n);
}

extern "C" void simcuda_twin_project(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        project_one(i, TWIN_ARG(args, 0, const float *), TWIN_ARG(args, 1, float *),
                    TWIN_ARG(args, 2, float), TWIN_ARG(args, 3, int));
}

// The merge: out = [text tokens ; image tokens] along the sequence.
__host__ __device__ static void concat_one(unsigned i, const float *text, const float *image,
                                           float *out, int ntext, int nimage)
{
    if (i < (unsigned)ntext)
        out[i] = text[i];
    else if (i < (unsigned)(ntext + nimage))
        out[i] = image[i - ntext];
}

__global__ void concat(const float *text, const float *image, float *out, int ntext, int nimage)
{
    concat_one(blockIdx.x * blockDim.x + threadIdx.x, text, image, out, ntext, nimage);
}

extern "C" void simcuda_twin_concat(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        concat_one(i, TWIN_ARG(args, 0, const float *), TWIN_ARG(args, 1, const float *),
                   TWIN_ARG(args, 2, float *), TWIN_ARG(args, 3, int), TWIN_ARG(args, 4, int));
}

int main()
{
    const int ntext = TEXT_TOKENS * DIM, nimage = IMAGE_TOKENS * DIM, n = ntext + nimage;
    static float text_h[ntext], pixels_h[nimage], want[n], got[n];
    for (int i = 0; i < ntext; i++)
        text_h[i] = want[i] = 0.25f * i;
    for (int i = 0; i < nimage; i++) {
        pixels_h[i] = 1000.0f + i;
        want[ntext + i] = 0.5f * pixels_h[i];
    }
    need_devices(2);

    // Language model on cuda:0: text embeddings and the merged sequence.
    float *text, *merged;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&text, sizeof text_h));
    CHECK(cudaMalloc(&merged, sizeof got));
    CHECK(cudaMemcpy(text, text_h, sizeof text_h, cudaMemcpyHostToDevice));

    // Vision tower on cuda:1: image features.
    float *pixels, *features;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&pixels, sizeof pixels_h));
    CHECK(cudaMalloc(&features, sizeof pixels_h));
    CHECK(cudaMemcpy(pixels, pixels_h, sizeof pixels_h, cudaMemcpyHostToDevice));
    project<<<BLOCKS(nimage), BLOCK>>>(pixels, features, 0.5f, nimage);
    CHECK(cudaGetLastError());

    // Merge on the language model's device.
    CHECK(cudaSetDevice(0));
#ifdef FIXED
    float *image;
    CHECK(cudaMalloc(&image, sizeof pixels_h));
    CHECK(cudaMemcpyPeer(image, 0, features, 1, sizeof pixels_h)); // FIX: features.to(cuda:0)
#else
    const float *image = features; // BUG: the vision tower's output, still on cuda:1
#endif
    concat<<<BLOCKS(n), BLOCK>>>(text, image, merged, ntext, nimage);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, merged, sizeof got, cudaMemcpyDeviceToHost));
    return report_result(got, want, n);
}
