// Built with --default-stream per-thread: nvcc emits __cudaLaunchKernel_ptsz
// and the header maps cudaMemcpy, cudaMemcpyAsync, cudaStreamSynchronize, ...
// to their _ptds/_ptsz entry points.  Two host threads, one device each.
#include <pthread.h>
#include "rt_check.h"

static void *work(void *p)
{
    int dev = (int)(long)p;
    const int n = 512;
    float ha[n], hb[n], hc[n];
    for (int i = 0; i < n; i++) {
        ha[i] = (float)(i + dev);
        hb[i] = 1.0f;
    }
    CHECK(cudaSetDevice(dev));
    float *a, *b, *c;
    CHECK(cudaMallocAsync((void **)&a, sizeof ha, 0));
    CHECK(cudaMallocAsync((void **)&b, sizeof hb, 0));
    CHECK(cudaMalloc(&c, sizeof hc));
    CHECK(cudaMemcpyAsync(a, ha, sizeof ha, cudaMemcpyHostToDevice, 0));
    CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0, sizeof hc));
    vadd<<<2, 256>>>(a, b, c, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(hc[i] == ha[i] + hb[i]);
    cudaEvent_t e;
    CHECK(cudaEventCreate(&e));
    CHECK(cudaEventRecord(e, 0));
    CHECK(cudaEventSynchronize(e));
    CHECK(cudaEventDestroy(e));
    CHECK(cudaFreeAsync(a, 0));
    CHECK(cudaFreeAsync(b, 0));
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    CHECK(cudaFree(c));
    return NULL;
}

int main()
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        EXPECT(pthread_create(&t[i], NULL, work, (void *)(i + 1)) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("ok\n");
    return 0;
}
