/* summary: the counters a summary gives and how they read: the line
 * `devcheck: SUMMARY: ...` and the counter fields of the JSON summary record
 * (report/FORMAT.md).  The same words for one process (report.c) and for a
 * merged model of many (merge.c, the wrapper). */
#ifndef DEVCHECK_REPORT_SUMMARY_H
#define DEVCHECK_REPORT_SUMMARY_H
#include <stddef.h>
#include <stdint.h>
#include "common/format.h"

#pragma GCC visibility push(hidden)

/* Counters behind the summary line (tests, the wrapper). */
struct dc_report_stats {
    uint64_t findings, errors, warnings, infos, kernels;
    uint64_t calls;             /* distinct library calls (core/verdict/libcall.h) with findings */
    uint64_t framework;         /* framework errors (framework_device_error, pointer_refused): no kernel ran */
    uint64_t expected;          /* errors a test marked devcheck_expected provoked: error_exitcode skips them */
    uint64_t launches_checked, launches_unchecked;
    uint64_t launches_interpose, launches_cupti;    /* by detection path (checked + unchecked) */
    uint64_t printed;           /* text reports printed (print_limit) */
    uint64_t dropped;           /* unique findings beyond the table's capacity */
    uint64_t bytes_migrated;    /* mode=migrate: bytes copied both ways */
    uint64_t suppressed;        /* occurrences of findings matched by a suppression */
    uint64_t write_errors;      /* records an output file could not take */
    uint64_t quiet;             /* operands counted but not reported: what a library's or framework's kernel word proves */
    uint64_t repeated;          /* occurrences beyond the first of the findings reported (--stats) */
};

/* The summary line's text after "SUMMARY: " (processes > 1 adds "in N
 * processes"; migrate: the bytes migrated). */
void dc_summary_text(struct dc_buf *b, const struct dc_report_stats *s, int migrate, unsigned processes);
/* The JSON summary's counters, "findings":N,...,"quiet_operands":N (no
 * braces), at most DC_SUMMARY_JSON_MAX bytes. */
#define DC_SUMMARY_JSON_MAX 512
void dc_summary_json_counts(char *out, size_t len, const struct dc_report_stats *s);

#pragma GCC visibility pop
#endif
