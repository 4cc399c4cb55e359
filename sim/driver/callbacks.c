/* CUPTI callbacks of the simulated driver: the one subscriber, the enable
 * bits, API and resource callbacks, and the sim-private export table that
 * the sim's libcupti and libcudart reach through cuGetExportTable (see
 * sim/cupti/simcb.h for the contract).
 *
 * Cost of an API call no callback is enabled for: every generated wrapper
 * (cbwrap.c) reads its enable bit once and calls the implementation.  Callbacks are never
 * issued with the driver's lock held, and not for the CUDA calls a
 * subscriber makes from inside its own callback (t_in_cb), so a callback
 * may call the driver without recursing. */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

atomic_uint sim_cb_active;

#define MAX_CBID SIMCB_MAX_CBID
#define WORDS SIMCB_WORDS
_Static_assert(CUPTI_DRIVER_TRACE_CBID_SIZE <= MAX_CBID && CUPTI_RUNTIME_TRACE_CBID_SIZE <= MAX_CBID &&
               CUPTI_CBID_RESOURCE_SIZE <= MAX_CBID && CUPTI_CBID_SYNCHRONIZE_SIZE <= MAX_CBID &&
               CUPTI_CBID_NVTX_SIZE <= MAX_CBID && CUPTI_CBID_STATE_SIZE <= MAX_CBID,
               "a CUPTI callback domain outgrew the enable bitmap");

static const uint32_t dom_size[CUPTI_CB_DOMAIN_SIZE] = {
    [CUPTI_CB_DOMAIN_DRIVER_API] = CUPTI_DRIVER_TRACE_CBID_SIZE,
    [CUPTI_CB_DOMAIN_RUNTIME_API] = CUPTI_RUNTIME_TRACE_CBID_SIZE,
    [CUPTI_CB_DOMAIN_RESOURCE] = CUPTI_CBID_RESOURCE_SIZE,
    [CUPTI_CB_DOMAIN_SYNCHRONIZE] = CUPTI_CBID_SYNCHRONIZE_SIZE,
    [CUPTI_CB_DOMAIN_NVTX] = CUPTI_CBID_NVTX_SIZE,
    [CUPTI_CB_DOMAIN_STATE] = CUPTI_CBID_STATE_SIZE,
};

_Atomic uint64_t sim_cb_bits[CUPTI_CB_DOMAIN_SIZE][WORDS];
#define g_bits sim_cb_bits
static _Atomic(CUpti_CallbackFunc) g_fn;
static _Atomic(void *) g_ud;
static atomic_uint g_corr;
static pthread_mutex_t g_sub_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_held;                                       /* under g_sub_lock */
static char g_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN];  /* under g_sub_lock */
static __thread int t_in_cb;

/* SIMCUDA_CUPTI_OUTERMOST=1: no driver callback for a driver call made
 * inside a runtime call whose callback was delivered, as a CUPTI that
 * reports only the outermost API call would do (NVIDIA's documentation does
 * not say which it does); read at each subscription.  t_rt_depth: the
 * runtime calls open on this thread whose enter callback was delivered,
 * kept only then (by default a delivery pays a test of g_outermost, not a
 * TLS access: a few instructions per callback). */
static atomic_int g_outermost;
static __thread int t_rt_depth;

static int valid(CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
    return d > CUPTI_CB_DOMAIN_INVALID && d < CUPTI_CB_DOMAIN_SIZE && cbid > 0 && cbid < dom_size[d];
}

static int enabled(CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
    if (!valid(d, cbid))
        return 0;
    return (atomic_load_explicit(&g_bits[d][cbid / 64], memory_order_relaxed) >> (cbid % 64)) & 1;
}

int sim_cb_wanted(CUpti_CallbackDomain d, CUpti_CallbackId cbid)
{
    return enabled(d, cbid) && atomic_load_explicit(&sim_cb_active, memory_order_acquire) && !t_in_cb;
}

/* Calls the subscriber (if still there) with the thread marked as inside. */
static void deliver(CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
    CUpti_CallbackFunc fn = atomic_load_explicit(&g_fn, memory_order_acquire);
    if (!fn)
        return;
    t_in_cb++;
    fn(atomic_load_explicit(&g_ud, memory_order_acquire), d, cbid, data);
    t_in_cb--;
}

static void current_ctx(CUcontext *ctx, uint32_t *uid)
{
    struct sim_ctx *c = sim_cur_ctx_cached();
    *ctx = (CUcontext)c;
    *uid = c ? (uint32_t)c->id : 0;
}

static void api_enter(struct simcb_call *c, CUpti_CallbackDomain d, CUpti_CallbackId cbid,
                      const char *name, const void *params, void *retval, const char *symbol)
{
    c->delivered = 0;
    if (!sim_cb_wanted(d, cbid))
        return;
    if (__builtin_expect(atomic_load_explicit(&g_outermost, memory_order_relaxed), 0) && d == CUPTI_CB_DOMAIN_DRIVER_API && t_rt_depth > 0)
        return;
    memset(&c->data, 0, sizeof c->data);
    c->domain = d;
    c->cbid = cbid;
    c->corr_data = 0;
    c->data.callbackSite = CUPTI_API_ENTER;
    c->data.functionName = name;
    c->data.functionParams = params;
    c->data.functionReturnValue = retval;
    c->data.symbolName = symbol;
    c->data.correlationData = &c->corr_data;
    c->data.correlationId = atomic_fetch_add_explicit(&g_corr, 1, memory_order_relaxed) + 1;
    current_ctx(&c->data.context, &c->data.contextUid);
    c->delivered = 1;
    if (__builtin_expect(atomic_load_explicit(&g_outermost, memory_order_relaxed), 0) && d == CUPTI_CB_DOMAIN_RUNTIME_API) {
        c->delivered = 2;               /* api_exit closes the depth */
        t_rt_depth++;
    }
    deliver(d, cbid, &c->data);
}

static void api_exit(struct simcb_call *c)
{
    if (!c->delivered)
        return;
    if (__builtin_expect(c->delivered == 2, 0))
        t_rt_depth--;
    c->data.callbackSite = CUPTI_API_EXIT;
    current_ctx(&c->data.context, &c->data.contextUid);
    deliver(c->domain, c->cbid, &c->data);
}

void sim_cb_api_enter(struct simcb_call *c, CUpti_CallbackId cbid, const char *name,
                      const void *params, CUresult *retval, const char *symbol)
{
    api_enter(c, CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, retval, symbol);
}

void sim_cb_api_exit(struct simcb_call *c)
{
    api_exit(c);
}

void sim_cb_resource(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream)
{
    if (!sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, cbid))
        return;
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.context = ctx;
    rd.resourceHandle.stream = stream;
    deliver(CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

void sim_cb_module(CUpti_CallbackId cbid, CUcontext ctx, uint32_t id, const void *cubin, size_t size)
{
    if (!sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, cbid))
        return;
    CUpti_ModuleResourceData md = { .moduleId = id, .cubinSize = size, .pCubin = cubin };
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.context = ctx;
    rd.resourceDescriptor = &md;
    deliver(CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

/* ---- the table's functions ---- */

static int tab_subscribe(CUpti_CallbackFunc fn, void *ud, const char *name, char *held_by, size_t held_by_size)
{
    pthread_mutex_lock(&g_sub_lock);
    if (g_held) {
        if (held_by && held_by_size) {
            strncpy(held_by, g_name, held_by_size - 1);
            held_by[held_by_size - 1] = '\0';
        }
        pthread_mutex_unlock(&g_sub_lock);
        return -1;
    }
    g_held = 1;
    snprintf(g_name, sizeof g_name, "%s", name ? name : "");
    const char *o = getenv("SIMCUDA_CUPTI_OUTERMOST");
    atomic_store_explicit(&g_outermost, o && !strcmp(o, "1"), memory_order_relaxed);
    for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
        for (int w = 0; w < WORDS; w++)
            atomic_store_explicit(&g_bits[d][w], 0, memory_order_relaxed);
    atomic_store_explicit(&g_ud, ud, memory_order_relaxed);
    atomic_store_explicit(&g_fn, fn, memory_order_release);
    atomic_store_explicit(&sim_cb_active, 1, memory_order_release);
    pthread_mutex_unlock(&g_sub_lock);
    return 0;
}

static void tab_unsubscribe(void)
{
    pthread_mutex_lock(&g_sub_lock);
    atomic_store_explicit(&sim_cb_active, 0, memory_order_release);
    atomic_store_explicit(&g_fn, NULL, memory_order_release);
    g_held = 0;
    g_name[0] = '\0';
    pthread_mutex_unlock(&g_sub_lock);
}

static int tab_enable(CUpti_CallbackDomain d, CUpti_CallbackId cbid, int on)
{
    if (d <= CUPTI_CB_DOMAIN_INVALID || d >= CUPTI_CB_DOMAIN_SIZE)
        return -1;
    if (cbid == SIMCB_ALL) {
        for (uint32_t w = 0; w < WORDS; w++)
            atomic_store_explicit(&g_bits[d][w], on ? ~(uint64_t)0 : 0, memory_order_relaxed);
        return 0;
    }
    if (!valid(d, cbid))
        return -1;
    uint64_t bit = (uint64_t)1 << (cbid % 64);
    if (on)
        atomic_fetch_or_explicit(&g_bits[d][cbid / 64], bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&g_bits[d][cbid / 64], ~bit, memory_order_relaxed);
    return 0;
}

static int tab_get_enabled(CUpti_CallbackDomain d, CUpti_CallbackId cbid, uint32_t *on)
{
    if (!valid(d, cbid) || !on)
        return -1;
    *on = (uint32_t)enabled(d, cbid);
    return 0;
}

static CUresult tab_ctx_info(CUcontext ctx, uint32_t *device, uint32_t *uid)
{
    sim_lock();
    struct sim_ctx *c = ctx ? sim_obj_get(ctx, T_CTX) : sim_cur_ctx();
    if (c) {
        if (device)
            *device = (uint32_t)c->dev;
        if (uid)
            *uid = (uint32_t)c->id;
    }
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult tab_stream_info(CUcontext ctx, CUstream stream, int per_thread, uint32_t *id)
{
    unsigned long long sid = 0;
    CUcontext owner = NULL;
    /* internal calls: the implementations, no callbacks (see cbwrap.c) */
    CUresult r = per_thread ? cuStreamGetId_ptsz(stream, &sid) : cuStreamGetId(stream, &sid);
    if (r == CUDA_SUCCESS)
        r = per_thread ? cuStreamGetCtx_ptsz(stream, &owner) : cuStreamGetCtx(stream, &owner);
    if (r != CUDA_SUCCESS || (ctx && owner != ctx))
        return CUDA_ERROR_INVALID_HANDLE;
    *id = (uint32_t)sid;
    return CUDA_SUCCESS;
}

static const struct simcb_table g_table = {
    .size = sizeof(struct simcb_table),
    .version = SIMCB_VERSION,
    .active = &sim_cb_active,
    .subscribe = tab_subscribe,
    .unsubscribe = tab_unsubscribe,
    .enable = tab_enable,
    .get_enabled = tab_get_enabled,
    .ctx_info = tab_ctx_info,
    .stream_info = tab_stream_info,
    .api_enter = api_enter,
    .api_exit = api_exit,
    .bits = (const _Atomic uint64_t (*)[SIMCB_WORDS])sim_cb_bits,
};

/* NVIDIA's runtime and tools fetch private tables by UUID; the sim knows
 * only its own (NVIDIA's runtime cannot run on the sim: exporttab.c says so). */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    static const unsigned char uuid[16] = SIMCB_UUID_BYTES;
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    if (memcmp(pExportTableId->bytes, uuid, sizeof uuid) != 0) {
        *ppExportTable = NULL;
        sim_export_table_unknown(pExportTableId);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    *ppExportTable = &g_table;
    return CUDA_SUCCESS;
}
