/* sinks: where the report's records go (see sinks.h). */
#include "report/sinks.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int log_fd = 2, json_fd = -1;
static char log_path_used[4096], json_path_used[4096];
static int verbosity;                   /* dc_logv's threshold */

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void vlog_line(const char *fmt, va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "devcheck: ");
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    write_all(__atomic_load_n(&log_fd, __ATOMIC_ACQUIRE), line, len);
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

void dc_sinks_set_verbosity(int level)
{
    __atomic_store_n(&verbosity, level, __ATOMIC_RELAXED);
}

/* Expands %p (pid) and %% in a path; -1 when it does not fit. */
static int expand_path(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = in; *p; p++) {
        char tmp[32];
        const char *s = tmp;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(tmp, sizeof tmp, "%d", (int)getpid());
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            tmp[0] = '%', tmp[1] = 0;
            p++;
        } else {
            tmp[0] = *p, tmp[1] = 0;
        }
        size_t n = strlen(s);
        if (o + n + 1 > len)
            return -1;
        memcpy(out + o, s, n);
        o += n;
    }
    out[o] = 0;
    return 0;
}

static int open_sink(const char *opt, const char *what, char *used, size_t usedlen)
{
    if (!opt || !*opt)
        return -1;
    if (expand_path(opt, used, usedlen) != 0) {
        char line[256];
        int n = snprintf(line, sizeof line, "devcheck: %s is too long; %s\n", what,
                         strcmp(what, "log_path") ? "no JSON output" : "writing to stderr");
        write_all(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        used[0] = 0;
        return -1;
    }
    int fd = open(used, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        char line[4400];
        int n = snprintf(line, sizeof line, "devcheck: cannot open %s '%s': %s; %s\n", what, used,
                         strerror(errno), strcmp(what, "log_path") ? "no JSON output" : "writing to stderr");
        write_all(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        used[0] = 0;
        return -1;
    }
    return fd;
}

void dc_sinks_close(void)
{
    /* on disk before the program may die (halt_on_error) */
    if (log_fd > 2)
        fsync(log_fd);
    if (json_fd >= 0)
        fsync(json_fd);
    if (log_fd > 2)
        close(log_fd);
    if (json_fd >= 0)
        close(json_fd);
    __atomic_store_n(&log_fd, 2, __ATOMIC_RELEASE);
    json_fd = -1;
}

void dc_sinks_open(const char *log_path, const char *json_path)
{
    int fd = open_sink(log_path, "log_path", log_path_used, sizeof log_path_used);
    __atomic_store_n(&log_fd, fd >= 0 ? fd : 2, __ATOMIC_RELEASE);
    json_fd = open_sink(json_path, "json_path", json_path_used, sizeof json_path_used);
}

void dc_sinks_reopen_child(const char *log_path, const char *json_path)
{
    if (log_path && strstr(log_path, "%p")) {
        if (log_fd > 2)
            close(log_fd);
        int fd = open_sink(log_path, "log_path", log_path_used, sizeof log_path_used);
        __atomic_store_n(&log_fd, fd >= 0 ? fd : 2, __ATOMIC_RELEASE);
    }
    if (json_path && strstr(json_path, "%p")) {
        if (json_fd >= 0)
            close(json_fd);
        json_fd = open_sink(json_path, "json_path", json_path_used, sizeof json_path_used);
    }
}

int dc_sinks_have_json(void) { return json_fd >= 0; }

void dc_sink_text(const char *s, size_t n) { write_all(__atomic_load_n(&log_fd, __ATOMIC_ACQUIRE), s, n); }

void dc_sink_json(const char *s, size_t n)
{
    if (json_fd >= 0)
        write_all(json_fd, s, n);
}

const char *dc_sinks_log_used(void) { return log_path_used; }
const char *dc_sinks_json_used(void) { return json_path_used; }
