/* preload internals: what the interposer's translation units share.
 *
 * Invariants:
 *  - Every hook starts with dc_enter() (see below): until devcheck is
 *    initialised and active, and whenever devcheck itself is calling CUDA on
 *    this thread (dc_guard > 0), a hook passes straight through to the real
 *    function.  A hook that does its work holds the guard for all of it, the
 *    real call included, so nested hooks (a runtime launch reaching the driver
 *    launch, a driver function calling another one through its PLT) pass
 *    through and nothing is checked or recorded twice.
 *  - A hook does its work by describing the call to the core (core/core.h):
 *    the interposer never records, checks or reports anything itself.
 *  - A real pointer is NULL when the entry point does not exist; DC_REAL*
 *    never calls a NULL pointer.
 *  - Nothing here is exported: the only exported symbols are the hooks listed
 *    in preload/hooks.def plus dlsym, exit and __libc_start_main. */
#ifndef DEVCHECK_PRELOAD_H
#define DEVCHECK_PRELOAD_H

/* See every _v2/_ptsz/_ptds variant in the toolkit headers. */
#define __CUDA_API_VERSION_INTERNAL 1
/* cudaGetDriverEntryPoint is deprecated but still called by programs: we hook it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "preload/rt_proto.h"
#include "core/core.h"

#include <stddef.h>
#include <stdint.h>

#define DC_EXPORT __attribute__((visibility("default")))

#pragma GCC visibility push(hidden)

/* Real pointers, typed from the header declarations. */
#define DC_DRV(name, req)  extern __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) extern __typeof__(&name) dc_real_##name;
#include "preload/hooks.def"

/* --- start-up (startup.c) ---------------------------------------------------- */

/* 1 when the hook should do its work (then the guard is held: call
 * dc_leave() when done); 0 to pass through.  Initialises on first use.
 * With backend=cupti the hooks only initialise and pass through. */
int dc_enter_slow(void);
extern int dc_interpose;        /* the hooks do their work (backend != cupti) */
static inline int dc_enter(void)
{
    if (dc_guard)
        return 0;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return 0;
    if (!__atomic_load_n(&dc_interpose, __ATOMIC_RELAXED))
        return 0;
    dc_guard++;
    return 1;
}
static inline void dc_leave(void) { dc_guard--; }

/* --- binding (interpose.c) ---------------------------------------------------- */

/* What binding the driver found (dc_bind_driver). */
struct dc_binding {
    void *libcuda;              /* NULL: no driver (error says why) */
    const char *error;
    const char *missing;        /* the first required entry point the driver lacks, or NULL */
    unsigned hooked, present;   /* hooked driver entry points, and how many the driver has */
};
/* Opens libcuda.so.1 and binds the hooked entry points (hooks.def) and the
 * core's own (dc_driver_bind).  Once per process, guard held. */
const struct dc_binding *dc_bind_driver(void);

/* Runtime real pointers are resolved on first use (RTLD_NEXT, with the real
 * dlsym): a program may load libcudart after its first driver call. */
void *dc_resolve_rt(const char *name);
#define DC_RT_REAL(name) DC_LAZY_FN(dc_real_##name, dc_resolve_rt, #name)

/* Call the real driver function, or return CUDA_ERROR_NOT_FOUND if the driver
 * lacks it (driver pointers are set once, before any hook does its work). */
#define DC_REAL(name, ...) \
    (dc_real_##name ? dc_real_##name(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)
#define DC_REAL_RT(name, ...)                                                     \
    ({                                                                            \
        __typeof__(dc_real_##name) f_ = DC_RT_REAL(name);                         \
        f_ ? f_(__VA_ARGS__) : cudaErrorSymbolNotFound;                           \
    })

/* The wrapper to hand back for a real driver pointer p, or p itself. */
void *dc_substitute(void *p);

#pragma GCC visibility pop
#endif
