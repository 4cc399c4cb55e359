/* Under libdevcheck.so on the sim: cuGetProcAddress(_v2) hands back devcheck's
 * wrappers for the variants it hooks (_v2, _ptsz) and the driver's own
 * function for the others; asked for itself, it returns the wrapper. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static gpa_t gpa;

static void *get(const char *name, cuuint64_t flags)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = gpa(name, &p, 13000, flags, &st);
    if (r != CUDA_SUCCESS || st != CU_GET_PROC_ADDRESS_SUCCESS)
        return NULL;
    return p;
}

static void *ours(const char *name) { return dlsym(RTLD_DEFAULT, name); }

static int in_devcheck(const void *p)
{
    Dl_info info;
    return p && dladdr(p, &info) && info.dli_fname && strstr(info.dli_fname, "libdevcheck.so");
}

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    EXPECT(h != NULL);
    if (!h)
        return 1;
    gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    EXPECT(gpa != NULL && in_devcheck((void *)gpa));
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    EXPECT(init && init(0) == CUDA_SUCCESS);

    const cuuint64_t DEF = CU_GET_PROC_ADDRESS_DEFAULT, PT = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                     LEG = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    EXPECT(get("cuMemAlloc", DEF) == ours("cuMemAlloc_v2"));
    EXPECT(get("cuMemFree", DEF) == ours("cuMemFree_v2"));
    EXPECT(get("cuLaunchKernel", LEG) == ours("cuLaunchKernel"));
    EXPECT(get("cuLaunchKernel", PT) == ours("cuLaunchKernel_ptsz"));
    EXPECT(get("cuLaunchKernelEx", PT) == ours("cuLaunchKernelEx_ptsz"));
    EXPECT(get("cuMemAllocAsync", PT) == ours("cuMemAllocAsync_ptsz"));
    EXPECT(get("cuMemAllocAsync", LEG) == ours("cuMemAllocAsync"));
    EXPECT(get("cuMemFreeAsync", PT) == ours("cuMemFreeAsync_ptsz"));
    EXPECT(get("cuCtxEnablePeerAccess", DEF) == ours("cuCtxEnablePeerAccess"));
    EXPECT(get("cuGetProcAddress", DEF) == ours("cuGetProcAddress_v2"));
    EXPECT(ours("cuLaunchKernel") != ours("cuLaunchKernel_ptsz"));
    void *p = get("cuInit", DEF);
    EXPECT(p != NULL && !in_devcheck(p));
    p = get("cuDeviceGetCount", DEF);
    EXPECT(p != NULL && !in_devcheck(p));
    printf("procaddr: %d failures\n", failures);
    return failures != 0;
}
