/* callbacks.c: the runtime's link to the CUPTI callback state of the sim's
 * driver (see rt_cb.h). */
#include <dlfcn.h>

#include "rt.h"
#include "rt_cb.h"

_Atomic(const struct simcb_table *) rt_cb_tab;

/* For a driver without the sim's table: callbacks never fire. */
static const atomic_uint never;
static const struct simcb_table none = { .size = sizeof none, .version = SIMCB_VERSION, .active = &never };

const struct simcb_table *rt_cb_attach(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    const struct simcb_table *t = &none;
    PFN_cuGetProcAddress_v12000 gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
    void *pfn = NULL;
    if (gpa && gpa("cuGetExportTable", &pfn, 3000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS && pfn) {
        static const CUuuid id = { .bytes = SIMCB_UUID_BYTES };
        const void *tab = NULL;
        if (((PFN_cuGetExportTable_v3000)pfn)(&tab, &id) == CUDA_SUCCESS && tab &&
            ((const struct simcb_table *)tab)->size >= sizeof *t &&
            ((const struct simcb_table *)tab)->version == SIMCB_VERSION)
            t = tab;
    }
    dlclose(h);
    atomic_store_explicit(&rt_cb_tab, t, memory_order_release);
    return t;
}
