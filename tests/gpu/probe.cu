// The CUDA C program of the real-GPU battery (tests/gpu/run.sh): every kind
// of memory a correct program hands a kernel, and the one bug a single GPU
// can show (pageable host memory in a kernel's pointer parameter).
//
//   probe correct    cudaMalloc, managed, pinned, registered, a __device__
//                    global, cudaMallocAsync, a struct with a stale unused
//                    field, an end iterator, cuLaunchKernel, a graph;
//                    prints `probe: OK`, exits 0
//   probe pageable   a malloc'd buffer passed to a kernel: the GPU faults
//                    (no pageable memory access on an H100/H200); prints
//                    `probe: fault: <error>`, exits 3, or `probe: OK` when
//                    devcheck's --mode migrate moved it
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024
#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            printf("probe: fault: %s at %s:%d\n", cudaGetErrorName(e_), __FILE__, __LINE__); \
            return 3;                                                                      \
        }                                                                                  \
    } while (0)

struct Args {
    const float *src;
    float *dst;
    const float *unused;   // stale: never read
    int n;
};

__device__ float dev_global[N];

__global__ void k_copy(const float *src, float *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i] + 1.0f;
}

__global__ void k_struct(Args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n)
        a.dst[i] = a.src[i] * 2.0f;
}

__global__ void k_range(const float *begin, const float *end, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (begin + i < end)
        out[i] = begin[i];
}

__global__ void k_global(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = dev_global[i];
}

static int expect(const float *h, float want, const char *what)
{
    for (int i = 0; i < N; i++)
        if (h[i] != want) {
            printf("probe: wrong result in %s: [%d] = %g, want %g\n", what, i, h[i], want);
            return 1;
        }
    return 0;
}

static int correct(void)
{
    float *d_a, *d_b, *m, *pinned, *pool;
    static float reg[N];
    float host[N];
    CHECK(cudaMalloc(&d_a, N * sizeof(float)));
    CHECK(cudaMalloc(&d_b, N * sizeof(float)));
    CHECK(cudaMallocManaged(&m, N * sizeof(float)));
    CHECK(cudaMallocHost(&pinned, N * sizeof(float)));
    CHECK(cudaHostRegister(reg, sizeof reg, cudaHostRegisterDefault));
    for (int i = 0; i < N; i++)
        m[i] = pinned[i] = reg[i] = 1.0f;
    CHECK(cudaMemcpy(d_a, pinned, N * sizeof(float), cudaMemcpyHostToDevice));
    k_copy<<<N / 256, 256>>>(d_a, d_b, N);
    CHECK(cudaMemcpy(host, d_b, sizeof host, cudaMemcpyDeviceToHost));
    if (expect(host, 2.0f, "device"))
        return 1;
    k_copy<<<N / 256, 256>>>(m, d_b, N);            // managed
    k_copy<<<N / 256, 256>>>(pinned, d_b, N);       // pinned: legal, read over PCIe
    k_copy<<<N / 256, 256>>>(reg, d_b, N);          // registered
    CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocAsync(&pool, N * sizeof(float), s));
    k_copy<<<N / 256, 256, 0, s>>>(d_a, pool, N);
    Args a = { pool, d_b, (const float *)host, N };   // a stale host address, unused
    k_struct<<<N / 256, 256, 0, s>>>(a);
    k_range<<<N / 256, 256, 0, s>>>(d_a, d_a + N, d_b);  // an end iterator
    CHECK(cudaFreeAsync(pool, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(host, d_b, sizeof host, cudaMemcpyDeviceToHost));
    if (expect(host, 1.0f, "end iterator"))
        return 1;

    float *g;
    CHECK(cudaGetSymbolAddress((void **)&g, dev_global));
    k_global<<<N / 256, 256>>>(d_b, N);
    k_copy<<<N / 256, 256>>>(g, d_b, N);

    // the driver API, and a graph
    CUfunction f;
    if (cudaGetFuncBySymbol((cudaFunction_t *)&f, (const void *)k_copy) != cudaSuccess)
        return 3;
    int n = N;
    void *params[] = { &d_a, &d_b, &n };
    if (cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL) != CUDA_SUCCESS)
        return 3;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    k_copy<<<N / 256, 256, 0, s>>>(d_a, d_b, N);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(host, d_b, sizeof host, cudaMemcpyDeviceToHost));
    if (expect(host, 2.0f, "graph"))
        return 1;
    printf("probe: OK\n");
    return 0;
}

static int pageable(void)
{
    float *src = (float *)malloc(N * sizeof(float)), *d, host[N];
    for (int i = 0; i < N; i++)
        src[i] = 1.0f;
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    k_copy<<<N / 256, 256>>>(src, d, N);            // the bug: src is pageable host memory
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    if (expect(host, 2.0f, "pageable"))
        return 1;
    printf("probe: OK\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "pageable"))
        return pageable();
    return correct();
}
