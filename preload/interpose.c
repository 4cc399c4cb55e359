/* interpose: binding the real CUDA functions of the hook table
 * (preload/hooks.def), and handing our wrappers to programs that ask for
 * entry points by name: dlsym and cuGetProcAddress substitution.
 *
 * Runtime entry points are found per runtime, never with dlsym(RTLD_NEXT):
 * that searches the global scope after us only, and a libcudart that arrived
 * as a dependency of an object loaded RTLD_LOCAL (dlopen's default,
 * ctypes.CDLL, every Python extension module) is not in it; a hook that then
 * returned an error without calling the runtime made <<<>>> launches vanish
 * (the error is discarded), even with mode=off.  A hook is exported once per
 * libcudart version node (name@@libcudart.so.13, name@libcudart.so.12,
 * name@libcudart.so.11.0), each a thin entry passing its runtime (enum dc_rt)
 * to the shared body, so the version the caller bound to is known; the real
 * function is that version's definition, looked up (dc_resolve_rt):
 *   1. in the object whose SONAME is the version node's name
 *      (dlopen(soname, RTLD_NOLOAD) finds RTLD_LOCAL objects too), with
 *      dlvsym(name, version);
 *   2. in any other loaded object that defines name@version itself (a
 *      runtime renamed by auditwheel, libcudart-1a2b3c4d.so.12);
 *   3. only when no runtime of that version is loaded (a caller bound without
 *      a version, e.g. dlsym(RTLD_DEFAULT), gets the default, .13): the newest
 *      runtime of another version, then dlsym(RTLD_NEXT) (a runtime without
 *      symbol versions).
 * So a CUDA 12 caller never reaches the .13 runtime, nor the reverse.  The
 * answer is cached per entry point and runtime; if nothing is found the hook
 * says so once on stderr and returns cudaErrorSymbolNotFound (dc_rt_missing).
 * Not handled: two copies of one runtime version from different files (the
 * first loaded gets both copies' calls), and a runtime unloaded and loaded
 * again (the cached pointer is the first's). */
#include "preload/preload.h"
#include "preload/arch.h"
#include "preload/yield.h"
#include "common/forklock.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the table --------------------------------------------------------- */

#define DC_DRV(name, req)  __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) __typeof__(&name) dc_real_##name[DC_NRT];
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

DC_NO_SANITIZE static void bind_dlsym(void)
{
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = dlvsym(RTLD_NEXT, "dlsym", DC_GLIBC_BASE);
    __atomic_store_n(&dc_real_dlsym, (void *(*)(void *, const char *))p, __ATOMIC_RELEASE);
}

/* Resolves every driver entry point of the table from libcuda.so.1, then the
 * core's own (core/base/cudacall.def).  Runs once, with the guard held (the loader
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

/* --- runtime entry points (see the top) -------------------------------------- */

/* The version node of each runtime, also its SONAME (NVIDIA's libcudart). */
static const char *const rt_version[DC_NRT] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" };

/* The link map of the object defining p, or NULL. */
static struct link_map *object_of(void *p)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!p || !dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP))
        return NULL;
    return lm;
}

/* name@version (version NULL: name, unversioned) as defined by the object h
 * itself (a handle's lookup also searches its dependencies, and an object's
 * own lookup may find us); NULL if that object does not define it. */
static void *own_definition(void *h, const char *name, const char *version)
{
    static struct link_map *self_lm;
    struct link_map *self = __atomic_load_n(&self_lm, __ATOMIC_RELAXED);
    if (!self)
        __atomic_store_n(&self_lm, self = object_of((void *)(uintptr_t)dc_resolve_rt), __ATOMIC_RELAXED);
    void *p = version ? dlvsym(h, name, version) : dc_real_dlsym ? dc_real_dlsym(h, name) : NULL;
    struct link_map *lm = NULL;
    if (!p || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || object_of(p) != lm || lm == self)
        return NULL;
    return p;
}

/* resolve_lock keeps the lookups (rare: the first call of each entry point
 * per runtime) out of a fork: the fork handlers take it, so no thread of ours
 * is inside dlopen when the process forks (a child would wait forever on the
 * loader's locks under ThreadSanitizer, whose own are not reset at fork).  A
 * lookup that finds it taken goes ahead without it: a thread running a
 * library's constructor holds the loader's lock, and must not wait for a
 * lookup that waits for that lock. */
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

void dc_resolve_fork_prepare(void) { pthread_mutex_lock(&resolve_lock); }
void dc_resolve_fork_parent(void) { pthread_mutex_unlock(&resolve_lock); }
void dc_resolve_fork_child(void) { dc_mutex_fork_child(&resolve_lock); }

/* The loaded objects: an address inside each (its first loaded segment),
 * those whose file name is `soname` first (NVIDIA's runtime is found by its
 * SONAME, libcudart.so.13); collected before any loader call (none may run
 * inside dl_iterate_phdr's callback). */
#define MAX_OBJECTS 512
struct objects {
    const char *soname;
    unsigned n, first;          /* [0, first): named soname */
    uintptr_t addr[MAX_OBJECTS];
};

static int list_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct objects *o = data;
    const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
    if (!b || o->n == MAX_OBJECTS)
        return 0;               /* the program itself, the vDSO, or no room left */
    uintptr_t a = 0;
    for (int i = 0; i < info->dlpi_phnum && !a; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    if (!a)
        return 0;
    if (!strcmp(b + 1, o->soname)) {
        if (o->first < o->n)                /* the first other one moves to the end */
            o->addr[o->n] = o->addr[o->first];
        o->n++;
        o->addr[o->first++] = a;
    } else {
        o->addr[o->n++] = a;
    }
    return 0;
}

static void *find_versioned(const char *soname, const char *name, const char *version)
{
    struct objects objs;
    void *p = NULL;
    void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);      /* by SONAME */
    if (h) {
        p = own_definition(h, name, version);
        dlclose(h);
        if (p)
            return p;
    }
    objs.soname = soname;
    objs.n = objs.first = 0;
    dl_iterate_phdr(list_object, &objs);
    for (unsigned i = 0; !p && i < objs.n; i++) {
        struct link_map *lm = object_of((void *)objs.addr[i]);
        if (!lm || !lm->l_name || !lm->l_name[0] || !(h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD)))
            continue;
        p = own_definition(h, name, version);
        dlclose(h);
    }
    return p;
}

void *dc_resolve_rt(int rt, const char *name)
{
    if (rt < 0 || rt >= DC_NRT || !name)
        return NULL;
    dc_guard++;
    int locked = pthread_mutex_trylock(&resolve_lock) == 0;
    void *p = find_versioned(rt_version[rt], name, rt_version[rt]);
    for (int other = 0; !p && other < DC_NRT; other++)
        if (other != rt)
            p = find_versioned(rt_version[other], name, rt_version[other]);
    if (locked)
        pthread_mutex_unlock(&resolve_lock);
    if (!p) {
        if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
            bind_dlsym();
        p = dc_real_dlsym ? dc_real_dlsym(RTLD_NEXT, name) : NULL;
    }
    dc_guard--;
    return p;
}

void *dc_resolve_lib(const char *soname, const char *name, const char *version)
{
    if (!soname || !name)
        return NULL;
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    dc_guard++;
    int locked = pthread_mutex_trylock(&resolve_lock) == 0;
    void *p = find_versioned(soname, name, version);
    if (locked)
        pthread_mutex_unlock(&resolve_lock);
    dc_guard--;
    return p;
}

void *dc_next_symbol(const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    return dc_real_dlsym ? dc_real_dlsym(RTLD_NEXT, name) : NULL;
}

cudaError_t dc_rt_missing(int rt, const char *name)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "devcheck: cannot find the real %s (%s) in this process; the call returns "
                         "cudaErrorSymbolNotFound (said once)\n",
                         name, rt >= 0 && rt < DC_NRT ? rt_version[rt] : "libcudart");
        if (n > 0) {
            ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)w;
        }
    }
    return cudaErrorSymbolNotFound;
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
 * hand back, DC_DLSYM_NULL for NULL (a library entry point that the lookup
 * would not have found without devcheck: dlerror is set), or NULL: the stub
 * then jumps to the real dlsym with the caller's own return address
 * (RTLD_NEXT is relative to the caller, so the real dlsym must see it).
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

/* An NVRTC entry point looked up by the program (cuda-bindings through
 * cuda-pathfinder, CuPy): our wrapper (preload/hooks_nvrtc.c), or NULL. */
DC_NO_SANITIZE static void *nvrtc_subst(void *handle, const char *name)
{
    dc_guard++;
    void *p = dc_real_dlsym ? dc_real_dlsym(handle, name) : NULL;
    dc_guard--;
    return p ? dc_nvrtc_substitute(name, p) : NULL;
}

void *dc_dlsym_subst(void *handle, const char *name);
DC_NO_SANITIZE void *dc_dlsym_subst(void *handle, const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    void *lib;
    if (dc_lib_dlsym(handle, name, &lib)) {     /* a library entry point (hooks_lib.c) */
        dc_start_if_cuda_loaded();
        return lib ? lib : DC_DLSYM_NULL;
    }
    const struct drv_entry *e = hooked_entry(name);
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

