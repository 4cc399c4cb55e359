/* libcupti_holder.so: holds the CUPTI subscription from its constructor, as
 * Nsight, compute-sanitizer or PyTorch's profiler would, so that tests can
 * show what a second subscriber sees.  Preload it (or link it) into a
 * program running on the sim: it subscribes with cuptiSubscribe_v2 under the
 * name $SIMCUPTI_HOLDER_NAME (default "sim-holder"), enables nothing, and
 * writes one line to stderr if the subscription fails. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

static CUpti_SubscriberHandle holder;

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
    (void)ud; (void)d; (void)cbid; (void)data;
}

__attribute__((constructor)) static void hold(void)
{
    const char *name = getenv("SIMCUPTI_HOLDER_NAME");
    CUpti_SubscriberParams p = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                 .subscriberName = name && *name ? name : "sim-holder" };
    CUptiResult r = cuptiSubscribe_v2(&holder, on_cb, NULL, &p);
    if (r != CUPTI_SUCCESS) {
        const char *s = "?";
        (void)cuptiGetResultString(r, &s);
        fprintf(stderr, "cupti_holder: cuptiSubscribe_v2 failed: %s\n", s);
    }
}
