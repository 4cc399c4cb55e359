/* A stand-in libcupti.so.13 for the loader-rule test (loader.sh): the
 * callback entry points devcheck resolves, defined against cupti.h.  Every
 * subscription is refused as held by another subscriber whose name is
 * "fake at <this file's path>", so devcheck's one line says which
 * libcupti it loaded.  With FAKE_CUPTI_SUBSCRIBE set in the environment
 * (missing.sh) it is a libcupti that fails later: the subscription and the
 * domains are granted, every single callback is refused; with
 * FAKE_CUPTI_SUBSCRIBE=launches only the driver's launch callbacks are.
 * FAKE_CUPTI_HOLD holds the first cuptiUnsubscribe (see there). */
#include <cupti.h>
#include "cupti/cbids.h"               /* is_driver_launch */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An address of this file's own (an exported name may resolve elsewhere:
 * libdevcheck.so exports cuptiSubscribe_v2 too). */
static void here(void) {}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                       void *userdata, CUpti_SubscriberParams *pParams)
{
    (void)callback, (void)userdata;
    if (getenv("FAKE_CUPTI_SUBSCRIBE")) {
        static int dummy;
        if (subscriber)
            *subscriber = (CUpti_SubscriberHandle)(void *)&dummy;
        return CUPTI_SUCCESS;
    }
    Dl_info info;
    const char *self = dladdr((void *)here, &info) && info.dli_fname ? info.dli_fname : "?";
    if (pParams && pParams->oldSubscriberName && pParams->oldSubscriberSize)
        snprintf(pParams->oldSubscriberName, pParams->oldSubscriberSize, "fake at %s", self);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
}

/* FAKE_CUPTI_HOLD=N:G (fork_sub.sh): the first unsubscribe writes a byte
 * to fd N and waits for one on fd G, so that the program can fork while a
 * thread is inside devcheck's yield (which holds its lock across this call). */
CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    (void)subscriber;
    static int held;
    const char *hold = getenv("FAKE_CUPTI_HOLD");
    int note, go;
    char c = 'u';
    if (hold && !held && sscanf(hold, "%d:%d", &note, &go) == 2) {
        held = 1;
        if (write(note, &c, 1) != 1 || read(go, &c, 1) != 1)
            return CUPTI_ERROR_UNKNOWN;
    }
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    (void)enable, (void)subscriber;
    const char *mode = getenv("FAKE_CUPTI_SUBSCRIBE");
    if (!mode || strcmp(mode, "launches") != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;       /* every callback refused */
    return domain == CUPTI_CB_DOMAIN_DRIVER_API && is_driver_launch(cbid) ? CUPTI_ERROR_INVALID_PARAMETER
                                                                          : CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain)
{
    (void)enable, (void)subscriber, (void)domain;
    return getenv("FAKE_CUPTI_SUBSCRIBE") ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
    if (str)
        *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "fake CUPTI error";
    return CUPTI_SUCCESS;
}
