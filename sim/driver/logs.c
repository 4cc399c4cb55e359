/* The driver's error log (cuda.h "Error Log Management"): cuLogsRegisterCallback,
 * cuLogsUnregisterCallback, cuLogsCurrent, cuLogsDumpToFile, cuLogsDumpToMemory.
 *
 * What is logged: the sim's own one-line explanations that go through
 * sim_log() (an entry point absent from the configured driver, why an IPC
 * handle cannot be opened, ...), each also written to stderr as one line.
 * The stubs' "is not implemented" lines and the runtime's lines are not.
 *
 * The log keeps the last LOG_KEEP messages (the driver keeps 25600 bytes);
 * an iterator is the sequence number of the next message.  Callbacks are
 * called without any lock of the driver's held, in the thread that logs, at
 * most MAX_CBS of them. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_KEEP   128
#define LOG_LINE   200          /* LOG_KEEP * LOG_LINE = the driver's 25600 bytes */
#define MAX_CBS    16

struct CUlogsCallbackEntry_st { CUlogsCallback fn; void *user; };

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_ring[LOG_KEEP][LOG_LINE];
static unsigned g_next;         /* sequence number of the next message */
static struct CUlogsCallbackEntry_st *g_cbs[MAX_CBS];

void sim_log(CUlogLevel level, const char *fmt, ...)
{
    char line[LOG_LINE + 16];
    int n = snprintf(line, sizeof line, "simcuda: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    size_t len = strlen(line);
    line[len] = '\n';
    (void)!write(2, line, len + 1);     /* one write: lines never interleave */
    line[len] = 0;

    struct CUlogsCallbackEntry_st cbs[MAX_CBS];
    int ncb = 0;
    pthread_mutex_lock(&g_log_lock);
    snprintf(g_ring[g_next % LOG_KEEP], LOG_LINE, "%s", line);
    g_next++;
    for (int i = 0; i < MAX_CBS; i++)
        if (g_cbs[i])
            cbs[ncb++] = *g_cbs[i];
    pthread_mutex_unlock(&g_log_lock);
    for (int i = 0; i < ncb; i++) {
        char copy[LOG_LINE];            /* the callback's message is not const */
        snprintf(copy, sizeof copy, "%s", line);
        cbs[i].fn(cbs[i].user, level, copy, strlen(copy));
    }
}

CUresult CUDAAPI cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData, CUlogsCallbackHandle *callback_out)
{
    CUresult r = sim_absent(__func__);
    if (r != CUDA_SUCCESS)
        return r;
    if (!callbackFunc)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUlogsCallbackEntry_st *e = malloc(sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->fn = callbackFunc;
    e->user = userData;
    r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&g_log_lock);
    for (int i = 0; i < MAX_CBS && r != CUDA_SUCCESS; i++)
        if (!g_cbs[i]) {
            g_cbs[i] = e;
            r = CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&g_log_lock);
    if (r != CUDA_SUCCESS)
        free(e);
    else if (callback_out)
        *callback_out = e;
    return r;
}

CUresult CUDAAPI cuLogsUnregisterCallback(CUlogsCallbackHandle callback)
{
    CUresult r = sim_absent(__func__);
    if (r != CUDA_SUCCESS)
        return r;
    r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_log_lock);
    for (int i = 0; i < MAX_CBS && callback; i++)
        if (g_cbs[i] == callback) {
            g_cbs[i] = NULL;
            r = CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&g_log_lock);
    if (r == CUDA_SUCCESS)
        free(callback);
    return r;
}

CUresult CUDAAPI cuLogsCurrent(CUlogIterator *iterator_out, unsigned int flags)
{
    CUresult r = sim_absent(__func__);
    if (r != CUDA_SUCCESS)
        return r;
    if (!iterator_out || flags)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_log_lock);
    *iterator_out = g_next;
    pthread_mutex_unlock(&g_log_lock);
    return CUDA_SUCCESS;
}

/* The messages from *it (all kept ones if it is NULL) that fit in cap bytes
 * with a newline after each and a NUL at the end, newest last; a first line
 * says when older ones were lost or left out (if it fits).  Advances *it.
 * Returns the length written; *had says whether there was anything to dump
 * (0 written with *had set: not even the newest message fits).  Log lock held. */
static size_t dump(CUlogIterator *it, char *buf, size_t cap, int *had)
{
    static const char trunc[] = "simcuda: [earlier log messages were truncated]\n";
    unsigned first = g_next > LOG_KEEP ? g_next - LOG_KEEP : 0;
    unsigned from = it ? *it : first;
    int lost = from < first;
    if (from < first || from > g_next)
        from = first;
    *had = from < g_next;
    size_t need = 1;            /* the NUL */
    unsigned start = g_next;
    while (start > from) {
        size_t l = strlen(g_ring[(start - 1) % LOG_KEEP]) + 1;
        if (need + l > cap)
            break;
        need += l;
        start--;
    }
    if (start == g_next)
        return 0;
    if (it)
        *it = g_next;
    size_t n = 0;
    if ((lost || start > from) && need + sizeof trunc - 1 <= cap) {
        memcpy(buf, trunc, sizeof trunc - 1);
        n = sizeof trunc - 1;
    }
    for (unsigned s = start; s < g_next; s++) {
        size_t l = strlen(g_ring[s % LOG_KEEP]);
        memcpy(buf + n, g_ring[s % LOG_KEEP], l);
        n += l;
        buf[n++] = '\n';
    }
    buf[n] = 0;
    return n;
}

CUresult CUDAAPI cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size, unsigned int flags)
{
    CUresult r = sim_absent(__func__);
    if (r != CUDA_SUCCESS)
        return r;
    if (!buffer || !size || flags)
        return CUDA_ERROR_INVALID_VALUE;
    int had;
    if (*size)
        buffer[0] = 0;
    pthread_mutex_lock(&g_log_lock);
    size_t n = dump(iterator, buffer, *size, &had);
    pthread_mutex_unlock(&g_log_lock);
    *size = n;
    if (n == 0 && had)
        return CUDA_ERROR_INVALID_VALUE;    /* not even one message fits */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLogsDumpToFile(CUlogIterator *iterator, const char *pathToFile, unsigned int flags)
{
    CUresult r = sim_absent(__func__);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pathToFile || flags)
        return CUDA_ERROR_INVALID_VALUE;
    char *buf = malloc(LOG_KEEP * (LOG_LINE + 1) + 64);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int had;
    pthread_mutex_lock(&g_log_lock);
    size_t n = dump(iterator, buf, LOG_KEEP * (LOG_LINE + 1) + 64, &had);
    pthread_mutex_unlock(&g_log_lock);
    FILE *f = fopen(pathToFile, "w");
    if (!f) {
        free(buf);
        return CUDA_ERROR_INVALID_VALUE;
    }
    int ok = fwrite(buf, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    free(buf);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
