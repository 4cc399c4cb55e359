/* startup: devcheck's start-up (preload/startup.c), and the fast path every
 * hook starts with.
 *
 * Invariants:
 *  - Every hook starts with dc_enter(): until devcheck is initialised and
 *    active, and whenever devcheck itself is calling CUDA on this thread
 *    (dc_guard > 0), a hook passes straight through to the real function.
 *    A hook that does its work holds the guard for all of it, the real call
 *    included, so nested hooks (a runtime launch reaching the driver launch,
 *    a driver function calling another one through its PLT) pass through
 *    and nothing is checked or recorded twice.
 *  - Start-up is lazy and once-only: the first hooked call initialises. */
#ifndef DEVCHECK_PRELOAD_STARTUP_H
#define DEVCHECK_PRELOAD_STARTUP_H
#include "core/core.h"

#pragma GCC visibility push(hidden)

/* 1 when the hook should do its work (then the guard is held: call
 * dc_leave() when done); 0 to pass through.  Initialises on first use.
 * With backend=cupti the hooks only initialise and pass through. */
int dc_enter_slow(void);
extern int dc_interpose;        /* the hooks do their work (backend != cupti) */
/* dc_enter() where the caller just found the guard free (a launch hook's
 * thin entry, preload/hooks_launch.c). */
static inline int dc_enter_unguarded(void)
{
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return 0;
    if (!__atomic_load_n(&dc_interpose, __ATOMIC_RELAXED))
        return 0;
    dc_guard++;
    return 1;
}
static inline int dc_enter(void)
{
    if (dc_guard)
        return 0;
    return dc_enter_unguarded();
}
static inline void dc_leave(void) { dc_guard--; }

/* Starts devcheck if it has not started and a CUDA library has been loaded
 * since the last call (the dlsym door calls it: plugins loaded with
 * RTLD_DEEPBIND reach no hook of ours). */
void dc_start_if_cuda_loaded(void);

/* The program subscribes to CUPTI: the front ends give up their subscription
 * (dc_core_yield_cupti), and if one did, the hooks do all the work from now
 * on (backend=cupti's pass-through ends).  Takes the guard. */
void dc_yield_cupti_to_program(void);

#pragma GCC visibility pop
#endif
