/* preload: what a hook file of the interposer includes (the hook families,
 * preload/hooks_*.c, python.c, and the door, door.c).  An umbrella: its own
 * parts are the resolver of real symbols (resolve.h), the hook table's real
 * functions (bind.h), the fast path every hook starts with (startup.h) and
 * how hooks are exported (export.h).  The start-up, the binding and the
 * resolver never include it.
 *
 * Invariants of every hook:
 *  - It starts with dc_enter() (preload/startup.h): it passes straight
 *    through until devcheck is initialised and active, and whenever devcheck
 *    itself is calling CUDA on this thread.
 *  - It does its work by describing the call to the core (core/core.h): the
 *    interposer never records, checks or reports anything itself.
 *  - It finds its real function through the resolver, never through the
 *    door (preload/door.c); a NULL real function is never called.
 *  - Nothing is exported by accident: the only exported symbols are the hooks
 *    listed in preload/hooks.def and preload/hooks_lib.def plus dlsym, exit,
 *    __libc_start_main and the entries exports.map.in names. */
#ifndef DEVCHECK_PRELOAD_H
#define DEVCHECK_PRELOAD_H

#include "preload/bind.h"       /* first: the CUDA headers with every variant */
#include "preload/startup.h"
#include "preload/export.h"
#include "core/core.h"

#include <stddef.h>
#include <stdint.h>

#endif
