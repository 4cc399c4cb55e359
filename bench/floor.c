/* floor: the cost floor of `make bench`, a pass-through shim on the entry
 * points devcheck hooks for a launch and an allocation, which only forwards:
 * the runtime's kernel launches (with libcudart's symbol versions), dlsym,
 * cuGetProcAddress(_v2), and the driver's launches, allocation and free
 * handed back in place of the driver's own (as devcheck's wrappers are).
 * What devcheck costs beyond this is its own work.  Bench only: dlsym with
 * RTLD_NEXT resolves relative to this object, not to its caller. */
#define __CUDA_API_VERSION_INTERNAL 1       /* the _v2 and _ptsz declarations */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "preload/rt_proto.h"               /* __cudaLaunchKernel, checked against the toolkit */
#include <dlfcn.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static void *(*real_dlsym)(void *, const char *);

static void bind_dlsym(void)
{
    if (!__atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE)) {
        void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!p)
            p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        __atomic_store_n(&real_dlsym, (void *(*)(void *, const char *))p, __ATOMIC_RELEASE);
    }
}

/* --- the driver's entry points, handed back wrapped ------------------------- */

#define DRIVER(X)                  \
    X(cuLaunchKernel)              \
    X(cuLaunchKernel_ptsz)         \
    X(cuLaunchKernelEx)            \
    X(cuLaunchKernelEx_ptsz)       \
    X(cuMemAlloc_v2)               \
    X(cuMemFree_v2)                \
    X(cuGetProcAddress)            \
    X(cuGetProcAddress_v2)

#define X(name) static __typeof__(&name) real_##name;
DRIVER(X)
#undef X

static CUresult CUDAAPI w_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                         unsigned by, unsigned bz, unsigned shm, CUstream s, void **p, void **e)
{
    return real_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shm, s, p, e);
}
static CUresult CUDAAPI w_cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                              unsigned by, unsigned bz, unsigned shm, CUstream s, void **p, void **e)
{
    return real_cuLaunchKernel_ptsz(f, gx, gy, gz, bx, by, bz, shm, s, p, e);
}
static CUresult CUDAAPI w_cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **e)
{
    return real_cuLaunchKernelEx(c, f, p, e);
}
static CUresult CUDAAPI w_cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **p, void **e)
{
    return real_cuLaunchKernelEx_ptsz(c, f, p, e);
}
static CUresult CUDAAPI w_cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return real_cuMemAlloc_v2(p, n); }
static CUresult CUDAAPI w_cuMemFree_v2(CUdeviceptr p) { return real_cuMemFree_v2(p); }
static void *substitute(void *p);
static CUresult CUDAAPI w_cuGetProcAddress(const char *sym, void **pfn, int v, cuuint64_t flags)
{
    CUresult r = real_cuGetProcAddress(sym, pfn, v, flags);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = substitute(*pfn);
    return r;
}
static CUresult CUDAAPI w_cuGetProcAddress_v2(const char *sym, void **pfn, int v, cuuint64_t flags,
                                              CUdriverProcAddressQueryResult *st)
{
    CUresult r = real_cuGetProcAddress_v2(sym, pfn, v, flags, st);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = substitute(*pfn);
    return r;
}

static const struct {
    const char *name;
    void **real;
    void *wrapper;
} table[] = {
#define X(name) { #name, (void **)&real_##name, (void *)w_##name },
    DRIVER(X)
#undef X
};
#define NTABLE (sizeof table / sizeof table[0])

/* Binds the real driver functions from the driver object `h` once. */
static void bind_driver(void *h)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (!__atomic_load_n(table[i].real, __ATOMIC_ACQUIRE))
            __atomic_store_n(table[i].real, real_dlsym(h, table[i].name), __ATOMIC_RELEASE);
}

static void *substitute(void *p)
{
    for (size_t i = 0; p && i < NTABLE; i++)
        if (__atomic_load_n(table[i].real, __ATOMIC_ACQUIRE) == p)
            return table[i].wrapper;
    return p;
}

/* dlsym@GLIBC_2.2.5 and dlsym@@GLIBC_2.34 */
void *floor_dlsym(void *h, const char *name);
EXPORT void *floor_dlsym(void *h, const char *name)
{
    bind_dlsym();
    void *p = real_dlsym(h, name);
    if (p && name && name[0] == 'c' && name[1] == 'u' && h != RTLD_NEXT && h != RTLD_DEFAULT) {
        bind_driver(h);
        p = substitute(p);
    }
    return p;
}
__asm__(".globl floor_dlsym_225\n.set floor_dlsym_225, floor_dlsym\n.symver floor_dlsym_225, dlsym@GLIBC_2.2.5\n");
__asm__(".globl floor_dlsym_34\n.set floor_dlsym_34, floor_dlsym\n.symver floor_dlsym_34, dlsym@@GLIBC_2.34\n");

/* --- the runtime's launches -------------------------------------------------- */

#define RT_REAL(name)                                                                 \
    static __typeof__(&name) real_##name;                                              \
    static __typeof__(&name) get_##name(void)                                          \
    {                                                                                  \
        __typeof__(&name) f = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);         \
        if (!f) {                                                                      \
            bind_dlsym();                                                              \
            f = (__typeof__(&name))dlvsym(RTLD_NEXT, #name, "libcudart.so.13");        \
            __atomic_store_n(&real_##name, f, __ATOMIC_RELEASE);                       \
        }                                                                              \
        return f;                                                                      \
    }
RT_REAL(__cudaLaunchKernel)
RT_REAL(__cudaLaunchKernel_ptsz)
RT_REAL(cudaLaunchKernel)

EXPORT cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t shm, cudaStream_t s)
{
    return get___cudaLaunchKernel()(k, g, b, a, shm, s);
}
EXPORT cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t shm,
                                                     cudaStream_t s)
{
    return get___cudaLaunchKernel_ptsz()(k, g, b, a, shm, s);
}
EXPORT cudaError_t CUDARTAPI cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t shm, cudaStream_t s)
{
    return get_cudaLaunchKernel()(f, g, b, a, shm, s);
}
