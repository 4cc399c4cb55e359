/* bind: the real functions of the hook table (preload/hooks.def), typed
 * from the toolkit's declarations: one pointer per driver entry point, one
 * per runtime (enum dc_rt) for a runtime entry point, found by the resolver
 * (preload/resolve.h).
 *
 * Invariants:
 *  - Driver pointers are set once, by dc_bind_driver, before any hook does
 *    its work; runtime pointers on first use (a program may load libcudart
 *    after its first driver call).
 *  - A real pointer is NULL when the entry point does not exist; DC_REAL*
 *    never calls a NULL pointer.
 * Include it first: it asks the toolkit's headers for every _v2/_ptsz/_ptds
 * variant (__CUDA_API_VERSION_INTERNAL), which cupti.h may not be combined
 * with. */
#ifndef DEVCHECK_PRELOAD_BIND_H
#define DEVCHECK_PRELOAD_BIND_H

/* See every _v2/_ptsz/_ptds variant in the toolkit headers. */
#define __CUDA_API_VERSION_INTERNAL 1
/* cudaGetDriverEntryPoint is deprecated but still called by programs: we hook it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "preload/rt_proto.h"
#include "preload/resolve.h"
#include "core/core.h"

#pragma GCC visibility push(hidden)

/* Real pointers, typed from the header declarations: one per driver entry
 * point, one per runtime (enum dc_rt) for a runtime entry point. */
#define DC_DRV(name, req)  extern __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) extern __typeof__(&name) dc_real_##name[DC_NRT];
#include "preload/hooks.def"

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

/* Call the real driver function, or return CUDA_ERROR_NOT_FOUND if the driver
 * lacks it. */
#define DC_REAL(name, ...) \
    (dc_real_##name ? dc_real_##name(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)

/* The real runtime function `name` of runtime rt, resolved on first use
 * (dc_resolve_rt); NULL while no runtime defines it. */
#define DC_RT_REAL(rt, name) DC_LAZY_FN(dc_real_##name[rt], dc_resolve_rt, rt, #name)
/* No runtime defines `name`: says so once on stderr and returns
 * cudaErrorSymbolNotFound, what the hook then returns. */
cudaError_t dc_rt_missing(int rt, const char *name);
/* Call the real runtime function of runtime rt. */
#define DC_REAL_RT(rt, name, ...)                                                 \
    ({                                                                            \
        __typeof__(dc_real_##name[0]) f_ = DC_RT_REAL(rt, name);                  \
        __builtin_expect(f_ != NULL, 1) ? f_(__VA_ARGS__) : dc_rt_missing(rt, #name); \
    })

#pragma GCC visibility pop
#endif
