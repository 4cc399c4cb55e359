/* resolve: where is the real definition of a name (preload/resolve.h has
 * the contract).  The lookups every hook family uses:
 *
 *  - by SONAME and symbol version (dc_resolve_lib, dc_resolve_rt): runtime
 *    entry points are found per runtime, never with dlsym(RTLD_NEXT): that
 *    searches the global scope after us only, and a libcudart that arrived
 *    as a dependency of an object loaded RTLD_LOCAL is not in it; a hook
 *    that then returned an error without calling the runtime made <<<>>>
 *    launches vanish (the error is discarded), even with mode=off.  A
 *    runtime hook is exported once per libcudart version node
 *    (name@@libcudart.so.13, name@libcudart.so.12, name@libcudart.so.11.0),
 *    so the version the caller bound to is known; its real function is that
 *    version's definition, looked up (dc_resolve_rt):
 *      1. in the object whose SONAME is the version node's name
 *         (dlopen(soname, RTLD_NOLOAD) finds RTLD_LOCAL objects too), with
 *         dlvsym(name, version);
 *      2. in any other loaded object that defines name@version itself (a
 *         runtime renamed by auditwheel, libcudart-1a2b3c4d.so.12);
 *      3. only when no runtime of that version is loaded (a caller bound
 *         without a version, e.g. dlsym(RTLD_DEFAULT), gets the default,
 *         .13): the newest runtime of another version, then
 *         dlsym(RTLD_NEXT) (a runtime without symbol versions).
 *    So a CUDA 12 caller never reaches the .13 runtime, nor the reverse.
 *    The libraries' (NVRTC, cuBLAS, libc10...) use steps 1 and 2 for their
 *    own SONAME and version (dc_resolve_lib).  Not handled: two copies of
 *    one version from different files (the first loaded gets both copies'
 *    calls), and a library unloaded and loaded again (the callers keep the
 *    first's pointer).
 *  - by a loaded object's lookup scope (dc_resolve_scope, dc_resolve_near):
 *    the libcupti a caller depends on, the size query beside an NVRTC
 *    function.
 *  - the driver (dc_resolve_driver, dc_resolve_in) and the global scope
 *    after us (dc_next_symbol, dc_next_versioned), with the real dlsym. */
#include "preload/resolve.h"
#include "preload/arch.h"
#include "core/core.h"
#include "common/forklock.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *(*dc_real_dlsym)(void *, const char *);   /* used by the dlsym stub (arch_<arch>.S) */

DC_NO_SANITIZE void dc_bind_dlsym(void)
{
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = dlvsym(RTLD_NEXT, "dlsym", DC_GLIBC_BASE);
    __atomic_store_n(&dc_real_dlsym, (void *(*)(void *, const char *))p, __ATOMIC_RELEASE);
}

/* --- the driver -------------------------------------------------------------- */

void *dc_resolve_driver(char *error, size_t len)
{
    if (!dc_real_dlsym)
        dc_bind_dlsym();
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        const char *e = dlerror();
        snprintf(error, len, "%s", e ? e : "libcuda.so.1: cannot open");
    }
    return libcuda;
}

void *dc_resolve_in(void *handle, const char *name)
{
    void *(*real_dlsym)(void *, const char *) = __atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE);
    return real_dlsym ? real_dlsym(handle, name) : NULL;
}

/* --- by SONAME and version (see the top) ---------------------------------------- */

/* The version node of each runtime, also its SONAME (NVIDIA's libcudart). */
static const char *const rt_version[DC_NRT] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" };

const char *dc_rt_soname(int rt)
{
    return rt >= 0 && rt < DC_NRT ? rt_version[rt] : "libcudart";
}

/* The link map of the object defining p, or NULL. */
static struct link_map *object_of(const void *p)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!p || !dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP))
        return NULL;
    return lm;
}

/* libdevcheck.so's own link map. */
static struct link_map *self_object(void)
{
    static struct link_map *self_lm;
    struct link_map *self = __atomic_load_n(&self_lm, __ATOMIC_RELAXED);
    if (!self)
        __atomic_store_n(&self_lm, self = object_of((const void *)(uintptr_t)dc_resolve_rt), __ATOMIC_RELAXED);
    return self;
}

/* name@version (version NULL: name, unversioned) as defined by the object h
 * itself (a handle's lookup also searches its dependencies, and an object's
 * own lookup may find us); NULL if that object does not define it. */
static void *own_definition(void *h, const char *name, const char *version)
{
    struct link_map *self = self_object();
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
            dc_bind_dlsym();
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
        dc_bind_dlsym();
    dc_guard++;
    int locked = pthread_mutex_trylock(&resolve_lock) == 0;
    void *p = find_versioned(soname, name, version);
    if (locked)
        pthread_mutex_unlock(&resolve_lock);
    dc_guard--;
    return p;
}

/* --- by a loaded object's lookup scope --------------------------------------------- */

/* `name` as the scope of the object opened by `file` finds it, not ours. */
static void *scope_lookup(const char *file, const char *name)
{
    void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *p = dc_resolve_in(h, name);
    dlclose(h);
    return p && object_of(p) != self_object() ? p : NULL;
}

void *dc_resolve_scope(const char *soname, const char *name)
{
    if (!soname || !name)
        return NULL;
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        dc_bind_dlsym();
    dc_guard++;
    void *p = scope_lookup(soname, name);
    dc_guard--;
    return p;
}

void *dc_resolve_near(const void *addr, const char *name)
{
    if (!name)
        return NULL;
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        dc_bind_dlsym();
    dc_guard++;
    struct link_map *lm = object_of(addr);
    void *p = NULL;
    if (lm && lm != self_object() && lm->l_name && lm->l_name[0])
        p = scope_lookup(lm->l_name, name);
    dc_guard--;
    return p;
}

/* --- the global scope after us ------------------------------------------------------ */

void *dc_next_symbol(const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        dc_bind_dlsym();
    return dc_real_dlsym ? dc_real_dlsym(RTLD_NEXT, name) : NULL;
}

void *dc_next_versioned(const char *name, const char *version)
{
    return dlvsym(RTLD_NEXT, name, version);
}
