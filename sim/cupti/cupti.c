/* The sim's libcupti.so.13: the CUPTI callback API over the simulated
 * driver.  Every function here has cupti.h's prototype and NVIDIA's
 * documented results; the state (subscriber, enable bits) lives in the sim's
 * libcuda.so.1, reached through its private export table (simcb.h).  Every
 * other name NVIDIA's libcupti exports is a stub from sim/gen_stubs.py
 * returning CUPTI_ERROR_NOT_SUPPORTED.
 *
 * No sim driver (dlopen("libcuda.so.1") fails, or the driver there does not
 * know the sim's export table, e.g. NVIDIA's): cuptiSubscribe(_v2) and the
 * queries return CUPTI_ERROR_NOT_INITIALIZED, nothing crashes. */
#include <cupti.h>
#include "simcb.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The handle a subscriber gets: one subscriber at a time, so one object. */
struct CUpti_Subscriber_st { int live; };
static struct CUpti_Subscriber_st g_sub;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct simcb_table *g_tab;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void attach(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h)
        return;
    CUresult (*get)(const void **, const CUuuid *) =
        (CUresult (*)(const void **, const CUuuid *))dlsym(h, "cuGetExportTable");
    if (!get)
        return;
    static const CUuuid id = { .bytes = SIMCB_UUID_BYTES };
    const void *t = NULL;
    if (get(&t, &id) != CUDA_SUCCESS || !t)
        return;
    const struct simcb_table *tab = t;
    if (tab->size < sizeof *tab || tab->version != SIMCB_VERSION)
        return;
    g_tab = tab;
}

/* The driver's table, or NULL when no sim driver can be reached. */
static const struct simcb_table *table(void)
{
    pthread_once(&g_once, attach);
    return g_tab;
}

static int live(CUpti_SubscriberHandle s)
{
    return s == &g_sub && __atomic_load_n(&g_sub.live, __ATOMIC_ACQUIRE);
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                       void *userdata, CUpti_SubscriberParams *pParams)
{
    if (!subscriber)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const char *user = NULL;
    char *old = NULL;
    size_t oldsize = 0;
    if (pParams) {
        size_t sz = pParams->structSize;
        if (sz == 0)
            return CUPTI_ERROR_INVALID_PARAMETER;
        if (sz >= CUPTI_CALLBACK_STRUCT_SIZE(CUpti_SubscriberParams, subscriberName))
            user = pParams->subscriberName;
        if (sz >= CUpti_SubscriberParams_STRUCT_SIZE) {
            old = pParams->oldSubscriberName;
            oldsize = pParams->oldSubscriberSize;
        }
    }
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    /* "CUPTI for <name>", the user part cut at CUPTI_SUBSCRIBER_NAME_MAX_LEN */
    char name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN];
    if (user)
        snprintf(name, sizeof name, "CUPTI for %.*s", CUPTI_SUBSCRIBER_NAME_MAX_LEN, user);
    else
        snprintf(name, sizeof name, "CUPTI");
    pthread_mutex_lock(&g_lock);
    if (t->subscribe(callback, userdata, name, old, old ? oldsize : 0) != 0) {
        pthread_mutex_unlock(&g_lock);
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    }
    __atomic_store_n(&g_sub.live, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
    *subscriber = &g_sub;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata)
{
    return cuptiSubscribe_v2(subscriber, callback, userdata, NULL);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&g_lock);
    if (!live(subscriber)) {
        pthread_mutex_unlock(&g_lock);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    t->unsubscribe();
    __atomic_store_n(&g_sub.live, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!live(subscriber) || cbid == SIMCB_ALL || t->enable(domain, cbid, enable != 0) != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!live(subscriber) || t->enable(domain, SIMCB_ALL, enable != 0) != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!live(subscriber))
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (int d = CUPTI_CB_DOMAIN_INVALID + 1; d < CUPTI_CB_DOMAIN_SIZE; d++)
        (void)t->enable((CUpti_CallbackDomain)d, SIMCB_ALL, enable != 0);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber,
                                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!enable || !live(subscriber) || t->get_enabled(domain, cbid, enable) != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
    if (!deviceId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    return t->ctx_info(context, deviceId, NULL) == CUDA_SUCCESS ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_DEVICE;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
    if (!contextId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!context || t->ctx_info(context, NULL, contextId) != CUDA_SUCCESS)
        return CUPTI_ERROR_INVALID_CONTEXT;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream, uint32_t *streamId)
{
    if (!streamId)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (t->stream_info(context, stream, perThreadStream != 0, streamId) != CUDA_SUCCESS)
        return CUPTI_ERROR_INVALID_STREAM;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t *streamId)
{
    return cuptiGetStreamIdEx(context, stream, 0, streamId);
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
    if (!version)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
    if (!timestamp)
        return CUPTI_ERROR_INVALID_PARAMETER;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return CUPTI_SUCCESS;
}

/* Detach: the subscriber (if any) is dropped and no callback follows. */
CUptiResult CUPTIAPI cuptiFinalize(void)
{
    const struct simcb_table *t = table();
    if (!t)
        return CUPTI_SUCCESS;
    pthread_mutex_lock(&g_lock);
    if (__atomic_load_n(&g_sub.live, __ATOMIC_ACQUIRE)) {
        t->unsubscribe();
        __atomic_store_n(&g_sub.live, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_lock);
    return CUPTI_SUCCESS;
}

/* Result names, generated from cupti_result.h (results_table.h). */
CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
    if (!str)
        return CUPTI_ERROR_INVALID_PARAMETER;
    switch (result) {
#define R(name) case name: *str = #name; return CUPTI_SUCCESS;
#include "results_table.h"
#undef R
    default:
        *str = NULL;
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
}

/* Names of driver and runtime callbacks (names_table.h, from the cbid
 * headers): the enumerator without its prefix, e.g. "cudaMalloc_v3020". */
static const struct cbname { CUpti_CallbackDomain domain; uint32_t cbid; const char *name; } cbnames[] = {
#define N(d, id, name) { d, id, name },
#include "names_table.h"
#undef N
};

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
    if (!name)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < sizeof cbnames / sizeof cbnames[0]; i++)
        if (cbnames[i].domain == domain && cbnames[i].cbid == cbid) {
            *name = cbnames[i].name;
            return CUPTI_SUCCESS;
        }
    *name = NULL;
    return CUPTI_ERROR_INVALID_PARAMETER;
}
