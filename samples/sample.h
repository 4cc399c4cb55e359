// Shared by the samples: error checks, device-count check, and the helpers
// that let one per-element function serve both the kernel (real GPUs) and
// its host twin (the sim, which cannot run device code and calls
// `extern "C" simcuda_twin_NAME(args, grid, block)` instead, see README.md).
#ifndef SAMPLE_H
#define SAMPLE_H
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#ifndef SAMPLE_NAME
#error "define SAMPLE_NAME before including sample.h"
#endif

// Every sample prints one result line on stdout: "NAME: OK (...)", or
// "NAME: WRONG result ..." or "NAME: FAILED: ..." with exit status 1.
// A failed CUDA call ends the sample, naming the call and the error
// (cudaErrorIllegalAddress, sticky, is how a real GPU reports a cross-device
// operand, at the next synchronizing call).
#define CHECK(call) do {                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("%s: FAILED: %s:%d: %s: %s (%s)\n", SAMPLE_NAME, __FILE__,  \
                   __LINE__, #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// The sample needs `want` GPUs (the sim has 4 by default).
static inline void need_devices(int want)
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    if (n < want) {
        printf("%s: FAILED: needs %d GPUs, found %d\n", SAMPLE_NAME, want, n);
        exit(1);
    }
}

// Compares the computed result with the host reference; prints the one-line
// result on stdout and returns the exit status.
static inline int report_result(const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!(std::fabs(got[i] - want[i]) <= 1e-4f * (1.0f + std::fabs(want[i])))) {
            printf("%s: WRONG result at %zu: got %g, expected %g\n", SAMPLE_NAME, i,
                   (double)got[i], (double)want[i]);
            return 1;
        }
    }
    printf("%s: OK (%zu values checked)\n", SAMPLE_NAME, n);
    return 0;
}

// Host twins: parameter i of the launch is *(T *)args[i].
#define TWIN_ARG(args, i, T) (*(T *)(args)[i])
// Number of threads in a 1-D launch's whole grid.
static inline unsigned twin_threads(const unsigned grid[3], const unsigned block[3])
{
    return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
}

// Launch geometry used by every sample: 1-D, 128 threads a block.
#define BLOCK 128
#define BLOCKS(n) (((n) + BLOCK - 1) / BLOCK)
#endif
