/* core.c: driver binding, initialisation, primary contexts, per-thread state
 * and errors.
 *
 * Initialisation follows NVIDIA's runtime: dlopen("libcuda.so.1", RTLD_NOW),
 * dlsym("cuGetProcAddress_v2"), then every entry point of drv.def through
 * cuGetProcAddress with its introduction version, so an interposer wrapping
 * dlsym / cuGetProcAddress sees the traffic of a real machine.  It runs once,
 * lazily (pthread_once), from whichever API call comes first. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"

struct rt_drv rt_drv;
int rt_ndev;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_status = cudaErrorInitializationError;
static CUdevice *cudevs;

/* Primary contexts we retained, per device ordinal (guarded by prim_lock). */
static pthread_mutex_t prim_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext *prim;

struct rt_thread {
    int dev;                 /* cudaSetDevice's device, -1 if never set */
    cudaError_t last;        /* cudaGetLastError */
};
static __thread struct rt_thread tls = { -1, cudaSuccess };

void rt_warn_once(int *flag, const char *fmt, ...)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "simcuda runtime: ");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof buf)
        n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf - 1)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(2, buf, (size_t)n); /* one write: lines never interleave */
    (void)w;
}

CUresult rt_drv_missing(const char *name)
{
    /* Names are string literals: the pointer identifies the call site's
     * entry point.  A small table is enough; past it we still warn. */
    static const char *seen[64];
    static int nseen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int fresh = 1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == name || strcmp(seen[i], name) == 0)
            fresh = 0;
    if (fresh && nseen < (int)(sizeof seen / sizeof seen[0]))
        seen[nseen++] = name;
    pthread_mutex_unlock(&lock);
    if (fresh) {
        int flag = 0;
        rt_warn_once(&flag, "driver entry point %s is not available: returning cudaErrorNotSupported", name);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}

static _Atomic(PFN_cuGetProcAddress_v12000) driver_gpa;

PFN_cuGetProcAddress_v12000 rt_driver_gpa(void *h)
{
    PFN_cuGetProcAddress_v12000 gpa = atomic_load_explicit(&driver_gpa, memory_order_acquire);
    if (!gpa) {
        gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
        atomic_store_explicit(&driver_gpa, gpa, memory_order_release);
    }
    return gpa;
}

static cudaError_t bind_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h)
        return cudaErrorInsufficientDriver;
    PFN_cuGetProcAddress_v12000 gpa = rt_driver_gpa(h);
    if (!gpa)
        return cudaErrorInsufficientDriver;
    /* NVIDIA's runtime first probes with an empty name, then asks for cuInit
     * and for cuGetProcAddress itself, which it uses from then on. */
    void *pfn = NULL;
    (void)gpa("", &pfn, 0, CU_GET_PROC_ADDRESS_DEFAULT, NULL);
    pfn = NULL;
    if (gpa("cuInit", &pfn, 2000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS)
        rt_drv.p_cuInit = (PFN_cuInit_v2000)pfn;
    pfn = NULL;
    if (gpa("cuGetProcAddress", &pfn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS && pfn)
        gpa = (PFN_cuGetProcAddress_v12000)pfn;
    rt_drv.p_cuGetProcAddress = gpa;
#define D(n, v) \
    pfn = NULL; \
    if (!rt_drv.p_##n && gpa(#n, &pfn, v, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS) \
        rt_drv.p_##n = (PFN_##n##_v##v)pfn;
#define T(n, v) \
    pfn = NULL; \
    if (gpa(#n, &pfn, v, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL) == CUDA_SUCCESS) \
        rt_drv.t_##n = (PFN_##n##_v##v##_ptsz)pfn;
#define S(n, v) \
    pfn = NULL; \
    if (gpa(#n, &pfn, v, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL) == CUDA_SUCCESS) \
        rt_drv.t_##n = (PFN_##n##_v##v##_ptds)pfn;
#include "drv.def"
#undef D
#undef T
#undef S
    if (!rt_drv.p_cuInit || !rt_drv.p_cuDeviceGetCount || !rt_drv.p_cuDeviceGet)
        return cudaErrorInsufficientDriver;
    return cudaSuccess;
}

static void do_init(void)
{
    cudaError_t e = bind_driver();
    if (e != cudaSuccess) {
        init_status = e;
        return;
    }
    int ver = 0;
    if (CU(cuDriverGetVersion, &ver) != CUDA_SUCCESS || ver < CUDART_VERSION) {
        init_status = cudaErrorInsufficientDriver;
        return;
    }
    CUresult r = CU(cuInit, 0);
    rt_fork_handlers_late();            /* after the driver registered its own */
    if (r != CUDA_SUCCESS) {
        init_status = r == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice : rt_err(r);
        return;
    }
    int n = 0;
    r = CU(cuDeviceGetCount, &n);
    if (r != CUDA_SUCCESS) {
        init_status = rt_err(r);
        return;
    }
    if (n <= 0) {
        init_status = cudaErrorNoDevice;
        return;
    }
    cudevs = calloc((size_t)n, sizeof *cudevs);
    prim = calloc((size_t)n, sizeof *prim);
    if (!cudevs || !prim) {
        init_status = cudaErrorMemoryAllocation;
        return;
    }
    for (int i = 0; i < n; i++) {
        r = CU(cuDeviceGet, &cudevs[i], i);
        if (r != CUDA_SUCCESS) {
            init_status = rt_err(r);
            return;
        }
    }
    rt_ndev = n;
    init_status = cudaSuccess;
}

/* After fork() a child of an initialised process gets
 * cudaErrorInitializationError from every call, as with NVIDIA's runtime:
 * the driver's state (and its locks) belong to the parent. */
static int init_done, forked_child;

cudaError_t rt_init(void)
{
    if (__atomic_load_n(&forked_child, __ATOMIC_RELAXED))
        return cudaErrorInitializationError;
    pthread_once(&init_once, do_init);
    __atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
    return init_status;
}

int rt_forked_child(void) { return __atomic_load_n(&forked_child, __ATOMIC_RELAXED); }

int rt_driver_bound(void)
{
    return __atomic_load_n(&init_done, __ATOMIC_ACQUIRE) && init_status == cudaSuccess;
}

void rt_fork_prepare(void) { pthread_mutex_lock(&prim_lock); }
void rt_fork_parent(void) { pthread_mutex_unlock(&prim_lock); }
void rt_fork_child(void)
{
    pthread_mutex_unlock(&prim_lock);
    if (__atomic_load_n(&init_done, __ATOMIC_ACQUIRE))
        forked_child = 1;
}

CUdevice rt_cudev(int dev) { return cudevs[dev]; }

int rt_valid_device(int dev) { return dev >= 0 && dev < rt_ndev; }

int rt_ordinal(CUdevice d)
{
    for (int i = 0; i < rt_ndev; i++)
        if (cudevs[i] == d)
            return i;
    return -1;
}

cudaError_t rt_primary(int dev, CUcontext *out)
{
    RT_TRY(rt_init());
    if (!rt_valid_device(dev))
        return cudaErrorInvalidDevice;
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&prim_lock);
    if (!prim[dev]) {
        CUcontext c = NULL;
        e = rt_err(CU(cuDevicePrimaryCtxRetain, &c, cudevs[dev]));
        if (e == cudaSuccess)
            prim[dev] = c;
    }
    *out = prim[dev];
    pthread_mutex_unlock(&prim_lock);
    return e;
}

void rt_primary_forget(int dev)
{
    pthread_mutex_lock(&prim_lock);
    if (rt_valid_device(dev))
        prim[dev] = NULL;
    pthread_mutex_unlock(&prim_lock);
}

void rt_set_thread_device(int dev) { tls.dev = dev; }

cudaError_t rt_ctx(void)
{
    RT_TRY(rt_init());
    CUcontext cur = NULL;
    if (CU(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && cur)
        return cudaSuccess;
    CUcontext c = NULL;
    cudaError_t e = rt_primary(tls.dev < 0 ? 0 : tls.dev, &c);
    if (e != cudaSuccess)
        return e;
    return rt_err(CU(cuCtxSetCurrent, c));
}

cudaError_t rt_current_device(int *dev)
{
    RT_TRY(rt_init());
    CUcontext cur = NULL;
    CUdevice d;
    if (CU(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && cur && CU(cuCtxGetDevice, &d) == CUDA_SUCCESS) {
        int o = rt_ordinal(d);
        if (o >= 0) {
            *dev = o;
            return cudaSuccess;
        }
    }
    *dev = tls.dev < 0 ? 0 : tls.dev;
    return cudaSuccess;
}

/* ---- errors ------------------------------------------------------------ */

struct rt_error { cudaError_t code; const char *name, *text; };
static const struct rt_error errors[] = {
#define RT_ERROR(name, value, text) { (cudaError_t)(value), #name, text },
#include "rt_errors.h"
#undef RT_ERROR
};

static const struct rt_error *find_error(int code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if ((int)errors[i].code == code)
            return &errors[i];
    return NULL;
}

cudaError_t rt_err(CUresult r)
{
    if (r == CUDA_SUCCESS)
        return cudaSuccess;
    /* Since CUDA 10.1 the two enums share every code they have in common
     * (CUDA_ERROR_ILLEGAL_ADDRESS 700 = cudaErrorIllegalAddress, OUT_OF_MEMORY
     * 2 = cudaErrorMemoryAllocation, INVALID_HANDLE 400 =
     * cudaErrorInvalidResourceHandle, NOT_FOUND 500 = cudaErrorSymbolNotFound,
     * INVALID_CONTEXT 201 = cudaErrorDeviceUninitialized, ...).  Driver codes
     * with no runtime counterpart become cudaErrorUnknown. */
    const struct rt_error *e = find_error((int)r);
    return e ? e->code : cudaErrorUnknown;
}

/* Errors after which the context is unusable: they stay (sticky). */
static int sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
        return 1;
    default:
        return 0;
    }
}

cudaError_t rt_ret(cudaError_t e)
{
    if (e != cudaSuccess && e != cudaErrorNotReady && !sticky(tls.last))
        tls.last = e;
    return e;
}

void rt_clear_thread_error(void) { tls.last = cudaSuccess; }

RT_API cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls.last;
    if (!sticky(e))
        tls.last = cudaSuccess;
    return e;
}

RT_API cudaError_t cudaPeekAtLastError(void) { return tls.last; }

RT_API const char *cudaGetErrorName(cudaError_t error)
{
    const struct rt_error *e = find_error((int)error);
    return e ? e->name : "unrecognized error code";
}

RT_API const char *cudaGetErrorString(cudaError_t error)
{
    const struct rt_error *e = find_error((int)error);
    return e ? e->text : "unrecognized error code";
}

RT_API cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return rt_ret(cudaErrorInvalidValue);
    *driverVersion = 0; /* no driver: 0 and success, as NVIDIA's runtime */
    cudaError_t e = rt_init();
    if (e == cudaErrorInsufficientDriver && !rt_drv.p_cuDriverGetVersion)
        return cudaSuccess;
    if (rt_drv.p_cuDriverGetVersion)
        return rt_ret(rt_err(CU(cuDriverGetVersion, driverVersion)));
    return cudaSuccess;
}

RT_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return rt_ret(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

static cudaError_t entry_point(const char *symbol, void **funcPtr, int version,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status, int pt)
{
    if (!symbol || !funcPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    if (pt && (flags & (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)) == 0)
        flags |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = CU(cuGetProcAddress, symbol, funcPtr, version, (cuuint64_t)flags, &st);
    if (status)
        *status = (enum cudaDriverEntryPointQueryResult)st;
    return rt_ret(rt_err(r));
}

RT_API cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                           enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, 0);
}

RT_API cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                                enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, 1);
}

RT_API cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus, 0);
}

RT_API cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
                                                         unsigned int cudaVersion, unsigned long long flags,
                                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus, 1);
}
