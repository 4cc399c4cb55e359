/* hooks_cupti: the program's CUPTI subscription (hooks.def, DC_CUPTI).
 * CUPTI allows one subscriber per process, and devcheck's CUPTI front end
 * takes it at devcheck's start: a profiler started later in the program
 * (torch.profiler/Kineto, Nsight Systems' injection, Triton's Proton) would be
 * refused with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED.  These hooks
 * see the program subscribe, make devcheck give its subscription up first
 * (one line; devcheck goes on with interposition alone, and does not
 * subscribe again), then call the program's libcupti.  A program that links
 * libcupti binds to these exports; one that loads it with dlopen gets them
 * from the dlsym door (preload/door.c, dc_cupti_substitute).
 *
 * Exported with libcupti's symbol versions (name@@libcupti.so.13,
 * name@libcupti.so.12): NVIDIA's libcupti versions its symbols, so a program
 * linked with it imports name@libcupti.so.13 and would bind to nothing else.
 * The real function: the one the program's dlsym found (recorded), else the
 * libcupti the calling object depends on (its own lookup scope), else a
 * loaded libcupti of the entry's version, then of the other, else the next
 * definition after libdevcheck.so in the global scope; all found by the
 * resolver (preload/resolve.h). */
#include <cupti.h>
#include "core/core.h"
#include "preload/hooks_cupti.h"
#include "preload/resolve.h"
#include "preload/startup.h"
#include "preload/export.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
#define DC_CUPTI(name) H_##name,
#include "preload/hooks.def"
    N_HOOKS
};
static const char *const hook_name[N_HOOKS] = {
#define DC_CUPTI(name) #name,
#include "preload/hooks.def"
};
/* What the program's dlsym found for each name (the latest). */
static void *recorded[N_HOOKS];

/* The CUPTI version an entry was bound as (its caller's libcupti). */
enum { V13 = 0, V12, NV };
static const char *const soname[NV] = { "libcupti.so.13", "libcupti.so.12" };

static void *real_function(int which, int version, const void *caller)
{
    void *p = __atomic_load_n(&recorded[which], __ATOMIC_ACQUIRE);
    if (p)
        return p;
    p = dc_resolve_near(caller, hook_name[which]);
    for (int k = 0; !p && k < NV; k++)
        p = dc_resolve_scope(soname[k ? !version : version], hook_name[which]);
    if (!p)
        p = dc_next_symbol(hook_name[which]);
    if (!p) {
        char line[200];
        int n = snprintf(line, sizeof line, "devcheck: cannot find the real %s in this process; the call returns "
                         "CUPTI_ERROR_NOT_INITIALIZED\n", hook_name[which]);
        if (n > 0) {
            ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)w;
        }
    }
    return p;
}

void *dc_cupti_substitute(const char *name, void *real)
{
    for (int i = 0; i < N_HOOKS; i++)
        if (!strcmp(name, hook_name[i])) {
            if (!real)
                return NULL;
            __atomic_store_n(&recorded[i], real, __ATOMIC_RELEASE);
            return i == H_cuptiSubscribe ? (void *)cuptiSubscribe : (void *)cuptiSubscribe_v2;
        }
    return NULL;
}

/* Each hook: one body, inlined into an entry per libcupti version (the plain
 * name is name@@libcupti.so.13; cupti12_<name> is name@libcupti.so.12). */
#define BODY static inline __attribute__((always_inline)) CUptiResult
#define ENTRIES(name, params, args)                                                     \
    DC_EXPORT CUptiResult CUPTIAPI name params                                          \
    {                                                                                   \
        return body_##name(V13, __builtin_return_address(0), DC_UNPAREN args);         \
    }                                                                                   \
    __attribute__((used)) static CUptiResult CUPTIAPI cupti12_##name params             \
    {                                                                                   \
        return body_##name(V12, __builtin_return_address(0), DC_UNPAREN args);         \
    }

BODY body_cuptiSubscribe(int v, const void *caller, CUpti_SubscriberHandle *subscriber,
                         CUpti_CallbackFunc callback, void *userdata)
{
    __typeof__(&cuptiSubscribe) real = (__typeof__(&cuptiSubscribe))real_function(H_cuptiSubscribe, v, caller);
    if (!real)
        return CUPTI_ERROR_NOT_INITIALIZED;
    dc_yield_cupti_to_program();
    return real(subscriber, callback, userdata);
}
ENTRIES(cuptiSubscribe, (CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata),
        (subscriber, callback, userdata))

BODY body_cuptiSubscribe_v2(int v, const void *caller, CUpti_SubscriberHandle *subscriber,
                            CUpti_CallbackFunc callback, void *userdata, CUpti_SubscriberParams *params)
{
    __typeof__(&cuptiSubscribe_v2) real =
        (__typeof__(&cuptiSubscribe_v2))real_function(H_cuptiSubscribe_v2, v, caller);
    if (!real)
        return CUPTI_ERROR_NOT_INITIALIZED;
    dc_yield_cupti_to_program();
    return real(subscriber, callback, userdata, params);
}
ENTRIES(cuptiSubscribe_v2,
        (CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata,
         CUpti_SubscriberParams *params),
        (subscriber, callback, userdata, params))

/* The symbol versions (DC_SYMVER_AS, preload/export.h). */
#define DC_CUPTI(name) DC_SYMVER_AS(name, name, "c13", "@@libcupti.so.13") \
    DC_SYMVER_AS(name, cupti12_##name, "c12", "@libcupti.so.12")
#include "preload/hooks.def"
