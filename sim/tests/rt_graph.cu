// The runtime's graph and capture API, in the shapes of NVIDIA's
// simpleCudaGraphs (a graph built by hand and one captured across streams
// joined by events, cloned), jacobiCudaGraphs (cudaGraphExecKernelNodeSetParams
// and cudaGraphExecUpdate with a new capture), graphMemoryNodes /
// graphMemoryFootprint (allocation and free nodes, by hand and captured from
// cudaMallocAsync / cudaFreeAsync, the graph destroyed before its executable
// graph runs), and the capture modes: a cudaMalloc from another thread
// during a global-mode capture fails and invalidates it; relaxed and
// thread-local modes let it through.  Host twins compute the kernels.
#include "rt_check.h"

#include <pthread.h>

__global__ void scale(float *x, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= k;
}

extern "C" __attribute__((visibility("default"), used)) void
simcuda_twin_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    float k = *(float *)args[1];
    int n = *(int *)args[2];
    long threads = (long)grid[0] * block[0];
    for (long i = 0; i < threads && i < n; i++)
        x[i] *= k;
}

#define N 256
static int host_calls;
static void CUDART_CB on_host(void *p) { (*(int *)p)++; }

static void expect_all(const float *dev, float want)
{
    float h[N];
    CHECK(cudaMemcpy(h, dev, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (h[i] != want) {
            fprintf(stderr, "element %d is %g, expected %g\n", i, h[i], want);
            exit(1);
        }
}

static void manual(void)
{
    float *x, hx[N];
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        hx[i] = 2.0f;
    cudaGraph_t g, child;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t set, copy, kern, host, sub;
    cudaMemsetParams ms = {};
    ms.dst = x;
    ms.value = 0;
    ms.elementSize = 4;
    ms.width = N;
    ms.height = 1;
    CHECK(cudaGraphAddMemsetNode(&set, g, NULL, 0, &ms));
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = make_cudaPitchedPtr(hx, N * sizeof(float), N, 1);
    cp.dstPtr = make_cudaPitchedPtr(x, N * sizeof(float), N, 1);
    cp.extent = make_cudaExtent(N * sizeof(float), 1, 1);
    cp.kind = cudaMemcpyHostToDevice;
    CHECK(cudaGraphAddMemcpyNode(&copy, g, &set, 1, &cp));
    float k = 3.0f;
    int n = N;
    void *args[] = { &x, &k, &n };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(N / 64);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&kern, g, &copy, 1, &kp));
    cudaHostNodeParams hp = { on_host, &host_calls };
    CHECK(cudaGraphAddHostNode(&host, g, &kern, 1, &hp));
    // a child graph: one more scale by 3
    CHECK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t ck;
    CHECK(cudaGraphAddKernelNode(&ck, child, NULL, 0, &kp));
    CHECK(cudaGraphAddChildGraphNode(&sub, g, &host, 1, child));
    CHECK(cudaGraphDestroy(child));             // the node holds its own copy

    size_t nn = 0, ne = 0, nr = 0;
    CHECK(cudaGraphGetNodes(g, NULL, &nn));
    EXPECT(nn == 5);
    CHECK(cudaGraphGetEdges(g, NULL, NULL, NULL, &ne));
    EXPECT(ne == 4);
    cudaGraphNode_t root;
    nr = 1;
    CHECK(cudaGraphGetRootNodes(g, &root, &nr));
    EXPECT(nr == 1 && root == set);
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(sub, &t));
    EXPECT(t == cudaGraphNodeTypeGraph);
    cudaKernelNodeParams got = {};
    CHECK(cudaGraphKernelNodeGetParams(kern, &got));
    EXPECT(got.func == (void *)scale && got.gridDim.x == N / 64 && *(float *)got.kernelParams[1] == 3.0f);

    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    expect_all(x, 18.0f);
    EXPECT(host_calls == 1);

    // jacobiCudaGraphs: change a kernel node's argument in the executable graph
    float k2 = 5.0f;
    void *args2[] = { &x, &k2, &n };
    kp.kernelParams = args2;
    CHECK(cudaGraphExecKernelNodeSetParams(ge, kern, &kp));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    expect_all(x, 30.0f);

    // a clone runs the graph's parameters (3), and finds its copies
    cudaGraph_t cl;
    cudaGraphNode_t ckern;
    CHECK(cudaGraphClone(&cl, g));
    CHECK(cudaGraphNodeFindInClone(&ckern, kern, cl));
    EXPECT(ckern != kern);
    cudaGraphExec_t ce;
    CHECK(cudaGraphInstantiate(&ce, cl, 0));
    CHECK(cudaGraphLaunch(ce, s));
    CHECK(cudaStreamSynchronize(s));
    expect_all(x, 18.0f);
    EXPECT(host_calls == 3);
    CHECK(cudaGraphExecDestroy(ce));
    CHECK(cudaGraphDestroy(cl));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(x));
}

// Captured on s1, forked to s2 and joined back through events; the
// allocation is a graph allocation node (cudaMallocAsync in the capture).
static cudaGraph_t capture(cudaStream_t s1, cudaStream_t s2, float *out, float k, float **tmp_out)
{
    cudaEvent_t fork, join;
    CHECK(cudaEventCreate(&fork));
    CHECK(cudaEventCreate(&join));
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s1, &st));
    EXPECT(st == cudaStreamCaptureStatusActive);
    float *tmp;
    CHECK(cudaMallocAsync(&tmp, N * sizeof(float), s1));
    CHECK(cudaMemsetAsync(tmp, 0, N * sizeof(float), s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaLaunchHostFunc(s2, on_host, &host_calls));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    CHECK(cudaMemcpyAsync(tmp, out, N * sizeof(float), cudaMemcpyDeviceToDevice, s1));
    scale<<<N / 64, 64, 0, s1>>>(tmp, k, N);
    CHECK(cudaMemcpyAsync(out, tmp, N * sizeof(float), cudaMemcpyDeviceToDevice, s1));
    CHECK(cudaFreeAsync(tmp, s1));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s1, &g));
    CHECK(cudaStreamIsCapturing(s1, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    if (tmp_out)
        *tmp_out = tmp;
    return g;
}

static void captured(void)
{
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    float *x, hx[N];
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        hx[i] = 1.0f;
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    int before = host_calls;
    float *tmp;
    cudaGraph_t g = capture(s1, s2, x, 2.0f, &tmp);
    size_t nn = 0;
    CHECK(cudaGraphGetNodes(g, NULL, &nn));
    EXPECT(nn == 7);   // alloc, memset, host, copy, kernel, copy, free
    EXPECT(host_calls == before);               // captured, not run
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, tmp));
    EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == 0);
    unsigned long long used = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used >= N * sizeof(float));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphDestroy(g));                 // the executable graph keeps its memory
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_all(x, 4.0f);
    EXPECT(host_calls == before + 2);

    // cudaGraphExecUpdate with a new capture of the same shape, scaling by 3
    cudaGraph_t g2 = capture(s1, s2, x, 3.0f, NULL);
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(ge, g2, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess);
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_all(x, 12.0f);
    CHECK(cudaGraphDestroy(g2));
    // a different topology is refused
    cudaGraph_t g3;
    CHECK(cudaGraphCreate(&g3, 0));
    EXPECT_ERR(cudaGraphExecUpdate(ge, g3, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
    cudaGetLastError();
    CHECK(cudaGraphDestroy(g3));
    CHECK(cudaGraphExecDestroy(ge));

    // graphMemoryNodes by hand: alloc, kernel, free
    cudaGraph_t gm;
    CHECK(cudaGraphCreate(&gm, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(float);
    cudaGraphNode_t an, fn, cn, cb;
    CHECK(cudaGraphAddMemAllocNode(&an, gm, NULL, 0, &ap));
    EXPECT(ap.dptr != NULL);
    CHECK(cudaGraphAddMemcpyNode1D(&cn, gm, &an, 1, ap.dptr, x, N * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK(cudaGraphAddMemcpyNode1D(&cb, gm, &cn, 1, hx, ap.dptr, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&fn, gm, &cb, 1, ap.dptr));
    void *fp = NULL;
    CHECK(cudaGraphMemFreeNodeGetParams(fn, &fp));
    EXPECT(fp == ap.dptr);
    cudaGraphExec_t gme;
    CHECK(cudaGraphInstantiate(&gme, gm, 0));
    CHECK(cudaGraphLaunch(gme, s1));
    CHECK(cudaStreamSynchronize(s1));
    EXPECT(hx[0] == 12.0f && hx[N - 1] == 12.0f);
    CHECK(cudaGraphExecDestroy(gme));
    CHECK(cudaGraphDestroy(gm));

    CHECK(cudaFree(x));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
}

// ---- capture modes ----------------------------------------------------------
struct other { enum cudaStreamCaptureMode mode; cudaError_t got; };
static void *other_thread(void *p)
{
    struct other *o = (struct other *)p;
    enum cudaStreamCaptureMode m = o->mode;
    CHECK(cudaThreadExchangeStreamCaptureMode(&m));
    void *q = NULL;
    o->got = cudaMalloc(&q, 64);
    if (q)
        CHECK(cudaFree(q));
    return NULL;
}

static cudaError_t capture_with_other(enum cudaStreamCaptureMode capture_mode, enum cudaStreamCaptureMode other_mode,
                                      cudaError_t *other_got)
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x;
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    CHECK(cudaStreamBeginCapture(s, capture_mode));
    scale<<<1, 64, 0, s>>>(x, 2.0f, N);
    struct other o = { other_mode, cudaSuccess };
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, other_thread, &o) == 0);
    EXPECT(pthread_join(t, NULL) == 0);
    *other_got = o.got;
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (e == cudaSuccess)
        CHECK(cudaGraphDestroy(g));
    else
        EXPECT(g == NULL);
    cudaGetLastError();
    CHECK(cudaFree(x));
    CHECK(cudaStreamDestroy(s));
    return e;
}

static void modes(void)
{
    cudaError_t other, end;
    // global capture, global thread: the other thread's cudaMalloc is prohibited
    end = capture_with_other(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeGlobal, &other);
    EXPECT(other == cudaErrorStreamCaptureUnsupported);
    EXPECT(end == cudaErrorStreamCaptureInvalidated);
    // the other thread relaxed: allowed, the capture stays
    end = capture_with_other(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeRelaxed, &other);
    EXPECT(other == cudaSuccess && end == cudaSuccess);
    // the other thread thread-local: other threads' captures do not count
    end = capture_with_other(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, &other);
    EXPECT(other == cudaSuccess && end == cudaSuccess);
    // a thread-local capture does not prohibit other threads
    end = capture_with_other(cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeGlobal, &other);
    EXPECT(other == cudaSuccess && end == cudaSuccess);
    // a relaxed capture prohibits nothing
    end = capture_with_other(cudaStreamCaptureModeRelaxed, cudaStreamCaptureModeGlobal, &other);
    EXPECT(other == cudaSuccess && end == cudaSuccess);

    // the capturing thread itself: synchronising another stream is prohibited
    cudaStream_t s, o;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&o, cudaStreamNonBlocking));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    EXPECT_ERR(cudaStreamSynchronize(o), cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusInvalidated);
    cudaGraph_t g = (cudaGraph_t)1;
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT(g == NULL);
    cudaGetLastError();
    CHECK(cudaStreamSynchronize(o));            // no capture any more
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(o));
}

int main()
{
    CHECK(cudaSetDevice(0));
    manual();
    captured();
    modes();
    printf("ok\n");
    return 0;
}
