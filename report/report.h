/* report: findings -> deduplicated, symbolized reports on stderr/log_path,
 * JSON Lines (json_path), and the exit summary.  Thread-safe; formats into
 * fixed buffers and writes each record with one write(). */
#ifndef DEVCHECK_REPORT_H
#define DEVCHECK_REPORT_H
#include <stdint.h>
/* Opens the sinks named by the options (dc_opt).  An unwritable path gives one
 * line on stderr and falls back to stderr (log) or no JSON; never fails.
 * Parse the options first.  Also installs the core's fork handlers
 * (dc_core_atfork_install).  Reporting before dc_report_init() opens the
 * sinks itself on first use. */
void dc_report_init(void);
/* Prints `devcheck: SUMMARY: ...`, writes JSON count updates and the summary
 * object, closes the sinks.  Idempotent.  With mode=off it prints nothing. */
void dc_report_finish(void);
/* Error-severity findings so far (unique findings, for error_exitcode). */
unsigned long dc_report_error_count(void);
/* One line `devcheck: <msg>` on the log sink (stderr by default). printf-style,
 * fixed buffer, no allocation. */
void dc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* dc_log only when dc_opt.verbosity >= level. */
void dc_logv(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Counters behind the summary line (tests, the wrapper). */
struct dc_report_stats {
    uint64_t findings, errors, warnings, infos, kernels;
    uint64_t launches_checked, launches_unchecked;
    uint64_t launches_interpose, launches_cupti;    /* by detection path (checked + unchecked) */
    uint64_t printed;           /* text reports printed (print_limit) */
    uint64_t dropped;           /* unique findings beyond the table's capacity */
    uint64_t bytes_migrated;    /* mode=migrate: bytes copied both ways */
};
void dc_report_stats(struct dc_report_stats *s);

/* pthread_atfork handlers for every core module (registry, stacks, report):
 * a child never inherits a held lock; its report starts empty, and sinks
 * whose path holds %p are reopened under the child's pid.  Once only. */
void dc_core_atfork_install(void);
/* Tests: forget all findings and counters, close the sinks; the next report
 * (or dc_report_init) opens them again from dc_opt. */
void dc_report_reset(void);
#endif
