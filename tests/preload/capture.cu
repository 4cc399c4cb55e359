// sync=1 and mode=migrate while a CUDA graph is captured in global mode
// (torch.cuda.graph's default; vLLM captures at start-up) (capture.sh).
// Everything is allocated first.  Thread A begins a global-mode capture on
// its stream sA (device 0) and, while capturing, launches `bump` into
// another stream sX of its own (not captured: it runs at once) and lets
// thread B launch `bump` on device 1 into its stream sB, reading memory of
// device 1 (`clean`) or device 2 (`cross`, a device_mismatch).  Then A
// captures `bump` on a, ends the capture, instantiates and launches the graph.
// Prints "capture: OK" when the capture ended and its graph ran (every a[i]
// is 1), "capture: FAILED: ..." otherwise (exit 1).  Nothing in the program
// itself is prohibited during the capture: launches are not unsafe calls.
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 64

__global__ void bump(int *dst, const int *src, int n)
{
    int i = threadIdx.x;
    if (i < n)
        dst[i] += 1 + src[i];
}

extern "C" void simcuda_twin_bump(void **args, const unsigned grid[3], const unsigned block[3])
{
    int *dst = *(int **)args[0];
    const int *src = *(const int **)args[1];
    int n = *(int *)args[2];
    (void)grid;
    for (int i = 0; i < (int)block[0] && i < n; i++)
        dst[i] += 1 + src[i];
}

static int *a, *x, *zero0, *b, *src_b;
static cudaStream_t sA, sX, sB;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int capturing, b_done;
static cudaError_t b_err;

static void *thread_b(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!capturing)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    cudaSetDevice(1);
    int n = N;
    void *args[] = { &b, &src_b, &n };
    b_err = cudaLaunchKernel((const void *)bump, dim3(1), dim3(N), args, 0, sB);
    pthread_mutex_lock(&mu);
    b_done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("capture: FAILED: %s: %s\n", #x, cudaGetErrorName(e_)); return 1; } } while (0)

int main(int argc, char **argv)
{
    int cross = argc > 1 && !strcmp(argv[1], "cross");
    CK(cudaSetDevice(2));
    int *far = NULL;
    CK(cudaMalloc(&far, N * sizeof(int)));
    CK(cudaMemset(far, 0, N * sizeof(int)));
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&b, N * sizeof(int)));
    CK(cudaMalloc(&src_b, N * sizeof(int)));
    CK(cudaMemset(b, 0, N * sizeof(int)));
    CK(cudaMemset(src_b, 0, N * sizeof(int)));
    CK(cudaStreamCreateWithFlags(&sB, cudaStreamNonBlocking));
    if (cross)
        src_b = far;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, N * sizeof(int)));
    CK(cudaMalloc(&x, N * sizeof(int)));
    CK(cudaMalloc(&zero0, N * sizeof(int)));
    CK(cudaMemset(a, 0, N * sizeof(int)));
    CK(cudaMemset(x, 0, N * sizeof(int)));
    CK(cudaMemset(zero0, 0, N * sizeof(int)));
    CK(cudaStreamCreateWithFlags(&sA, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sX, cudaStreamNonBlocking));
    CK(cudaDeviceSynchronize());

    pthread_t tb;
    pthread_create(&tb, NULL, thread_b, NULL);
    CK(cudaStreamBeginCapture(sA, cudaStreamCaptureModeGlobal));
    bump<<<1, N, 0, sX>>>(x, zero0, N);             // this thread, another stream: runs now
    CK(cudaGetLastError());
    pthread_mutex_lock(&mu);
    capturing = 1;
    pthread_cond_broadcast(&cv);
    while (!b_done)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    bump<<<1, N, 0, sA>>>(a, zero0, N);             // captured
    CK(cudaGetLastError());
    cudaGraph_t g;
    CK(cudaStreamEndCapture(sA, &g));
    pthread_join(tb, NULL);
    CK(b_err);
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, sA));
    CK(cudaStreamSynchronize(sA));
    int h[N];
    CK(cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (h[i] != 1) {
            printf("capture: FAILED: a[%d] = %d after the graph\n", i, h[i]);
            return 1;
        }
    printf("capture: OK\n");
    return 0;
}
