// Many threads at once through every devcheck path: each thread picks a
// device, allocates and frees, launches clean kernels, and at the end launches
// once with a buffer of the next device (the same call site in every thread,
// so one unique finding; last, after every thread has finished its loop --
// a barrier -- because the fault it causes is sticky and fails every later
// call on that device, another thread's too).  Prints "threads: done",
// exits 0.
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>

__global__ void th_kernel(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

enum { NTHREADS = 8, ITERS = 200 };
static float *bufs[4];
static pthread_barrier_t loops_done;

static void *worker(void *arg)
{
    int dev = (int)(long)arg % 4;
    cudaSetDevice(dev);
    for (int i = 0; i < ITERS; i++) {
        float *a = NULL, *b = NULL;
        if (cudaMalloc(&a, 256) != cudaSuccess || cudaMalloc(&b, 256) != cudaSuccess) {
            pthread_barrier_wait(&loops_done);
            return (void *)1;
        }
        th_kernel<<<1, 16>>>(a, b);
        cudaFree(a);
        cudaFree(b);
    }
    pthread_barrier_wait(&loops_done);
    th_kernel<<<1, 16>>>(bufs[dev], bufs[(dev + 1) % 4]);
    return NULL;
}

int main()
{
    for (int d = 0; d < 4; d++) {
        cudaSetDevice(d);
        if (cudaMalloc(&bufs[d], 256) != cudaSuccess)
            return 1;
    }
    pthread_barrier_init(&loops_done, NULL, NTHREADS);
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    int bad = 0;
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= r != NULL;
    }
    printf("threads: %s\n", bad ? "allocation failed" : "done");
    return bad;
}
