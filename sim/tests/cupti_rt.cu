// CUPTI runtime-domain callbacks of the sim (nvcc -cudart shared, 4 GPUs):
// cudaMalloc and a <<<>>> launch seen with the right cbids, params structs,
// symbolName, contexts and correlation ids; the runtime's own driver calls
// arrive as driver callbacks nested between the runtime's enter and exit.
#include <cupti.h>
#include "rt_check.h"

#include <pthread.h>

#define NDEV 4
#define MAXREC 8192

__global__ void scale(int *p, int k) { p[threadIdx.x] *= k; }

extern "C" void simcuda_twin_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    int *p = *(int **)args[0];
    int k = *(int *)args[1];
    for (unsigned i = 0; i < grid[0] * block[0]; i++)
        p[i] *= k;
}

struct rec {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    CUpti_ApiCallbackSite site;
    CUcontext ctx;
    uint32_t corr;
    char symbol[64];
    const void *params;
    size_t size;          // cudaMalloc: params->size; MODULE_LOADED: cubinSize
    const void *cubin;    // MODULE_LOADED: pCubin
    void *ptr;            // cudaMalloc exit: *params->devPtr
    cudaError_t ret;      // exit: *functionReturnValue
};

static rec recs[MAXREC];
static int nrec;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI on_cb(void *, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    rec r;
    memset(&r, 0, sizeof r);
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = (const CUpti_ResourceData *)data;
        r.domain = domain;
        r.cbid = cbid;
        r.ctx = rd->context;
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
            const CUpti_ModuleResourceData *m = (const CUpti_ModuleResourceData *)rd->resourceDescriptor;
            r.cubin = m->pCubin;
            r.size = m->cubinSize;
        }
        pthread_mutex_lock(&rec_lock);
        if (nrec < MAXREC)
            recs[nrec++] = r;
        pthread_mutex_unlock(&rec_lock);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    const CUpti_CallbackData *d = (const CUpti_CallbackData *)data;
    r.domain = domain;
    r.cbid = cbid;
    r.site = d->callbackSite;
    r.ctx = d->context;
    r.corr = d->correlationId;
    r.params = d->functionParams;
    if (d->symbolName)
        snprintf(r.symbol, sizeof r.symbol, "%s", d->symbolName);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (d->callbackSite == CUPTI_API_EXIT)
            r.ret = *(const cudaError_t *)d->functionReturnValue;
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020) {
            const cudaMalloc_v3020_params *p = (const cudaMalloc_v3020_params *)d->functionParams;
            r.size = p->size;
            if (d->callbackSite == CUPTI_API_EXIT)
                r.ptr = *p->devPtr;
        }
    }
    pthread_mutex_lock(&rec_lock);
    if (nrec < MAXREC)
        recs[nrec++] = r;
    pthread_mutex_unlock(&rec_lock);
}

static int find(CUpti_CallbackDomain d, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site, int from)
{
    for (int i = from; i < nrec; i++)
        if (recs[i].domain == d && recs[i].cbid == cbid && recs[i].site == site)
            return i;
    return -1;
}

int main()
{
    CUpti_SubscriberHandle sub;
    EXPECT(cuptiSubscribe(&sub, on_cb, NULL) == CUPTI_SUCCESS);
    EXPECT(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS);
    EXPECT(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS);
    EXPECT(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE) == CUPTI_SUCCESS);

    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n == NDEV);
    // the runtime's very first call (it initialises the runtime) is seen
    EXPECT(find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, CUPTI_API_ENTER, 0) == 0);
    for (int dev = 0; dev < NDEV; dev++) {
        CHECK(cudaSetDevice(dev));
        int mark = nrec;
        int *p = NULL;
        size_t bytes = 32 * sizeof(int) * (size_t)(dev + 1);
        CHECK(cudaMalloc(&p, bytes));
        int en = find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_API_ENTER, mark);
        int ex = find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_API_EXIT, mark);
        EXPECT(en >= 0 && ex > en);
        EXPECT(recs[en].size == bytes && recs[ex].ptr == (void *)p && recs[ex].ret == cudaSuccess);
        EXPECT(recs[en].corr == recs[ex].corr);
        // the runtime's allocation reaches the driver between enter and exit
        int drv = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_API_EXIT, en);
        EXPECT(drv > en && drv < ex);
        EXPECT(recs[drv].corr != recs[en].corr);
        CUcontext cur = NULL;
        EXPECT(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur);
        EXPECT(recs[ex].ctx == cur);
        // the runtime created the device's primary context on first use
        bool created = false;
        for (int i = 0; i < nrec; i++)
            created |= recs[i].domain == CUPTI_CB_DOMAIN_RESOURCE &&
                       recs[i].cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && recs[i].ctx == cur;
        EXPECT(created);
        uint32_t id = 99;
        EXPECT(cuptiGetDeviceId(recs[ex].ctx, &id) == CUPTI_SUCCESS && id == (uint32_t)dev);

        CHECK(cudaMemset(p, 0, bytes));
        mark = nrec;
        scale<<<1, 32>>>(p, 3);
        CHECK(cudaGetLastError());
        // nvcc 13 emits __cudaLaunchKernel (no params struct in the header: NULL)
        int le = find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_API_ENTER, mark);
        int lx = find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_API_EXIT, mark);
        EXPECT(le >= 0 && lx > le);
        EXPECT_STR(recs[le].symbol, "_Z5scalePii");
        EXPECT(recs[le].params == NULL);
        EXPECT(recs[le].corr == recs[lx].corr && recs[lx].ret == cudaSuccess);
        EXPECT(recs[le].ctx == cur);
        if (dev == 0) {
            // the program's fatbin was loaded (lazily, at its first launch)
            bool loaded = false;
            for (int i = 0; i < nrec; i++)
                loaded |= recs[i].domain == CUPTI_CB_DOMAIN_RESOURCE &&
                          recs[i].cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED && recs[i].cubin && recs[i].size > 0;
            EXPECT(loaded);
        }
        int dl = find(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER, le);
        EXPECT(dl > le && dl < lx);
        EXPECT_STR(recs[dl].symbol, "_Z5scalePii");

        // cudaLaunchKernel: the cudaLaunchKernel_v7000_params struct
        mark = nrec;
        int k = 2;
        void *args[] = { &p, &k };
        CHECK(cudaLaunchKernel((const void *)scale, dim3(1), dim3(32), args, 0, 0));
        int ce = find(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_API_ENTER, mark);
        EXPECT(ce >= 0);
        EXPECT_STR(recs[ce].symbol, "_Z5scalePii");
        const cudaLaunchKernel_v7000_params *lp = (const cudaLaunchKernel_v7000_params *)recs[ce].params;
        EXPECT(lp != NULL);

        int host[32];
        CHECK(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(p));
    }
    // every enter has its exit with the same correlation id, ids increase
    uint32_t last = 0;
    for (int i = 0; i < nrec; i++) {
        if (recs[i].domain == CUPTI_CB_DOMAIN_RESOURCE || recs[i].site != CUPTI_API_ENTER)
            continue;
        EXPECT(recs[i].corr > last);
        last = recs[i].corr;
        int j = i + 1;
        while (j < nrec && !(recs[j].site == CUPTI_API_EXIT && recs[j].corr == recs[i].corr))
            j++;
        EXPECT(j < nrec && recs[j].cbid == recs[i].cbid && recs[j].domain == recs[i].domain);
    }
    // disabled / unsubscribed: nothing more
    EXPECT(cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS);
    int mark = nrec;
    int *q;
    CHECK(cudaMalloc(&q, 64));
    for (int i = mark; i < nrec; i++)
        EXPECT(recs[i].domain != CUPTI_CB_DOMAIN_RUNTIME_API);
    EXPECT(nrec > mark);
    EXPECT(cuptiUnsubscribe(sub) == CUPTI_SUCCESS);
    mark = nrec;
    CHECK(cudaFree(q));
    EXPECT(nrec == mark);
    printf("ok\n");
    return 0;
}
