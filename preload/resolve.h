/* resolve: where is the real definition of a name?  The interposer's one
 * resolver of real symbols: every hook family finds its real functions here
 * (the hook table's driver and runtime entry points, preload/bind.c; the
 * CUPTI, NVRTC and library hooks; PyTorch's and libc's functions devcheck
 * defines), and no other file of preload/ calls dlopen, dlsym or dlvsym to
 * find one.
 *
 * Invariants:
 *  - An answer is never devcheck's own definition.
 *  - Objects are found per loaded object and per symbol version, RTLD_LOCAL
 *    loads included (dlopen(soname, RTLD_NOLOAD), dl_iterate_phdr):
 *    dlsym(RTLD_NEXT) searches only the global scope after us, and a library
 *    that arrived as a dependency of an object loaded RTLD_LOCAL (dlopen's
 *    default, ctypes.CDLL, every Python extension module) is not in it.
 *  - No lookup calls the public dlsym (ours): the real one, dc_real_dlsym.
 *  - Every lookup takes the guard (the loader may run code that reaches our
 *    hooks); those that search the loaded objects take the loader's lock:
 *    call them once per entry point and keep the answer.
 * Plain C, no CUDA header: hooks_cupti.c, whose cupti.h may not be combined
 * with the hook table's CUDA headers (preload/bind.h), includes it too. */
#ifndef DEVCHECK_PRELOAD_RESOLVE_H
#define DEVCHECK_PRELOAD_RESOLVE_H
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* The dlsym path runs before a sanitizer runtime is initialised (ASan's own
 * start-up calls dlsym): no instrumentation there. */
#define DC_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

/* The real dlsym (glibc's, dlvsym(RTLD_NEXT, "dlsym", ...)): NULL until
 * dc_bind_dlsym; the dlsym entry stub (preload/arch_<arch>.S) jumps to it. */
extern void *(*dc_real_dlsym)(void *, const char *);
/* Binds dc_real_dlsym (again: the same answer). */
DC_NO_SANITIZE void dc_bind_dlsym(void);

/* a and b are the same name (the dlsym path: no instrumentation). */
DC_NO_SANITIZE static inline int dc_same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The driver, libcuda.so.1, opened RTLD_LOCAL (the real dlsym bound first);
 * NULL with the loader's message in error[len]. */
void *dc_resolve_driver(char *error, size_t len);
/* `name` as dlsym(handle, name) finds it (the real dlsym: no
 * substitution); NULL without the real dlsym. */
void *dc_resolve_in(void *handle, const char *name);

/* Entry point `name` of runtime rt (enum dc_rt): the definition of
 * name@<rt's version node> in the libcudart of that version among the loaded
 * objects, RTLD_LOCAL ones included (resolve.c); NULL when none is loaded. */
void *dc_resolve_rt(int rt, const char *name);
/* The SONAME of runtime rt, also its version node ("libcudart.so.13"). */
const char *dc_rt_soname(int rt);

/* Entry point `name` (at symbol version `version`; NULL: unversioned) of
 * the loaded object whose SONAME is `soname`, RTLD_LOCAL loads included,
 * else of any loaded object defining it itself, never devcheck's; NULL when
 * none is loaded. */
void *dc_resolve_lib(const char *soname, const char *name, const char *version);

/* `name` as the lookup scope of a loaded object finds it (the object, then
 * its dependencies), never devcheck's definition: of the object whose
 * SONAME is `soname` (RTLD_LOCAL loads included; NULL when it is not
 * loaded), or of the object holding address `addr` (a caller's return
 * address, a real function: NULL when that is devcheck or the program
 * itself). */
void *dc_resolve_scope(const char *soname, const char *name);
void *dc_resolve_near(const void *addr, const char *name);

/* dlsym(RTLD_NEXT, name) as seen from libdevcheck.so: the global scope
 * after us.  dc_next_versioned: dlvsym's, at symbol version `version` (the
 * C library's own exit and __libc_start_main). */
void *dc_next_symbol(const char *name);
void *dc_next_versioned(const char *name, const char *version);

/* Fork handlers of the lookups' lock (preload/startup.c registers them). */
void dc_resolve_fork_prepare(void);
void dc_resolve_fork_parent(void);
void dc_resolve_fork_child(void);

#pragma GCC visibility pop
#endif
