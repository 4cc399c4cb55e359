// A program that subscribes to CUPTI after devcheck started, as a profiler
// started mid-run does (torch.profiler/Kineto links libcupti; Triton's Proton
// loads it with dlopen and looks the functions up with dlsym): argv[1] says
// which, `link` or `dlopen`.  CUPTI allows one subscriber; the subscription
// must succeed and deliver callbacks.  Then a cross-device launch
// (param 1 on device 1, launched on device 0), which devcheck must still
// report.  Prints "late: subscribe=<CUptiResult> callbacks=<n>".
#include <cupti.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

__global__ void late_copy(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

static void CUPTIAPI count(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)domain, (void)cbid, (void)data;
    ++*(int *)userdata;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "late_sub: %s: %s\n", #x, cudaGetErrorString(e_)); return 2; } } while (0)

int main(int argc, char **argv)
{
    float *a = NULL, *b = NULL;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&b, 64 * sizeof(float)));         // devcheck has started here
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, 64 * sizeof(float)));

    __typeof__(&cuptiSubscribe_v2) subscribe = cuptiSubscribe_v2;
    if (argc > 1 && !strcmp(argv[1], "dlopen")) {
        void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
        subscribe = h ? (__typeof__(&cuptiSubscribe_v2))dlsym(h, "cuptiSubscribe_v2") : NULL;
        if (!subscribe) {
            fprintf(stderr, "late_sub: %s\n", dlerror());
            return 2;
        }
    }
    static int calls;
    CUpti_SubscriberHandle sub = NULL;
    CUpti_SubscriberParams p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "late-profiler";
    CUptiResult r = subscribe(&sub, count, &calls, &p);
    if (r == CUPTI_SUCCESS)
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    float *tmp = NULL;
    CK(cudaMalloc(&tmp, 16));                       // seen by the program's callback
    CK(cudaFree(tmp));
    late_copy<<<1, 64>>>(a, b);                     // b is on device 1
    cudaDeviceSynchronize();
    if (r == CUPTI_SUCCESS)
        cuptiUnsubscribe(sub);
    printf("late: subscribe=%d callbacks=%d\n", (int)r, calls > 0);
    return 0;
}
