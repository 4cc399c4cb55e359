/* interpose: binding the real CUDA functions of the hook table
 * (preload/hooks.def), and handing our wrappers to programs that ask for
 * entry points by name: dlsym and cuGetProcAddress substitution. */
#include "preload/preload.h"
#include "preload/arch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* --- the table --------------------------------------------------------- */

#define DC_DRV(name, req)  __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) __typeof__(&name) dc_real_##name;
#include "preload/hooks.def"

struct drv_entry {
    const char *name;
    void **real;            /* &dc_real_<name> */
    void *wrapper;          /* our exported definition */
    int required;
};

static const struct drv_entry drv_table[] = {
#define DC_DRV(name, req) { #name, (void **)&dc_real_##name, (void *)&name, req },
#include "preload/hooks.def"
};
#define N_DRV (sizeof drv_table / sizeof drv_table[0])

/* --- state --------------------------------------------------------------- */

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
void *(*dc_real_dlsym)(void *, const char *);   /* used by the dlsym stub (arch_<arch>.S) */
static char bind_error[256];
static struct dc_binding binding;

/* --- binding ------------------------------------------------------------- */

/* The dlsym path runs before a sanitizer runtime is initialised (ASan's own
 * start-up calls dlsym): no instrumentation there. */
#define DC_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

DC_NO_SANITIZE static void bind_dlsym(void)
{
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = dlvsym(RTLD_NEXT, "dlsym", DC_GLIBC_BASE);
    __atomic_store_n(&dc_real_dlsym, (void *(*)(void *, const char *))p, __ATOMIC_RELEASE);
}

/* Resolves every driver entry point of the table from libcuda.so.1, then the
 * core's own (core/driver.def).  Runs once, with the guard held (the loader
 * may run code that reaches our hooks). */
static void bind_driver(void)
{
    dc_guard++;
    if (!dc_real_dlsym)
        bind_dlsym();
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        const char *e = dlerror();
        snprintf(bind_error, sizeof bind_error, "%s", e ? e : "libcuda.so.1: cannot open");
        binding.error = bind_error;
    } else if (dc_real_dlsym) {
        const char *missing = NULL;
        for (size_t i = 0; i < N_DRV; i++) {
            void *p = dc_real_dlsym(libcuda, drv_table[i].name);
            __atomic_store_n(drv_table[i].real, p, __ATOMIC_RELEASE);
            if (!p && drv_table[i].required && !missing)
                missing = drv_table[i].name;
            binding.hooked++;
            binding.present += p != NULL;
        }
        const char *own = dc_driver_bind(libcuda, dc_real_dlsym, dc_resolve_rt);
        binding.missing = missing ? missing : own;
    }
    binding.libcuda = libcuda;
    dc_guard--;
}

const struct dc_binding *dc_bind_driver(void)
{
    pthread_once(&bind_once, bind_driver);
    return &binding;
}

/* Needs only the real dlsym (not bind_once, which a fork may have left
 * half-run in a child). */
void *dc_resolve_rt(const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    if (!dc_real_dlsym)
        return NULL;
    dc_guard++;
    void *p = dc_real_dlsym(RTLD_NEXT, name);
    dc_guard--;
    return p;
}

void *dc_substitute(void *p)
{
    if (!p || !__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE))
        return p;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && *drv_table[i].real == p)
            return drv_table[i].wrapper;
    return p;
}

/* --- dlsym ------------------------------------------------------------------ */

/* Called by the dlsym entry stub (arch_<arch>.S).  Returns the wrapper to
 * hand back, or NULL: the stub then jumps to the real dlsym with the caller's
 * own return address (RTLD_NEXT is relative to the caller, so the real dlsym
 * must see it).
 * Substitutes only exact names of hooked driver entry points, and only when
 * the lookup would have returned the driver's own function. */
DC_NO_SANITIZE static int same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

DC_NO_SANITIZE static const struct drv_entry *hooked_entry(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u' || name[2] < 'A' || name[2] > 'Z')
        return NULL;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && same_name(drv_table[i].name, name))
            return &drv_table[i];
    return NULL;
}

void *dc_dlsym_subst(void *handle, const char *name);
DC_NO_SANITIZE void *dc_dlsym_subst(void *handle, const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    const struct drv_entry *e = hooked_entry(name);
    if (!e || dc_guard || !dc_enter_slow())
        return NULL;
    dc_guard++;
    void *p = dc_real_dlsym ? dc_real_dlsym(handle, name) : NULL;
    dc_guard--;
    return p && p == *e->real ? e->wrapper : NULL;
}

/* The exported dlsym, dlsym@@GLIBC_2.34 and dlsym@<the architecture's base
 * version>, is an entry stub in assembly, preload/arch_<arch>.S: it calls
 * dc_dlsym_subst and, when that returns NULL, jumps to dc_real_dlsym with the
 * caller's return address (a true tail jump whatever the optimisation). */

/* --- cuGetProcAddress ----------------------------------------------------- */

/* Called with the caller's version and flags; if the driver answers with the
 * real variant X that the table hooks (_v2, _ptsz, ...), X's wrapper goes back
 * instead.  cudart asks for cuGetProcAddress itself and gets ours. */
DC_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                               cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    if (!dc_enter())
        return DC_REAL(cuGetProcAddress_v2, symbol, pfn, cudaVersion, flags, symbolStatus);
    CUresult r = DC_REAL(cuGetProcAddress_v2, symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = dc_substitute(*pfn);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    if (!dc_enter())
        return DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    CUresult r = DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = dc_substitute(*pfn);
    dc_leave();
    return r;
}

