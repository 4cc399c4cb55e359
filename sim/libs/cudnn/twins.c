/* The host twin of conv.cu's kernel (sim/driver/README.md, the fault
 * model): the sim runs it in the kernel's place, with the kernel's
 * arguments, while every mapping its device may not access is closed, so a
 * tensor of another device faults where the twin touches it, as the kernel
 * would on a GPU.  It computes every output element with the kernel's own
 * code (conv_hd.h). */
#include "conv_hd.h"
#include "simlib.h"

SIMLIB_EXPORT void simcuda_twin_simdnn_conv(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_simdnn_conv(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid;
    (void)block;
    const void *a = *(const void *const *)args[0];
    const void *b = *(const void *const *)args[1];
    void *out = *(void *const *)args[2];
    const struct simdnn_conv *p = args[3];
    for (int64_t i = 0; i < p->total; i++)
        simdnn_conv_point(p, a, b, out, i);
}
