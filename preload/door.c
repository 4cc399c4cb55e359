/* door: what a program gets when it asks for an entry point by name.  It
 * hands out our wrappers instead of the real functions: dlsym (the entry
 * stub, preload/arch_<arch>.S, asks dc_dlsym_subst), cuGetProcAddress(_v2)
 * and the runtime's cudaGetDriverEntryPoint*.
 *
 * Invariants:
 *  - A wrapper goes back only for the exact name of a hooked entry point, and
 *    only when the lookup found the very function the wrapper forwards to
 *    (the driver's own, a library's own definition): the real lookup runs
 *    first, with the caller's arguments, version and flags; any other answer
 *    goes back unchanged.
 *  - Nothing below the door uses it: the hook families know their real
 *    functions from the resolver (preload/resolve.h, preload/bind.h); the
 *    door uses their substitution tables (the driver hooks' wrappers here;
 *    hooks_lib.h's, hooks_cupti.h's and hooks_nvrtc.h's).
 *  - The dlsym path runs before a sanitizer runtime is initialised: no
 *    instrumentation there (DC_NO_SANITIZE), no allocation, and never the
 *    public dlsym (ours) from inside it. */
#include "preload/preload.h"
#include "preload/hooks_lib.h"
#include "preload/hooks_cupti.h"
#include "preload/hooks_nvrtc.h"

#include <dlfcn.h>
#include <string.h>

/* --- the driver's wrappers ------------------------------------------------------ */

static const struct drv_subst {
    const char *name;
    void **real;            /* &dc_real_<name> (preload/bind.h) */
    void *wrapper;          /* our exported definition */
} drv_table[] = {
#define DC_DRV(name, req) { #name, (void **)&dc_real_##name, (void *)&name },
#include "preload/hooks.def"
};
#define N_DRV (sizeof drv_table / sizeof drv_table[0])

/* The wrapper to hand back for a real driver pointer p, or p itself. */
static void *substitute(void *p)
{
    if (!p || !__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE))
        return p;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && *drv_table[i].real == p)
            return drv_table[i].wrapper;
    return p;
}

/* --- dlsym ------------------------------------------------------------------ */

/* What dc_dlsym_subst returns for "dlsym returns NULL" (the stub tests 1). */
#define DC_DLSYM_NULL ((void *)1)

DC_NO_SANITIZE static const struct drv_subst *hooked_entry(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u' || name[2] < 'A' || name[2] > 'Z')
        return NULL;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && dc_same_name(drv_table[i].name, name))
            return &drv_table[i];
    return NULL;
}

/* Library entry points handed out by dlsym (hooks_lib.h: JAX/XLA dlopen the
 * libraries RTLD_LOCAL and ask dlsym(handle, name)): 1 when `name` is one
 * devcheck hooks, with *answer what dlsym(handle, name) returns -- the
 * wrapper of the version the lookup found when it found the library's own
 * definition that devcheck binds, the lookup's own answer otherwise, NULL
 * when the library is not in the lookup's scope (as without devcheck); 0 for
 * any other name, and for handle RTLD_NEXT (the caller's own lookup
 * decides). */
static const struct lib_subst {
    const char *name;
    void *wrapper[2];           /* our entries, by version (lib_v); NULL for one devcheck only calls */
} lib_table[FN_COUNT] = {
#define DC_LIBFN(id, name) [FN_##name] = { #name, { (void *)&dc_lib_entry_##name, (void *)&dc_lib_old_##name } },
#define DC_LIBAUX(id, name) [FN_##name] = { #name, { NULL, NULL } },
#include "preload/hooks_lib.def"
};

DC_NO_SANITIZE static int lib_dlsym(void *handle, const char *name, void **answer)
{
    /* the libraries' names: cu<lower case> (cublas, cufft, cudnn; the
     * driver's are cu<upper case>), nccl */
    if (!name || !((name[0] == 'c' && name[1] == 'u' && name[2] >= 'a' && name[2] <= 'z') ||
                   (name[0] == 'n' && name[1] == 'c' && name[2] == 'c' && name[3] == 'l')))
        return 0;
    int i = 0;
    while (i < FN_COUNT && !(lib_table[i].wrapper[0] && dc_same_name(lib_table[i].name, name)))
        i++;
    void *(*real_dlsym)(void *, const char *) = __atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE);
    if (i == FN_COUNT || handle == RTLD_NEXT || dc_guard || !real_dlsym)
        return 0;
    dc_guard++;
    void *p = real_dlsym(handle, name);
    if (p == lib_table[i].wrapper[0])   /* the lookup reached our export: the scope after us decides */
        p = real_dlsym(RTLD_NEXT, name);
    dc_guard--;
    /* the entry of the version the lookup found */
    for (int v = 0; p && v < 2; v++)
        if (p == DC_LIB_REAL_SLOT(v, i, lib_table[i].name)) {
            p = lib_table[i].wrapper[v];
            break;
        }
    *answer = p;
    return 1;
}

/* An NVRTC entry point looked up by the program (cuda-bindings through
 * cuda-pathfinder, CuPy): our wrapper (preload/hooks_nvrtc.c), or NULL. */
DC_NO_SANITIZE static void *nvrtc_subst(void *handle, const char *name)
{
    dc_guard++;
    void *p = dc_real_dlsym ? dc_real_dlsym(handle, name) : NULL;
    dc_guard--;
    return p ? dc_nvrtc_substitute(name, p) : NULL;
}

/* Called by the dlsym entry stub (arch_<arch>.S).  Returns the wrapper to
 * hand back, DC_DLSYM_NULL for NULL (a library entry point that the lookup
 * would not have found without devcheck: dlerror is set), or NULL: the stub
 * then jumps to the real dlsym with the caller's own return address
 * (RTLD_NEXT is relative to the caller, so the real dlsym must see it).
 * Substitutes only exact names of hooked driver entry points, and only when
 * the lookup would have returned the driver's own function. */
void *dc_dlsym_subst(void *handle, const char *name);
DC_NO_SANITIZE void *dc_dlsym_subst(void *handle, const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        dc_bind_dlsym();
    void *lib;
    if (lib_dlsym(handle, name, &lib)) {        /* a library entry point */
        dc_start_if_cuda_loaded();
        return lib ? lib : DC_DLSYM_NULL;
    }
    const struct drv_subst *e = hooked_entry(name);
    if (!e) {
        if (!dc_guard && name && !strncmp(name, "cupti", 5)) {
            /* a CUPTI subscription looked up by the program (Proton) */
            dc_guard++;
            void *p = dc_real_dlsym ? dc_real_dlsym(handle, name) : NULL;
            dc_guard--;
            return p ? dc_cupti_substitute(name, p) : NULL;
        }
        if (!dc_guard && name && !strncmp(name, "nvrtc", 5))
            return nvrtc_subst(handle, name);
        dc_start_if_cuda_loaded();
        return NULL;
    }
    if (dc_guard || !dc_enter_slow())
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
        *pfn = substitute(*pfn);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    if (!dc_enter())
        return DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    CUresult r = DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = substitute(*pfn);
    dc_leave();
    return r;
}

/* --- the runtime's entry points to the driver (hooks.def's DC_RT_DOOR) ------------ */

/* The runtime's way to the driver: the real one runs with the guard held (so
 * our cuGetProcAddress passes through) and we substitute its answer.  One
 * entry per libcudart version (DC_RT_ENTRIES, preload/export.h), forwarding
 * to that runtime's own function. */
#define BODY static inline __attribute__((always_inline)) cudaError_t
#define ENTRY_POINT_HOOK(name, params, args)                              \
    BODY body_##name(int rt, DC_UNPAREN params)                           \
    {                                                                     \
        if (!dc_enter())                                                  \
            return DC_REAL_RT(rt, name, DC_UNPAREN args);                 \
        cudaError_t r = DC_REAL_RT(rt, name, DC_UNPAREN args);            \
        if (r == cudaSuccess && funcPtr)                                  \
            *funcPtr = substitute(*funcPtr);                              \
        dc_leave();                                                       \
        return r;                                                         \
    }                                                                     \
    DC_RT_ENTRIES(name, params, args)
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint_ptsz,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (symbol, funcPtr, cudaVersion, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion_ptsz,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (symbol, funcPtr, cudaVersion, flags, driverStatus))

/* Their symbol versions (the other runtime hooks' are hooks_runtime.c's). */
#define DC_RT_DOOR(name, since) DC_RT_SYMVER(name, since)
#include "preload/hooks.def"
