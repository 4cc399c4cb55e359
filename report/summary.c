/* summary: the summary's counters in words and as JSON fields (see
 * summary.h). */
#include "report/summary.h"

#include <stdio.h>

void dc_summary_text(struct dc_buf *b, const struct dc_report_stats *s, int migrate, unsigned processes)
{
    unsigned long long n = s->findings, e = s->errors, w = s->warnings, k = s->kernels, c = s->calls;
    unsigned long long lc = s->launches_checked, lu = s->launches_unchecked;
    dc_bput(b, "%llu finding%s (%llu error%s, %llu warning%s) in ", n, n == 1 ? "" : "s", e, e == 1 ? "" : "s", w,
            w == 1 ? "" : "s");
    unsigned long long fw = s->framework;
    if (k || (!c && !fw))
        dc_bput(b, "%llu kernel%s%s", k, k == 1 ? "" : "s", c || fw ? " and " : "");
    if (c)
        dc_bput(b, "%llu library call%s%s", c, c == 1 ? "" : "s", fw ? " and " : "");
    if (fw)             /* a framework's own error: before any kernel (issue 41: not "in 0 kernels") */
        dc_bput(b, "%llu framework op%s", fw, fw == 1 ? "" : "s");
    dc_bput(b, "; %llu launch%s checked, %llu unchecked (%llu seen by interpose, %llu by cupti)",
            lc, lc == 1 ? "" : "es", lu, (unsigned long long)s->launches_interpose,
            (unsigned long long)s->launches_cupti);
    if (migrate)
        dc_bput(b, "; %llu bytes migrated", (unsigned long long)s->bytes_migrated);
    if (s->expected)
        dc_bput(b, "; %llu error%s expected by the test (devcheck_expected)", (unsigned long long)s->expected,
                s->expected == 1 ? "" : "s");
    if (s->suppressed)
        dc_bput(b, "; %llu suppressed", (unsigned long long)s->suppressed);
    if (s->quiet)
        dc_bput(b, "; %llu host memory operand%s not reported", (unsigned long long)s->quiet,
                s->quiet == 1 ? "" : "s");
    if (s->write_errors)
        dc_bput(b, "; %llu write error%s", (unsigned long long)s->write_errors, s->write_errors == 1 ? "" : "s");
    if (processes > 1)
        dc_bput(b, "; %u processes", processes);
}

void dc_summary_json_counts(char *out, size_t len, const struct dc_report_stats *s)
{
    snprintf(out, len,
             "\"findings\":%llu,\"errors\":%llu,\"warnings\":%llu,\"infos\":%llu,"
             "\"kernels\":%llu,\"library_calls\":%llu,\"launches_checked\":%llu,\"launches_unchecked\":%llu,"
             "\"launches_interpose\":%llu,\"launches_cupti\":%llu,\"not_recorded\":%llu,\"bytes_migrated\":%llu,"
             "\"write_errors\":%llu,\"quiet_operands\":%llu",
             (unsigned long long)s->findings, (unsigned long long)s->errors, (unsigned long long)s->warnings,
             (unsigned long long)s->infos, (unsigned long long)s->kernels, (unsigned long long)s->calls, (unsigned long long)s->launches_checked,
             (unsigned long long)s->launches_unchecked, (unsigned long long)s->launches_interpose,
             (unsigned long long)s->launches_cupti, (unsigned long long)s->dropped,
             (unsigned long long)s->bytes_migrated, (unsigned long long)s->write_errors,
             (unsigned long long)s->quiet);
}
