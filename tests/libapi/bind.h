/* How a test program binds its library (tests/libapi/): by the dynamic
 * linker (linked against the library: PLT/GOT, as torch does), or, built
 * with -DBIND_DLOPEN, by dlopen(SONAME, RTLD_LOCAL) + dlsym(handle, name)
 * (as JAX/XLA do).  FNS(X) lists the functions; F(name) calls one.
 * SONAME(so): the library's soname, `so` unless built for another version
 * (-DLIBAPI_SONAME='"libcublas.so.12"': CUDA 12's).  CK(x): ck.h. */
#ifndef LIBAPI_BIND_H
#define LIBAPI_BIND_H
#ifdef LIBAPI_SONAME
#define SONAME(so) LIBAPI_SONAME
#else
#define SONAME(so) so
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "ck.h"

#define DECL_FN(n) static __typeof__(&n) p_##n;
#define F(n) p_##n
#ifdef BIND_DLOPEN
#define SET_FN(n)                                                            \
    if (!(p_##n = (__typeof__(&n))dlsym(h, #n))) {                           \
        fprintf(stderr, "dlsym %s: %s\n", #n, dlerror());                    \
        exit(2);                                                             \
    }
#define BIND(soname)                                                         \
    do {                                                                     \
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);                     \
        if (!h) {                                                            \
            fprintf(stderr, "dlopen %s: %s\n", soname, dlerror());           \
            exit(2);                                                         \
        }                                                                    \
        FNS(SET_FN)                                                          \
    } while (0)
#else
#define SET_FN(n) p_##n = &n;
#define BIND(soname) do { FNS(SET_FN) } while (0)
#endif
#endif
