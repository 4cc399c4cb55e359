/* Host twins of gemm.cu's kernels (sim/driver/README.md: the sim runs
 * simcuda_twin_<kernel> for each launch; the sim's guard makes memory the
 * launch's device may not access fault): the whole grid's work, with the
 * kernels' own code (gemm.h). */
#include "gemm.h"
#include "simlib.h"

/* The value of pointer parameter i. */
static const void *param(void **args, int i)
{
    const void *p;
    memcpy(&p, args[i], sizeof p);
    return p;
}

SIMLIB_EXPORT void simcuda_twin_simblas_gemm(void **args, const unsigned grid[3], const unsigned block[3]);
SIMLIB_EXPORT void simcuda_twin_simblas_gemm(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    struct sb_gemm g;
    memcpy(&g, args[0], sizeof g);
    sb_gemm_range(&g, param(args, 1), param(args, 2), param(args, 3), (void *)param(args, 4), param(args, 5),
                  (void *)param(args, 6), param(args, 7), param(args, 8), 0, 0, 1);
}

SIMLIB_EXPORT void simcuda_twin_simblas_gemm_batched(void **args, const unsigned grid[3], const unsigned block[3]);
SIMLIB_EXPORT void simcuda_twin_simblas_gemm_batched(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    struct sb_gemm g;
    memcpy(&g, args[0], sizeof g);
    sb_gemm_range(&g, param(args, 1), param(args, 2), param(args, 3), (void *)param(args, 4), NULL, NULL,
                  param(args, 5), param(args, 6), 1, 0, 1);
}
