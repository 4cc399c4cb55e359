/* report: findings -> deduplicated, symbolized reports on stderr/log_path,
 * JSON Lines (json_path), and the exit summary.  Thread-safe; formats into
 * fixed buffers and writes each record with one write(). */
#ifndef DEVCHECK_REPORT_H
#define DEVCHECK_REPORT_H
/* Opens the sinks named by the options (dc_opt).  An unwritable path gives one
 * line on stderr and falls back to stderr (log) or no JSON; never fails. */
void dc_report_init(void);
/* Prints `devcheck: SUMMARY: ...`, writes JSON count updates and the summary
 * object, closes the sinks.  Idempotent. */
void dc_report_finish(void);
/* Error-severity findings so far (for error_exitcode). */
unsigned long dc_report_error_count(void);
/* One line `devcheck: <msg>` on the log sink (stderr by default). printf-style,
 * fixed buffer, no allocation. */
void dc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
