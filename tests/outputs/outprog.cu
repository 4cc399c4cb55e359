// The program the output and process-tree tests run (tests/outputs/*.sh).
// Usage: outprog MODE [args]
//   launch D O        one launch on cuda:D of a buffer owned by cuda:O
//                     (D == O: correct; else a device_mismatch)
//   rank              a launcher's rank R (OMPI_COMM_WORLD_RANK, RANK): one
//                     launch on cuda:R; rank 1's operand is cuda:0's (its bug)
//   closefds FILE     a launch (devcheck opens its files), then closes every
//                     fd from 3 up, opens FILE as its own (it gets fd 3),
//                     writes "mine" to it, a second, different bad launch
//   tree              a bad launch on cuda:0, then children, each its own
//                     process on its own devices: fork+exec (cuda:1 <- 2),
//                     posix_spawn (cuda:2 <- 3), vfork+exec (cuda:3 <- 0)
//                     (CUDA cannot be used in a fork child without exec once
//                     the parent initialised it); waits for all
//   term              a bad launch, then raise(SIGTERM)
//   segv              a bad launch, then a write through a null pointer
//   dtor              links libdtorlib.so, whose destructor makes a bad
//                     launch after main returned; main prints "main done"
// Prints "outprog: MODE done" on stdout at the end of main.  Results are
// not checked: bad launches fault on a real GPU and on the sim.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__global__ void out_add(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += b[i];
}

__global__ void out_scale(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] *= b[i];
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "outprog: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static float *alloc_on(int dev, int n)
{
    float *p;
    CK(cudaSetDevice(dev));
    CK(cudaMalloc(&p, n * sizeof(float)));
    return p;
}

static void launch(int dev, int owner)
{
    const int n = 32;
    float *b = alloc_on(owner, n), *a = alloc_on(dev, n);
    CK(cudaSetDevice(dev));
    out_add<<<1, n>>>(a, b, n);
}

extern "C" void dtorlib_setup(void);

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "launch";
    if (!strcmp(mode, "launch") && argc > 3) {
        launch(atoi(argv[2]), atoi(argv[3]));
    } else if (!strcmp(mode, "rank")) {
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        if (!r)
            r = getenv("RANK");
        int rank = r ? atoi(r) : 0;
        launch(rank, rank == 1 ? 0 : rank);
    } else if (!strcmp(mode, "closefds") && argc > 2) {
        launch(0, 1);
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        int mine = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (mine != 3) {
            fprintf(stderr, "outprog: own file got fd %d, not 3\n", mine);
            return 1;
        }
        const int n = 32;
        float *b = alloc_on(2, n), *a = alloc_on(0, n);
        CK(cudaSetDevice(0));
        out_scale<<<1, n>>>(a, b, n);
        if (write(mine, "mine\n", 5) != 5)
            return 1;
        close(mine);
    } else if (!strcmp(mode, "tree")) {
        launch(0, 1);
        char self[4096];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k <= 0)
            return 1;
        self[k] = 0;
        pid_t kids[3];
        char *a1[] = { self, (char *)"launch", (char *)"1", (char *)"2", NULL };
        if ((kids[0] = fork()) == 0) {
            execv(self, a1);
            _exit(127);
        }
        char *a2[] = { self, (char *)"launch", (char *)"2", (char *)"3", NULL };
        if (posix_spawn(&kids[1], self, NULL, NULL, a2, environ) != 0)
            return 1;
        char *a3[] = { self, (char *)"launch", (char *)"3", (char *)"0", NULL };
        if ((kids[2] = vfork()) == 0) {
            execv(self, a3);
            _exit(127);
        }
        for (int i = 0; i < 3; i++) {
            int st;
            if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
                fprintf(stderr, "outprog: child %d failed\n", i);
                return 1;
            }
        }
    } else if (!strcmp(mode, "term")) {
        launch(0, 1);
        fflush(stdout);
        raise(SIGTERM);
    } else if (!strcmp(mode, "segv")) {
        launch(0, 1);
        fflush(stdout);
        volatile int *null_ptr = (volatile int *)(uintptr_t)(argc - argc);
        *null_ptr = 1;
    } else if (!strcmp(mode, "dtor")) {
        dtorlib_setup();
        printf("outprog: main done\n");
    } else {
        fprintf(stderr, "outprog: bad mode %s\n", mode);
        return 2;
    }
    printf("outprog: %s done\n", mode);
    return 0;
}
