/* log: one line `devcheck: <msg>` on the log sink (stderr, or log_path:
 * report/sinks.h), what every folder of devcheck may say.  printf-style,
 * formatted into a fixed buffer (no allocation), one write() per line;
 * control characters (newline too) and bytes that are not UTF-8 in the
 * message are escaped (\x1b: common/format.h), so a line stays one line. */
#ifndef DEVCHECK_REPORT_LOG_H
#define DEVCHECK_REPORT_LOG_H

void dc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* dc_log only when the configured verbosity >= level. */
void dc_logv(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* dc_logv's threshold (the option verbosity; the report sets it). */
void dc_log_set_verbosity(int level);
int dc_log_verbosity(void);
#endif
