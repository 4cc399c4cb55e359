/* Host twins of vec.cu's kernels (sim/driver/README.md: the sim runs
 * simcuda_twin_<kernel> for each launch; the sim's guard makes memory the
 * launch's device may not access fault): the whole grid's work, with the
 * kernels' own code (vec.h). */
#include "simlib.h"
#include "vec.h"

/* The value of pointer parameter i. */
static void *param(void **args, int i)
{
    void *p;
    memcpy(&p, args[i], sizeof p);
    return p;
}

static struct sb_vec call(void **args)
{
    struct sb_vec v;
    memcpy(&v, args[0], sizeof v);
    return v;
}

#define TWIN(kernel) SIMLIB_EXPORT void simcuda_twin_##kernel(void **args, const unsigned grid[3], const unsigned block[3])
TWIN(simblas_axpy);
TWIN(simblas_axpy)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_axpy_range(&v, param(args, 1), param(args, 2), param(args, 3), 0, 1);
}

TWIN(simblas_scal);
TWIN(simblas_scal)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_scal_range(&v, param(args, 1), param(args, 2), 0, 1);
}

TWIN(simblas_nrm2);
TWIN(simblas_nrm2)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_nrm2(&v, param(args, 1), param(args, 2), 0);
}

TWIN(simblas_ger);
TWIN(simblas_ger)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_ger_range(&v, param(args, 1), param(args, 2), param(args, 3), param(args, 4), 0, 1);
}

TWIN(simblas_symv);
TWIN(simblas_symv)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_symv_range(&v, param(args, 1), param(args, 2), param(args, 3), param(args, 4), param(args, 5), 0, 1);
}

TWIN(simblas_syr);
TWIN(simblas_syr)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_syr_range(&v, param(args, 1), param(args, 2), NULL, param(args, 3), 0, 1);
}

TWIN(simblas_syr2);
TWIN(simblas_syr2)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_syr_range(&v, param(args, 1), param(args, 2), param(args, 3), param(args, 4), 0, 1);
}

TWIN(simblas_syrk);
TWIN(simblas_syrk)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_syrk_range(&v, param(args, 1), param(args, 2), NULL, param(args, 3), param(args, 4), 0, 1);
}

TWIN(simblas_syr2k);
TWIN(simblas_syr2k)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_syrk_range(&v, param(args, 1), param(args, 2), param(args, 3), param(args, 4), param(args, 5), 0, 1);
}

TWIN(simblas_symm);
TWIN(simblas_symm)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_symm_range(&v, param(args, 1), param(args, 2), param(args, 3), param(args, 4), param(args, 5), 0, 1);
}

TWIN(simblas_trmm);
TWIN(simblas_trmm)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_symm_range(&v, param(args, 1), param(args, 2), param(args, 3), NULL, param(args, 4), 0, 1);
}

TWIN(simblas_rotm);
TWIN(simblas_rotm)
{
    (void)grid, (void)block;
    struct sb_vec v = call(args);
    sb_rotm_range(&v, param(args, 1), param(args, 2), param(args, 3), 0, 1);
}
