// One bug launched again and again (tests/e2e/repeat.sh): a kernel handed
// cuda:1's memory on cuda:0, three times from one call site, from the
// program itself ("program") or through a library ("library"); then once
// from a second call site ("two-sites").  One call site is one finding,
// whatever path devcheck took to check each launch.  "peer": the same with
// peer access 0 -> 1 enabled, and a second launch at the second site over
// another allocation of cuda:1: legal peer traffic, one finding per
// (kernel, parameter, device pair) whatever the sites and allocations.
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
    if (!strcmp(what, "peer") && cudaDeviceEnablePeerAccess(1, 0) != cudaSuccess)
        return 2;
    for (int i = 0; i < 3; i++)
        launch(what, p);
    if (!strcmp(what, "two-sites") || !strcmp(what, "peer"))
        own_touch<<<1, 32>>>(p);        // @launch-second
    if (!strcmp(what, "peer")) {        // another allocation of cuda:1, made at another line
        float *q = NULL;
        cudaSetDevice(1);
        if (cudaMalloc((void **)&q, 32 * sizeof(float)) != cudaSuccess)
            return 2;
        cudaSetDevice(0);
        own_touch<<<1, 32>>>(q);        // @launch-other
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("repeat_prog %s: %s\n", what, cudaGetErrorName(e));
    return 0;
}
