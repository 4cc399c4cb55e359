// __device__ and __constant__ variables through the runtime, per device as on
// a GPU: cudaGetSymbolAddress / cudaGetSymbolSize, cudaMemcpyToSymbol /
// FromSymbol (and Async) with offsets, initial values from the image, each
// device its own copy, a variable's address passed to a kernel (its twin
// reads it), and that address from another device's launch faulting.
#include "rt_check.h"

#include <stdint.h>

__device__ int table[4] = { 1, 2, 3, 4 };
__device__ float scale;
__constant__ int offsets[2] = { 10, 20 };

__global__ void gather(const int *t, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = t[i] + offsets[0];
}

extern "C" __attribute__((visibility("default"), used)) void
simcuda_twin_gather(void **args, const unsigned grid[3], const unsigned block[3])
{
    const int *t = *(const int **)args[0];
    int *out = *(int **)args[1];
    int n = *(int *)args[2];
    for (unsigned i = 0; i < grid[0] * block[0] && (int)i < n; i++)
        out[i] = t[i] + 10;
}

int main()
{
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    EXPECT(ndev >= 2);
    void *addr[2];
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaGetSymbolAddress(&addr[d], table));
        size_t sz = 0;
        CHECK(cudaGetSymbolSize(&sz, table));
        EXPECT(sz == sizeof(int) * 4);
        CHECK(cudaGetSymbolSize(&sz, scale));
        EXPECT(sz == sizeof(float));
        int h[4];
        CHECK(cudaMemcpyFromSymbol(h, table, sizeof h));
        EXPECT(h[0] == 1 && h[3] == 4);         // the image's initial value
        int c[2];
        CHECK(cudaMemcpyFromSymbol(c, offsets, sizeof c));
        EXPECT(c[0] == 10 && c[1] == 20);
        cudaPointerAttributes pa;
        CHECK(cudaPointerGetAttributes(&pa, addr[d]));
        EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == d);
    }
    EXPECT(addr[0] != addr[1]);                 // one copy per device

    // device 1's copy changes, device 0's does not
    int v = 42;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemcpyToSymbol(table, &v, sizeof v, 2 * sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float f = 1.5f, g = 0;
    CHECK(cudaMemcpyToSymbolAsync(scale, &f, sizeof f, 0, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyFromSymbolAsync(&g, scale, sizeof g, 0, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(g == 1.5f);
    CHECK(cudaStreamDestroy(s));
    EXPECT_ERR(cudaMemcpyToSymbol(table, &v, sizeof v, 4 * sizeof(int)), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(&v, &v, sizeof v), cudaErrorInvalidSymbol);
    int h1[4], h0[4];
    CHECK(cudaMemcpyFromSymbol(h1, table, sizeof h1));
    EXPECT(h1[2] == 42);
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyFromSymbol(h0, table, sizeof h0));
    EXPECT(h0[2] == 3);
    // a variable's copy is not memory cudaFree takes
    EXPECT_ERR(cudaFree(addr[0]), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    // its address, passed to a kernel on its own device
    int *out;
    CHECK(cudaMalloc(&out, 4 * sizeof(int)));
    gather<<<1, 4>>>((const int *)addr[0], out, 4);
    CHECK(cudaDeviceSynchronize());
    int r[4];
    CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r[0] == 11 && r[2] == 13 && r[3] == 14);
    // ... and device 1's copy from device 0: an illegal address, as on a GPU
    gather<<<1, 4>>>((const int *)addr[1], out, 4);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    printf("rt_globals: OK\n");
    return 0;
}
