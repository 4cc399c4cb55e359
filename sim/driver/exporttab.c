/* exporttab: NVIDIA's private export tables.
 *
 * NVIDIA's runtime (shared in PyTorch's wheels, static in CuPy, cuBLAS,
 * cuDNN, NCCL, cuda.bindings.runtime) and tools ask the driver for tables of
 * undocumented entry points by UUID (cuGetExportTable).  No simulator can
 * answer them.  The first time a library asks for one, the sim says so in
 * one line naming that library, so that "operation not supported" is never
 * a silent dead end; the call returns CUDA_ERROR_NOT_SUPPORTED. */
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#define MAX_TOLD 64

static pthread_mutex_t g_told_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *g_told[MAX_TOLD];
static int g_ntold;

struct walk { const void *self; const void *base; const char *name; int depth; };

static _Unwind_Reason_Code frame(struct _Unwind_Context *ctx, void *arg)
{
    struct walk *w = arg;
    Dl_info info;
    void *ip = (void *)_Unwind_GetIP(ctx);
    if (++w->depth > 16)
        return _URC_END_OF_STACK;
    if (ip && dladdr(ip, &info) && info.dli_fbase != w->self) {
        w->base = info.dli_fbase;
        w->name = info.dli_fname;
        return _URC_END_OF_STACK;
    }
    return _URC_NO_REASON;
}

/* The first frame outside this library: who called cuGetExportTable.  The
 * unwinder itself, not glibc's backtrace(), which a sanitizer runtime
 * intercepts (its frame would be the caller). */
static const char *caller(const void **base)
{
    Dl_info self;
    if (!dladdr((void *)caller, &self))
        return NULL;
    struct walk w = { self.dli_fbase, NULL, NULL, 0 };
    _Unwind_Backtrace(frame, &w);
    *base = w.base;
    return w.name;
}

void sim_export_table_unknown(const CUuuid *id)
{
    const void *base = NULL;
    const char *who = caller(&base);
    pthread_mutex_lock(&g_told_lock);
    int told = 0;
    for (int i = 0; i < g_ntold && !told; i++)
        told = g_told[i] == base;
    if (!told && g_ntold < MAX_TOLD)
        g_told[g_ntold++] = base;
    pthread_mutex_unlock(&g_told_lock);
    if (told)
        return;
    const char *name = who && *who ? who : "the program";
    const char *slash = strrchr(name, '/');
    if (slash && slash[1])
        name = slash + 1;
    const unsigned char *u = (const unsigned char *)id->bytes;
    char line[512];
    int len = snprintf(line, sizeof line,
                       "simcuda: %s asked for NVIDIA's private export table "
                       "{%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x}; "
                       "NVIDIA's own runtime cannot run on the simulated GPUs\n",
                       name, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                       u[14], u[15]);
    if (len > 0)
        (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}
