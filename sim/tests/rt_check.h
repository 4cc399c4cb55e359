// Assertions shared by the runtime tests (sim/tests/rt_*.cu).  A failed check
// prints the file, line, call and error name, and exits 1.
#ifndef RT_CHECK_H
#define RT_CHECK_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,           \
                    cudaGetErrorName(e_));                                            \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define EXPECT_ERR(call, want)                                                        \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != (want)) {                                                           \
            fprintf(stderr, "%s:%d: %s -> %s, expected %s\n", __FILE__, __LINE__,     \
                    #call, cudaGetErrorName(e_), cudaGetErrorName(want));             \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define EXPECT(cond)                                                                  \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define EXPECT_STR(got, want)                                                         \
    do {                                                                              \
        const char *g_ = (got), *w_ = (want);                                         \
        if (!g_ || strcmp(g_, w_) != 0) {                                             \
            fprintf(stderr, "%s:%d: %s is '%s', expected '%s'\n", __FILE__, __LINE__, \
                    #got, g_ ? g_ : "(null)", w_);                                    \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

// The kernel most tests launch, and its host twin: the simulated GPU runs the
// twin (found with dlsym: the program is linked with -rdynamic).
__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __attribute__((visibility("default"), used)) void
simcuda_twin_vadd(void **args, const unsigned grid[3], const unsigned block[3])
{
    const float *a = *(const float **)args[0];
    const float *b = *(const float **)args[1];
    float *c = *(float **)args[2];
    int n = *(int *)args[3];
    long threads = (long)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
    for (long i = 0; i < threads && i < n; i++)
        c[i] = a[i] + b[i];
}
#endif
