/* The sim's cuRAND host API (sim/libs/curand/) on the simulated GPUs:
 * `curand_sim MODE` (curand_sim.sh):
 *   all    a device generator on cuda:1 with a stream of it: uniform floats
 *          in (0, 1] with the uniform law's mean and variance; the same seed
 *          gives the same values, consecutive calls continue the sequence,
 *          an offset skips into it, a host generator gives the device's
 *          values (curand.h: host and device generators agree); normals,
 *          log-normals, doubles and Poisson counts with their laws' moments;
 *          an odd count of normals, a quasirandom generator and 64-bit
 *          values refused as curand.h says
 *   fault  the output on cuda:0, the generator's stream cuda:1's: cuda:1
 *          faults (cudaErrorIllegalAddress at its next synchronization) */
#include <curand.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"


enum { N = 200000 };
static cudaStream_t st;

static void moments(const double *x, size_t n, double *mean, double *var)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *var = q / (n - 1);
}

static void near(const char *what, double got, double want, double tol)
{
    printf("%s: %.5f (want %.5f)\n", what, got, want);
    if (!(fabs(got - want) <= tol)) {
        fprintf(stderr, "%s: %g, want %g +- %g\n", what, got, want, tol);
        exit(1);
    }
}

static float *dev_floats(size_t n)
{
    float *d;
    CK(cudaMalloc((void **)&d, n * sizeof(float)));
    return d;
}

static void back(void *h, const void *d, size_t bytes)
{
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    setvbuf(stdout, NULL, _IONBF, 0);
    CK(cudaSetDevice(1));
    CK(cudaStreamCreate(&st));
    curandGenerator_t g;
    CK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT));
    CK(curandSetStream(g, st));
    CK(curandSetPseudoRandomGeneratorSeed(g, 1234));
    if (!strcmp(mode, "fault")) {
        CK(cudaSetDevice(0));
        float *wrong = dev_floats(16);
        CK(cudaSetDevice(1));
        CK(curandGenerateUniform(g, wrong, 16));
        cudaError_t e = cudaStreamSynchronize(st);
        printf("fault: cuda:1 after curandGenerateUniform into cuda:0: %s\n", cudaGetErrorName(e));
        TRUE(e == cudaErrorIllegalAddress);
        return 0;
    }
    float *d = dev_floats(N), *h = malloc(N * sizeof(float)), *h2 = malloc(N * sizeof(float));
    double *x = malloc(N * sizeof(double)), mean, var;
    CK(curandGenerateUniform(g, d, N));
    back(h, d, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        TRUE(h[i] > 0 && h[i] <= 1);
        x[i] = h[i];
    }
    moments(x, N, &mean, &var);
    near("uniform mean", mean, 0.5, 0.005);
    near("uniform variance", var, 1.0 / 12, 0.002);
    /* the same seed: the same values; two calls: the same as one */
    CK(curandSetPseudoRandomGeneratorSeed(g, 1234));
    CK(curandGenerateUniform(g, d, N / 2));
    CK(curandGenerateUniform(g, d + N / 2, N / 2));
    back(h2, d, N * sizeof(float));
    TRUE(!memcmp(h, h2, N * sizeof(float)));
    /* an offset of 1000: the sequence from its 1000th value */
    CK(curandSetGeneratorOffset(g, 1000));
    CK(curandGenerateUniform(g, d, 100));
    back(h2, d, 100 * sizeof(float));
    TRUE(!memcmp(h + 1000, h2, 100 * sizeof(float)));
    /* another seed: other values */
    CK(curandSetPseudoRandomGeneratorSeed(g, 99));
    CK(curandSetGeneratorOffset(g, 0));
    CK(curandGenerateUniform(g, d, 100));
    back(h2, d, 100 * sizeof(float));
    TRUE(memcmp(h, h2, 100 * sizeof(float)) != 0);
    /* a host generator: the device's values, in host memory */
    curandGenerator_t hg;
    CK(curandCreateGeneratorHost(&hg, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CK(curandSetPseudoRandomGeneratorSeed(hg, 1234));
    CK(curandGenerateUniform(hg, h2, N));
    TRUE(!memcmp(h, h2, N * sizeof(float)));
    CK(curandDestroyGenerator(hg));
    printf("uniform: seeds, consecutive calls, offsets, host generator: ok\n");
    /* normal (n even), log-normal */
    CK(curandSetPseudoRandomGeneratorSeed(g, 7));
    TRUE(curandGenerateNormal(g, d, 3, 0, 1) == CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    CK(curandGenerateNormal(g, d, N, 2.0f, 3.0f));
    back(h, d, N * sizeof(float));
    for (int i = 0; i < N; i++)
        x[i] = h[i];
    moments(x, N, &mean, &var);
    near("normal(2, 3) mean", mean, 2, 0.05);
    near("normal(2, 3) variance", var, 9, 0.15);
    CK(curandGenerateLogNormal(g, d, N, 0.5f, 0.25f));
    back(h, d, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        TRUE(h[i] > 0);
        x[i] = log(h[i]);
    }
    moments(x, N, &mean, &var);
    near("log-normal(0.5, 0.25): mean of the log", mean, 0.5, 0.01);
    near("log-normal(0.5, 0.25): variance of the log", var, 0.0625, 0.002);
    /* doubles */
    double *dd;
    CK(cudaMalloc((void **)&dd, N * sizeof(double)));
    CK(curandGenerateUniformDouble(g, dd, N));
    back(x, dd, N * sizeof(double));
    for (int i = 0; i < N; i++)
        TRUE(x[i] > 0 && x[i] <= 1);
    moments(x, N, &mean, &var);
    near("uniform double mean", mean, 0.5, 0.005);
    CK(curandGenerateNormalDouble(g, dd, N, -1, 0.5));
    back(x, dd, N * sizeof(double));
    moments(x, N, &mean, &var);
    near("normal double (-1, 0.5) mean", mean, -1, 0.01);
    near("normal double (-1, 0.5) variance", var, 0.25, 0.005);
    CK(curandGenerateLogNormalDouble(g, dd, 2, 0, 1));
    /* Poisson: mean and variance lambda */
    unsigned *du, *hu = malloc(N * sizeof(unsigned));
    CK(cudaMalloc((void **)&du, N * sizeof(unsigned)));
    const double lambdas[] = { 4, 100 };
    for (int k = 0; k < 2; k++) {
        CK(curandGeneratePoisson(g, du, N, lambdas[k]));
        back(hu, du, N * sizeof(unsigned));
        for (int i = 0; i < N; i++)
            x[i] = hu[i];
        moments(x, N, &mean, &var);
        char what[64];
        snprintf(what, sizeof what, "poisson(%g) mean", lambdas[k]);
        near(what, mean, lambdas[k], lambdas[k] * 0.01 + 0.02);
        snprintf(what, sizeof what, "poisson(%g) variance", lambdas[k]);
        near(what, var, lambdas[k], lambdas[k] * 0.05 + 0.1);
    }
    /* raw 32-bit values: not all alike */
    CK(curandGenerate(g, du, 1000));
    back(hu, du, 1000 * sizeof(unsigned));
    int distinct = 0;
    for (int i = 1; i < 1000; i++)
        distinct += hu[i] != hu[0];
    TRUE(distinct > 990);
    /* what curand.h refuses */
    TRUE(curandGenerateLongLong(g, NULL, 4) == CURAND_STATUS_TYPE_ERROR);
    curandGenerator_t q;
    TRUE(curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32) == CURAND_STATUS_TYPE_ERROR);
    TRUE(curandGeneratePoisson(g, du, 4, 0) == CURAND_STATUS_OUT_OF_RANGE);
    int v;
    CK(curandGetVersion(&v));
    TRUE(v == CURAND_VERSION);
    CK(curandDestroyGenerator(g));
    TRUE(curandDestroyGenerator(NULL) == CURAND_STATUS_NOT_INITIALIZED);
    printf("curand_sim %s: done\n", mode);
    return 0;
}
