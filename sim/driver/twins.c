/* twins: finding simcuda_twin_<name> anywhere in the process.
 *
 * dlsym(RTLD_DEFAULT) sees the program and what it loaded RTLD_GLOBAL.
 * Python loads extension modules RTLD_LOCAL (a torch C++ extension) and so
 * does ctypes.CDLL (a shared object holding a Triton kernel's twin): those
 * are asked one by one, by name, through dlopen(RTLD_NOLOAD), which hands
 * out a handle to an object already loaded without loading anything or
 * changing its scope.  No lock of ours is held here: the loader's lock may
 * be held by a thread running a constructor that calls CUDA. */
#include "internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

struct names { char **v; size_t n, cap; };

static int add_name(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct names *ns = data;
    const char *n = info->dlpi_name;
    if (!n || !*n)
        return 0;           /* the program itself: RTLD_DEFAULT has it */
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        char **v = realloc(ns->v, cap * sizeof *v);
        if (!v)
            return 1;
        ns->v = v;
        ns->cap = cap;
    }
    if ((ns->v[ns->n] = strdup(n)) != NULL)
        ns->n++;
    return 0;
}

sim_twin_fn sim_twin_lookup(const char *sym)
{
    void *p = dlsym(RTLD_DEFAULT, sym);
    if (!p) {
        /* names first: dlopen must not run inside dl_iterate_phdr's callback */
        struct names ns = { NULL, 0, 0 };
        dl_iterate_phdr(add_name, &ns);
        for (size_t i = 0; i < ns.n; i++) {
            if (!p) {
                void *h = dlopen(ns.v[i], RTLD_LAZY | RTLD_NOLOAD);
                if (h) {
                    p = dlsym(h, sym);
                    dlclose(h);
                }
            }
            free(ns.v[i]);
        }
        free(ns.v);
    }
    sim_twin_fn f;
    memcpy(&f, &p, sizeof f);
    return f;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;      /* grows with every load */
    return 1;
}

unsigned long long sim_objects_loaded(void)
{
    unsigned long long n = 0;
    dl_iterate_phdr(first_object, &n);
    return n;
}
