/* cuptifloor: the floor under backend=cupti in `make bench`, a CUPTI
 * subscriber that enables exactly the callbacks devcheck enables with
 * backend=cupti (cupti/cbids.h: the driver's, the busy ones, the runtime's
 * launches and memory calls, the resource domain) and returns at once from
 * every one.  What backend=cupti costs beyond this is devcheck's; this much
 * is CUPTI delivering the callbacks.  Bench only: it subscribes from its
 * constructor, and a CUPTI it cannot load or subscribe to ends the program
 * (the figures would be no floor). */
#include <cupti.h>
#include "cupti/cbids.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void CUPTIAPI ignore(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)userdata, (void)domain, (void)cbid, (void)data;
}

static void give_up(const char *what)
{
    fprintf(stderr, "cuptifloor: %s\n", what);
    exit(3);
}

__attribute__((constructor)) static void subscribe(void)
{
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        give_up(dlerror());
    __typeof__(&cuptiSubscribe) sub = (__typeof__(&cuptiSubscribe))dlsym(h, "cuptiSubscribe");
    __typeof__(&cuptiEnableCallback) en = (__typeof__(&cuptiEnableCallback))dlsym(h, "cuptiEnableCallback");
    __typeof__(&cuptiEnableDomain) dom = (__typeof__(&cuptiEnableDomain))dlsym(h, "cuptiEnableDomain");
    CUpti_SubscriberHandle s;
    if (!sub || !en || !dom || sub(&s, ignore, NULL) != CUPTI_SUCCESS)
        give_up("cannot subscribe to libcupti.so.13");
    unsigned failed = 0;
    for (size_t i = 0; i < sizeof driver_cbids / sizeof driver_cbids[0]; i++)
        failed += en(1, s, CUPTI_CB_DOMAIN_DRIVER_API, driver_cbids[i]) != CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof busy_cbids / sizeof busy_cbids[0]; i++)
        failed += en(1, s, CUPTI_CB_DOMAIN_DRIVER_API, busy_cbids[i]) != CUPTI_SUCCESS;
    for (size_t i = 0; i < N_RT_LAUNCHES; i++)
        failed += en(1, s, CUPTI_CB_DOMAIN_RUNTIME_API, rt_launches[i].cbid) != CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof runtime_mem_cbids / sizeof runtime_mem_cbids[0]; i++)
        failed += en(1, s, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_mem_cbids[i]) != CUPTI_SUCCESS;
    failed += dom(1, s, CUPTI_CB_DOMAIN_RESOURCE) != CUPTI_SUCCESS;
    if (failed)
        give_up("libcupti.so.13 refused some of the callbacks");
}
