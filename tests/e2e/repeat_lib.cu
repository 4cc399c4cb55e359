// A library launching a kernel for its caller (tests/e2e/repeat.sh): built
// once with symbols and once stripped.
#include <cuda_runtime.h>

__global__ void repeat_touch(float *p)
{
    if (p)
        p[threadIdx.x] += 1.0f;
}

extern "C" void repeat_launch(float *p) { repeat_touch<<<1, 32>>>(p); }
