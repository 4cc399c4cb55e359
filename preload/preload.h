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
#include "preload/symver.h"
#include "core/core.h"

#include <stddef.h>
#include <stdint.h>

#define DC_EXPORT __attribute__((visibility("default")))


#pragma GCC visibility push(hidden)

/* The dlsym path runs before a sanitizer runtime is initialised (ASan's own
 * start-up calls dlsym): no instrumentation there. */
#define DC_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

/* Real pointers, typed from the header declarations: one per driver entry
 * point, one per runtime (enum dc_rt) for a runtime entry point. */
#define DC_DRV(name, req)  extern __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) extern __typeof__(&name) dc_real_##name[DC_NRT];
#include "preload/hooks.def"

/* --- start-up (startup.c) ---------------------------------------------------- */

/* 1 when the hook should do its work (then the guard is held: call
 * dc_leave() when done); 0 to pass through.  Initialises on first use.
 * With backend=cupti the hooks only initialise and pass through. */
int dc_enter_slow(void);
/* Starts devcheck if it has not started and a CUDA library has been loaded
 * since the last call (the dlsym hook calls it: plugins loaded with
 * RTLD_DEEPBIND reach no hook of ours). */
void dc_start_if_cuda_loaded(void);
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

/* Entry point `name` of runtime rt (enum dc_rt): the definition of
 * name@<rt's version node> in the libcudart of that version among the loaded
 * objects, RTLD_LOCAL ones included (see interpose.c); NULL when none is
 * loaded.  Runtime real pointers are resolved on first use: a program may
 * load libcudart after its first driver call. */
void *dc_resolve_rt(int rt, const char *name);
#define DC_RT_REAL(rt, name) DC_LAZY_FN(dc_real_##name[rt], dc_resolve_rt, rt, #name)
/* fork handlers of the runtime lookups' lock (startup.c registers them). */
void dc_resolve_fork_prepare(void);
void dc_resolve_fork_parent(void);
void dc_resolve_fork_child(void);
/* No runtime defines `name`: says so once on stderr and returns
 * cudaErrorSymbolNotFound, what the hook then returns. */
cudaError_t dc_rt_missing(int rt, const char *name);

/* Call the real driver function, or return CUDA_ERROR_NOT_FOUND if the driver
 * lacks it (driver pointers are set once, before any hook does its work). */
#define DC_REAL(name, ...) \
    (dc_real_##name ? dc_real_##name(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)
/* Call the real runtime function of runtime rt. */
#define DC_REAL_RT(rt, name, ...)                                                 \
    ({                                                                            \
        __typeof__(dc_real_##name[0]) f_ = DC_RT_REAL(rt, name);                  \
        __builtin_expect(f_ != NULL, 1) ? f_(__VA_ARGS__) : dc_rt_missing(rt, #name); \
    })

/* Entry point `name` (at symbol version `version`; NULL: unversioned) of
 * the loaded object whose SONAME is `soname`, RTLD_LOCAL loads included,
 * else of any loaded object defining it itself, never devcheck's; NULL when
 * none is loaded (the runtime's lookup, interpose.c).  Takes the loader's
 * lock: call it once and keep the answer. */
void *dc_resolve_lib(const char *soname, const char *name, const char *version);
/* Library entry points handed out by dlsym (hooks_lib.c): 1 when `name` is
 * one devcheck hooks, with *answer what dlsym(handle, name) returns -- the
 * wrapper when the lookup finds the library's own definition that devcheck
 * binds, the lookup's own answer otherwise, NULL (dlerror set) when the
 * library is not in the lookup's scope (as without devcheck); 0 for any
 * other name.  handle RTLD_NEXT: 0 (the caller's own lookup decides). */
int dc_lib_dlsym(void *handle, const char *name, void **answer);
/* What dc_dlsym_subst returns for "dlsym returns NULL" (the stub, arch_<arch>.S). */
#define DC_DLSYM_NULL ((void *)1)

/* The wrapper to hand back for a real driver pointer p, or p itself. */
void *dc_substitute(void *p);

#pragma GCC visibility pop
#endif
