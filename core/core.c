/* core: start and finish of the core (see core.h): the report opened from
 * the options, the fork handlers of the core's modules, and the exit status
 * devcheck imposes.  The front-end registration is frontends.c's. */
#include "core/core.h"
#include "core/contexts.h"
#include "core/kernels.h"
#include "core/memory.h"
#include "core/options.h"
#include "report/report.h"

#include <pthread.h>

int dc_ready;

/* --- fork ------------------------------------------------------------------- *
 * A child never inherits a held lock: prepare takes every module's lock,
 * parent and child release (or re-initialise) them.  Each of these locks is
 * a leaf (nothing else is called while it is held), so their order is free. */

static void fork_prepare(void)
{
    dc_kernels_fork_prepare();
    dc_mem_fork_prepare();
    dc_ctx_fork_prepare();
}

static void fork_parent(void)
{
    dc_ctx_fork_parent();
    dc_mem_fork_parent();
    dc_kernels_fork_parent();
}

static void fork_child(void)
{
    dc_ctx_fork_child();
    dc_mem_fork_child();
    dc_kernels_fork_child();
}

static void atfork_once(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

void dc_core_open(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atfork_once);
    dc_report_init();
}

int dc_core_finish(int program_status)
{
    dc_report_finish();
    if (dc_opt.error_exitcode != 0 && program_status >= 0 && (program_status & 0xff) == 0 &&
        dc_report_error_count() > 0)
        return dc_opt.error_exitcode;
    return -1;
}
