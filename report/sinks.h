/* sinks: the files the report's records go to: the log (stderr, or
 * log_path) for text reports and dc_log lines, and JSON Lines (json_path).
 * A path's %p is the process id; a path that cannot be opened gives one line
 * on stderr and falls back to stderr (log) or no JSON.  Every record leaves
 * with one write().  The report (report.c) opens, reopens and closes the
 * sinks under its lock; dc_log writes from any thread.  New kinds of output
 * (SARIF, JUnit, HTML) are sinks too: their files open and close here, their
 * formatters sit beside text.c and jsonl.c. */
#ifndef DEVCHECK_REPORT_SINKS_H
#define DEVCHECK_REPORT_SINKS_H
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Opens the log and JSON sinks (NULL or "": stderr, no JSON). */
void dc_sinks_open(const char *log_path, const char *json_path);
/* fork child: the sinks whose path holds %p are reopened under its pid. */
void dc_sinks_reopen_child(const char *log_path, const char *json_path);
/* fsync and close both (on disk before the program may die: halt_on_error);
 * the log goes back to stderr. */
void dc_sinks_close(void);
/* dc_logv's threshold (the option verbosity). */
void dc_sinks_set_verbosity(int level);
int  dc_sinks_have_json(void);
void dc_sink_text(const char *s, size_t n);     /* to the log */
void dc_sink_json(const char *s, size_t n);     /* to JSON Lines, if open */
/* The paths as opened (%p expanded); "" for stderr / no JSON. */
const char *dc_sinks_log_used(void);
const char *dc_sinks_json_used(void);

#pragma GCC visibility pop
#endif
