/* module.c: the nvcc registration and launch path, and the runtime's
 * kernel-level entry points.
 *
 * nvcc's start-up code registers each translation unit's fatbin
 * (__cudaRegisterFatBinary), its kernels' host stubs (__cudaRegisterFunction)
 * and its variables (__cudaRegisterVar / __cudaRegisterManagedVar), before
 * main and without touching the driver.  The fatbin is loaded lazily with
 * cuLibraryLoadData the first time one of its kernels or variables is needed;
 * a kernel is the library's CUkernel (cudaKernel_t), which the driver launches
 * in the current context when handed to cuLaunchKernel as a CUfunction. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fatbinary_section.h>     /* __fatBinC_Wrapper_t */

#include "rt.h"
#include "rt_cb.h"

struct fatbin {
    const __fatBinC_Wrapper_t *wrap;
    CUlibrary lib;
    cudaError_t load_err;       /* cudaSuccess until a load failed */
    struct fatbin *next;
    /* its kernels and variables: unregistering a fatbin visits its own, not
     * every registered one (a torch process registers some 10^4 kernels in
     * 10^3 fatbins and unregisters each fatbin at exit) */
    struct func *funcs;
    struct var *vars;
};

struct func {                   /* a registered kernel host stub */
    const void *host;
    struct fatbin *fb;
    char *name;                 /* device (mangled) name */
    CUkernel kern;              /* NULL until first use */
    struct func *next, *knext;  /* by host stub, by kernel */
    struct func *fbnext;        /* the fatbin's */
};

struct var {                    /* a registered __device__ / __managed__ variable */
    const void *host;           /* host shadow; for managed: the void** slot */
    struct fatbin *fb;
    char *name;
    size_t size;
    int managed;
    CUdeviceptr *local;         /* fallback storage per device ordinal (see var_addr) */
    struct var *next;
    struct var *fbnext;         /* the fatbin's */
};

#define NBUCKET 1024u
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fatbin *fatbins;
static struct func *funcs[NBUCKET], *kernels[NBUCKET];
static struct var *vars[NBUCKET];

/* fork(): the module lock is taken before the driver's lock in normal
 * operation (loading a module calls the driver), so a fork must take them in
 * that order too.  Prepare handlers run in reverse order of registration and
 * the driver registers its own at cuInit, so the runtime registers twice: in
 * its constructor (before any registration can take the lock) and again once
 * the driver is initialised (rt_fork_handlers_late); from then on the late
 * handlers, which run first, do the work and the early ones stand aside.
 * glibc holds its atfork lock across a fork's handlers, so the flags cannot
 * change between a prepare and its parent/child handler. */
static int late_handlers, early_locked;

static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
    rt_fork_prepare();
}

static void fork_parent(void)
{
    rt_fork_parent();
    pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
    rt_fork_child();
    pthread_mutex_unlock(&lock);
}

static void early_prepare(void)
{
    early_locked = !__atomic_load_n(&late_handlers, __ATOMIC_ACQUIRE);
    if (early_locked)
        fork_prepare();
}

static void early_parent(void)
{
    if (early_locked)
        fork_parent();
}

static void early_child(void)
{
    if (early_locked)
        fork_child();
}

/* Runs before the program's constructors (a library initialises before
 * the objects that depend on it), hence before any registration. */
__attribute__((constructor)) static void fork_handlers(void)
{
    pthread_atfork(early_prepare, early_parent, early_child);
}

void rt_fork_handlers_late(void)
{
    if (pthread_atfork(fork_prepare, fork_parent, fork_child) == 0)
        __atomic_store_n(&late_handlers, 1, __ATOMIC_RELEASE);
}

static unsigned bucket(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> 40) % NBUCKET;
}

static struct fatbin *handle_fatbin(void **h)
{
    for (struct fatbin *f = fatbins; f; f = f->next)
        if ((void **)f == h)
            return f;
    return NULL;
}

void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct fatbin *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->wrap = fatCubin;
    pthread_mutex_lock(&lock);
    f->next = fatbins;
    fatbins = f;
    pthread_mutex_unlock(&lock);
    return (void **)f;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) { (void)fatCubinHandle; }

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceName; (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    if (!hostFun || !deviceFun)
        return;
    struct func *fn = calloc(1, sizeof *fn);
    char *name = strdup(deviceFun);
    if (!fn || !name) {
        free(fn);
        free(name);
        return;
    }
    fn->host = hostFun;
    fn->name = name;
    pthread_mutex_lock(&lock);
    fn->fb = handle_fatbin(fatCubinHandle);
    if (!fn->fb) {
        pthread_mutex_unlock(&lock);
        free(name);
        free(fn);
        return;
    }
    unsigned b = bucket(hostFun);
    fn->next = funcs[b];
    funcs[b] = fn;
    fn->fbnext = fn->fb->funcs;
    fn->fb->funcs = fn;
    pthread_mutex_unlock(&lock);
}

static void add_var(void **h, const void *host, const char *name, size_t size, int managed)
{
    if (!host || !name)
        return;
    struct var *v = calloc(1, sizeof *v);
    char *n = strdup(name);
    if (!v || !n) {
        free(v);
        free(n);
        return;
    }
    v->host = host;
    v->name = n;
    v->size = size;
    v->managed = managed;
    pthread_mutex_lock(&lock);
    v->fb = handle_fatbin(h);
    if (!v->fb) {
        pthread_mutex_unlock(&lock);
        free(n);
        free(v);
        return;
    }
    unsigned b = bucket(host);
    v->next = vars[b];
    vars[b] = v;
    v->fbnext = v->fb->vars;
    v->fb->vars = v;
    pthread_mutex_unlock(&lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global)
{
    (void)deviceName; (void)ext; (void)constant; (void)global;
    add_var(fatCubinHandle, hostVar, deviceAddress, size, 0);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global)
{
    (void)deviceName; (void)ext; (void)constant; (void)global;
    add_var(fatCubinHandle, hostVarPtrAddress, deviceAddress, size, 1);
}

/* Load f's library if not yet loaded.  Called with lock held. */
static cudaError_t load_locked(struct fatbin *f)
{
    if (f->lib)
        return cudaSuccess;
    if (f->load_err != cudaSuccess)
        return f->load_err;
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return e;
    const void *image = f->wrap;
    if (f->wrap && f->wrap->magic == FATBINC_MAGIC && f->wrap->data)
        image = f->wrap->data;
    CUlibrary lib = NULL;
    CUresult r = CU(cuLibraryLoadData, &lib, image, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
        f->load_err = r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU
                          ? cudaErrorNoKernelImageForDevice : rt_err(r);
        return f->load_err;
    }
    f->lib = lib;
    return cudaSuccess;
}

/* Address and size of variable v in the current context.  The driver's
 * cuLibraryGetGlobal / cuLibraryGetManaged give it when the driver knows the
 * image's variables; when it answers CUDA_ERROR_NOT_FOUND for a variable
 * nvcc registered, the runtime backs the variable itself: zeroed device
 * memory per device (cuMemAlloc in the current context), or one managed
 * allocation.  Called with lock held and a current context. */
static cudaError_t var_addr(struct var *v, CUdeviceptr *addr, size_t *size)
{
    cudaError_t e = load_locked(v->fb);
    if (e != cudaSuccess)
        return e;
    CUdeviceptr p = 0;
    size_t sz = 0;
    CUresult r = v->managed ? CU(cuLibraryGetManaged, &p, &sz, v->fb->lib, v->name)
                            : CU(cuLibraryGetGlobal, &p, &sz, v->fb->lib, v->name);
    if (r == CUDA_SUCCESS) {
        *addr = p;
        *size = sz ? sz : v->size;
        return cudaSuccess;
    }
    if (r != CUDA_ERROR_NOT_FOUND || v->size == 0)
        return r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : rt_err(r);
    int dev = 0;
    if (!v->managed && (e = rt_current_device(&dev)) != cudaSuccess)
        return e;
    if (!v->local && !(v->local = calloc((size_t)rt_ndev, sizeof *v->local)))
        return cudaErrorMemoryAllocation;
    CUdeviceptr *slot = &v->local[v->managed ? 0 : dev];
    if (!*slot) {
        r = v->managed ? CU(cuMemAllocManaged, &p, v->size, CU_MEM_ATTACH_GLOBAL) : CU(cuMemAlloc, &p, v->size);
        if (r != CUDA_SUCCESS)
            return rt_err(r);
        if (CU(cuMemsetD8, p, 0, v->size) != CUDA_SUCCESS) {
            (void)CU(cuMemFree, p);
            return cudaErrorMemoryAllocation;
        }
        *slot = p;
    }
    *addr = *slot;
    *size = v->size;
    return cudaSuccess;
}

char __cudaInitModule(void **fatCubinHandle)
{
    char ok = 1;
    if (rt_ctx() != cudaSuccess)
        return 0;
    pthread_mutex_lock(&lock);
    struct fatbin *f = handle_fatbin(fatCubinHandle);
    if (!f || load_locked(f) != cudaSuccess) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    /* Point every managed variable's host slot at its managed memory. */
    for (struct var *v = f->vars; v; v = v->fbnext) {
        if (!v->managed)
            continue;
        CUdeviceptr p = 0;
        size_t sz = 0;
        if (var_addr(v, &p, &sz) == cudaSuccess)
            *(void **)(uintptr_t)v->host = (void *)(uintptr_t)p;
        else
            ok = 0;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    /* A forked child exiting through exit() runs the atexit handler that
     * calls this: leave the parent's driver state alone. */
    if (rt_forked_child())
        return;
    pthread_mutex_lock(&lock);
    struct fatbin **pp = &fatbins, *f = NULL;
    for (; *pp; pp = &(*pp)->next)
        if ((void **)*pp == fatCubinHandle) {
            f = *pp;
            *pp = f->next;
            break;
        }
    if (!f) {
        pthread_mutex_unlock(&lock);
        return;
    }
    for (struct func *fn = f->funcs, *fbnext; fn; fn = fbnext) {
        fbnext = fn->fbnext;
        for (struct func **fp = &funcs[bucket(fn->host)]; *fp; fp = &(*fp)->next)
            if (*fp == fn) {
                *fp = fn->next;
                break;
            }
        if (fn->kern) {
            for (struct func **kp = &kernels[bucket(fn->kern)]; *kp; kp = &(*kp)->knext)
                if (*kp == fn) {
                    *kp = fn->knext;
                    break;
                }
        }
        free(fn->name);
        free(fn);
    }
    for (struct var *v = f->vars, *fbnext; v; v = fbnext) {
        fbnext = v->fbnext;
        for (struct var **vp = &vars[bucket(v->host)]; *vp; vp = &(*vp)->next)
            if (*vp == v) {
                *vp = v->next;
                break;
            }
        free(v->local);
        free(v->name);
        free(v);
    }
    pthread_mutex_unlock(&lock);
    if (f->lib)
        (void)CU(cuLibraryUnload, f->lib);
    free(f);
}

cudaError_t rt_kernel(const void *func, CUkernel *out)
{
    *out = NULL;
    if (!func)
        return cudaErrorInvalidDeviceFunction;
    cudaError_t e = cudaErrorInvalidDeviceFunction;
    pthread_mutex_lock(&lock);
    struct func *fn = funcs[bucket(func)];
    while (fn && fn->host != func)
        fn = fn->next;
    if (fn) {
        e = cudaSuccess;
        if (!fn->kern) {
            e = load_locked(fn->fb);
            CUkernel k = NULL;
            if (e == cudaSuccess) {
                CUresult r = CU(cuLibraryGetKernel, &k, fn->fb->lib, fn->name);
                e = r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : rt_err(r);
            }
            if (e == cudaSuccess) {
                fn->kern = k;
                unsigned b = bucket(k);
                fn->knext = kernels[b];
                kernels[b] = fn;
            }
        }
        *out = fn->kern;
    } else {
        /* A cudaKernel_t we handed out is accepted in place of a stub. */
        for (struct func *k = kernels[bucket(func)]; k; k = k->knext)
            if ((const void *)k->kern == func) {
                *out = k->kern;
                e = cudaSuccess;
                break;
            }
    }
    pthread_mutex_unlock(&lock);
    return e;
}

const void *rt_kernel_host(CUkernel k)
{
    const void *host = k;
    pthread_mutex_lock(&lock);
    for (struct func *f = kernels[bucket(k)]; f; f = f->knext)
        if (f->kern == k) {
            host = f->host;
            break;
        }
    pthread_mutex_unlock(&lock);
    return host;
}

const char *rt_func_name(const void *func)
{
    const char *name = NULL;
    if (!func)
        return NULL;
    pthread_mutex_lock(&lock);
    for (struct func *fn = funcs[bucket(func)]; fn && !name; fn = fn->next)
        if (fn->host == func)
            name = fn->name;
    for (struct func *k = kernels[bucket(func)]; k && !name; k = k->knext)
        if ((const void *)k->kern == func)
            name = k->name;
    pthread_mutex_unlock(&lock);
    return name;
}

/* Remember a kernel obtained from a library the program loaded itself
 * (cudaLibraryGetKernel): cudaLaunchKernel and friends accept it. */
static void adopt_kernel(CUkernel k)
{
    if (!k)
        return;
    pthread_mutex_lock(&lock);
    struct func *f = kernels[bucket(k)];
    while (f && f->kern != k)
        f = f->knext;
    if (!f && (f = calloc(1, sizeof *f)) != NULL) {
        f->kern = k;
        unsigned b = bucket(k);
        f->knext = kernels[b];
        kernels[b] = f;
    }
    pthread_mutex_unlock(&lock);
}

cudaError_t rt_symbol(const void *symbol, struct rt_var_info *out)
{
    if (!symbol)
        return cudaErrorInvalidSymbol;
    pthread_mutex_lock(&lock);
    struct var *v = vars[bucket(symbol)];
    while (v && v->host != symbol)
        v = v->next;
    /* A __managed__ variable is named in host code by its managed memory
     * (nvcc rewrites `var` to `*slot`), so match the slot's contents too. */
    for (unsigned b = 0; !v && b < NBUCKET; b++)
        for (struct var *m = vars[b]; m && !v; m = m->next)
            if (m->managed && *(void *const *)m->host == symbol)
                v = m;
    cudaError_t e = cudaErrorInvalidSymbol;
    if (v)
        e = var_addr(v, &out->addr, &out->size);
    pthread_mutex_unlock(&lock);
    return e;
}

/* ---- call configuration (per thread) ------------------------------------ */

struct call_cfg { dim3 grid, block; size_t shmem; cudaStream_t stream; };
#define MAX_CFG 16
static __thread struct call_cfg cfgs[MAX_CFG];
static __thread int ncfg;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream)
{
    if (ncfg >= MAX_CFG) {
        rt_ret(cudaErrorInvalidConfiguration);
        return 1; /* non-zero: the generated code skips the launch */
    }
    cfgs[ncfg++] = (struct call_cfg){ gridDim, blockDim, sharedMem, stream };
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    if (ncfg <= 0)
        return rt_ret(cudaErrorInvalidConfiguration);
    struct call_cfg c = cfgs[--ncfg];
    if (gridDim)
        *gridDim = c.grid;
    if (blockDim)
        *blockDim = c.block;
    if (sharedMem)
        *sharedMem = c.shmem;
    if (stream)
        *(cudaStream_t *)stream = c.stream;
    return cudaSuccess;
}

/* ---- launches ----------------------------------------------------------- */

static cudaError_t check_config(dim3 g, dim3 b, size_t shmem)
{
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z)
        return cudaErrorInvalidConfiguration;
    if (g.y > 65535 || g.z > 65535 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
        (unsigned long long)b.x * b.y * b.z > 1024)
        return cudaErrorInvalidConfiguration;
    if (shmem > UINT_MAX)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* Programming Guide: a kernel launch into a stream that is not associated
 * with the current device fails.  The driver launches a CUkernel in any
 * stream's context (cuda.h), so a launch into another device's stream is
 * handed to it as the kernel's CUfunction of the current context, which the
 * driver refuses there (CUDA_ERROR_INVALID_HANDLE), after its callbacks. */
static CUfunction launch_handle(CUkernel k, cudaStream_t s)
{
    CUfunction f = (CUfunction)(void *)k;   /* the driver accepts a CUkernel here */
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread)
        return f;
    CUdevice sd, cd;
    CUfunction own;
    if (CU(cuStreamGetDevice, s, &sd) == CUDA_SUCCESS && CU(cuCtxGetDevice, &cd) == CUDA_SUCCESS && sd != cd &&
        CU(cuKernelGetFunction, &own, k) == CUDA_SUCCESS)
        return own;
    return f;
}

static cudaError_t launch(int pt, int coop, CUkernel k, dim3 g, dim3 b, void **args, size_t shmem,
                          cudaStream_t s)
{
    RT_TRY(rt_ctx());
    if (!k)
        return rt_ret(cudaErrorInvalidDeviceFunction);
    RT_TRY(check_config(g, b, shmem));
    CUfunction f = launch_handle(k, s);
    if (coop)
        return rt_ret(rt_err(CUPT(pt, cuLaunchCooperativeKernel, f, g.x, g.y, g.z, b.x, b.y, b.z,
                                  (unsigned)shmem, s, args)));
    return rt_ret(rt_err(CUPT(pt, cuLaunchKernel, f, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shmem, s,
                              args, NULL)));
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel)
        return rt_ret(cudaErrorInvalidValue);
    CUkernel k = NULL;
    cudaError_t e = rt_kernel(hostFun, &k);
    *kernel = k;
    return rt_ret(e);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    return launch(0, 0, kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return launch(1, 0, kernel, gridDim, blockDim, args, sharedMem, stream);
}

static cudaError_t launch_func(int pt, int coop, const void *func, dim3 g, dim3 b, void **args, size_t shmem,
                               cudaStream_t s)
{
    RT_TRY(rt_init());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    return launch(pt, coop, k, g, b, args, shmem, s);
}

RT_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                    cudaStream_t stream)
{
    return launch_func(0, 0, func, gridDim, blockDim, args, sharedMem, stream);
}

RT_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                         size_t sharedMem, cudaStream_t stream)
{
    return launch_func(1, 0, func, gridDim, blockDim, args, sharedMem, stream);
}

RT_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                               size_t sharedMem, cudaStream_t stream)
{
    return launch_func(0, 1, func, gridDim, blockDim, args, sharedMem, stream);
}

RT_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                                    size_t sharedMem, cudaStream_t stream)
{
    return launch_func(1, 1, func, gridDim, blockDim, args, sharedMem, stream);
}

_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "launch attribute layouts differ");
_Static_assert(sizeof(cudaLaunchAttributeValue) == sizeof(CUlaunchAttributeValue), "launch attribute layouts differ");
_Static_assert((int)cudaLaunchAttributeCooperative == (int)CU_LAUNCH_ATTRIBUTE_COOPERATIVE, "launch attribute ids differ");

static cudaError_t launch_ex(int pt, const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (!config || (config->numAttrs && !config->attrs))
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    RT_TRY(check_config(config->gridDim, config->blockDim, config->dynamicSmemBytes));
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = config->gridDim.x;
    c.gridDimY = config->gridDim.y;
    c.gridDimZ = config->gridDim.z;
    c.blockDimX = config->blockDim.x;
    c.blockDimY = config->blockDim.y;
    c.blockDimZ = config->blockDim.z;
    c.sharedMemBytes = (unsigned)config->dynamicSmemBytes;
    c.hStream = config->stream;
    CUlaunchAttribute *attrs = NULL;
    if (config->numAttrs) {
        /* The runtime's launch attributes are the driver's, id for id and
         * byte for byte (asserted above). */
        attrs = calloc(config->numAttrs, sizeof *attrs);
        if (!attrs)
            return rt_ret(cudaErrorMemoryAllocation);
        memcpy(attrs, config->attrs, config->numAttrs * sizeof *attrs);
    }
    c.attrs = attrs;
    c.numAttrs = config->numAttrs;
    cudaError_t e = rt_err(CUPT(pt, cuLaunchKernelEx, &c, launch_handle(k, config->stream), args, NULL));
    free(attrs);
    return rt_ret(e);
}

RT_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return launch_ex(0, config, func, args);
}

RT_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return launch_ex(1, config, func, args);
}

/* ---- kernel handles and attributes -------------------------------------- */

RT_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    if (!kernelPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(entryFuncAddr, &k));
    *kernelPtr = k;
    return cudaSuccess;
}

static cudaError_t function_of(const void *func, CUfunction *out)
{
    CUkernel k = NULL;
    cudaError_t e = rt_kernel(func, &k);
    if (e != cudaSuccess)
        return e;
    return rt_err(CU(cuKernelGetFunction, out, k));
}

RT_API cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    if (!functionPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUfunction f = NULL;
    RT_TRY(function_of(symbolPtr, &f));
    *functionPtr = f;
    return cudaSuccess;
}

RT_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUfunction f = NULL;
    RT_TRY(function_of(func, &f));
    memset(attr, 0, sizeof *attr);
    int v;
#define A(field, a) \
    if (CU(cuFuncGetAttribute, &v, CU_FUNC_ATTRIBUTE_##a, f) == CUDA_SUCCESS) attr->field = v;
#define Z(field, a) \
    if (CU(cuFuncGetAttribute, &v, CU_FUNC_ATTRIBUTE_##a, f) == CUDA_SUCCESS) attr->field = (size_t)v;
    Z(sharedSizeBytes, SHARED_SIZE_BYTES)
    Z(constSizeBytes, CONST_SIZE_BYTES)
    Z(localSizeBytes, LOCAL_SIZE_BYTES)
    A(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK)
    A(numRegs, NUM_REGS)
    A(ptxVersion, PTX_VERSION)
    A(binaryVersion, BINARY_VERSION)
    A(cacheModeCA, CACHE_MODE_CA)
    A(maxDynamicSharedSizeBytes, MAX_DYNAMIC_SHARED_SIZE_BYTES)
    A(preferredShmemCarveout, PREFERRED_SHARED_MEMORY_CARVEOUT)
    A(clusterDimMustBeSet, CLUSTER_SIZE_MUST_BE_SET)
    A(requiredClusterWidth, REQUIRED_CLUSTER_WIDTH)
    A(requiredClusterHeight, REQUIRED_CLUSTER_HEIGHT)
    A(requiredClusterDepth, REQUIRED_CLUSTER_DEPTH)
    A(clusterSchedulingPolicyPreference, CLUSTER_SCHEDULING_POLICY_PREFERENCE)
    A(nonPortableClusterSizeAllowed, NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
#undef A
#undef Z
    return cudaSuccess;
}

_Static_assert((int)cudaFuncAttributeMaxDynamicSharedMemorySize == (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
               (int)cudaFuncAttributePreferredSharedMemoryCarveout == (int)CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT &&
               (int)cudaFuncAttributeClusterSchedulingPolicyPreference == (int)CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
               "cudaFuncAttribute and CUfunction_attribute numbering differ");

RT_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    RT_TRY(rt_ctx());
    if ((int)attr < (int)cudaFuncAttributeMaxDynamicSharedMemorySize || (int)attr >= (int)cudaFuncAttributeMax)
        return rt_ret(cudaErrorInvalidValue);
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    int dev = 0;
    RT_TRY(rt_current_device(&dev));
    return rt_ret(rt_err(CU(cuKernelSetAttribute, (CUfunction_attribute)attr, value, k, rt_cudev(dev))));
}

static cudaError_t occupancy(int *numBlocks, const void *func, int blockSize, size_t dynSmem, unsigned flags)
{
    if (!numBlocks)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUfunction f = NULL;
    RT_TRY(function_of(func, &f));
    return rt_ret(rt_err(CU(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, numBlocks, f, blockSize,
                            dynSmem, flags)));
}

RT_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                            int numBlocks, int blockSize)
{
    if (!dynamicSmemSize)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUfunction f = NULL;
    RT_TRY(function_of(func, &f));
    return rt_ret(rt_err(CU(cuOccupancyAvailableDynamicSMemPerBlock, dynamicSmemSize, f, numBlocks, blockSize)));
}

RT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault);
}

RT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                          int blockSize, size_t dynamicSMemSize,
                                                                          unsigned int flags)
{
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

/* ---- names, parameters, cache preference -------------------------------- */

RT_API cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    if (!name)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    return rt_ret(rt_err(CU(cuKernelGetName, name, k)));
}

RT_API cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    RT_TRY(rt_init());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    return rt_ret(rt_err(CU(cuKernelGetParamInfo, k, paramIndex, paramOffset, paramSize)));
}

RT_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    RT_TRY(rt_ctx());
    CUkernel k = NULL;
    RT_TRY(rt_kernel(func, &k));
    int dev = 0;
    RT_TRY(rt_current_device(&dev));
    return rt_ret(rt_err(CU(cuKernelSetCacheConfig, k, (CUfunc_cache)cacheConfig, rt_cudev(dev))));
}

RT_API cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr, int value,
                                                   int device)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(device))
        return rt_ret(cudaErrorInvalidDevice);
    if (!kernel)
        return rt_ret(cudaErrorInvalidDeviceFunction);
    return rt_ret(rt_err(CU(cuKernelSetAttribute, (CUfunction_attribute)attr, value, kernel, rt_cudev(device))));
}

/* ---- libraries the program loads itself --------------------------------- */

_Static_assert(sizeof(enum cudaJitOption) == sizeof(CUjit_option) &&
               sizeof(enum cudaLibraryOption) == sizeof(CUlibraryOption), "option enum sizes differ");

RT_API cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                       void **jitOptionsValues, unsigned int numJitOptions,
                                       enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                       unsigned int numLibraryOptions)
{
    if (!library || !code)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    /* cudaJitOption / cudaLibraryOption share CUjit_option's and
     * CUlibraryOption's numbering and size. */
    return rt_ret(rt_err(CU(cuLibraryLoadData, library, code, (CUjit_option *)jitOptions, jitOptionsValues,
                            numJitOptions, (CUlibraryOption *)libraryOptions, libraryOptionValues,
                            numLibraryOptions)));
}

RT_API cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuLibraryUnload, library)));
}

RT_API cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    if (!pKernel || !name)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUkernel k = NULL;
    RT_TRY(rt_err(CU(cuLibraryGetKernel, &k, library, name)));
    adopt_kernel(k);
    *pKernel = k;
    return cudaSuccess;
}

RT_API cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    if (!count)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuLibraryGetKernelCount, count, lib)));
}

RT_API cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels_, unsigned int numKernels, cudaLibrary_t lib)
{
    if (!kernels_)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    RT_TRY(rt_err(CU(cuLibraryEnumerateKernels, kernels_, numKernels, lib)));
    for (unsigned i = 0; i < numKernels; i++)
        adopt_kernel(kernels_[i]);
    return cudaSuccess;
}
