/* callbacks.c: the runtime's link to the CUPTI callback state of the sim's
 * driver (see rt_cb.h). */
#include <dlfcn.h>

#include "rt.h"
#include "rt_cb.h"

_Atomic(const struct simcb_table *) rt_cb_tab;

/* For a driver without the sim's table: callbacks never fire. */
static const atomic_uint never;
static const struct simcb_table none = { .size = sizeof none, .version = SIMCB_VERSION, .active = &never };

/* Bound runtime: its own cuGetExportTable (drv.def).  Before that, only a
 * libcuda.so.1 someone else already loaded (RTLD_NOLOAD: this never loads
 * or initialises the driver), through the process's one lookup of
 * cuGetProcAddress_v2, so a subscriber sees the runtime's first call too. */
const struct simcb_table *rt_cb_attach(void)
{
    PFN_cuGetExportTable_v3000 get = NULL;
    if (rt_driver_bound()) {
        get = rt_drv.p_cuGetExportTable;
    } else {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!h)
            return NULL;
        PFN_cuGetProcAddress_v12000 gpa = rt_driver_gpa(h);
        void *pfn = NULL;
        if (gpa && gpa("cuGetExportTable", &pfn, 3000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS)
            get = (PFN_cuGetExportTable_v3000)pfn;
        dlclose(h);
    }
    const struct simcb_table *t = &none;
    static const CUuuid id = { .bytes = SIMCB_UUID_BYTES };
    const void *tab = NULL;
    if (get && get(&tab, &id) == CUDA_SUCCESS && tab && ((const struct simcb_table *)tab)->size >= sizeof *t &&
        ((const struct simcb_table *)tab)->version == SIMCB_VERSION)
        t = tab;
    atomic_store_explicit(&rt_cb_tab, t, memory_order_release);
    return t;
}
