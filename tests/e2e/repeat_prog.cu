// One bug launched again and again (tests/e2e/repeat.sh): a kernel handed
// cuda:1's memory on cuda:0, three times from one call site, from the
// program itself ("program") or through a library ("library"); then once
// from a second call site ("two-sites").  One call site is one finding,
// whatever path devcheck took to check each launch.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

extern "C" void repeat_launch(float *p);

__global__ void own_touch(float *p)
{
    if (p)
        p[threadIdx.x] += 1.0f;
}

static void launch(const char *what, float *p)
{
    if (!strcmp(what, "library"))
        repeat_launch(p);               // @launch-library
    else
        own_touch<<<1, 32>>>(p);        // @launch-program
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "program";
    float *p = NULL;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc((void **)&p, 32 * sizeof(float)) != cudaSuccess)
        return 2;
    cudaSetDevice(0);
    for (int i = 0; i < 3; i++)
        launch(what, p);
    if (!strcmp(what, "two-sites"))
        own_touch<<<1, 32>>>(p);        // @launch-second
    cudaError_t e = cudaDeviceSynchronize();
    printf("repeat_prog %s: %s\n", what, cudaGetErrorName(e));
    return 0;
}
