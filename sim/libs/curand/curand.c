/* The sim's cuRAND host API (libcurand.so.10): generators made with
 * curandCreateGenerator write device memory through a kernel of the
 * library's image (rand.cu) launched into the generator's stream, whose
 * host twin computes; generators made with curandCreateGeneratorHost write
 * host memory in the call, as cuRAND's do (curand.h).
 *
 * Every pseudorandom type (XORWOW, the default, MRG32k3a, MTGP32, MT19937,
 * Philox4x32-10) draws from one counter-based generator, Philox4x32-10
 * keyed by the seed (Salmon et al., "Parallel random numbers: as easy as
 * 1, 2, 3", SC'11): value i of the sequence is a function of (seed,
 * offset + i), so the seed, curandSetGeneratorOffset and consecutive
 * calls behave as cuRAND's documentation says (the same seed and offset
 * give the same values; each call continues where the last ended; setting
 * the seed or offset starts anew).  The values are NOT NVIDIA's: a program
 * that compares against numbers from a real cuRAND gets different ones.
 * Quasirandom (Sobol) generators are not made: CURAND_STATUS_TYPE_ERROR
 * and one line.  Distributions as curand.h defines them: uniform floats in
 * (0, 1] (cuRAND's x 2^-32 + 2^-33), normals by Box-Muller in pairs (n
 * even), log-normals as exp of those, Poisson by multiplying uniforms
 * (lambda < 64) or from a rounded normal of mean and variance lambda. */
#pragma GCC visibility push(default)
#include <curand.h>
#pragma GCC visibility pop
#include "simlib.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIB "libcurand.so.10"
extern const unsigned char rand_image[];
static struct simlib_image image = SIMLIB_IMAGE_INIT(rand_image, LIB);

#define GEN_MAGIC 0x53494d72616e6447ULL

struct curandGenerator_st {
    uint64_t magic;
    curandRngType_t type;
    int host;                   /* curandCreateGeneratorHost */
    CUcontext ctx;              /* the device current at creation */
    cudaStream_t stream;
    unsigned long long seed, offset, pos;     /* pos: values drawn since the seed or offset was set */
};

enum kind { K_U32, K_UNIFORM, K_UNIFORM_D, K_NORMAL, K_NORMAL_D, K_LOGNORMAL, K_LOGNORMAL_D, K_POISSON };
struct rwork {
    enum kind kind;
    size_t n;
    unsigned long long seed, start;     /* value `start` of the sequence is element 0's first */
    double mean, stddev, lambda;
};
struct sim_work { const struct rwork *work; };   /* rand.cu's SimWork */

/* ------------------------------------------------------------------ */
/* Philox4x32-10 (Random123's constants) */

static void philox(uint32_t ctr[4], uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0], p1 = (uint64_t)0xCD9E8D57u * ctr[2];
        uint32_t c0 = (uint32_t)(p1 >> 32) ^ ctr[1] ^ k0, c2 = (uint32_t)(p0 >> 32) ^ ctr[3] ^ k1;
        ctr[1] = (uint32_t)p1;
        ctr[3] = (uint32_t)p0;
        ctr[0] = c0;
        ctr[2] = c2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

/* value i of the sequence of `seed` */
static uint32_t value(unsigned long long seed, unsigned long long i)
{
    uint64_t block = i / 4;
    uint32_t ctr[4] = { (uint32_t)block, (uint32_t)(block >> 32), 0, 0 };
    philox(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
    return ctr[i % 4];
}

static float u32_to_uniform(uint32_t x) { return x * 2.3283064e-10f + 2.3283064e-10f / 2.0f; }

static double u64_to_uniform(uint32_t a, uint32_t b)
{
    /* 53 bits, then cuRAND's half-step offset: in (0, 1] */
    uint64_t x = ((uint64_t)a << 21) ^ (uint64_t)(b >> 11);
    return (double)(x & ((1ULL << 53) - 1)) * 0x1p-53 + 0x1p-54;
}

/* Element i of the output (each consumes a fixed number of values, so
 * any element can be computed on its own). */
static void fill(const struct rwork *w, void *out)
{
    const double two_pi = 6.283185307179586;
    for (size_t i = 0; i < w->n; i++) {
        unsigned long long at = w->start;
        switch (w->kind) {
        case K_U32:
            ((uint32_t *)out)[i] = value(w->seed, at + i);
            break;
        case K_UNIFORM:
            ((float *)out)[i] = u32_to_uniform(value(w->seed, at + i));
            break;
        case K_UNIFORM_D:
            ((double *)out)[i] = u64_to_uniform(value(w->seed, at + 2 * i), value(w->seed, at + 2 * i + 1));
            break;
        case K_NORMAL: case K_LOGNORMAL: case K_NORMAL_D: case K_LOGNORMAL_D: {
            /* pairs (2j, 2j + 1) from the same two uniforms */
            int dbl = w->kind == K_NORMAL_D || w->kind == K_LOGNORMAL_D;
            size_t j = i / 2;
            double u1, u2;
            if (dbl) {
                u1 = u64_to_uniform(value(w->seed, at + 4 * j), value(w->seed, at + 4 * j + 1));
                u2 = u64_to_uniform(value(w->seed, at + 4 * j + 2), value(w->seed, at + 4 * j + 3));
            } else {
                u1 = u32_to_uniform(value(w->seed, at + 2 * j));
                u2 = u32_to_uniform(value(w->seed, at + 2 * j + 1));
            }
            double r = sqrt(-2 * log(u1)), z = i % 2 ? r * sin(two_pi * u2) : r * cos(two_pi * u2);
            double x = w->mean + w->stddev * z;
            if (w->kind == K_LOGNORMAL || w->kind == K_LOGNORMAL_D)
                x = exp(x);
            if (dbl)
                ((double *)out)[i] = x;
            else
                ((float *)out)[i] = (float)x;
            break;
        }
        case K_POISSON: {
            /* 64 values per element, whatever lambda: element i from its own block */
            unsigned long long b = at + 64 * i;
            unsigned k = 0;
            if (w->lambda < 64) {
                double l = exp(-w->lambda), p = 1;
                for (unsigned m = 0; m < 64; m++) {
                    p *= u32_to_uniform(value(w->seed, b + m));
                    if (p <= l)
                        break;
                    k++;
                }
            } else {
                double u1 = u32_to_uniform(value(w->seed, b)), u2 = u32_to_uniform(value(w->seed, b + 1));
                double x = w->lambda + sqrt(w->lambda) * sqrt(-2 * log(u1)) * cos(two_pi * u2);
                k = x < 0 ? 0 : (unsigned)(x + 0.5);
            }
            ((unsigned *)out)[i] = k;
            break;
        }
        }
    }
}

/* how many values a call of n elements consumes */
static unsigned long long consumed(enum kind k, size_t n)
{
    switch (k) {
    case K_UNIFORM_D: return 2ULL * n;
    case K_NORMAL_D: case K_LOGNORMAL_D: return 2ULL * n;     /* 4 per pair */
    case K_POISSON: return 64ULL * n;
    default: return n;
    }
}

SIMLIB_EXPORT void simcuda_twin_curandSimGenerate(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_curandSimGenerate(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    fill(((const struct sim_work *)args[1])->work, *(void **)args[0]);
}

/* ------------------------------------------------------------------ */

static int gen_ok(curandGenerator_t g) { return g && g->magic == GEN_MAGIC; }

static int pseudo(curandRngType_t t)
{
    return t == CURAND_RNG_PSEUDO_DEFAULT || t == CURAND_RNG_PSEUDO_XORWOW || t == CURAND_RNG_PSEUDO_MRG32K3A ||
           t == CURAND_RNG_PSEUDO_MTGP32 || t == CURAND_RNG_PSEUDO_MT19937 || t == CURAND_RNG_PSEUDO_PHILOX4_32_10;
}

static curandStatus_t create(curandGenerator_t *generator, curandRngType_t rng_type, int host)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!generator)
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!pseudo(rng_type)) {
        if (rng_type >= CURAND_RNG_QUASI_DEFAULT && rng_type <= CURAND_RNG_QUASI_SCRAMBLED_SOBOL64)
            simlib_note_once(&said, LIB, "quasirandom (Sobol) generators are not simulated: CURAND_STATUS_TYPE_ERROR");
        return CURAND_STATUS_TYPE_ERROR;
    }
    struct curandGenerator_st *g = calloc(1, sizeof *g);
    if (!g)
        return CURAND_STATUS_ALLOCATION_FAILED;
    if (!host) {
        if (simlib_driver(LIB) != 0 || simlib_current_device() < 0 ||
            simlib_drv.cuCtxGetCurrent(&g->ctx) != CUDA_SUCCESS) {
            free(g);
            return CURAND_STATUS_INITIALIZATION_FAILED;
        }
    }
    g->magic = GEN_MAGIC;
    g->type = rng_type;
    g->host = host;
    g->seed = 0;                /* curand.h: the default seed of every pseudorandom type */
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 0);
}

curandStatus_t CURANDAPI curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 1);
}

curandStatus_t CURANDAPI curandDestroyGenerator(curandGenerator_t generator)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->magic = 0;
    free(generator);
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandGetVersion(int *version)
{
    if (!version)
        return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CURAND_STATUS_OUT_OF_RANGE;
    switch (type) {
    case MAJOR_VERSION: *value = CURAND_VER_MAJOR; return CURAND_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CURAND_VER_MINOR; return CURAND_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CURAND_VER_PATCH; return CURAND_STATUS_SUCCESS;
    default: return CURAND_STATUS_OUT_OF_RANGE;
    }
}

curandStatus_t CURANDAPI curandSetStream(curandGenerator_t generator, cudaStream_t stream)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->seed = seed;
    generator->pos = 0;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->offset = offset;
    generator->pos = 0;
    return CURAND_STATUS_SUCCESS;
}

/* every ordering gives the one sequence (the sim has no thread layout to order) */
curandStatus_t CURANDAPI curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (order < CURAND_ORDERING_PSEUDO_BEST || order > CURAND_ORDERING_PSEUDO_DYNAMIC)
        return CURAND_STATUS_OUT_OF_RANGE;
    generator->pos = 0;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t CURANDAPI curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                                 unsigned int num_dimensions)
{
    (void)num_dimensions;
    return gen_ok(generator) ? CURAND_STATUS_TYPE_ERROR : CURAND_STATUS_NOT_INITIALIZED;
}

/* Nothing to prepare: the generator's state is its seed and position. */
curandStatus_t CURANDAPI curandGenerateSeeds(curandGenerator_t generator)
{
    return gen_ok(generator) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

/* One call: a kernel into the generator's stream (its device's context
 * made current for the NULL stream), or the host's own loop. */
static curandStatus_t generate(curandGenerator_t g, void *out, struct rwork *w)
{
    if (!gen_ok(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    w->seed = g->seed;
    w->start = g->offset + g->pos;
    g->pos += consumed(w->kind, w->n);
    if (w->n == 0)
        return CURAND_STATUS_SUCCESS;
    if (g->host) {
        fill(w, out);
        return CURAND_STATUS_SUCCESS;
    }
    struct sim_work sw = { w };
    void *params[] = { &out, &sw };
    CUcontext old = NULL;
    int null_stream = (uintptr_t)g->stream <= 2;
    if (null_stream && (simlib_drv.cuCtxGetCurrent(&old) != CUDA_SUCCESS ||
                        (old != g->ctx && simlib_drv.cuCtxSetCurrent(g->ctx) != CUDA_SUCCESS)))
        return CURAND_STATUS_LAUNCH_FAILURE;
    CUresult r = simlib_launch(&image, "curandSimGenerate", 1, g->stream, params);
    if (null_stream && old != g->ctx)
        simlib_drv.cuCtxSetCurrent(old);
    return r == CUDA_SUCCESS ? CURAND_STATUS_SUCCESS
                             : r == CUDA_ERROR_ILLEGAL_ADDRESS ? CURAND_STATUS_PREEXISTING_FAILURE
                                                               : CURAND_STATUS_LAUNCH_FAILURE;
}

curandStatus_t CURANDAPI curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num)
{
    struct rwork w = { .kind = K_U32, .n = num };
    return generate(generator, outputPtr, &w);
}

/* 64-bit results come from 64-bit quasirandom generators only (curand.h) */
curandStatus_t CURANDAPI curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr, size_t num)
{
    (void)outputPtr, (void)num;
    return gen_ok(generator) ? CURAND_STATUS_TYPE_ERROR : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t CURANDAPI curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num)
{
    struct rwork w = { .kind = K_UNIFORM, .n = num };
    return generate(generator, outputPtr, &w);
}

curandStatus_t CURANDAPI curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num)
{
    struct rwork w = { .kind = K_UNIFORM_D, .n = num };
    return generate(generator, outputPtr, &w);
}

static curandStatus_t normal(curandGenerator_t g, void *out, size_t n, double mean, double stddev, enum kind k)
{
    if (gen_ok(g) && n % 2)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;   /* pseudorandom normals come in pairs */
    struct rwork w = { .kind = k, .n = n, .mean = mean, .stddev = stddev };
    return generate(g, out, &w);
}

curandStatus_t CURANDAPI curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                              float stddev)
{
    return normal(generator, outputPtr, n, mean, stddev, K_NORMAL);
}

curandStatus_t CURANDAPI curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                    double mean, double stddev)
{
    return normal(generator, outputPtr, n, mean, stddev, K_NORMAL_D);
}

curandStatus_t CURANDAPI curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                                 float stddev)
{
    return normal(generator, outputPtr, n, mean, stddev, K_LOGNORMAL);
}

curandStatus_t CURANDAPI curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                       double mean, double stddev)
{
    return normal(generator, outputPtr, n, mean, stddev, K_LOGNORMAL_D);
}

curandStatus_t CURANDAPI curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
                                               double lambda)
{
    if (gen_ok(generator) && !(lambda > 0))
        return CURAND_STATUS_OUT_OF_RANGE;
    struct rwork w = { .kind = K_POISSON, .n = n, .lambda = lambda };
    return generate(generator, outputPtr, &w);
}
