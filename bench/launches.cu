// Launch-heavy workload for the overhead benchmark: `allocs` live allocations
// spread over every device, then `launches` launches of a kernel with four
// pointer operands and a struct of two more, all on the launch device.
// Usage: launches [launches] [allocs]; prints the elapsed seconds of the
// launch loop alone.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

struct pair_args { const float *a, *b; };

__global__ void axpy4(float *y, const float *x0, const float *x1, const float *x2,
                      pair_args p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x0[i] + x1[i] + x2[i] + p.a[i] + p.b[i];
}

static double now(void)
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    long launches = argc > 1 ? atol(argv[1]) : 100000;
    long allocs = argc > 2 ? atol(argv[2]) : 10000;
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    std::vector<void *> live;
    for (long i = 0; i < allocs; i++) {
        void *p;
        CHECK(cudaSetDevice((int)(i % ndev)));
        CHECK(cudaMalloc(&p, 256 + (i % 7) * 512));
        live.push_back(p);
    }
    CHECK(cudaSetDevice(0));
    const int n = 256;
    float *buf[6];
    for (int i = 0; i < 6; i++)
        CHECK(cudaMalloc(&buf[i], n * sizeof(float)));
    pair_args p = { buf[4], buf[5] };
    double t0 = now();
    for (long i = 0; i < launches; i++)
        axpy4<<<1, n>>>(buf[0], buf[1], buf[2], buf[3], p, n);
    CHECK(cudaDeviceSynchronize());
    double t1 = now();
    printf("%.6f\n", t1 - t0);
    for (void *q : live)
        CHECK(cudaFree(q));
    return 0;
}
