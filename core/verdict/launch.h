/* launch: the launch description, shared by both front ends.  A launch event
 * (core/core.h) names the kernel (a handle), the stream or device, and the
 * arguments as the program passed them; this module turns it into a struct
 * dc_launch (name and parameter layout from core/kernel/kernels.c, launch device,
 * argument words) for the check (core/verdict/check.c), and around the interposer's
 * launches runs the modes: mode=migrate (core/verdict/migrate.c) before the launch,
 * sync=1 (here) after it.
 *
 * All state of one launch lives in its struct dc_launch_state, on the hook's
 * stack or malloc'd for it: concurrent launches share nothing (no scratch
 * buffers); the registry, the report and the driver do their own locking.
 * Every CUDA call runs with the guard held (we are inside a hook or a
 * callback), so none of it is checked or recorded. */
#ifndef DEVCHECK_CORE_LAUNCH_H
#define DEVCHECK_CORE_LAUNCH_H
#include <cuda.h>
#include "core/verdict/check.h"
#include "core/kernel/kernels.h"

#pragma GCC visibility push(hidden)

/* What a launch event's `key` is (dc_launch_check). */
enum { DC_KEY_FUNCTION = 0, DC_KEY_KERNEL = 1, DC_KEY_OPAQUE = 2, DC_KEY_UNREAD = 3 };

struct dc_mig;                  /* one migrated source range (core/verdict/migrate.c) */

/* One launch in flight.  The front end reads args and extra only: what the
 * real launch gets. */
struct dc_launch_state {
    struct dc_kernel tmp;
    const struct dc_kernel *k;  /* NULL: nothing was checked */
    struct dc_launch l;
    CUstream stream;            /* for our own stream calls (per-thread made explicit) */
    int has_stream;             /* a launch into a stream (not a graph node) */
    void **args, **extra;       /* what the real launch gets */
    /* Set only under mode=migrate or sync=1 (`modes`); report mode leaves
     * the rest of the struct unwritten. */
    int modes;
    struct dc_moves moves;
    int captured;               /* the stream is capturing: never synchronised */
    const char *nosync;         /* sync=1: why another capture forbids synchronising (capture.h) */
    int pre_error;              /* sync=1: the stream had an error before this launch */
    /* mode=migrate (core/verdict/migrate.c): */
    struct dc_mig *mig;
    unsigned nmig;
    CUcontext ctx;              /* the launch device's context (migration) */
    int ctx_retained;
    CUcontext dflt_ctx;         /* runtime launch into a default stream on a thread with no
                                 * context current yet: the primary context it will use
                                 * (retained), current only for our stream queries */
    unsigned char *argcopy;     /* private copy of the arguments, rewritten */
    void **newargs, **newextra;
};

#pragma GCC visibility pop
#endif
