// Threads hammer the runtime at once: each thread switches devices, creates
// streams and events, allocates (device, async, managed), launches through
// <<<>>> and cudaLaunchKernel, copies across devices, and checks results.
// Under SANITIZE=thread this is the runtime's race test.
#include <pthread.h>
#include "rt_check.h"

static const int THREADS = 8, ITER = 60, N = 256;

static void *worker(void *p)
{
    long id = (long)p;
    float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)(i + id);
        hb[i] = (float)(2 * i);
    }
    for (int it = 0; it < ITER; it++) {
        int dev = (int)((id + it) % 4), other = (dev + 1) % 4;
        CHECK(cudaSetDevice(dev));
        int cur = -1;
        CHECK(cudaGetDevice(&cur));
        EXPECT(cur == dev);
        cudaStream_t s;
        cudaEvent_t e;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        float *a, *b, *c, *m;
        CHECK(cudaMallocAsync((void **)&a, sizeof ha, s));
        CHECK(cudaMalloc(&b, sizeof hb));
        CHECK(cudaMallocManaged(&c, sizeof hc, cudaMemAttachGlobal));
        CHECK(cudaMemcpyAsync(a, ha, sizeof ha, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemcpyAsync(b, hb, sizeof hb, cudaMemcpyHostToDevice, s));
        if (it % 2) {
            vadd<<<1, N, 0, s>>>(a, b, c, N);
        } else {
            int n = N;
            void *args[] = { &a, &b, &c, &n };
            CHECK(cudaLaunchKernel((const void *)vadd, dim3(1), dim3(N), args, 0, s));
        }
        CHECK(cudaEventRecord(e, s));
        CHECK(cudaEventSynchronize(e));
        for (int i = 0; i < N; i++)
            EXPECT(c[i] == ha[i] + hb[i]);
        // Across devices: a copy into another device's buffer.
        CHECK(cudaSetDevice(other));
        CHECK(cudaMalloc(&m, sizeof hc));
        CHECK(cudaMemcpyPeer(m, other, c, dev, sizeof hc));
        CHECK(cudaMemcpy(hc, m, sizeof hc, cudaMemcpyDeviceToHost));
        EXPECT(hc[N - 1] == ha[N - 1] + hb[N - 1]);
        CHECK(cudaFree(m));
        CHECK(cudaSetDevice(dev));
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
        CHECK(cudaEventDestroy(e));
        CHECK(cudaStreamDestroy(s));
        CHECK(cudaGetLastError());
    }
    return NULL;
}

int main()
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        EXPECT(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(cudaDeviceSynchronize());
    printf("ok\n");
    return 0;
}
