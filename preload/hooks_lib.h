/* hooks_lib: library calls checked at their API (preload/hooks_lib.c):
 * what the door (preload/door.c) hands out for them. */
#ifndef DEVCHECK_PRELOAD_HOOKS_LIB_H
#define DEVCHECK_PRELOAD_HOOKS_LIB_H
#pragma GCC visibility push(hidden)
/* Library entry points handed out by dlsym: 1 when `name` is one devcheck
 * hooks, with *answer what dlsym(handle, name) returns -- the wrapper when
 * the lookup finds the library's own definition that devcheck binds, the
 * lookup's own answer otherwise, NULL (dlerror set) when the library is not
 * in the lookup's scope (as without devcheck); 0 for any other name.  handle
 * RTLD_NEXT: 0 (the caller's own lookup decides). */
int dc_lib_dlsym(void *handle, const char *name, void **answer);
#pragma GCC visibility pop
#endif
