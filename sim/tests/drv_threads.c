/* Any thread may call anything concurrently: 8 threads over 4 devices
 * allocate, set, copy (also across devices), record events and free, while
 * checking every byte they read back.  Run under SANITIZE=thread too. */
#include "drv_check.h"

#include <pthread.h>
#include <string.h>

static CUcontext ctx[4];
static int thread_failures[8];

static void *worker(void *arg)
{
    int id = (int)(long)arg, dev = id % 4;
    int bad = 0;
    if (cuCtxSetCurrent(ctx[dev]) != CUDA_SUCCESS)
        bad++;
    CUstream s;
    CUevent e;
    if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || cuEventCreate(&e, 0) != CUDA_SUCCESS)
        bad++;
    unsigned char host[4096];
    for (int it = 0; it < 2000 && !bad; it++) {
        size_t n = 64 + (size_t)((it * 37 + id) % 4000);
        CUdeviceptr p, q;
        if (cuMemAlloc(&p, n) != CUDA_SUCCESS) { bad++; break; }
        /* q on the next device through a context push */
        cuCtxPushCurrent(ctx[(dev + 1) % 4]);
        if (cuMemAllocAsync(&q, n, NULL) != CUDA_SUCCESS) { bad++; break; }
        CUcontext popped;
        cuCtxPopCurrent(&popped);
        unsigned char v = (unsigned char)(it + id);
        if (cuMemsetD8Async(p, v, n, s) != CUDA_SUCCESS) bad++;
        if (cuMemcpyPeerAsync(q, ctx[(dev + 1) % 4], p, ctx[dev], n, s) != CUDA_SUCCESS) bad++;
        if (cuEventRecord(e, s) != CUDA_SUCCESS) bad++;
        if (cuStreamSynchronize(s) != CUDA_SUCCESS) bad++;
        memset(host, 0, sizeof host);
        if (cuMemcpyDtoH(host, q, n) != CUDA_SUCCESS) bad++;
        for (size_t i = 0; i < n; i++)
            if (host[i] != v) { bad++; break; }
        int ord = -1;
        if (cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, q + n - 1) != CUDA_SUCCESS || ord != (dev + 1) % 4)
            bad++;
        if (cuMemFree(p) != CUDA_SUCCESS || cuMemFreeAsync(q, s) != CUDA_SUCCESS) bad++;
    }
    cuEventDestroy(e);
    cuStreamDestroy(s);
    thread_failures[id] = bad;
    return NULL;
}

int main(void)
{
    MUST(cuInit(0));
    for (int i = 0; i < 4; i++)
        MUST(cuDevicePrimaryCtxRetain(&ctx[i], i));
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        EQ(thread_failures[i], 0);
    }
    return drv_done("drv_threads");
}
