/* Run with libcupti_holder.so preloaded: a second subscriber gets
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and the holder's name;
 * the CUDA program itself runs unchanged. */
#include <cupti.h>
#include "drv_check.h"

#include <string.h>

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
    (void)ud; (void)d; (void)cbid; (void)data;
}

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "CUPTI for sim-holder";
    CUpti_SubscriberHandle sub = NULL;
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN];
    memset(old, 'x', sizeof old);
    CUpti_SubscriberParams p = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE, .subscriberName = "second",
                                 .oldSubscriberName = old, .oldSubscriberSize = sizeof old };
    EQ(cuptiSubscribe_v2(&sub, on_cb, NULL, &p), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    TRUE(memchr(old, '\0', sizeof old) != NULL);
    TRUE(strcmp(old, want) == 0);
    /* a too-small buffer is cut, still NUL-terminated */
    char small[8];
    p.oldSubscriberName = small;
    p.oldSubscriberSize = sizeof small;
    EQ(cuptiSubscribe_v2(&sub, on_cb, NULL, &p), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    TRUE(strncmp(small, want, sizeof small - 1) == 0 && small[sizeof small - 1] == '\0');
    EQ(cuptiSubscribe(&sub, on_cb, NULL), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    /* CUDA is unaffected */
    CUdeviceptr d;
    MUST(cuInit(0));
    CUcontext c;
    MUST(cuDevicePrimaryCtxRetain(&c, 1));
    MUST(cuCtxSetCurrent(c));
    OK(cuMemAlloc_v2(&d, 64));
    OK(cuMemFree_v2(d));
    return drv_done("cupti_held");
}
