/* rt_cb.h: CUPTI runtime-domain callbacks of the simulated runtime.
 *
 * The callback state lives in the sim's libcuda.so.1; the runtime fetches
 * its private table (sim/cupti/simcb.h) through cuGetProcAddress_v2 ->
 * cuGetExportTable once libcuda.so.1 is loaded (dlopen RTLD_NOLOAD: the
 * runtime never loads the driver for this).  The generated wrappers
 * (cbwrap.c, sim/cupti/gen_callbacks.py --api runtime) call rt_cb_table()
 * first: NULL or *active == 0 means no callback. */
#ifndef SIM_RT_CB_H
#define SIM_RT_CB_H

#include "simcb.h"

extern _Atomic(const struct simcb_table *) rt_cb_tab;
/* Looks for the driver's table: NULL while libcuda.so.1 is not loaded;
 * a table that never fires when the driver there has none. */
const struct simcb_table *rt_cb_attach(void);

static inline const struct simcb_table *rt_cb_table(void)
{
    const struct simcb_table *t = atomic_load_explicit(&rt_cb_tab, memory_order_acquire);
    return t ? t : rt_cb_attach();
}

/* Device name of a registered kernel (host stub or cudaKernel_t), or NULL:
 * symbolName of the launch callbacks. */
const char *rt_func_name(const void *func);

#endif
