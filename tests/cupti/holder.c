/* libholder.so: holds the CUPTI subscription before devcheck, as Nsight,
 * compute-sanitizer or PyTorch's profiler do.  Its constructor loads
 * libcupti.so.13 (the loader's search: the sim's, through LD_LIBRARY_PATH)
 * and subscribes as "holder-test" with a callback that does nothing.  It
 * prints nothing and never changes the program. */
#include <cupti.h>
#include <dlfcn.h>
#include <stddef.h>

static void CUPTIAPI ignore(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)userdata, (void)domain, (void)cbid, (void)data;
}

__attribute__((constructor)) static void hold(void)
{
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    __typeof__(&cuptiSubscribe_v2) subscribe = h ? (__typeof__(&cuptiSubscribe_v2))dlsym(h, "cuptiSubscribe_v2") : NULL;
    if (!subscribe)
        return;
    static CUpti_SubscriberHandle sub;
    CUpti_SubscriberParams p = { 0 };
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = "holder-test";
    (void)subscribe(&sub, ignore, NULL, &p);
}
