/* The last error of the calling thread (dnn.h). */
#include "dnn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last[256];

cudnnStatus_t simdnn_fail(cudnnStatus_t s, const char *text)
{
    snprintf(last, sizeof last, "%s", text);
    return s;
}

cudnnStatus_t simdnn_failf(cudnnStatus_t s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    return s;
}

/* cuDNN 9.26 on the CPU: after a successful call the string is empty; the
 * message of a failure stays until it is read (observed with
 * cudnnGetLastErrorString after a failed cudnnBackendFinalize). */
void simdnn_last_error(char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    snprintf(buf, n, "%s", last);
    last[0] = '\0';
}
