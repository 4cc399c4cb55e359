/* hooks_cupti: the program's CUPTI subscription (preload/hooks_cupti.c):
 * what the door (preload/door.c) hands out for it. */
#ifndef DEVCHECK_PRELOAD_HOOKS_CUPTI_H
#define DEVCHECK_PRELOAD_HOOKS_CUPTI_H
#pragma GCC visibility push(hidden)
/* The CUPTI wrapper to hand back for a program's dlsym(handle, name) that
 * found `real` (recorded: the wrapper forwards to it), or NULL when `name` is
 * not a hooked CUPTI entry point. */
void *dc_cupti_substitute(const char *name, void *real);
#pragma GCC visibility pop
#endif
