/* bind: the hook table's real functions (preload/bind.h).  The driver's
 * are bound once, from the libcuda.so.1 the resolver opens, with the core's
 * own driver calls (core/base/cudacall.def); the runtime's are resolved per
 * runtime on first use (DC_RT_REAL: dc_resolve_rt), and a runtime entry
 * point no loaded runtime defines is said once (dc_rt_missing). */
#include "preload/bind.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* --- the table --------------------------------------------------------- */

#define DC_DRV(name, req)  __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) __typeof__(&name) dc_real_##name[DC_NRT];
#include "preload/hooks.def"

static const struct drv_entry {
    const char *name;
    void **real;            /* &dc_real_<name> */
    int required;
} drv_table[] = {
#define DC_DRV(name, req) { #name, (void **)&dc_real_##name, req },
#include "preload/hooks.def"
};
#define N_DRV (sizeof drv_table / sizeof drv_table[0])

/* --- the driver ------------------------------------------------------------ */

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static char bind_error[256];
static struct dc_binding binding;

/* Resolves every driver entry point of the table from libcuda.so.1, then the
 * core's own (core/base/cudacall.def).  Runs once, with the guard held (the
 * loader may run code that reaches our hooks). */
static void bind_driver(void)
{
    dc_guard++;
    void *libcuda = dc_resolve_driver(bind_error, sizeof bind_error);
    if (!libcuda) {
        binding.error = bind_error;
    } else if (dc_real_dlsym) {
        const char *missing = NULL;
        for (size_t i = 0; i < N_DRV; i++) {
            void *p = dc_resolve_in(libcuda, drv_table[i].name);
            __atomic_store_n(drv_table[i].real, p, __ATOMIC_RELEASE);
            if (!p && drv_table[i].required && !missing)
                missing = drv_table[i].name;
            binding.hooked++;
            binding.present += p != NULL;
        }
        const char *own = dc_driver_bind(libcuda, dc_real_dlsym, dc_resolve_rt);
        binding.missing = missing ? missing : own;
    }
    binding.libcuda = libcuda;
    dc_guard--;
}

const struct dc_binding *dc_bind_driver(void)
{
    pthread_once(&bind_once, bind_driver);
    return &binding;
}

/* --- the runtime ------------------------------------------------------------- */

cudaError_t dc_rt_missing(int rt, const char *name)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "devcheck: cannot find the real %s (%s) in this process; the call returns "
                         "cudaErrorSymbolNotFound (said once)\n",
                         name, dc_rt_soname(rt));
        if (n > 0) {
            ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)w;
        }
    }
    return cudaErrorSymbolNotFound;
}
