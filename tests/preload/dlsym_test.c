/* Under libdevcheck.so: dlsym hands back devcheck's wrapper for a hooked
 * driver entry point and the real thing for anything else; RTLD_NEXT keeps
 * its meaning (relative to the caller).  Needs a libcuda.so.1 (the sim). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int dc_next_probe(void);

static int failures;
#define EXPECT(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static const char *module_of(const void *p)
{
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname)
        return "";
    const char *s = strrchr(info.dli_fname, '/');
    return s ? s + 1 : info.dli_fname;
}

int main(void)
{
    /* non-CUDA names: the real thing, RTLD_NEXT relative to the caller */
    EXPECT(dlsym(RTLD_DEFAULT, "printf") == (void *)&printf);
    EXPECT(dc_next_probe() == 2);
    EXPECT(dlsym(RTLD_NEXT, "dc_next_target") != NULL);

    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    EXPECT(h != NULL);
    if (!h)
        return 1;
    /* hooked names: devcheck's wrapper, the same one the global scope has */
    const char *hooked[] = { "cuMemAlloc_v2", "cuLaunchKernel", "cuLaunchKernel_ptsz", "cuGetProcAddress_v2",
                             "cuMemFree_v2", "cuCtxEnablePeerAccess" };
    for (size_t i = 0; i < sizeof hooked / sizeof hooked[0]; i++) {
        void *p = dlsym(h, hooked[i]);
        EXPECT(p != NULL);
        EXPECT(p == dlsym(RTLD_DEFAULT, hooked[i]));
        EXPECT(strcmp(module_of(p), "libdevcheck.so") == 0);
        if (strcmp(module_of(p), "libdevcheck.so"))
            fprintf(stderr, "  %s -> %s\n", hooked[i], module_of(p));
    }
    /* not hooked: the driver's own; unknown: NULL */
    void *init = dlsym(h, "cuInit");
    EXPECT(init != NULL && strcmp(module_of(init), "libdevcheck.so") != 0);
    EXPECT(dlsym(h, "cuMemAlloc_v2x") == NULL);
    printf("dlsym_test: %d failures\n", failures);
    return failures != 0;
}
