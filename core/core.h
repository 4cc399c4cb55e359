/* core: the one interface through which devcheck's two front ends feed its
 * core.  The interposer (preload/) and the CUPTI subscriber (cupti/) each
 * describe the CUDA calls they see as the events below and never call each
 * other; the core records memory in the registry, or describes and checks a
 * launch, and hands its findings to report/.
 *
 *   preload/ (hooks)  ----\
 *                          +--> core/core.h --> core --> report/
 *   cupti/ (callbacks) ---/
 *
 * Contract of every event function:
 *  - Call it with the guard held (dc_guard > 0): the core then calls CUDA
 *    itself (driver queries, mode=migrate's copies) without being seen by
 *    the hooks or the CUPTI callbacks.  A front end ignores a call that
 *    arrives while the guard is held: the other front end, or devcheck
 *    itself, has it.
 *  - Recording events come after the real call succeeded (a free: begin
 *    before it, end after it).
 *  - The arguments are only read (a CUPTI callback's functionParams are
 *    const); a launch's own arguments are never written (mode=migrate runs
 *    the launch with a private copy, dc_launch_state.args / .extra).
 *  - Nothing here fails the program: an event devcheck cannot record (no
 *    memory, a full table) is dropped.
 * Needs only the plain toolkit headers (cupti.h may not be combined with
 * preload/bind.h's __CUDA_API_VERSION_INTERNAL). */
#ifndef DEVCHECK_CORE_H
#define DEVCHECK_CORE_H
/* The rooms, from the ground up; each uses only those before it. */
#include "core/base/base.h"
#include "core/owner/owner.h"
#include "core/kernel/kernel.h"
#include "core/verdict/verdict.h"
#include "core/contexts.h"

#pragma GCC visibility push(hidden)

/* --- start and finish (the start-up, preload/startup.c; core/lifecycle.c) ---- */

/* Opens the report with the parsed options (dc_opt) and installs the fork
 * handlers of every core module (once).  Tests call it again after parsing
 * other options (and dc_report_reset). */
void dc_core_open(void);
/* The exit summary (report/); returns the exit status devcheck imposes on a
 * program that returned `program_status` (error_exitcode when it was 0 and
 * errors were found; -1: keep the program's; program_status < 0: unknown). */
int dc_core_finish(int program_status);
/* --stats: the start-up took ns (the preload's init, the driver bound and
 * the front ends started). */
void dc_core_started(uint64_t ns);
/* Before main (the start-up's constructor, options parsed): the first
 * process of a tree truncates the shared output files (report/). */
void dc_core_prestart(void);
/* The exit summary from a handler of a fatal signal (bounded waits; fault:
 * a synchronous fault, nothing allocated: report.h). */
void dc_core_finish_signal(int fault);

/* A front end besides the interposer registers itself with DC_FRONTEND (the
 * linker collects the records in section dc_frontends), so the start-up
 * starts it without naming it.  start(beside) runs once, from the start-up,
 * with the options parsed, the report open and the guard held; beside is 1
 * when the interposer checks the program's calls too (backend=both: the
 * front end then needs only what the hooks cannot see); it returns 1 when
 * it will see the program's calls (then backend=cupti lets the hooks pass
 * through), 0 when it cannot (it has said why).  yield_cupti() (may be NULL)
 * runs when the program subscribes to CUPTI itself (a profiler: CUPTI allows
 * one subscriber): a front end holding the subscription gives it up, says so
 * in one line and returns 1 (it no longer sees the program's calls); 0
 * otherwise.  Guard held. */
struct dc_frontend {
    const char *name;
    int (*start)(int beside);
    int (*yield_cupti)(void);
};
#define DC_FRONTEND(var, name, start, yield_cupti)                                    \
    __attribute__((used, section("dc_frontends"), aligned(sizeof(void *))))           \
    static const struct dc_frontend var = { name, start, yield_cupti }
/* Starts every registered front end; returns how many said 1. */
int dc_core_start_frontends(void);
/* The program subscribes to CUPTI: every front end's yield_cupti(); returns
 * how many gave their subscription up (the interposer must then see every
 * call itself). */
int dc_core_yield_cupti(void);

#pragma GCC visibility pop
#endif
