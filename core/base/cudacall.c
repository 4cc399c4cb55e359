/* driver: devcheck's own CUDA calls (see driver.h): the guard, the binding
 * of core/base/cudacall.def, and the driver queries. */
#include "core/base/cudacall.h"
#include "report/gpus.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

__thread int dc_guard __attribute__((tls_model("initial-exec")));

#define DC_AUX(name, req) __typeof__(&name) dc_aux_##name;
#define DC_RTAUX(name)    __typeof__(&name) dc_aux_##name[DC_NRT];
#include "core/base/cudacall.def"

static const struct {
    const char *name;
    void **real;            /* &dc_aux_<name> */
    int required;
} table[] = {
#define DC_AUX(name, req) { #name, (void **)&dc_aux_##name, req },
#include "core/base/cudacall.def"
};
#define N_AUX (sizeof table / sizeof table[0])

/* The interposer's resolver of runtime entry points. */
static void *(*resolve)(int, const char *);

/* Does the driver's cuGetProcAddress deny `name` (an older driver, or an
 * entry point it hides)?  Asked by base name ("cuMemcpyHtoD" for
 * cuMemcpyHtoD_v2) at the toolkit's version; a driver without
 * cuGetProcAddress_v2 (before 12.0) denies nothing. */
static int denied(const char *name)
{
    char base[128];
    size_t n = strlen(name);
    if (n >= sizeof base)
        return 0;
    memcpy(base, name, n + 1);
    char *v = strrchr(base, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9')
        *v = 0;
    void *p = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    if (!dc_aux_cuGetProcAddress_v2)
        return 0;
    CUresult r = dc_aux_cuGetProcAddress_v2(base, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    return r != CUDA_SUCCESS || !p || status != CU_GET_PROC_ADDRESS_SUCCESS;
}

static int pageable_cache[DC_MAX_DEVICES];      /* 0 unknown, else value + 1 */

const char *dc_driver_bind(void *libcuda, void *(*sym)(void *handle, const char *name),
                           void *(*resolve_rt)(int rt, const char *name))
{
    const char *missing = NULL;
    for (int d = 0; d < DC_MAX_DEVICES; d++)        /* a driver's answers are its own */
        __atomic_store_n(&pageable_cache[d], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&resolve, resolve_rt, __ATOMIC_RELEASE);
    for (size_t i = 0; sym && libcuda && i < N_AUX; i++) {
        void *p = sym(libcuda, table[i].name);
        __atomic_store_n(table[i].real, p, __ATOMIC_RELEASE);
        if (!p && table[i].required == DC_REQUIRED && !missing)
            missing = table[i].name;
    }
    /* an optional entry point the driver denies is absent: never called */
    for (size_t i = 0; sym && libcuda && i < N_AUX; i++)
        if (table[i].required == DC_OPTIONAL && *table[i].real &&
            table[i].real != (void **)&dc_aux_cuGetProcAddress_v2 && denied(table[i].name))
            __atomic_store_n(table[i].real, NULL, __ATOMIC_RELEASE);
    return missing;
}

static const struct dc_process_queries *process;    /* atomic */

void dc_process_bind(const struct dc_process_queries *q) { __atomic_store_n(&process, q, __ATOMIC_RELEASE); }
const struct dc_process_queries *dc_process_queries(void) { return __atomic_load_n(&process, __ATOMIC_ACQUIRE); }

void *dc_driver_resolve_rt(int rt, const char *name)
{
    void *(*r)(int, const char *) = __atomic_load_n(&resolve, __ATOMIC_ACQUIRE);
    return r && rt >= 0 && rt < DC_NRT ? r(rt, name) : NULL;
}

void *dc_driver_symbol(void)
{
    return (void *)__atomic_load_n(&dc_aux_cuMemAlloc_v2, __ATOMIC_ACQUIRE);
}

/* --- queries ------------------------------------------------------------------- */

int dc_driver_version(void)
{
    int v = 0;
    return DC_CALL(cuDriverGetVersion, &v) == CUDA_SUCCESS ? v : 0;
}

/* 0 not yet, 1 being read, 2 read: the devices are read once, when the
 * driver names at least one (the report asks before each new finding and at
 * exit, so a process that finds nothing before cuInit asks again later). */
static int devices_read;

void dc_devices_identify(void)
{
    int st = 0;
    if (!__atomic_compare_exchange_n(&devices_read, &st, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;                         /* read, or another thread is reading: its finding may lack them */
    dc_guard++;
    int n = 0;
    if (DC_CALL(cuDeviceGetCount, &n) != CUDA_SUCCESS)
        n = 0;
    for (int d = 0; d < n && d < DC_MAX_DEVICES; d++) {
        CUuuid u;
        char uuid[48] = "", pci[24] = "";
        CUresult r = DC_CALL(cuDeviceGetUuid_v2, &u, d);
        if (r == CUDA_ERROR_NOT_FOUND)
            r = DC_CALL(cuDeviceGetUuid, &u, d);
        const unsigned char *b = (const unsigned char *)u.bytes;
        if (r == CUDA_SUCCESS)      /* nvidia-smi's form; a MIG instance's UUID (_v2) is written alike */
            snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
        if (DC_CALL(cuDeviceGetPCIBusId, pci, (int)sizeof pci, d) != CUDA_SUCCESS)
            pci[0] = 0;
        dc_gpus_set(d, uuid, pci);
    }
    dc_guard--;
    if (n > 0)
        dc_gpus_complete();
    __atomic_store_n(&devices_read, n > 0 ? 2 : 0, __ATOMIC_RELEASE);
}

uint64_t dc_ctx_gen = 1;
int dc_ctx_tracked;
uint64_t dc_ctx_gone_gen = 1;              /* atomic: a context was destroyed or reset */
static __thread struct {
    uint64_t gen;                       /* dc_ctx_gen when filled (tracked) */
    int dev;
    uint64_t gone;                      /* dc_ctx_gone_gen when ctx -> cdev was filled */
    CUcontext ctx;
    int cdev;
    uint64_t ctx_gen;                   /* dc_ctx_gen when ctx was seen current (tracked) */
} tl_cur __attribute__((tls_model("initial-exec")));

void dc_ctx_current_changed(void) { __atomic_fetch_add(&dc_ctx_gen, 1, __ATOMIC_RELEASE); }
void dc_ctx_track(void)
{
    dc_ctx_current_changed();
    __atomic_store_n(&dc_ctx_tracked, 1, __ATOMIC_RELEASE);
}
void dc_ctx_gone_changed(void) { __atomic_fetch_add(&dc_ctx_gone_gen, 1, __ATOMIC_RELEASE); }

/* The device of the current context c (the thread's last one remembered:
 * a context never changes device, and a destroyed one's handle may be
 * reused, so a destroy forgets it). */
static int device_of_current(CUcontext c)
{
    uint64_t g = __atomic_load_n(&dc_ctx_gone_gen, __ATOMIC_ACQUIRE);
    if (tl_cur.ctx == c && tl_cur.gone == g)
        return tl_cur.cdev;
    CUdevice d;
    int dev = DC_CALL(cuCtxGetDevice, &d) == CUDA_SUCCESS ? (int)d : -1;
    tl_cur.ctx = c;
    tl_cur.gone = g;
    tl_cur.cdev = dev;
    return dev;
}

int dc_current_ctx_device(CUcontext c) { return c ? device_of_current(c) : -1; }

int dc_current_device(void)
{
    CUcontext c = NULL;
    return DC_CALL(cuCtxGetCurrent, &c) == CUDA_SUCCESS && c ? device_of_current(c) : -1;
}

int dc_current_device_tracked(void)
{
    uint64_t g = __atomic_load_n(&dc_ctx_gen, __ATOMIC_ACQUIRE);
    if (tl_cur.gen == g && __atomic_load_n(&dc_ctx_tracked, __ATOMIC_RELAXED))
        return tl_cur.dev;
    int dev = dc_current_device();
    tl_cur.gen = g;
    tl_cur.dev = dev;
    return dev;
}

int dc_current_ctx_tracked(CUcontext *out)
{
    uint64_t g = __atomic_load_n(&dc_ctx_gen, __ATOMIC_ACQUIRE);
    if (tl_cur.ctx && tl_cur.ctx_gen == g && __atomic_load_n(&dc_ctx_tracked, __ATOMIC_RELAXED) &&
        tl_cur.gone == __atomic_load_n(&dc_ctx_gone_gen, __ATOMIC_ACQUIRE)) {
        *out = tl_cur.ctx;
        return tl_cur.cdev;
    }
    CUcontext c = NULL;
    if (DC_CALL(cuCtxGetCurrent, &c) != CUDA_SUCCESS || !c) {
        *out = NULL;
        return -1;
    }
    int dev = device_of_current(c);
    tl_cur.ctx_gen = g;
    *out = c;
    return dev;
}

int dc_ctx_device(CUcontext ctx)
{
    CUcontext cur = NULL, popped;
    CUdevice d;
    if (!ctx)
        return dc_current_device();
    if (tl_cur.ctx == ctx && tl_cur.gone == __atomic_load_n(&dc_ctx_gone_gen, __ATOMIC_ACQUIRE))
        return tl_cur.cdev;             /* the thread's last context: a context never changes device */
    if (DC_CALL(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && cur == ctx)
        return device_of_current(cur);
    if (DC_CALL(cuCtxPushCurrent_v2, ctx) != CUDA_SUCCESS)
        return -1;
    int dev = DC_CALL(cuCtxGetDevice, &d) == CUDA_SUCCESS ? (int)d : -1;
    DC_CALL(cuCtxPopCurrent_v2, &popped);
    return dev;
}

/* Each thread's last streams asked: a stream never changes context, and a
 * destroyed one's handle may be reused, so a destroy (dc_stream_gone, after
 * the real one returned) or a context's end makes every entry stale.  A
 * library call asks its stream's device per call: the driver's
 * cuStreamGetCtx was ~240 instructions of a cublasLtMatmul on the sim
 * (bench/libcalls.sh).  Only answers >= 0 are kept. */
#define STREAM_WAYS 4
uint64_t dc_stream_gen = 1;                /* atomic */
static __thread struct {
    CUstream s;
    uint64_t gen, gone;
    int dev;
} tl_stream[STREAM_WAYS] __attribute__((tls_model("initial-exec")));
static __thread unsigned tl_stream_next __attribute__((tls_model("initial-exec")));

void dc_stream_gone(void) { __atomic_fetch_add(&dc_stream_gen, 1, __ATOMIC_RELEASE); }

int dc_stream_device(CUstream s)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return dc_current_device();
    uint64_t g = __atomic_load_n(&dc_stream_gen, __ATOMIC_ACQUIRE);
    uint64_t gone = __atomic_load_n(&dc_ctx_gone_gen, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < STREAM_WAYS; i++)
        if (tl_stream[i].s == s && tl_stream[i].gen == g && tl_stream[i].gone == gone)
            return tl_stream[i].dev;
    CUcontext c = NULL;
    if (DC_CALL(cuStreamGetCtx, s, &c) != CUDA_SUCCESS || !c)
        return -1;
    int dev = dc_ctx_device(c);
    if (dev >= 0) {                     /* the generations read before asking: a destroy since makes it stale */
        unsigned i = tl_stream_next++ % STREAM_WAYS;
        tl_stream[i].s = s;
        tl_stream[i].gen = g;
        tl_stream[i].gone = gone;
        tl_stream[i].dev = dev;
    }
    return dev;
}

int dc_pageable_ok(int device)
{
    if (device < 0 || device >= DC_MAX_DEVICES)
        return 0;
    int v = __atomic_load_n(&pageable_cache[device], __ATOMIC_RELAXED);
    if (v)
        return v - 1;
    int attr = 0;
    if (DC_CALL(cuDeviceGetAttribute, &attr, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device) != CUDA_SUCCESS)
        attr = 0;
    attr = attr != 0;
    __atomic_store_n(&pageable_cache[device], attr + 1, __ATOMIC_RELAXED);
    return attr;
}

int dc_ptr_device(CUdeviceptr p)
{
    int ord = -1;
    if (DC_CALL(cuPointerGetAttribute, &ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) != CUDA_SUCCESS)
        return -1;
    return ord;
}

const char *dc_err_name(CUresult r)
{
    const char *n = NULL;
    if (DC_CALL(cuGetErrorName, r, &n) != CUDA_SUCCESS || !n)
        return "CUDA error";
    return n;
}
