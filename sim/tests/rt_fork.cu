// fork(): a child of a process that has not initialised CUDA uses it
// normally (allocates and launches); once the parent has, children get
// cudaErrorInitializationError, from a launch too, and exit cleanly through
// exit() (atexit's __cudaUnregisterFatBinary must not touch the parent's
// driver state) even while another parent thread is inside the runtime
// (the sim's fork handlers: under ThreadSanitizer, with no report).
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rt_check.h"

static float *a, *b, *c;
static volatile int stop, started;

static void *launcher(void *)
{
    while (!stop) {
        vadd<<<1, 32>>>(a, b, c, 32);
        void *t = NULL;
        if (cudaMalloc(&t, 256) == cudaSuccess)
            cudaFree(t);
        started = 1;
    }
    return NULL;
}

static int child_status(pid_t pid)
{
    int st = 0;
    if (pid <= 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int main()
{
    pid_t pid = fork(); // before any CUDA call: the child may use CUDA
    if (pid == 0) {
        int n = 0;
        float *p = NULL;
        if (cudaGetDeviceCount(&n) != cudaSuccess || n != 4 || cudaMalloc(&p, 128) != cudaSuccess)
            exit(3);
        vadd<<<1, 32>>>(p, p, p, 32);
        exit(cudaDeviceSynchronize() == cudaSuccess ? 0 : 5);
    }
    EXPECT(child_status(pid) == 0);

    CHECK(cudaMalloc(&a, 128));
    CHECK(cudaMalloc(&b, 128));
    CHECK(cudaMalloc(&c, 128));
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, launcher, NULL) == 0);
    // nvcc's stub for vadd initialises a static by __cudaGetKernel under a
    // C++ guard (__cxa_guard_acquire) on its first call: a fork while the
    // launcher thread is inside it leaves the child waiting on a guard no
    // thread of its own holds (seen under load: the child hung), a hazard of
    // fork in any threaded C++ program, not the runtime's
    while (!started)
        usleep(100);
    for (int i = 0; i < 20; i++) {
        usleep(1000);
        pid = fork();
        if (pid == 0) {
            int n = 0;
            vadd<<<1, 32>>>(a, b, c, 32);
            cudaError_t launched = cudaGetLastError();
            exit(cudaGetDeviceCount(&n) == cudaErrorInitializationError && launched == cudaErrorInitializationError
                     ? 0 : 4);
        }
        int st = child_status(pid);
        if (st != 0) {
            fprintf(stderr, "child %d: status %d\n", i, st);
            return 1;
        }
    }
    stop = 1;
    pthread_join(th, NULL);
    CHECK(cudaDeviceSynchronize());
    printf("ok\n");
    return 0;
}
