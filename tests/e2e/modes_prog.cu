// modes_prog: programs for the mode=migrate / sync=1 tests (tests/e2e/).
// Usage: modes_prog threads | capture | shared | graph | late | fresh | rodata
//
//   threads  THREADS threads at once, thread t on cuda:(t % 4), each with its
//            own non-blocking stream, ITERS launches of y += a * x with values
//            only that thread uses.  Odd threads keep y on the next device
//            (the bug: migrated under mode=migrate, a fault without it), even
//            threads are correct.  Every thread checks its own y exactly, so
//            a migrated copy that reached another thread (cross-talk) or a
//            lost copy-back shows.  Prints "modes_threads: OK (...)" and exits
//            0, or names the first wrong value / failed call and exits 1.
//   capture  captures (driver API: cuStreamBeginCapture) a launch on cuda:0
//            whose x lives on cuda:1 into a graph, ends the capture and
//            instantiates the graph without launching it.  Prints
//            "modes_capture: OK (captured)" and exits 0 when capture and
//            instantiation succeed (a synchronisation of the capturing stream
//            would invalidate the capture).
//   shared   one allocation of 3*N floats on cuda:1 holds a, b and y; a
//            kernel on cuda:0 computes y = a + b from three pointers into it
//            (the bug: migrated as one copy under mode=migrate).  Prints
//            "modes_prog: OK (...)" when y is right, else names the first
//            wrong value or failed call; exit status 0 or 1.
//   graph    a graph whose kernel node (cuGraphAddKernelNode) reads x on
//            cuda:1 from cuda:0 is launched (cuGraphLaunch: it faults), then
//            a correct launch on cuda:0; the fault surfaces at the final
//            cuCtxSynchronize (earlier with CUDA_LAUNCH_BLOCKING-style
//            synchronisation).  Prints "modes_prog: FAILED: ..." naming the
//            call, exit status 1 (the error belongs to the graph, not to the
//            correct launch after it).
//   late     a launch on cuda:0 reading pinned host memory (a host_memory
//            warning under host_memory=warn), then one whose x lives on
//            cuda:1 (device_mismatch, an error; it faults).  Prints
//            "modes_prog: FAILED: ..." at the final synchronisation, exit
//            status 1.
//   fresh    the `graph` bug launched (<<<>>>, legacy stream) from a new
//            thread that never called cudaSetDevice (device 0 by default,
//            no context current before its launch); the thread returns the
//            launch's error, main then fails at cudaDeviceSynchronize
//            ("modes_prog: FAILED: ...", exit status 1).
//   rodata   y += 1 * x on cuda:0 where x is a `static const` host table
//            (pageable, in a read-only mapping: the bug).  Prints
//            "modes_prog: OK (...)" when y is right, else the failure; exit
//            status 0 or 1.
// Host twins (simcuda_twin_axpy, simcuda_twin_add2) as in samples/.  The
// launch (or node) line of each mode is marked `// @MODE` for the tests.
#define SAMPLE_NAME "modes_prog"
#include "../../samples/sample.h"
#include <cuda.h>
#include <pthread.h>
#include <cstring>

enum { THREADS = 8, ITERS = 16, N = 1000, DEVICES = 4 };

__host__ __device__ static void axpy_one(unsigned i, const float *x, float *y, float a, int n)
{
    if (i < (unsigned)n)
        y[i] += a * x[i];
}

__global__ void axpy(const float *x, float *y, float a, int n)
{
    axpy_one(blockIdx.x * blockDim.x + threadIdx.x, x, y, a, n);
}

extern "C" void simcuda_twin_axpy(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        axpy_one(i, TWIN_ARG(args, 0, const float *), TWIN_ARG(args, 1, float *),
                 TWIN_ARG(args, 2, float), TWIN_ARG(args, 3, int));
}

__host__ __device__ static void add2_one(unsigned i, const float *a, const float *b, float *y, int n)
{
    if (i < (unsigned)n)
        y[i] = a[i] + b[i];
}

__global__ void add2(const float *a, const float *b, float *y, int n)
{
    add2_one(blockIdx.x * blockDim.x + threadIdx.x, a, b, y, n);
}

extern "C" void simcuda_twin_add2(void **args, const unsigned grid[3], const unsigned block[3])
{
    for (unsigned i = 0; i < twin_threads(grid, block); i++)
        add2_one(i, TWIN_ARG(args, 0, const float *), TWIN_ARG(args, 1, const float *),
                 TWIN_ARG(args, 2, float *), TWIN_ARG(args, 3, int));
}

struct job {
    int t;
    char error[256];            // empty: the thread's result is right
};

#define TRY(call) do {                                                        \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            snprintf(j->error, sizeof j->error, "thread %d: %s: %s", j->t, #call, \
                     cudaGetErrorName(e_));                                   \
            return NULL;                                                      \
        }                                                                     \
    } while (0)

static void *worker(void *arg)
{
    job *j = (job *)arg;
    int t = j->t, dev = t % DEVICES;
    int ydev = t % 2 ? (dev + 1) % DEVICES : dev; // BUG on odd threads: y on the next device
    static thread_local float x_h[N], y_h[N];
    for (int i = 0; i < N; i++) {
        x_h[i] = (float)(t * 1000 + i);
        y_h[i] = (float)t;
    }
    float *x, *y;
    cudaStream_t s;
    TRY(cudaSetDevice(ydev));
    TRY(cudaMalloc(&y, sizeof y_h));
    TRY(cudaMemcpy(y, y_h, sizeof y_h, cudaMemcpyHostToDevice));
    TRY(cudaSetDevice(dev));
    TRY(cudaMalloc(&x, sizeof x_h));
    TRY(cudaMemcpy(x, x_h, sizeof x_h, cudaMemcpyHostToDevice));
    TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int it = 0; it < ITERS; it++) {
        axpy<<<BLOCKS(N), BLOCK, 0, s>>>(x, y, (float)(t + 1), N); // @threads
        TRY(cudaGetLastError());
        TRY(cudaStreamSynchronize(s));
    }
    TRY(cudaMemcpy(y_h, y, sizeof y_h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        // exact in float: integers below 2^24
        float want = (float)t + (float)ITERS * (float)(t + 1) * (float)(t * 1000 + i);
        if (y_h[i] != want) {
            snprintf(j->error, sizeof j->error, "thread %d: y[%d] = %g, expected %g", t, i,
                     (double)y_h[i], (double)want);
            return NULL;
        }
    }
    TRY(cudaStreamDestroy(s));
    TRY(cudaFree(x));
    TRY(cudaFree(y));
    return NULL;
}

static int threads(void)
{
    need_devices(DEVICES);
    pthread_t th[THREADS];
    job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t].t = t;
        jobs[t].error[0] = 0;
        if (pthread_create(&th[t], NULL, worker, &jobs[t]) != 0) {
            printf("modes_threads: FAILED: pthread_create\n");
            return 1;
        }
    }
    int bad = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        if (jobs[t].error[0] && !bad++)
            printf("modes_threads: WRONG: %s\n", jobs[t].error);
    }
    if (bad)
        return 1;
    printf("modes_threads: OK (%d threads, %d launches each)\n", THREADS, ITERS);
    return 0;
}

#define CK(call) do {                                                         \
        CUresult r_ = (call);                                                 \
        if (r_ != CUDA_SUCCESS) {                                             \
            const char *n_ = "?";                                             \
            cuGetErrorName(r_, &n_);                                          \
            printf("modes_prog: FAILED: %s: %s\n", #call, n_);                \
            return 1;                                                         \
        }                                                                     \
    } while (0)

// The bug of `capture` and `graph`: x on cuda:1, y on cuda:0 (current), and
// axpy's CUfunction for a driver-API launch.
static void cross_setup(float **x, float **y, CUfunction *f)
{
    need_devices(2);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(x, N * sizeof(float)));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(y, N * sizeof(float)));
    CHECK(cudaGetFuncBySymbol(f, (const void *)axpy));
}

static int capture(void)
{
    float *x, *y;
    CUfunction f;
    cross_setup(&x, &y, &f);
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    float a = 2.0f;
    int n = N;
    void *params[] = { &x, &y, &a, &n }; // BUG: x on cuda:1
    CK(cuLaunchKernel(f, BLOCKS(N), 1, 1, BLOCK, 1, 1, 0, s, params, NULL)); // @capture
    CUgraph g;
    CK(cuStreamEndCapture(s, &g));
    CUgraphExec e;
    CK(cuGraphInstantiate(&e, g, 0));
    printf("modes_capture: OK (captured)\n");
    return 0;
}

static int shared(void)
{
    need_devices(2);
    static float h[3 * N], want[N];
    for (int i = 0; i < N; i++) {
        h[i] = (float)i;
        h[N + i] = 0.5f * i;
        h[2 * N + i] = -1.0f;
        want[i] = 1.5f * i;
    }
    float *buf;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&buf, sizeof h));
    CHECK(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(0));
    add2<<<BLOCKS(N), BLOCK>>>(buf, buf + N, buf + 2 * N, N); // @shared BUG: all three on cuda:1
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost));
    return report_result(h + 2 * N, want, N);
}

static int graph(void)
{
    float *x, *y;
    CUfunction f;
    cross_setup(&x, &y, &f);
    float a = 2.0f;
    int n = N;
    void *params[] = { &x, &y, &a, &n }; // BUG: x on cuda:1
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.func = f;
    p.gridDimX = BLOCKS(N);
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = BLOCK;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = params;
    CUgraph g;
    CUgraphNode node;
    CUgraphExec e;
    CK(cuGraphCreate(&g, 0));
    CK(cuGraphAddKernelNode(&node, g, NULL, 0, &p)); // @graph
    CK(cuGraphInstantiate(&e, g, 0));
    CK(cuGraphLaunch(e, NULL));
    axpy<<<BLOCKS(N), BLOCK>>>(y, y, 1.0f, N); // correct: all on cuda:0
    CHECK(cudaGetLastError());
    CK(cuCtxSynchronize());
    printf("modes_graph: OK\n");
    return 0;
}

static int late(void)
{
    float *x, *y, *pinned;
    CUfunction f;
    cross_setup(&x, &y, &f);
    CHECK(cudaMallocHost(&pinned, N * sizeof(float)));
    memset(pinned, 0, N * sizeof(float));
    axpy<<<BLOCKS(N), BLOCK>>>(pinned, y, 1.0f, N); // @late_warning (pinned: a warning under host_memory=warn)
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    axpy<<<BLOCKS(N), BLOCK>>>(x, y, 1.0f, N); // @late BUG: x on cuda:1
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("modes_late: OK\n");
    return 0;
}

static float *fresh_x, *fresh_y;

static void *fresh_thread(void *)
{
    axpy<<<BLOCKS(N), BLOCK>>>(fresh_x, fresh_y, 1.0f, N); // @fresh BUG: x on cuda:1
    return (void *)(intptr_t)cudaGetLastError();
}

static int fresh(void)
{
    CUfunction f;
    cross_setup(&fresh_x, &fresh_y, &f);
    pthread_t th;
    void *ret = NULL;
    if (pthread_create(&th, NULL, fresh_thread, NULL) != 0 || pthread_join(th, &ret) != 0) {
        printf("modes_prog: FAILED: pthread\n");
        return 1;
    }
    CHECK((cudaError_t)(intptr_t)ret);
    CHECK(cudaDeviceSynchronize());
    printf("modes_fresh: OK\n");
    return 0;
}

static const float rodata_x[N] = { 1.0f, 2.0f, 3.0f, 4.0f };   // the rest 0

static int rodata(void)
{
    need_devices(1);
    static float h[N], want[N];
    for (int i = 0; i < N; i++) {
        h[i] = (float)i;
        want[i] = (float)i + rodata_x[i];
    }
    float *y;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&y, sizeof h));
    CHECK(cudaMemcpy(y, h, sizeof h, cudaMemcpyHostToDevice));
    axpy<<<BLOCKS(N), BLOCK>>>(rodata_x, y, 1.0f, N); // @rodata BUG: x in pageable host memory
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost));
    return report_result(h, want, N);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "rodata"))
        return rodata();
    if (argc == 2 && !strcmp(argv[1], "late"))
        return late();
    if (argc == 2 && !strcmp(argv[1], "fresh"))
        return fresh();
    if (argc == 2 && !strcmp(argv[1], "graph"))
        return graph();
    if (argc == 2 && !strcmp(argv[1], "shared"))
        return shared();
    if (argc == 2 && !strcmp(argv[1], "threads"))
        return threads();
    if (argc == 2 && !strcmp(argv[1], "capture"))
        return capture();
    fprintf(stderr, "usage: modes_prog threads|capture|shared|graph|late|fresh|rodata\n");
    return 2;
}
