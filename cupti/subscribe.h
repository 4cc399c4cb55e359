/* subscribe: devcheck's CUPTI subscription (cupti/subscribe.c), what the
 * translation of its callbacks (cupti/translate.c) uses.  Plain state the
 * callbacks read without a lock: set by the subscription, never by them. */
#ifndef DEVCHECK_CUPTI_SUBSCRIBE_H
#define DEVCHECK_CUPTI_SUBSCRIBE_H
#include <cupti.h>

#pragma GCC visibility push(hidden)

/* devcheck holds CUPTI's one subscription (acquire loads). */
extern int dc_cupti_subscribed;
/* The busy driver callbacks and the runtime domain's are enabled (at once
 * with backend=cupti; with backend=both once dc_cupti_want_busy saw a call
 * past the hooks).  Relaxed loads. */
extern int dc_cupti_busy_on;
/* Both: subscribed and the busy callbacks on (acquire loads). */
extern int dc_cupti_live;
/* The runtime whose calls this CUPTI reports (enum dc_rt): CUPTI 13's
 * callbacks come from libcudart.so.13, CUPTI 12's from libcudart.so.12. */
extern int dc_cupti_rt;

/* Loads libcupti (the rule of cupti/subscribe.c), subscribes `callback` as
 * "devcheck" and enables the callbacks devcheck needs (cupti/cbids.h): the
 * front end's start (struct dc_frontend, core/core.h).  1 when it will see
 * the program's calls; 0 when CUPTI cannot be used (said in one line).
 * Once, guard held. */
int dc_cupti_start(int beside, CUpti_CallbackFunc callback);
/* The program subscribes to CUPTI itself: gives the subscription up, for
 * good (the front end's yield_cupti, struct dc_frontend).  1 when devcheck held it. */
int dc_cupti_yield(void);
/* Driver call cbid (one always enabled) arrived with no guard held: it came
 * past the interposer's hooks, and the busy callbacks are enabled from now
 * on (backend=both).  Guard held; never waits. */
void dc_cupti_want_busy(CUpti_CallbackId cbid);

#pragma GCC visibility pop
#endif
