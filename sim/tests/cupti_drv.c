/* CUPTI callbacks of the sim, driver domain and resource domain, on 4 GPUs:
 * a subscriber built against the toolkit's cupti.h, run on the sim's
 * libcupti.so.13 and libcuda.so.1.  Asserts the params structs, return
 * values, symbol names, contexts, correlation ids, resource callbacks, the
 * single-subscriber rule, enabling/disabling, unsubscribe and threads. */
#include <cupti.h>
#include "drv_check.h"

#include <pthread.h>
#include <string.h>

#define NDEV 4
#define MAXREC 4096

struct rec {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    CUpti_ApiCallbackSite site;
    CUcontext ctx;
    uint32_t ctx_uid;
    uint32_t corr;
    uint64_t corr_data_seen;       /* *correlationData at exit */
    char symbol[128];
    size_t bytesize;               /* cuMemAlloc_v2: params->bytesize */
    CUdeviceptr dptr;              /* cuMemAlloc_v2 exit: *params->dptr */
    CUresult ret;                  /* exit: *functionReturnValue */
    void **kparams;                /* cuLaunchKernel: params->kernelParams */
    CUstream stream;               /* resource */
    uint32_t module_id;
    const void *cubin;
    size_t cubin_size;
    int nested;                    /* a callback arrived inside a callback */
    pthread_t thread;
};

static struct rec recs[MAXREC];
static int nrec;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int in_cb;
static int user_tag;

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    struct rec r;
    memset(&r, 0, sizeof r);
    r.domain = domain;
    r.cbid = cbid;
    r.nested = in_cb || ud != &user_tag;
    r.thread = pthread_self();
    in_cb++;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *d = data;
        r.site = d->callbackSite;
        r.ctx = d->context;
        r.ctx_uid = d->contextUid;
        r.corr = d->correlationId;
        if (d->symbolName)
            snprintf(r.symbol, sizeof r.symbol, "%s", d->symbolName);
        if (d->callbackSite == CUPTI_API_ENTER)
            *d->correlationData = 0x5eed0000ull + d->correlationId;
        else {
            r.corr_data_seen = *d->correlationData;
            r.ret = *(const CUresult *)d->functionReturnValue;
        }
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) {
            const cuMemAlloc_v2_params *p = d->functionParams;
            r.bytesize = p->bytesize;
            if (d->callbackSite == CUPTI_API_EXIT)
                r.dptr = *p->dptr;
        }
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
            const cuLaunchKernel_params *p = d->functionParams;
            r.kparams = p->kernelParams;
        }
        /* a driver call from inside a callback: no callback for it */
        CUdevice dev;
        (void)cuCtxGetDevice(&dev);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        r.ctx = rd->context;
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED || cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
            const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
            r.module_id = m->moduleId;
            r.cubin = m->pCubin;
            r.cubin_size = m->cubinSize;
        } else
            r.stream = rd->resourceHandle.stream;
    }
    in_cb--;
    pthread_mutex_lock(&rec_lock);
    if (nrec < MAXREC)
        recs[nrec++] = r;
    pthread_mutex_unlock(&rec_lock);
}

static int count(CUpti_CallbackDomain d, CUpti_CallbackId cbid, int from)
{
    int n = 0;
    for (int i = from; i < nrec; i++)
        n += recs[i].domain == d && recs[i].cbid == cbid;
    return n;
}

/* the first record of (d, cbid[, site]) at or after from, or NULL */
static const struct rec *find(CUpti_CallbackDomain d, CUpti_CallbackId cbid, int site, int from)
{
    for (int i = from; i < nrec; i++)
        if (recs[i].domain == d && recs[i].cbid == cbid && (site < 0 || (int)recs[i].site == site))
            return &recs[i];
    return NULL;
}

static void *load_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

struct worker { int dev; CUcontext ctx; CUdeviceptr p; int ok; };

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->ok = cuCtxSetCurrent(w->ctx) == CUDA_SUCCESS;
    for (int i = 0; i < 20 && w->ok; i++) {
        w->ok = cuMemAlloc_v2(&w->p, 256 * (size_t)(w->dev + 1)) == CUDA_SUCCESS;
        w->ok = w->ok && cuMemFree_v2(w->p) == CUDA_SUCCESS;
    }
    return NULL;
}

int main(void)
{
    CUpti_SubscriberHandle sub = NULL, sub2 = NULL;
    uint32_t v = 0;
    const char *s = NULL;

    TRUE(cuptiGetVersion(&v) == CUPTI_SUCCESS && v == CUPTI_API_VERSION);
    TRUE(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &s) == CUPTI_SUCCESS &&
         s && strcmp(s, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") == 0);
    TRUE(cuptiSubscribe(NULL, on_cb, NULL) == CUPTI_ERROR_INVALID_PARAMETER);
    TRUE(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &s) == CUPTI_SUCCESS &&
         strcmp(s, "cuMemAlloc_v2") == 0);
    TRUE(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &s) == CUPTI_SUCCESS &&
         strcmp(s, "cudaMalloc_v3020") == 0);
    TRUE(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, &s) == CUPTI_ERROR_INVALID_PARAMETER);
    CUpti_SubscriberParams bad = { 0 };
    TRUE(cuptiSubscribe_v2(&sub, on_cb, NULL, &bad) == CUPTI_ERROR_INVALID_PARAMETER);

    CUpti_SubscriberParams sp = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE, .subscriberName = "simtest" };
    if (cuptiSubscribe_v2(&sub, on_cb, &user_tag, &sp) != CUPTI_SUCCESS) {
        fprintf(stderr, "cuptiSubscribe_v2 failed\n");
        return 1;
    }
    /* one subscriber at a time; the second learns who holds CUPTI */
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
    CUpti_SubscriberParams sp2 = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE, .subscriberName = "other",
                                   .oldSubscriberName = old, .oldSubscriberSize = sizeof old };
    TRUE(cuptiSubscribe_v2(&sub2, on_cb, NULL, &sp2) == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    TRUE(strcmp(old, "CUPTI for simtest") == 0);
    TRUE(cuptiSubscribe(&sub2, on_cb, NULL) == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);

    TRUE(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) == CUPTI_SUCCESS);
    TRUE(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) == CUPTI_SUCCESS);
    TRUE(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE) == CUPTI_ERROR_INVALID_PARAMETER);
    TRUE(cuptiEnableCallback(1, sub, (CUpti_CallbackDomain)99, 1) == CUPTI_ERROR_INVALID_PARAMETER);
    TRUE(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE) == CUPTI_SUCCESS);
    uint32_t on = 7;
    TRUE(cuptiGetCallbackState(&on, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2) == CUPTI_SUCCESS && on == 0);
    TRUE(cuptiGetCallbackState(&on, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) == CUPTI_SUCCESS && on == 1);

    MUST(cuInit(0));
    int ndev = 0;
    MUST(cuDeviceGetCount(&ndev));
    EQ(ndev, NDEV);
    CUcontext ctx[NDEV];
    CUdeviceptr ptr[NDEV];
    size_t len = 0;
    void *image = load_file(KDIR "/drv_kernels.cubin", &len);
    TRUE(image != NULL);
    for (int d = 0; d < NDEV; d++) {
        int mark = nrec;
        MUST(cuDevicePrimaryCtxRetain(&ctx[d], d));
        const struct rec *r = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, -1, mark);
        TRUE(r && r->ctx == ctx[d]);
        MUST(cuCtxSetCurrent(ctx[d]));
        uint32_t id = 99, uid = 0;
        TRUE(cuptiGetDeviceId(ctx[d], &id) == CUPTI_SUCCESS && id == (uint32_t)d);
        TRUE(cuptiGetDeviceId(NULL, &id) == CUPTI_SUCCESS && id == (uint32_t)d);
        TRUE(cuptiGetContextId(ctx[d], &uid) == CUPTI_SUCCESS);
        TRUE(cuptiGetContextId(NULL, &uid) == CUPTI_ERROR_INVALID_CONTEXT);

        /* allocation: enter then exit, same correlation id */
        mark = nrec;
        size_t bytes = 4096 * (size_t)(d + 1);
        MUST(cuMemAlloc_v2(&ptr[d], bytes));
        EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, mark), 2);
        const struct rec *en = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_ENTER, mark);
        const struct rec *ex = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_EXIT, mark);
        TRUE(en && ex && en < ex);
        if (en && ex) {
            EQ(en->bytesize, bytes);
            EQ(ex->dptr, ptr[d]);
            EQ(ex->ret, CUDA_SUCCESS);
            TRUE(en->ctx == ctx[d] && ex->ctx == ctx[d]);
            EQ(en->ctx_uid, uid);
            EQ(en->corr, ex->corr);
            EQ(ex->corr_data_seen, 0x5eed0000ull + en->corr);
            TRUE(!en->nested && !ex->nested);
        }
        /* cuMemFree_v2 is not enabled */
        mark = nrec;
        CUdeviceptr scratch;
        MUST(cuMemAlloc_v2(&scratch, 64));
        MUST(cuMemFree_v2(scratch));
        EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, mark), 0);
        EQ(nrec - mark, 2);
    }
    /* failures are reported at exit too */
    int mark = nrec;
    CUdeviceptr huge;
    EXPECT(cuMemAlloc_v2(&huge, (size_t)1 << 62), CUDA_ERROR_OUT_OF_MEMORY);
    const struct rec *fx = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_EXIT, mark);
    TRUE(fx && fx->ret == CUDA_ERROR_OUT_OF_MEMORY);

    /* module, stream, launch on device 2 */
    MUST(cuCtxSetCurrent(ctx[2]));
    mark = nrec;
    CUmodule mod;
    MUST(cuModuleLoadData(&mod, image));
    const struct rec *ml = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, -1, mark);
    TRUE(ml && ml->ctx == ctx[2] && ml->cubin == image && ml->cubin_size > 0 && ml->cubin_size <= len);
    uint32_t modid = ml ? ml->module_id : 0;
    CUfunction fn;
    MUST(cuModuleGetFunction(&fn, mod, "_Z5touchPii"));
    CUstream st;
    mark = nrec;
    MUST(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    const struct rec *sc = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED, -1, mark);
    TRUE(sc && sc->ctx == ctx[2] && sc->stream == st);
    uint32_t sid = 0, sid2 = 0;
    TRUE(cuptiGetStreamId(ctx[2], st, &sid) == CUPTI_SUCCESS);
    TRUE(cuptiGetStreamIdEx(NULL, st, 0, &sid2) == CUPTI_SUCCESS && sid2 == sid);
    TRUE(cuptiGetStreamId(ctx[1], st, &sid) == CUPTI_ERROR_INVALID_STREAM);

    int val = 5;
    void *args[] = { &ptr[2], &val };
    mark = nrec;
    MUST(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, st, args, NULL));
    const struct rec *le = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER, mark);
    const struct rec *lx = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_EXIT, mark);
    TRUE(le && lx);
    if (le && lx) {
        TRUE(strcmp(le->symbol, "_Z5touchPii") == 0);
        TRUE(le->ctx == ctx[2]);
        TRUE(le->kparams == args);
        EQ(le->corr, lx->corr);
        EQ(lx->ret, CUDA_SUCCESS);
        /* correlation ids increase from call to call */
        const struct rec *first = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_ENTER, 0);
        TRUE(first && first->corr < le->corr);
    }

    mark = nrec;
    MUST(cuStreamDestroy_v2(st));
    const struct rec *sd = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, -1, mark);
    TRUE(sd && sd->ctx == ctx[2] && sd->stream == st);
    mark = nrec;
    MUST(cuModuleUnload(mod));
    const struct rec *mu = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, -1, mark);
    TRUE(mu && mu->module_id == modid && mu->ctx == ctx[2]);

    /* a created context: created / destroy starting */
    CUcontext own;
    mark = nrec;
    MUST(cuCtxCreate(&own, NULL, 0, 3));
    const struct rec *cc = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, -1, mark);
    TRUE(cc && cc->ctx == own);
    MUST(cuCtxDestroy(own));
    const struct rec *cd = find(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, -1, mark);
    TRUE(cd && cd->ctx == own);

    /* threads: each allocates in its own context; every callback names it */
    mark = nrec;
    pthread_t th[NDEV];
    struct worker w[NDEV];
    for (int d = 0; d < NDEV; d++) {
        w[d] = (struct worker){ d, ctx[d], 0, 0 };
        pthread_create(&th[d], NULL, worker_main, &w[d]);
    }
    for (int d = 0; d < NDEV; d++) {
        pthread_join(th[d], NULL);
        TRUE(w[d].ok);
    }
    EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, mark), NDEV * 20 * 2);
    for (int i = mark; i < nrec; i++) {
        if (recs[i].domain != CUPTI_CB_DOMAIN_DRIVER_API)
            continue;
        int d = -1;
        for (int k = 0; k < NDEV; k++)
            if (pthread_equal(recs[i].thread, th[k]))
                d = k;
        TRUE(d >= 0 && recs[i].ctx == ctx[d] && recs[i].bytesize == 256 * (size_t)(d + 1));
    }

    /* disabling stops delivery */
    TRUE(cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) == CUPTI_SUCCESS);
    mark = nrec;
    CUdeviceptr q;
    MUST(cuMemAlloc_v2(&q, 128));
    EQ(nrec - mark, 0);
    /* enabling the whole domain: cuMemFree_v2 too; no callback for calls made inside a callback */
    TRUE(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS);
    mark = nrec;
    MUST(cuMemFree_v2(q));
    EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, mark), 2);
    EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice, mark), 0);
    EQ(nrec - mark, 2);
    /* the sim's internal calls issue none: one call, one enter, one exit */
    mark = nrec;
    size_t pitch = 0;
    MUST(cuMemAllocPitch_v2(&q, &pitch, 100, 10, 4));
    MUST(cuMemsetD32_v2(q, 7, 10));
    MUST(cuMemFree_v2(q));
    EQ(nrec - mark, 6);
    EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, mark), 2);
    EQ(count(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, mark), 2);
    for (int i = 0; i < nrec; i++)
        TRUE(!recs[i].nested);

    /* unsubscribe stops delivery; another subscriber may then come */
    TRUE(cuptiUnsubscribe(sub) == CUPTI_SUCCESS);
    TRUE(cuptiUnsubscribe(sub) == CUPTI_ERROR_INVALID_PARAMETER);
    mark = nrec;
    MUST(cuMemAlloc_v2(&q, 128));
    MUST(cuMemFree_v2(q));
    EQ(nrec - mark, 0);
    TRUE(cuptiSubscribe(&sub2, on_cb, &user_tag) == CUPTI_SUCCESS);
    TRUE(cuptiEnableCallback(1, sub2, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) == CUPTI_SUCCESS);
    mark = nrec;
    MUST(cuMemAlloc_v2(&q, 128));
    EQ(nrec - mark, 2);
    TRUE(cuptiFinalize() == CUPTI_SUCCESS);
    mark = nrec;
    MUST(cuMemFree_v2(q));
    MUST(cuMemAlloc_v2(&q, 128));
    EQ(nrec - mark, 0);
    return drv_done("cupti_drv");
}
