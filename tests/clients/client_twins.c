/* Host twins of the client tests' kernels (the programs in tests/clients/), in a shared
 * object the Python programs load with ctypes.CDLL (RTLD_LOCAL): the sim
 * finds twins there too, so the programs compute and print real numbers.
 * Each twin reads its launch's arguments as the kernel's own ABI passes
 * them: args[i] points to parameter i. */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

static unsigned long threads(const unsigned grid[3], const unsigned block[3])
{
    return (unsigned long)grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
}

/* NVRTC (cuda-bindings, cuda-core): extern "C" void scale(float *x, float a, int n) */
EXPORT void simcuda_twin_scale(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    float a = *(float *)args[1];
    int n = *(int *)args[2];
    for (unsigned long i = 0; i < threads(grid, block) && i < (unsigned long)n; i++)
        x[i] *= a;
}

/* Triton: add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: constexpr); Triton
 * appends its scratch pointers after the user's parameters */
EXPORT void simcuda_twin_add_kernel(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_add_kernel(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)block;
    const float *x = *(const float **)args[0], *y = *(const float **)args[1];
    float *out = *(float **)args[2];
    int n = *(int *)args[3];
    (void)grid;
    for (int i = 0; i < n; i++)
        out[i] = x[i] + y[i];
}

/* numba-cuda: add(x, y, out) on 1-D float32 arrays; numba passes each array
 * as 7 parameters (meminfo, parent, nitems, itemsize, data, shape, strides) */
EXPORT void simcuda_twin_add(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_add(void **args, const unsigned grid[3], const unsigned block[3])
{
    const float *x = *(const float **)args[4], *y = *(const float **)args[11];
    float *out = *(float **)args[18];
    int64_t n = *(int64_t *)args[16];
    for (unsigned long i = 0; i < threads(grid, block) && (int64_t)i < n; i++)
        out[i] = x[i] + y[i];
}

/* Kernels without types (tests/e2e/untyped.cu, tests/clients/untyped.py):
 * extern "C" void scale_rows(int n, float a, float *x, long long m, struct untyped_s s) */
struct untyped_s {
    float *p;
    long long n;
};
EXPORT void simcuda_twin_scale_rows(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_scale_rows(void **args, const unsigned grid[3], const unsigned block[3])
{
    int n = *(int *)args[0];
    float a = *(float *)args[1];
    float *x = *(float **)args[2];
    long long m = *(long long *)args[3];
    const struct untyped_s *s = (const struct untyped_s *)args[4];
    for (unsigned long i = 0; i < threads(grid, block) && i < (unsigned long)n; i++)
        x[i] = x[i] * a + (float)(m & 1) + (float)(s->n & 1);
}
