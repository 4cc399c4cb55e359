// Devices, per-thread current device, versions, error names and strings,
// last-error semantics.
#include <pthread.h>
#include <cuda_profiler_api.h>
#include "rt_check.h"

struct thread_arg { int dev, seen, seen_after; cudaError_t err; };

static void *thread_main(void *p)
{
    struct thread_arg *a = (struct thread_arg *)p;
    a->err = cudaSetDevice(a->dev);
    if (a->err != cudaSuccess)
        return NULL;
    void *buf = NULL;
    a->err = cudaMalloc(&buf, 256); // works on this thread's device
    if (a->err != cudaSuccess)
        return NULL;
    cudaPointerAttributes attr;
    a->err = cudaPointerGetAttributes(&attr, buf);
    a->seen = attr.device;
    cudaGetDevice(&a->seen_after);
    cudaFree(buf);
    return NULL;
}

int main()
{
    int n = -1;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n == 4);

    int v = 0;
    CHECK(cudaRuntimeGetVersion(&v));
    EXPECT(v == CUDART_VERSION);
    CHECK(cudaDriverGetVersion(&v));
    EXPECT(v >= CUDART_VERSION);

    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, d));
        EXPECT(p.name[0] != 0);
        EXPECT(p.totalGlobalMem > 0);
        EXPECT(p.warpSize == 32);
        EXPECT(p.unifiedAddressing == 1);
        int a = 0;
        CHECK(cudaDeviceGetAttribute(&a, cudaDevAttrUnifiedAddressing, d));
        EXPECT(a == 1);
        CHECK(cudaDeviceGetAttribute(&a, cudaDevAttrMaxThreadsPerBlock, d));
        EXPECT(a == p.maxThreadsPerBlock && a > 0);
    }

    // Default device is 0; cudaSetDevice changes only this thread's.
    int cur = -1;
    CHECK(cudaGetDevice(&cur));
    EXPECT(cur == 0);
    CHECK(cudaSetDevice(2));
    CHECK(cudaGetDevice(&cur));
    EXPECT(cur == 2);

    struct thread_arg t1 = { 1, -1, -1, cudaSuccess }, t3 = { 3, -1, -1, cudaSuccess };
    pthread_t a, b;
    EXPECT(pthread_create(&a, NULL, thread_main, &t1) == 0);
    EXPECT(pthread_create(&b, NULL, thread_main, &t3) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(t1.err);
    CHECK(t3.err);
    EXPECT(t1.seen == 1 && t1.seen_after == 1);
    EXPECT(t3.seen == 3 && t3.seen_after == 3);
    CHECK(cudaGetDevice(&cur));
    EXPECT(cur == 2); // untouched by the other threads

    // Streams belong to the device current at creation.
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int sd = -1;
    CHECK(cudaStreamGetDevice(s, &sd));
    EXPECT(sd == 2);
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT(greatest <= least);
    cudaStream_t sp;
    CHECK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, greatest));
    int prio = 1;
    unsigned flags = 0;
    CHECK(cudaStreamGetPriority(sp, &prio));
    CHECK(cudaStreamGetFlags(sp, &flags));
    EXPECT(prio == greatest && flags == cudaStreamNonBlocking);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreateWithFlags(&e1, cudaEventDefault));
    CHECK(cudaEventRecord(e0, s));
    CHECK(cudaStreamWaitEvent(sp, e0, 0));
    CHECK(cudaEventRecord(e1, sp));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventQuery(e1));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    EXPECT(ms >= 0);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamQuery(s));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    cudaEvent_t ie, opened;
    CHECK(cudaEventCreateWithFlags(&ie, cudaEventInterprocess | cudaEventDisableTiming));
    cudaIpcEventHandle_t ih;
    CHECK(cudaIpcGetEventHandle(&ih, ie));
    CHECK(cudaIpcOpenEventHandle(&opened, ih));
    CHECK(cudaEventRecord(ie, s));
    CHECK(cudaEventSynchronize(ie));
    CHECK(cudaEventDestroy(ie));
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(sp));
    CHECK(cudaDeviceSynchronize());

    // Work in stream order on the host.
    cudaStream_t hs;
    CHECK(cudaStreamCreate(&hs));
    static int host_calls;
    host_calls = 0;
    CHECK(cudaLaunchHostFunc(hs, [](void *p) { ++*(int *)p; }, &host_calls));
    CHECK(cudaStreamAddCallback(
        hs, [](cudaStream_t, cudaError_t st, void *p) { *(int *)p += st == cudaSuccess ? 10 : 100; },
        &host_calls, 0));
    CHECK(cudaStreamSynchronize(hs));
    EXPECT(host_calls == 11);
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cudaStreamGetId(hs, &id1));
    CHECK(cudaStreamGetId(0, &id2));
    EXPECT(id1 != id2);
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
    CHECK(cudaStreamIsCapturing(hs, &cs));
    EXPECT(cs == cudaStreamCaptureStatusNone);
    cs = cudaStreamCaptureStatusActive;
    unsigned long long cid = 1;
    CHECK(cudaStreamGetCaptureInfo(hs, &cs, &cid));
    EXPECT(cs == cudaStreamCaptureStatusNone);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == cudaStreamCaptureModeRelaxed);
    CHECK(cudaStreamDestroy(hs));

    // Limits, cache preference, PCI ids.
    size_t stack = 0;
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    EXPECT(stack >= 4096);
    cudaFuncCache cc = cudaFuncCachePreferNone;
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK(cudaDeviceGetCacheConfig(&cc));
    for (int d = 0; d < n; d++) {
        char bus[32];
        CHECK(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, d));
        int back = -1;
        CHECK(cudaDeviceGetByPCIBusId(&back, bus));
        EXPECT(back == d);
    }
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    int chosen = -1;
    CHECK(cudaChooseDevice(&chosen, &want));
    EXPECT(chosen == 2);
    CHECK(cudaProfilerStart());
    CHECK(cudaProfilerStop());

    // Last error: per thread, cleared by cudaGetLastError, kept by Peek.
    CHECK(cudaGetLastError());
    EXPECT_ERR(cudaSetDevice(99), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    EXPECT_ERR(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);

    // Names are the enum's names, strings the familiar messages.
    EXPECT_STR(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    EXPECT_STR(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
    EXPECT_STR(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation");
    EXPECT_STR(cudaGetErrorName(cudaErrorPeerAccessAlreadyEnabled), "cudaErrorPeerAccessAlreadyEnabled");
    EXPECT_STR(cudaGetErrorName(cudaErrorStreamCaptureUnsupported), "cudaErrorStreamCaptureUnsupported");
    EXPECT_STR(cudaGetErrorName(cudaErrorUnknown), "cudaErrorUnknown");
    EXPECT_STR(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
    EXPECT_STR(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
    EXPECT_STR(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    EXPECT_STR(cudaGetErrorString(cudaSuccess), "no error");
    EXPECT_STR(cudaGetErrorName((cudaError_t)12345), "unrecognized error code");
    EXPECT_STR(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
    for (int code = 0; code < 1100; code++) { // every name is the enum spelling
        const char *name = cudaGetErrorName((cudaError_t)code);
        const char *text = cudaGetErrorString((cudaError_t)code);
        EXPECT(name && text && text[0]);
        EXPECT(strncmp(name, "cuda", 4) == 0 || strcmp(name, "unrecognized error code") == 0);
    }
    printf("ok\n");
    return 0;
}
