/* lazylib: libraries devcheck loads itself with dlopen(RTLD_LOCAL) on first
 * use and calls through a table of pointers, so nothing of theirs enters the
 * program's global scope (libunwind, libdw and libelf: see report/stack.c).
 *
 * A user lists the functions, FUNCS(X) with X(name) for each, declares the
 * pointers with DC_LAZY_POINTERS(FUNCS) and binds them all from one handle
 * with DC_LAZY_BIND(handle, FUNCS, ok). */
#ifndef DC_LAZYLIB_H
#define DC_LAZYLIB_H
#include <dlfcn.h>

#define DC_STR_(x) #x
#define DC_STR(x) DC_STR_(x)            /* the library's own name of a macro-renamed function */

#define DC_LAZY_POINTER_(name) static __typeof__(&name) p_##name;
#define DC_LAZY_POINTERS(FUNCS) FUNCS(DC_LAZY_POINTER_)

/* Resolves every name of a table from handle h_ (a dlsym handle searches the
 * object's own dependencies too); ok is 1 when all are there. */
#define DC_LAZY_BIND(h_, FUNCS, ok)                                             \
    do {                                                                        \
        ok = 1;                                                                 \
        FUNCS(DC_LAZY_BIND_ONE_)                                                \
    } while (0)
#define DC_LAZY_BIND_ONE_(name)                                                 \
    if (ok && !(p_##name = (__typeof__(p_##name))dlsym(h_, DC_STR(name))))      \
        ok = 0;
#endif
