/* core: start and finish of the core (see core.h): the report opened from
 * the options, the fork handlers of the core's modules, and the exit status
 * devcheck imposes.  The front-end registration is frontends.c's. */
#include "core/core.h"
#include "core/verdict/capture.h"
#include "core/contexts.h"
#include "core/base/epoch.h"
#include "core/verdict/filter.h"
#include "core/kernel/hostdwarf.h"
#include "core/kernel/images.h"
#include "core/kernel/kernels.h"
#include "core/owner/memory.h"
#include "core/base/options.h"
#include "core/owner/ptrinfo.h"
#include "core/verdict/record.h"
#include "core/owner/registry.h"
#include "report/gpus.h"
#include "report/report.h"
#include "report/stats.h"
#include "report/symbolize.h"

#include <pthread.h>

int dc_ready;

/* --- fork ------------------------------------------------------------------- *
 * A child never inherits a held lock: prepare takes every module's lock,
 * parent and child release (or re-initialise) them.  Each of these locks is
 * a leaf (nothing else is called while it is held), so their order is free.
 * The report's own locks are the report's (dc_report_init). */

static void fork_prepare(void)
{
    dc_filter_fork_prepare();
    dc_reg_fork_prepare();
    dc_epoch_fork_prepare();
    dc_kernels_fork_prepare();
    dc_mem_fork_prepare();
    dc_ctx_fork_prepare();
    dc_capture_fork_prepare();
    dc_images_fork_prepare();
    dc_ptrinfo_fork_prepare();
    dc_hostdwarf_fork_prepare();
    dc_record_fork_prepare();
}

static void fork_parent(void)
{
    dc_record_fork_parent();
    dc_hostdwarf_fork_parent();
    dc_ptrinfo_fork_parent();
    dc_images_fork_parent();
    dc_capture_fork_parent();
    dc_ctx_fork_parent();
    dc_mem_fork_parent();
    dc_kernels_fork_parent();
    dc_epoch_fork_parent();
    dc_reg_fork_parent();
    dc_filter_fork_parent();
}

static void fork_child(void)
{
    dc_record_fork_child();
    dc_hostdwarf_fork_child();
    dc_ptrinfo_fork_child();
    dc_images_fork_child();
    dc_capture_fork_child();
    dc_ctx_fork_child();
    dc_mem_fork_child();
    dc_kernels_fork_child();
    dc_epoch_fork_child();
    dc_reg_fork_child();
    dc_filter_fork_child();
}

static void atfork_once(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

void dc_core_open(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atfork_once);
    /* what can be checked on this driver: said at start-up (verbosity 1) and
     * before the summary */
    char caps[512];
    int version = 0;
    dc_kernels_capabilities(caps, sizeof caps, &version);
    struct dc_report_config rc = {
        .log_path = dc_opt.log_path,
        .json_path = dc_opt.json_path,
        .print_limit = dc_opt.print_limit,
        .verbosity = dc_opt.verbosity,
        .halt_on_error = dc_opt.halt_on_error,
        .halt = dc_opt.halt,
        .off = dc_opt.mode == DC_MODE_OFF,
        .migrate = dc_opt.mode == DC_MODE_MIGRATE,
        .debuginfod = dc_opt.debuginfod,
        .driver_note = caps,
        .driver_version = version,
        .driver_layouts = dc_kernels_driver_layouts(),
        .sarif_path = dc_opt.sarif_path,
        .junit_path = dc_opt.junit_path,
        .html_path = dc_opt.html_path,
        .source_root = dc_opt.source_root,
        .suppressions = dc_opt.suppressions,
        .gen_suppressions = dc_opt.gen_suppressions,
        .library_roots = dc_opt.library_roots,
        .tree_dir = dc_opt.tree_dir,
    };
    dc_stats_enable(dc_opt.stats);
    dc_report_init(&rc);
    dc_gpus_set_reader(dc_devices_identify);
    dc_stack_set_interpreter_frames(dc_opt.python_interpreter_frames);
    dc_record_open();
    dc_logv(1, "%s", caps);
}

void dc_core_prestart(void)
{
    if (dc_opt.mode != DC_MODE_OFF)
        dc_report_prestart(dc_opt.log_path, dc_opt.json_path);
}

void dc_core_finish_signal(int fault)
{
    dc_report_finish_signal(fault);
}

/* --stats: the core's tables beside the report's. */
static void stats_tables(void)
{
    if (!dc_stats_on)
        return;
    dc_stats_table("allocation registry", dc_reg_bytes());
    dc_stats_table("kernel descriptions", dc_kernels_bytes());
}

void dc_core_started(uint64_t ns)
{
    dc_stats_set_start(ns);
}

int dc_core_finish(int program_status)
{
    stats_tables();
    dc_pointer_refusal_at_exit(program_status);
    dc_record_finish();
    dc_report_finish();
    /* Under the wrapper (tree_dir) the wrapper applies error_exitcode to
     * the whole tree: a child's own status is never changed. */
    if (dc_opt.tree_dir[0])
        return -1;
    if (dc_opt.error_exitcode != 0 && program_status >= 0 && (program_status & 0xff) == 0 &&
        dc_report_error_count() > 0)
        return dc_opt.error_exitcode;
    return -1;
}
