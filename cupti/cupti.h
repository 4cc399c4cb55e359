/* cupti: devcheck's second detection path, a CUPTI callback subscriber.
 *
 * Contract:
 *  - dc_cupti_start() is called once, from the preload's start-up, with the
 *    options parsed and the driver bound, the guard held.  It loads
 *    libcupti.so.13 with dlopen (the rule is in cupti.c and README), resolves
 *    its functions with dlsym, subscribes as "devcheck" and enables the launch,
 *    allocation, free, access-grant and peer-access callbacks of the driver and
 *    runtime domains and the resource domain.  Returns 1 when subscribed.
 *    When CUPTI cannot be used (absent, failing, or held by another
 *    subscriber) it writes one line saying why (naming the holder) and
 *    returns 0: devcheck runs on interposition alone.  Never fails the
 *    program.
 *  - Callbacks that arrive while devcheck's guard is held on the thread (in a
 *    hook, or devcheck's own CUDA calls) are ignored: the interposer has that
 *    call.  Others go through the same recording (hooks_mem.c) and launch
 *    description (hooks_launch.c) as the hooks, with path DC_PATH_CUPTI.
 *  - functionParams is only read. */
#ifndef DEVCHECK_CUPTI_H
#define DEVCHECK_CUPTI_H
int dc_cupti_start(void);
#endif
