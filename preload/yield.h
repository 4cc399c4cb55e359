/* yield: what the start-up and the binding offer the hooks of a translation
 * unit that cannot include preload/preload.h (hooks_cupti.c: cupti.h may not
 * be combined with preload.h's __CUDA_API_VERSION_INTERNAL). */
#ifndef DEVCHECK_PRELOAD_YIELD_H
#define DEVCHECK_PRELOAD_YIELD_H
#pragma GCC visibility push(hidden)
/* The program subscribes to CUPTI: the front ends give up their subscription
 * (dc_core_yield_cupti), and if one did, the hooks do all the work from now
 * on (backend=cupti's pass-through ends).  Takes the guard. */
void dc_yield_cupti_to_program(void);
/* dlsym(RTLD_NEXT, name) as seen from libdevcheck.so, with the real dlsym. */
void *dc_next_symbol(const char *name);
/* The CUPTI wrapper to hand back for a program's dlsym(handle, name) that
 * found `real` (recorded: the wrapper forwards to it), or NULL when `name` is
 * not a hooked CUPTI entry point (hooks_cupti.c). */
void *dc_cupti_substitute(const char *name, void *real);
/* The same for the NVRTC hooks (hooks_nvrtc.c): our wrapper of `name` when
 * it is one, recording `real` as its real function; else NULL. */
void *dc_nvrtc_substitute(const char *name, void *real);
#pragma GCC visibility pop
#endif
