/* hooks_nvrtc: the sources a program compiles with NVRTC
 * (preload/hooks_nvrtc.c): what the door (preload/door.c) hands out for
 * them. */
#ifndef DEVCHECK_PRELOAD_HOOKS_NVRTC_H
#define DEVCHECK_PRELOAD_HOOKS_NVRTC_H
#pragma GCC visibility push(hidden)
/* Our wrapper of `name` when it is a hooked NVRTC entry point, recording
 * `real` (what the program's dlsym found) as its real function; else NULL. */
void *dc_nvrtc_substitute(const char *name, void *real);
#pragma GCC visibility pop
#endif
