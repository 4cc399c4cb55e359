/* The host twin of fft.cu's kernel (sim/driver/README.md, the fault
 * model): the sim runs it in the kernel's place, with the kernel's
 * arguments, while every mapping its device may not access is closed, so an
 * array or a work area of another device faults where the twin touches it,
 * as the kernel would on a GPU.  It transforms every line with the
 * kernel's own code (fft_hd.h). */
#include "fft_hd.h"
#include "simlib.h"

SIMLIB_EXPORT void simcuda_twin_simfft_pass(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_simfft_pass(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid;
    (void)block;
    const void *in = *(const void *const *)args[0];
    void *out = *(void *const *)args[1];
    double *work = *(double *const *)args[2];
    const struct simfft_pass *p = args[3];
    for (int64_t l = 0; l < p->lines; l++)
        simfft_line(p, in, out, work, l);
}
