/* The sim's libcupti with no libcuda.so.1 to reach: documented errors, no
 * crash.  Linked with libcupti only. */
#include <cupti.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define TRUE(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static void CUPTIAPI on_cb(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
    (void)ud; (void)d; (void)cbid; (void)data;
}

int main(void)
{
    CUpti_SubscriberHandle sub = NULL;
    uint32_t v = 0, id = 0;
    const char *s = NULL;
    CUpti_SubscriberParams sp = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE, .subscriberName = "nodrv" };
    TRUE(cuptiSubscribe(&sub, on_cb, NULL) == CUPTI_ERROR_NOT_INITIALIZED);
    TRUE(cuptiSubscribe_v2(&sub, on_cb, NULL, &sp) == CUPTI_ERROR_NOT_INITIALIZED);
    TRUE(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_ERROR_NOT_INITIALIZED);
    TRUE(cuptiGetDeviceId(NULL, &id) == CUPTI_ERROR_NOT_INITIALIZED);
    TRUE(cuptiGetVersion(&v) == CUPTI_SUCCESS && v == CUPTI_API_VERSION);
    TRUE(cuptiGetResultString(CUPTI_ERROR_NOT_INITIALIZED, &s) == CUPTI_SUCCESS && strcmp(s, "CUPTI_ERROR_NOT_INITIALIZED") == 0);
    TRUE(cuptiActivityFlushAll(0) == CUPTI_ERROR_NOT_SUPPORTED);
    TRUE(cuptiFinalize() == CUPTI_SUCCESS);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
