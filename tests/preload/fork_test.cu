// fork() while another thread is inside devcheck (launching cross-device
// kernels: registry, launch cache and report locks taken over and over).
// devcheck's fork handlers take its locks in the parent (prepare) and give
// them back (parent / child): a handler that deadlocks hangs the fork.  Each
// child looks up a hooked entry point (devcheck's dlsym path), launches the
// cross-device kernel (through devcheck's hook, its kernel cache, registry
// and report, whose locks the fork handlers re-initialised: under
// ThreadSanitizer, with no report), and leaves with exit(), which runs
// devcheck's destructor (report lock and sinks) and the runtime's exit
// handlers: a lock inherited held would hang it.  CUDA itself is not usable
// in a fork child (the launch fails, as without devcheck; the child does not
// check how).  Prints "fork: N children ok" and exits 0.
//
// main launches the kernel once before the launcher thread starts: nvcc's
// launch stub initialises a function-local static (`__tmp = __cudaGetKernel
// (...)`) under a C++ init guard on the first call; a fork while another
// thread is inside that first call leaves the child a guard marked "in
// progress" by a thread it does not have, and the child's first launch waits
// on it for ever, with or without devcheck (seen in CI under UBSan: the
// first fork, 2 ms after pthread_create, met the launcher's first
// __cudaGetKernel; gdb: the child in __cxa_guard_acquire from the stub).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fork_kernel(float *a, const float *b) { a[threadIdx.x] = b[threadIdx.x]; }

static float *a0, *b1;
static volatile int stop;

static void *launcher(void *)
{
    while (!stop) {
        fork_kernel<<<1, 1>>>(a0, b1);
        float *t = NULL;
        if (cudaMalloc(&t, 256) == cudaSuccess)
            cudaFree(t);
    }
    return NULL;
}

int main()
{
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&b1, 64) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaMalloc(&a0, 64) != cudaSuccess) {
        fprintf(stderr, "fork: setup failed\n");
        return 1;
    }
    fork_kernel<<<1, 1>>>(a0, b1); // the stub's static, initialised before any fork
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    pthread_t th;
    pthread_create(&th, NULL, launcher, NULL);
    const int n = 20;
    int ok = 0;
    for (int i = 0; i < n; i++) {
        usleep(2000);
        pid_t pid = fork();
        if (pid == 0) {
            fork_kernel<<<1, 1>>>(a0, b1);
            (void)cudaGetLastError();
            exit(dlsym(RTLD_DEFAULT, "cuLaunchKernel") ? 0 : 1);
        }
        int st = 0;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
    }
    stop = 1;
    pthread_join(th, NULL);
    printf("fork: %d children ok\n", ok);
    return ok == n ? 0 : 1;
}
