/* log: lines on the log sink (see log.h). */
#include "report/log.h"
#include "common/format.h"
#include "report/sinks.h"

#include <stdarg.h>
#include <stdio.h>

static int verbosity;                   /* dc_logv's threshold */

static void vlog_line(const char *fmt, va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "devcheck: ");
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    /* one line, whatever the message holds (a kernel name, a path from a
     * record or a program): \x1b, \x0a, not the bytes */
    len = dc_text_escape(line, (size_t)n, len, sizeof line - 1, 1);
    line[len++] = '\n';
    dc_sink_text(line, len);
}

void dc_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_line(fmt, ap);
    va_end(ap);
}

void dc_logv(int level, const char *fmt, ...)
{
    if (__atomic_load_n(&verbosity, __ATOMIC_RELAXED) < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog_line(fmt, ap);
    va_end(ap);
}

int dc_log_verbosity(void)
{
    return __atomic_load_n(&verbosity, __ATOMIC_RELAXED);
}

void dc_log_set_verbosity(int level)
{
    __atomic_store_n(&verbosity, level, __ATOMIC_RELAXED);
}
