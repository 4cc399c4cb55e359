/* CUDA graphs on the simulated GPUs: memset, kernel, memcpy and host nodes
 * run in dependency order on cuGraphLaunch; kernel parameters are copied
 * when a node is added; cuGraphExecKernelNodeSetParams updates one
 * executable graph only; a graph kernel node with a cross-device pointer
 * faults like any launch. */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>

#ifndef KDIR
#error KDIR must name the directory holding drv_kernels.cubin
#endif

void simcuda_twin_fill(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    float v = *(float *)args[1];
    int n = *(int *)args[2];
    long total = (long)grid[0] * block[0];
    for (long i = 0; i < total && i < n; i++)
        x[i] = v;
}

static int host_calls;
static void host_node(void *ud) { host_calls += *(int *)ud; }

enum { N = 256 };

int main(void)
{
    MUST(cuInit(0));
    CUcontext c0, c1;
    MUST(cuDevicePrimaryCtxRetain(&c0, 0));
    MUST(cuDevicePrimaryCtxRetain(&c1, 1));
    MUST(cuCtxSetCurrent(c0));
    CUmodule m;
    CUfunction fill;
    MUST(cuModuleLoad(&m, KDIR "/drv_kernels.cubin"));
    MUST(cuModuleGetFunction(&fill, m, "_ZN3drv4fillIfEEvPT_S1_i"));
    CUdeviceptr x;
    MUST(cuMemAlloc(&x, N * sizeof(float)));
    static float out[N];

    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nset, nker, ncpy, nhost;
    CUDA_MEMSET_NODE_PARAMS ms = { x, 0, 0, 4, N, 1 };
    OK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &ms, c0));
    float v = 2.5f;
    int n = N / 2;    /* the kernel fills half; the memset zeroed all */
    void *args[] = { &x, &v, &n };
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = fill;
    kp.gridDimX = 1; kp.gridDimY = 1; kp.gridDimZ = 1;
    kp.blockDimX = N; kp.blockDimY = 1; kp.blockDimZ = 1;
    kp.kernelParams = args;
    OK(cuGraphAddKernelNode(&nker, g, &nset, 1, &kp));
    v = 99.0f;        /* parameters were copied when the node was added */
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = x;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = out;
    cp.WidthInBytes = sizeof out;
    cp.Height = 1;
    cp.Depth = 1;
    OK(cuGraphAddMemcpyNode(&ncpy, g, &nker, 1, &cp, c0));
    int inc = 1;
    CUDA_HOST_NODE_PARAMS hp = { host_node, &inc };
    OK(cuGraphAddHostNode(&nhost, g, &ncpy, 1, &hp));
    size_t count = 0;
    OK(cuGraphGetNodes(g, NULL, &count));
    EQ(count, 4);
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(nker, &t));
    EQ(t, CU_GRAPH_NODE_TYPE_KERNEL);
    CUgraphNode foreign;
    CUgraph g2;
    OK(cuGraphCreate(&g2, 0));
    EXPECT(cuGraphAddEmptyNode(&foreign, g2, &nker, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g2));

    CUgraphExec ex, ex2;
    OK(cuGraphInstantiate(&ex, g, 0));
    OK(cuGraphInstantiate(&ex2, g, 0));
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuGraphLaunch(ex, s));
    OK(cuStreamSynchronize(s));
    TRUE(out[0] == 2.5f && out[N / 2 - 1] == 2.5f && out[N / 2] == 0.0f);
    EQ(host_calls, 1);

    /* update the executable graph only */
    v = 7.0f;
    n = N;
    OK(cuGraphExecKernelNodeSetParams(ex, nker, &kp));
    OK(cuGraphLaunch(ex, s));
    TRUE(out[0] == 7.0f && out[N - 1] == 7.0f);
    OK(cuGraphLaunch(ex2, s));
    TRUE(out[0] == 2.5f && out[N - 1] == 0.0f);
    EQ(host_calls, 3);
    CUDA_KERNEL_NODE_PARAMS back;
    OK(cuGraphKernelNodeGetParams(nker, &back));
    TRUE(back.func == fill && back.blockDimX == N && *(float *)back.kernelParams[1] == 2.5f);

    /* stream capture: work sent to a capturing stream becomes nodes */
    CUstreamCaptureStatus cs;
    EXPECT(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamIsCapturing(s, &cs));
    EQ(cs, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    memset(out, 0, sizeof out);
    int calls_before = host_calls;
    OK(cuMemsetD32Async(x, 0, N, s));
    v = 4.0f;
    n = N;
    OK(cuLaunchKernel(fill, 1, 1, 1, N, 1, 1, 0, s, args, NULL));
    v = -1.0f;       /* captured by value */
    OK(cuMemcpyDtoHAsync(out, x, sizeof out, s));
    OK(cuLaunchHostFunc(s, host_node, &inc));
    EXPECT(cuStreamSynchronize(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    TRUE(out[0] == 0.0f);          /* nothing ran yet */
    EQ(host_calls, calls_before);
    CUgraph cg;
    OK(cuStreamEndCapture(s, &cg));
    OK(cuStreamIsCapturing(s, &cs));
    EQ(cs, CU_STREAM_CAPTURE_STATUS_NONE);
    EXPECT(cuStreamEndCapture(s, &cg), CUDA_ERROR_ILLEGAL_STATE);
    count = 0;
    OK(cuGraphGetNodes(cg, NULL, &count));
    EQ(count, 4);
    CUgraphExec cex;
    OK(cuGraphInstantiate(&cex, cg, 0));
    OK(cuGraphLaunch(cex, s));
    OK(cuStreamSynchronize(s));
    TRUE(out[0] == 4.0f && out[N - 1] == 4.0f);
    EQ(host_calls, calls_before + 1);
    OK(cuGraphExecDestroy(cex));
    OK(cuGraphDestroy(cg));

    /* fork/join capture across two streams through events */
    CUstream s2;
    CUevent efork, ejoin;
    CUgraph fg;
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    OK(cuEventCreate(&efork, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&ejoin, CU_EVENT_DISABLE_TIMING));
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemsetD32Async(x, 0, N, s));
    OK(cuEventRecord(efork, s));
    OK(cuStreamWaitEvent(s2, efork, 0));
    OK(cuStreamIsCapturing(s2, &cs));
    EQ(cs, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    v = 5.0f;
    n = N / 4;
    OK(cuLaunchKernel(fill, 1, 1, 1, N, 1, 1, 0, s2, args, NULL));
    EXPECT(cuStreamEndCapture(s2, &fg), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    OK(cuEventRecord(ejoin, s2));
    OK(cuStreamWaitEvent(s, ejoin, 0));
    OK(cuMemcpyDtoHAsync(out, x, sizeof out, s));
    OK(cuStreamEndCapture(s, &fg));
    OK(cuStreamIsCapturing(s2, &cs));
    EQ(cs, CU_STREAM_CAPTURE_STATUS_NONE);
    count = 0;
    OK(cuGraphGetNodes(fg, NULL, &count));
    EQ(count, 3);
    OK(cuGraphInstantiate(&cex, fg, 0));
    memset(out, 0, sizeof out);
    OK(cuGraphLaunch(cex, s2));
    TRUE(out[0] == 5.0f && out[N / 4 - 1] == 5.0f && out[N / 4] == 0.0f);
    OK(cuGraphExecDestroy(cex));
    OK(cuGraphDestroy(fg));
    OK(cuEventDestroy(efork));
    OK(cuEventDestroy(ejoin));
    OK(cuStreamDestroy(s2));

    /* a graph kernel node faults like a launch */
    CUdeviceptr y;
    MUST(cuCtxSetCurrent(c1));
    MUST(cuMemAlloc(&y, N * sizeof(float)));
    MUST(cuCtxSetCurrent(c0));
    CUgraph gf;
    CUgraphNode nf;
    CUgraphExec exf;
    OK(cuGraphCreate(&gf, 0));
    void *fargs[] = { &y, &v, &n };
    kp.kernelParams = fargs;
    OK(cuGraphAddKernelNode(&nf, gf, NULL, 0, &kp));
    OK(cuGraphInstantiate(&exf, gf, 0));
    OK(cuGraphLaunch(exf, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuGraphLaunch(ex, s), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuGraphExecDestroy(exf));
    OK(cuGraphDestroy(gf));
    OK(cuGraphExecDestroy(ex));
    OK(cuGraphExecDestroy(ex2));
    OK(cuGraphDestroy(g));
    EXPECT(cuGraphLaunch(ex, NULL), CUDA_ERROR_INVALID_VALUE);
    return drv_done("drv_graph");
}
