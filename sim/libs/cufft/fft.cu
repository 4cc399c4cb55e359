// The sim cuFFT's kernel (fft_hd.h; sim/libs/cufft/README.md): one pass of
// a transform, one line per thread, grid-stride.  libs.mk embeds its fatbin
// in libcufft.so.12 (fft_image); on the sim its host twin (twins.c) runs in
// its place with the same code.  in, out and work are parameters of their
// own, so the image's code says which the kernel dereferences (the sim's
// fault model, sim/driver/README.md).
#include "fft_hd.h"

extern "C" __global__ void simfft_pass(const void *in, void *out, double *work, struct simfft_pass p)
{
    for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < p.lines;
         l += (long long)gridDim.x * blockDim.x)
        simfft_line(&p, in, out, work, l);
}
