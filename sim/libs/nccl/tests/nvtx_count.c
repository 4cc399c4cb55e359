/* An NVTX injection library (NVTX_INJECTION64_PATH, nvtx3's
 * nvtxDetail/nvtxInit.h) that counts the ranges pushed in the "NCCL"
 * domain by name and writes "NAME COUNT" lines to $NVTX_COUNT_OUT at exit:
 * what a profiler (Nsight Systems) would see of NCCL's API calls.
 * nccl_nvtx.sh uses it to show which calls of the sim's NCCL push ranges,
 * as NCCL's do (NCCL_NVTX3_FUNC_RANGE: every API call, the getters
 * ncclCommCuDevice / ncclCommUserRank / ncclCommCount included). */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 64
static struct { char *name; unsigned long n; } counts[MAXN];
static int ncounts;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int nccl_domain;         /* the handle of the "NCCL" domain: its address */

static nvtxDomainHandle_t domain_create(const char *name)
{
    static int other;
    return (nvtxDomainHandle_t)(strcmp(name, "NCCL") ? (void *)&other : (void *)&nccl_domain);
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)strdup(s);
}

static int push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    if ((void *)d != (void *)&nccl_domain || !a || a->messageType != NVTX_MESSAGE_TYPE_REGISTERED)
        return 0;
    const char *name = (const char *)a->message.registered;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < ncounts && strcmp(counts[i].name, name))
        i++;
    if (i == ncounts && ncounts < MAXN)
        counts[ncounts++].name = strdup(name);
    if (i < ncounts)
        counts[i].n++;
    pthread_mutex_unlock(&lock);
    return 0;
}

static int pop(nvtxDomainHandle_t d)
{
    (void)d;
    return 0;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("NVTX_COUNT_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    for (int i = 0; i < ncounts; i++)
        fprintf(f, "%s %lu\n", counts[i].name, counts[i].n);
    fclose(f);
}

static void set(NvtxFunctionTable t, unsigned size, int id, NvtxFunctionPointer fn)
{
    if ((unsigned)id <= size && t[id])
        *t[id] = fn;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t;
    unsigned size;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &size))
        return 0;
    set(t, size, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)domain_create);
    set(t, size, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)register_string);
    set(t, size, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)push);
    set(t, size, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)pop);
    return 1;
}
