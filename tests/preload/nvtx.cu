// NVTX ranges in findings (nvtx.sh): a cross-device launch inside ranges
// pushed three ways (nvtxRangePushA, nvtxRangePushEx with an ASCII message,
// nvtxDomainRangePushEx with a registered string), one outside any range
// after they are popped, and one from another thread while this one has a
// range open (ranges are per thread).  NVTX is header-only nvtx3 here, as in
// PyTorch: it reaches devcheck only through NVTX_INJECTION64_PATH.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>

__global__ void ranged(float *p) { p[threadIdx.x] += 1.0f; }

static float *on1;

static void launch_on0(void)
{
    cudaSetDevice(0);
    ranged<<<1, 1>>>(on1);
    cudaGetLastError();
}

static void *other_thread(void *arg)
{
    (void)arg;
    launch_on0();                                   // LAUNCH-THREAD
    return NULL;
}

int main(void)
{
    cudaSetDevice(1);
    cudaMalloc(&on1, 64);
    nvtxRangePushA("model.forward");
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "decoder.layer.3";
    nvtxRangePushEx(&a);
    nvtxDomainHandle_t d = nvtxDomainCreateA("devcheck-test");
    nvtxEventAttributes_t b = a;
    b.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    b.message.registered = nvtxDomainRegisterStringA(d, "attention");
    nvtxDomainRangePushEx(d, &b);
    launch_on0();                                   // LAUNCH-IN-RANGES
    nvtxDomainRangePop(d);
    nvtxRangePop();
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);   // model.forward still open here
    pthread_join(t, NULL);
    nvtxRangePop();
    cudaSetDevice(0);
    ranged<<<1, 2>>>(on1);                          // LAUNCH-OUTSIDE
    cudaGetLastError();
    printf("nvtx: done\n");
    return 0;
}
