/* Which definition of NCCL 2.28's ncclAlltoAll a program finds under
 * devcheck (tests/libapi/nccl_group.sh; hooks_lib.def's DC_LIBNEW): the
 * program references it weakly (a feature test against an older NCCL),
 * linked against libnccl.so.2, and also asks dlsym of a handle of its own;
 * prints the object each answer lives in (dladdr).  devcheck exports no
 * ncclAlltoAll, so the weak reference is NCCL's own (without devcheck an
 * NCCL lacking it leaves NULL, and so must devcheck); dlsym(handle) gets
 * devcheck's hook through its door, which checks the call. */
#include <nccl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

extern __typeof__(ncclAlltoAll) ncclAlltoAll __attribute__((weak));

static const char *where(void *p)
{
    Dl_info d;
    if (!p)
        return "NULL";
    if (!dladdr(p, &d) || !d.dli_fname)
        return "?";
    const char *s = strrchr(d.dli_fname, '/');
    return s ? s + 1 : d.dli_fname;
}

int main(void)
{
    printf("weak: %s\n", where((void *)&ncclAlltoAll));
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    printf("dlsym: %s\n", h ? where(dlsym(h, "ncclAlltoAll")) : "no libnccl.so.2");
    printf("allreduce: %s\n", h ? where(dlsym(h, "ncclAllReduce")) : "no libnccl.so.2");
    return 0;
}
