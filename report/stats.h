/* stats: devcheck's own cost, for --stats (DEVCHECK_OPTIONS=stats=1): the
 * time spent inside its checks and reports, by part, the start-up, and the
 * bytes its tables hold; at exit one table on the log sink and a "stats"
 * object in the JSON summary (report/FORMAT.md).
 *
 * Off (the default), a timed section costs one load and a branch.  On, each
 * timed section reads the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) twice:
 * what devcheck's code cost that thread, not the wall time, which a loaded
 * machine stretches (another process running on the same core counted in
 * devcheck's time).  It is a system call (no vDSO for this clock): ~0.1-0.5
 * us a read, paid only with stats=1.  The sums are atomics: no lock. */
#ifndef DEVCHECK_REPORT_STATS_H
#define DEVCHECK_REPORT_STATS_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "common/format.h"
#include "report/summary.h"

#pragma GCC visibility push(hidden)

/* What a timed section is.  LAUNCH and LIBCALL are the checks (the reports
 * of their findings included); REPORT, SYMBOLIZE and PYFRAMES are parts of
 * them (a new finding's report, naming its frames, reading Python frames). */
enum dc_stat_part { DC_T_LAUNCH, DC_T_LIBCALL, DC_T_REPORT, DC_T_SYMBOLIZE, DC_T_PYFRAMES, DC_T_COUNT };

extern int dc_stats_on;

static inline uint64_t dc_stats_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* t = DC_STATS_BEGIN(); ... DC_STATS_END(part, t): one timed section. */
#define DC_STATS_BEGIN() (__builtin_expect(__atomic_load_n(&dc_stats_on, __ATOMIC_RELAXED), 0) ? dc_stats_clock() : 0)
#define DC_STATS_END(part, t)                              \
    do {                                                   \
        if (__builtin_expect((t) != 0, 0))                 \
            dc_stats_add((part), dc_stats_clock() - (t));  \
    } while (0)
void dc_stats_add(enum dc_stat_part part, uint64_t ns);
/* A check (DC_T_LAUNCH, DC_T_LIBCALL) is timed with these instead, so that
 * the parts timed inside it are known to be inside: symbolization outside
 * every check (a sink's, at exit or in a framework hook) is added to the
 * total by itself. */
extern __thread unsigned dc_stats_nest __attribute__((tls_model("initial-exec")));
#define DC_STATS_CHECK_BEGIN()                           \
    __extension__({                                      \
        uint64_t t_ = DC_STATS_BEGIN();                  \
        if (__builtin_expect(t_ != 0, 0))                \
            dc_stats_nest++;                             \
        t_;                                              \
    })
#define DC_STATS_CHECK_END(part, t)                      \
    do {                                                 \
        if (__builtin_expect((t) != 0, 0)) {             \
            dc_stats_nest--;                             \
            dc_stats_add((part), dc_stats_clock() - (t)); \
        }                                                \
    } while (0)

void dc_stats_enable(int on);
/* The start-up: ns from the preload's first entry to checking. */
void dc_stats_set_start(uint64_t ns);
/* A table of devcheck's and the bytes it holds (at exit, before the
 * report's finish; the report adds its own). */
void dc_stats_table(const char *name, size_t bytes);

/* The library calls checked (timed or not). */
void dc_stats_count_libcall(void);
/* The table beside the summary's counters s (text: one line a row, the
 * first "devcheck: STATS: ...", the others "devcheck: stats: ...") and the
 * JSON object ("stats":{...}, no leading comma). */
void dc_stats_text(struct dc_buf *b, const struct dc_report_stats *s);
void dc_stats_json(struct dc_buf *b, const struct dc_report_stats *s);
/* Forget the times and tables (a fork child). */
void dc_stats_reset(void);

#pragma GCC visibility pop
#endif
