/* kernels: what devcheck knows of each kernel it sees launched, decided once
 * per kernel: its name and its parameter layout, asked from the driver
 * (cuFuncGetName / cuKernelGetName, cuFuncGetParamInfo / cuKernelGetParamInfo)
 * and cached per function (CUfunction) or kernel (CUkernel) handle.  The home
 * of per-kernel evidence about its parameters.
 *
 * Contract: lookups are thread-safe and call the driver (guard held) only
 * for a handle not seen yet.  Cached descriptions are never freed while the
 * process runs: an unload retires them (off the table, still readable), so a
 * launch holding one stays safe, and a reused handle is asked afresh; so
 * does a context's end for its functions (dc_kernels_ctx_gone). */
#ifndef DEVCHECK_CORE_KERNELS_H
#define DEVCHECK_CORE_KERNELS_H
#include <cuda.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Parameter i of a kernel: its offset and size in the argument layout. */
struct dc_param { uint32_t offset, size; };

struct dc_kernel {
    const void *key;            /* CUfunction or CUkernel */
    int is_kernel;              /* key is (answered as) a CUkernel */
    char *name;                 /* mangled (or plain) name, our copy; NULL if unknown */
    int layout_known;           /* 0: the driver could not say */
    unsigned nparams;
    struct dc_param *params;
};

/* The cached description of key (a CUkernel when is_kernel; a CUfunction,
 * or a CUkernel cast to one, otherwise); NULL only when memory ran out: then
 * *tmp is filled for this launch and must be released with
 * dc_kernel_release_tmp.  Asks the driver on first sight (guard held). */
const struct dc_kernel *dc_kernel_lookup(const void *key, int is_kernel, struct dc_kernel *tmp);
void dc_kernel_release_tmp(struct dc_kernel *tmp);

/* Context ctx went (core/contexts.c): the descriptions of its functions (and
 * of functions whose context is unknown) are retired, since the driver may
 * hand their handles to other kernels; CUkernels stay. */
void dc_kernels_ctx_gone(CUcontext ctx);

/* fork handlers of the cache's lock (core/core.c registers them). */
void dc_kernels_fork_prepare(void);
void dc_kernels_fork_parent(void);
void dc_kernels_fork_child(void);

#pragma GCC visibility pop
#endif
