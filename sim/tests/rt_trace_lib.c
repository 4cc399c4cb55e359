/* Preloaded by rt_traffic.sh: sees the runtime's driver traffic the way an
 * interposer (devcheck) does.  Wraps dlsym; when a cu* name is looked up it
 * logs "dlsym NAME", and hands out a logging wrapper for cuGetProcAddress_v2,
 * which logs "gpa NAME VERSION FLAGS STATUS-POINTER-NULL?" per query and, when
 * cuGetProcAddress itself is asked for, returns the wrapper again. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cudaTypedefs.h>

static PFN_cuGetProcAddress_v12000 real_gpa;

static void logline(const char *fmt, const char *name, int version, unsigned long long flags, int nullst)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, fmt, name, version, flags, nullst);
    if (n > 0 && n < (int)sizeof buf) {
        ssize_t w = write(2, buf, (size_t)n);
        (void)w;
    }
}

static CUresult trace_gpa(const char *symbol, void **pfn, int version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult *status)
{
    logline("gpa %s %d %llu %d\n", symbol ? symbol : "(null)", version, (unsigned long long)flags, status == NULL);
    CUresult r = real_gpa(symbol, pfn, version, flags, status);
    if (r == CUDA_SUCCESS && symbol && strcmp(symbol, "cuGetProcAddress") == 0 && version >= 12000)
        *pfn = (void *)trace_gpa;
    return r;
}

typedef void *(*dlsym_fn)(void *, const char *);

void *dlsym(void *handle, const char *name)
{
    static dlsym_fn real;
    if (!real) {
        real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!real)              /* glibc before 2.34: the architecture's base version */
#if defined(__aarch64__)
            real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
#else
            real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
#endif
    }
    void *p = real(handle, name);
    if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z') {
        logline("dlsym %s %d %llu %d\n", name, 0, 0, 0);
        if (p && strcmp(name, "cuGetProcAddress_v2") == 0) {
            real_gpa = (PFN_cuGetProcAddress_v12000)p;
            return (void *)trace_gpa;
        }
    }
    return p;
}
