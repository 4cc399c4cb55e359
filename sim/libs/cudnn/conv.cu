// The sim's cuDNN kernel (sim/libs/cudnn/README.md): one convolution,
// forward or backward (struct simdnn_conv says which), one output element
// per thread, grid-stride.  libs.mk embeds its fatbin in
// libcudnn_graph.so.9 (conv_image); on the sim its host twin
// (twins.c, simcuda_twin_simdnn_conv) runs in its place, computing with the
// same code (conv_hd.h).  a, b are the inputs, out the output: x, w -> y
// (forward); dy, w -> dx (backward data); x, dy -> dw (backward filter).
#include "conv_hd.h"

extern "C" __global__ void simdnn_conv(const void *a, const void *b, void *out, struct simdnn_conv p)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < p.total;
         i += (long long)gridDim.x * blockDim.x)
        simdnn_conv_point(&p, a, b, out, i);
}
