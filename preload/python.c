/* python: the entry point devcheck's Python hook (preload/python/, put on
 * PYTHONPATH by the wrapper) calls with ctypes when the program dies of a
 * framework's device error.  The hook only gathers what the interpreter
 * alone has; the finding is the core's (core/framework.c).  Exported from
 * libdevcheck.so (exports.map.in); it does nothing before devcheck started
 * (no CUDA call yet), with mode=off, or inside a hook.
 *
 * int devcheck_framework_error(framework, message, nframes, files, lines,
 *                              functions, ntensors, exprs, ptrs, devices, flags)
 * returns 0 when the finding was reported, -1 otherwise. */
#include "preload/preload.h"
#include "core/core.h"

__attribute__((visibility("default"))) int devcheck_framework_error(
    const char *framework, const char *message, unsigned nframes, const char *const *files, const int *lines,
    const char *const *functions, unsigned ntensors, const char *const *exprs, const uintptr_t *ptrs,
    const char *const *devices, const int *flags)
{
    if (dc_guard)
        return -1;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return -1;
    dc_guard++;
    int rc = dc_framework_error(framework, message, nframes, files, lines, functions, ntensors, exprs, ptrs,
                                devices, flags);
    dc_guard--;
    return rc;
}
