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
#include <pthread.h>

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
/* The body of a loader that runs once: *state is 0 not tried, 1 loaded, -1
 * unavailable, published with a release store and read without the lock
 * once set; threads that come while it loads wait on lock.  Evaluates to 1
 * when the library and every function of FUNCS are there. */
#define DC_LAZY_LOAD_ONCE(state, lock, soname, FUNCS) DC_LAZY_LOAD_ONCE_THEN(state, lock, soname, FUNCS, (void)0)
/* The same, running `then` (a statement) once the library is bound, under
 * the lock, before any other thread may use it. */
#define DC_LAZY_LOAD_ONCE_THEN(state, lock, soname, FUNCS, then)                \
    ({                                                                          \
        int st_ = __atomic_load_n(&(state), __ATOMIC_ACQUIRE);                  \
        if (__builtin_expect(st_ == 0, 0)) {                                    \
            pthread_mutex_lock(&(lock));                                        \
            if ((state) == 0) {                                                 \
                void *h_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);               \
                int ok = 0;                                                     \
                if (h_)                                                         \
                    DC_LAZY_BIND(h_, FUNCS, ok);                                \
                if (ok)                                                         \
                    then;                                                       \
                __atomic_store_n(&(state), ok ? 1 : -1, __ATOMIC_RELEASE);      \
            }                                                                   \
            st_ = (state);                                                      \
            pthread_mutex_unlock(&(lock));                                      \
        }                                                                       \
        st_ == 1;                                                               \
    })
/* Binds FUNCS from soname as another user of devcheck already loaded it
 * (RTLD_NOLOAD; RTLD_LAZY, as that user loaded it: RTLD_NOW here would bind
 * all of the library's PLT slots), keeping no reference of its own; *state
 * as above, under the caller's lock.  Evaluates to 1 when all are bound. */
#define DC_LAZY_BIND_LOADED(state, soname, FUNCS)                               \
    ({                                                                          \
        if ((state) == 0) {                                                     \
            void *h_ = dlopen(soname, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);    \
            int ok = 0;                                                         \
            if (h_) {                                                           \
                DC_LAZY_BIND(h_, FUNCS, ok);                                    \
                dlclose(h_);            /* the loader's reference keeps it */   \
            }                                                                   \
            (state) = ok ? 1 : -1;                                              \
        }                                                                       \
        (state) == 1;                                                           \
    })
#define DC_LAZY_BIND_ONE_(name)                                                 \
    if (ok && !(p_##name = (__typeof__(p_##name))dlsym(h_, DC_STR(name))))      \
        ok = 0;
#endif
