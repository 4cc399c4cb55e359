/* report: dedup, text blocks, JSON Lines, summary.
 *
 * A finding is identified by (kind, kernel, parameter, word, allocation stack,
 * launch stack); the first occurrence is formatted and written, repeats only
 * count.  All formatting goes into static fixed buffers under rep_lock (first
 * occurrences only: the repeat path is a hash lookup and an increment), and
 * every record leaves with one write().  Symbolization (libdw, demangling) is
 * the only part that allocates. */
#include "report/report.h"
#include "report/finding.h"
#include "report/stack.h"
#include "report/symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int rep_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); rep_oom = 1; } while (0)
#include <uthash.h>

#define MAX_FINDINGS 100000
#define TEXT_MAX (64 * 1024)
#define JSON_MAX (64 * 1024)
#define FRAMES_SHOWN DC_STACK_MAX

struct fkey {
    uint32_t kind;
    int32_t param;
    uint64_t kernel;            /* FNV-1a of the kernel name (or its key) */
    uint32_t word_offset;
    uint32_t alloc_stack;
    uint32_t launch_stack;
    uint32_t action;            /* enum dc_action */
};

struct frec {
    struct fkey key;
    UT_hash_handle hh;
    uint64_t id;
    uint64_t count;
    enum dc_severity severity;
    char *json_head;            /* the JSON line up to "count": */
    char *json_tail;            /* after the count value, with the newline */
    struct frec *next;          /* in id order, for the exit updates */
};

struct kset {
    uint64_t kernel;
    UT_hash_handle hh;
};

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct frec *findings, *first_rec, *last_rec;
static struct kset *kernels;
static uint64_t nfindings, nkernels, sev_count[3], dropped;
static unsigned long errors_atomic;
static uint64_t launches_checked, launches_unchecked;   /* atomics */
static uint64_t bytes_migrated;                         /* atomic */
static uint64_t launches_by_path[DC_PATH_COUNT];        /* atomics: checked + unchecked */
static uint64_t printed;
static int limit_noted;

/* The configuration (dc_report_init); before it, the options' defaults. */
static struct dc_report_config cfg = { .print_limit = 100 };

static int log_fd = 2, json_fd = -1;
static int inited, finished;
static char log_path_used[4096], json_path_used[4096];

static char text_buf[TEXT_MAX];
static char json_buf[JSON_MAX];
static struct dc_frame frames_a[FRAMES_SHOWN], frames_b[FRAMES_SHOWN];

const char *dc_severity_name(enum dc_severity s)
{
    return s == DC_SEV_ERROR ? "error" : s == DC_SEV_WARNING ? "warning" : "info";
}

const char *dc_path_name(enum dc_path p)
{
    return p == DC_PATH_CUPTI ? "cupti" : "interpose";
}

const char *dc_mem_kind_name(enum dc_mem_kind k)
{
    static const char *const names[DC_MEM_KIND_COUNT] = {
        "device", "pool", "vmm", "ipc", "managed", "pinned", "registered", "pageable",
    };
    return (unsigned)k < DC_MEM_KIND_COUNT ? names[k] : "unknown";
}

const char *dc_halt_name(enum dc_halt h)
{
    return h == DC_HALT_ABORT ? "abort" : h == DC_HALT_TRAP ? "trap" : "?";
}

const char *dc_finding_kind_name(enum dc_finding_kind k)
{
    static const char *const names[DC_F_KIND_COUNT] = {
        "device_mismatch", "peer_access", "host_memory", "stream_mismatch", "unchecked_kernel",
        "async_error",
    };
    return (unsigned)k < DC_F_KIND_COUNT ? names[k] : "unknown";
}

/* ---- output ------------------------------------------------------------------------ */

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

struct buf {
    char *p;
    size_t len, pos;
    int truncated;
};

static void bput(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bput(struct buf *b, const char *fmt, ...)
{
    if (b->pos + 1 >= b->len) {
        b->truncated = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p + b->pos, b->len - b->pos, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    if ((size_t)w >= b->len - b->pos) {
        b->pos = b->len - 1;
        b->truncated = 1;
    } else {
        b->pos += (size_t)w;
    }
}

/* JSON string literal (with quotes) of s, or null when s is NULL. */
static void bjson_str(struct buf *b, const char *s)
{
    if (!s) {
        bput(b, "null");
        return;
    }
    bput(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            bput(b, "\\%c", *c);
        else if (*c == '\n')
            bput(b, "\\n");
        else if (*c == '\t')
            bput(b, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            bput(b, "\\u%04x", *c);
        else
            bput(b, "%c", *c);
    }
    bput(b, "\"");
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
    if (cfg.verbosity < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog_line(fmt, ap);
    va_end(ap);
}

/* ---- sinks ------------------------------------------------------------------------- */

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

static void close_sinks(void)
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

static void open_sinks_locked(void)
{
    int fd = open_sink(cfg.log_path, "log_path", log_path_used, sizeof log_path_used);
    __atomic_store_n(&log_fd, fd >= 0 ? fd : 2, __ATOMIC_RELEASE);
    json_fd = open_sink(cfg.json_path, "json_path", json_path_used, sizeof json_path_used);
}

/* Lock order at fork: report, then the symbolizer and the stacks (the
 * report symbolizes while it holds rep_lock). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&rep_lock);
    dc_stack_fork_prepare();
}

static void fork_parent(void)
{
    dc_stack_fork_parent();
    pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void);

static void fork_child(void)
{
    dc_stack_fork_child();
    /* The child is a process of its own: its report starts empty, and a
     * path with %p gets its own file. */
    reset_findings_locked();
    if (inited && !finished) {
        if (cfg.log_path && strstr(cfg.log_path, "%p")) {
            if (log_fd > 2)
                close(log_fd);
            int fd = open_sink(cfg.log_path, "log_path", log_path_used, sizeof log_path_used);
            __atomic_store_n(&log_fd, fd >= 0 ? fd : 2, __ATOMIC_RELEASE);
        }
        if (cfg.json_path && strstr(cfg.json_path, "%p")) {
            if (json_fd >= 0)
                close(json_fd);
            json_fd = open_sink(cfg.json_path, "json_path", json_path_used, sizeof json_path_used);
        }
    }
    pthread_mutex_unlock(&rep_lock);
}

static void atfork_once(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static void init_locked(void)
{
    if (inited)
        return;
    inited = 1;
    finished = 0;
    open_sinks_locked();
}

/* Our copy of a configured path (NULL: none, or no memory for it), in place
 * of *kept. */
static const char *keep_path(const char *path, char **kept)
{
    free(*kept);
    *kept = path && *path ? strdup(path) : NULL;
    return *kept;
}

void dc_report_init(const struct dc_report_config *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atfork_once);
    pthread_mutex_lock(&rep_lock);
    if (c) {
        static char *log_path, *json_path;
        cfg = *c;
        cfg.log_path = keep_path(c->log_path, &log_path);
        cfg.json_path = keep_path(c->json_path, &json_path);
    }
    int was = inited;
    init_locked();
    pthread_mutex_unlock(&rep_lock);
    if (!was) {
        dc_logv(1, "reports to %s%s%s", log_path_used[0] ? log_path_used : "stderr",
                json_path_used[0] ? ", JSON Lines to " : "", json_path_used);
    }
}

/* ---- findings ---------------------------------------------------------------------- */

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t kernel_hash(const struct dc_finding_launch *l)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (l->kernel)
        return fnv1a(l->kernel, strlen(l->kernel), h);
    uintptr_t k = (uintptr_t)l->kernel_key;
    return fnv1a(&k, sizeof k, h ^ 1);
}

static const char *sev_upper(enum dc_severity s)
{
    return s == DC_SEV_ERROR ? "ERROR" : s == DC_SEV_WARNING ? "WARNING" : "INFO";
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *display_file(const char *file)
{
    static char cwd[1024];
    static int have_cwd = -1;
    if (have_cwd < 0)
        have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    size_t n = have_cwd ? strlen(cwd) : 0;
    if (n > 1 && !strncmp(file, cwd, n) && file[n] == '/')
        return file + n + 1;
    return file;
}

static void text_stack(struct buf *b, const char *title, const struct dc_frame *fr, size_t n)
{
    bput(b, "    %s:", title);
    if (!n) {
        bput(b, " (not recorded)\n");
        return;
    }
    bput(b, "\n");
    for (size_t i = 0; i < n; i++) {
        const struct dc_frame *f = &fr[i];
        bput(b, "      #%zu ", i);
        if (f->function[0])
            bput(b, "%s", f->function);
        else
            bput(b, "0x%zx", (size_t)f->ip);
        if (f->file[0])
            bput(b, " at %s:%d", display_file(f->file), f->line);
        if (f->module[0])
            bput(b, " (%s+0x%zx)", basename_of(f->module), (size_t)f->offset);
        bput(b, "\n");
    }
}

static void json_stack(struct buf *b, const struct dc_frame *fr, size_t n)
{
    bput(b, "[");
    for (size_t i = 0; i < n; i++) {
        const struct dc_frame *f = &fr[i];
        bput(b, "%s{\"function\":", i ? "," : "");
        bjson_str(b, f->function[0] ? f->function : NULL);
        bput(b, ",\"module\":");
        bjson_str(b, f->module[0] ? f->module : NULL);
        bput(b, ",\"offset\":%zu,\"file\":", (size_t)f->offset);
        bjson_str(b, f->file[0] ? f->file : NULL);
        if (f->line > 0)
            bput(b, ",\"line\":%d}", f->line);
        else
            bput(b, ",\"line\":null}");
    }
    bput(b, "]");
}

static const char *mem_phrase(enum dc_mem_kind k)
{
    switch (k) {
    case DC_MEM_DEVICE:          return "device";
    case DC_MEM_POOL:            return "pool (stream-ordered)";
    case DC_MEM_VMM:             return "VMM-mapped";
    case DC_MEM_IPC:             return "IPC-imported";
    case DC_MEM_MANAGED:         return "managed";
    case DC_MEM_HOST_PINNED:     return "pinned host";
    case DC_MEM_HOST_REGISTERED: return "registered host";
    default:                     return "host";
    }
}

static void text_operand(struct buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (f->param >= 0)
        bput(b, "    operand: param %d, word +%u = 0x%zx: ", f->param, f->word_offset, (size_t)f->address);
    else
        bput(b, "    operand: argument buffer +%u = 0x%zx: ", f->word_offset, (size_t)f->address);
    if (!f->alloc_known) {
        bput(b, "pageable host memory (not allocated through CUDA); cuda:%d %s\n", l->device,
             f->access ? f->access : "");
        return;
    }
    const struct dc_finding_alloc *a = &f->alloc;
    bput(b, "offset %zu in a %zu-byte %s allocation", (size_t)(f->address - a->base), a->size,
         mem_phrase(a->kind));
    if (a->owner >= 0)
        bput(b, " owned by cuda:%d", a->owner);
    if (f->kind == DC_F_DEVICE_MISMATCH || f->kind == DC_F_ASYNC_ERROR)
        bput(b, "; cuda:%d has no access (%s)\n", l->device, f->access ? f->access : "");
    else if (f->kind == DC_F_PEER_ACCESS)
        bput(b, "; cuda:%d may access it (%s), across the interconnect\n", l->device, f->access ? f->access : "");
    else
        bput(b, "; %s\n", f->access ? f->access : "");
}

/* async_error: every operand of the launch, one line each. */
static void text_operands(struct buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (!f->nops) {
        bput(b, "    operands: none known to devcheck\n");
        return;
    }
    bput(b, "    operands:\n");
    for (unsigned i = 0; i < f->nops; i++) {
        const struct dc_opnd *o = &f->ops[i];
        if (o->param >= 0)
            bput(b, "      param %d, word +%u = 0x%zx: ", o->param, o->word_offset, (size_t)o->address);
        else
            bput(b, "      argument buffer +%u = 0x%zx: ", o->word_offset, (size_t)o->address);
        if (!o->alloc_known)
            bput(b, "pageable host memory");
        else
            bput(b, "%s memory owned by cuda:%d", mem_phrase(o->alloc.kind), o->alloc.owner);
        if (o->accessible)
            bput(b, "\n");
        else
            bput(b, "; cuda:%d may not access it\n", l->device);
    }
}

static void text_action(struct buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (f->action == DC_ACT_MIGRATED) {
        if (f->moved_bytes)
            bput(b, "    action: migrated: %llu bytes copied to cuda:%d for this launch and back after it\n",
                 (unsigned long long)f->moved_bytes, f->to_device);
        else
            bput(b, "    action: migrated to cuda:%d for this launch (shares the copy of another operand)\n",
                 f->to_device);
    } else if (f->action == DC_ACT_NOT_MIGRATED) {
        bput(b, "    action: not migrated: %s; the launch went ahead unmodified on cuda:%d\n",
             f->reason ? f->reason : "?", l->device);
    }
}

static void text_hint(struct buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    int d = l->device;
    if (f->action != DC_ACT_REPORTED && f->kind == DC_F_HOST_MEMORY) {
        bput(b, "    hint: move the operand to cuda:%d before the launch (cudaMemcpy, tensor.to(\"cuda:%d\")), or allocate it with cudaMallocHost / cudaMallocManaged\n", d, d);
        return;
    }
    switch (f->kind) {
    case DC_F_DEVICE_MISMATCH:
        bput(b, "    hint: move the operand to cuda:%d before the launch (e.g. cudaMemcpyPeer, or tensor.to(\"cuda:%d\")), or ", d, d);
        if (f->alloc.kind == DC_MEM_VMM)
            bput(b, "grant cuda:%d access with cuMemSetAccess\n", d);
        else if (f->alloc.kind == DC_MEM_POOL)
            bput(b, "grant cuda:%d access to the pool with cudaMemPoolSetAccess\n", d);
        else
            bput(b, "enable peer access (cudaDeviceEnablePeerAccess)\n");
        break;
    case DC_F_PEER_ACCESS:
        bput(b, "    hint: legal, but every access crosses NVLink/PCIe; copy the data to cuda:%d once if the kernel reads it repeatedly (peer=ignore silences this)\n", d);
        break;
    case DC_F_HOST_MEMORY:
        if (f->alloc_known)
            bput(b, "    hint: legal but slow: the kernel reads host memory over PCIe; copy it to cuda:%d first (cudaMemcpyAsync, tensor.to(\"cuda:%d\")) (host_memory=ignore silences this)\n", d, d);
        else
            bput(b, "    hint: copy the data to cuda:%d (cudaMemcpy, tensor.to(\"cuda:%d\")) or allocate it with cudaMallocHost / cudaMallocManaged\n", d, d);
        break;
    case DC_F_STREAM_MISMATCH:
        bput(b, "    hint: call cudaSetDevice(%d) before launching into a stream of cuda:%d, or launch into a stream created on cuda:%d\n",
             d, d, l->current_device);
        break;
    case DC_F_ASYNC_ERROR:
        bput(b, "    hint: this launch failed on the device (found by sync=1); an operand cuda:%d may not access is the usual cause: move it to cuda:%d before the launch\n", d, d);
        break;
    case DC_F_UNCHECKED_KERNEL:
        bput(b, "    hint: the driver gave no parameter layout for this kernel (cuFuncGetParamInfo needs driver 12.4+); its launches are counted as unchecked\n");
        break;
    default:
        break;
    }
}

static void format_text(struct buf *b, const struct dc_finding *f, const char *kname,
                        size_t nl, size_t na)
{
    const struct dc_finding_launch *l = f->launch;
    char stream[32];
    snprintf(stream, sizeof stream, "0x%zx", (size_t)l->stream);
    bput(b, "==devcheck== %s: %s: kernel %s ", sev_upper(f->severity), dc_finding_kind_name(f->kind), kname);
    if (f->kind == DC_F_STREAM_MISMATCH)
        bput(b, "launched into stream %s of cuda:%d while the current device is cuda:%d (via %s)\n",
             stream, l->device, l->current_device, l->api ? l->api : "?");
    else if (f->kind == DC_F_UNCHECKED_KERNEL)
        bput(b, "launched on cuda:%d (stream %s, via %s): parameter layout unknown, operands not checked\n",
             l->device, stream, l->api ? l->api : "?");
    else if (f->kind == DC_F_ASYNC_ERROR)
        bput(b, "launched on cuda:%d (stream %s, via %s) failed on the device: %s\n",
             l->device, stream, l->api ? l->api : "?", f->error ? f->error : "?");
    else
        bput(b, "launched on cuda:%d (stream %s, via %s)\n", l->device, stream, l->api ? l->api : "?");
    if (f->kind == DC_F_ASYNC_ERROR)
        text_operands(b, f);
    if (f->has_operand)
        text_operand(b, f);
    text_action(b, f);
    text_stack(b, "launch stack", frames_a, nl);
    if (f->has_operand && f->alloc_known)
        text_stack(b, "allocated at", frames_b, na);
    text_hint(b, f);
}

static const char *action_name(enum dc_action a)
{
    return a == DC_ACT_MIGRATED ? "migrated" : a == DC_ACT_NOT_MIGRATED ? "not_migrated" : "reported";
}

static void json_operand(struct buf *b, int param, uint32_t word_offset, uintptr_t address,
                         const struct dc_finding_alloc *a, const char *access)
{
    bput(b, "{\"param\":%d,\"word_offset\":%u,\"address\":\"0x%zx\"", param, word_offset, (size_t)address);
    if (a)
        bput(b, ",\"offset\":%zu,\"alloc_size\":%zu,\"memory\":\"%s\",\"owner_device\":%d",
             (size_t)(address - a->base), a->size, dc_mem_kind_name(a->kind), a->owner);
    else
        bput(b, ",\"offset\":null,\"alloc_size\":null,\"memory\":\"pageable\",\"owner_device\":-1");
    bput(b, ",\"access\":");
    bjson_str(b, access);
    bput(b, "}");
}

/* JSON line: head ends just after "count":, tail starts after the count. */
static void format_json(struct buf *b, const struct dc_finding *f, uint64_t id, const char *kname,
                        size_t nl, size_t na, size_t *count_at)
{
    const struct dc_finding_launch *l = f->launch;
    bput(b, "{\"type\":\"finding\",\"id\":%llu,\"kind\":\"%s\",\"severity\":\"%s\",\"kernel\":",
         (unsigned long long)id, dc_finding_kind_name(f->kind), dc_severity_name(f->severity));
    bjson_str(b, l->kernel ? kname : NULL);
    bput(b, ",\"kernel_mangled\":");
    bjson_str(b, l->kernel);
    bput(b, ",\"launch\":{\"device\":%d,\"stream\":\"0x%zx\",\"api\":", l->device, (size_t)l->stream);
    bjson_str(b, l->api);
    bput(b, ",\"current_device\":%d}", l->current_device);
    if (f->kind == DC_F_STREAM_MISMATCH)
        bput(b, ",\"stream_device\":%d,\"current_device\":%d", l->device, l->current_device);
    if (f->has_operand) {
        bput(b, ",\"operand\":");
        json_operand(b, f->param, f->word_offset, f->address, f->alloc_known ? &f->alloc : NULL, f->access);
    } else {
        bput(b, ",\"operand\":null");
    }
    if (f->kind == DC_F_ASYNC_ERROR) {
        bput(b, ",\"error\":");
        bjson_str(b, f->error);
        bput(b, ",\"operands\":[");
        for (unsigned i = 0; i < f->nops; i++) {
            const struct dc_opnd *o = &f->ops[i];
            bput(b, "%s", i ? "," : "");
            json_operand(b, o->param, o->word_offset, o->address, o->alloc_known ? &o->alloc : NULL,
                         o->accessible ? "accessible" : "no access");
        }
        bput(b, "]");
    }
    bput(b, ",\"detected_by\":\"%s\",\"action\":\"%s\"", dc_path_name(l->path), action_name(f->action));
    if (f->action == DC_ACT_MIGRATED)
        bput(b, ",\"migration\":{\"device\":%d,\"bytes\":%llu}", f->to_device,
             (unsigned long long)f->moved_bytes);
    else if (f->action == DC_ACT_NOT_MIGRATED) {
        bput(b, ",\"migration\":{\"reason\":");
        bjson_str(b, f->reason);
        bput(b, "}");
    }
    bput(b, ",\"count\":");
    *count_at = b->pos;
    bput(b, "1,\"launch_stack\":");
    json_stack(b, frames_a, nl);
    bput(b, ",\"alloc_stack\":");
    json_stack(b, frames_b, f->has_operand && f->alloc_known ? na : 0);
    bput(b, "}\n");
}

static void note_kernel_locked(uint64_t k)
{
    struct kset *s;
    HASH_FIND(hh, kernels, &k, sizeof k, s);
    if (s)
        return;
    s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->kernel = k;
    rep_oom = 0;
    HASH_ADD(hh, kernels, kernel, sizeof s->kernel, s);
    if (rep_oom) {
        free(s);
        return;
    }
    nkernels++;
}

/* halt_on_error: the report, the summary and the JSON file complete and on
 * disk (dc_report_finish closes the sinks after fsync), then stop. */
static void halt(void)
{
    dc_log("halt_on_error: stopping at the first error (halt=%s)", dc_halt_name(cfg.halt));
    dc_report_finish();
    if (cfg.halt == DC_HALT_TRAP) {
        raise(SIGTRAP);
        return;                         /* a debugger continued: the program runs on */
    }
    abort();
}

static int record_finding(const struct dc_finding *f);

/* halt_on_error stops at the first occurrence of an error finding, whether
 * it was printed, only counted (print_limit) or dropped. */
void dc_report_finding(const struct dc_finding *f)
{
    if (!f || !f->launch)
        return;
    if (record_finding(f) && f->severity == DC_SEV_ERROR && cfg.halt_on_error)
        halt();
}

/* 0: a repeat of a finding already recorded (counted only). */
static int record_finding(const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    struct fkey key;
    memset(&key, 0, sizeof key);
    key.kind = f->kind;
    key.param = f->has_operand ? f->param : -1;
    key.kernel = kernel_hash(l);
    key.word_offset = f->has_operand ? f->word_offset : 0;
    key.alloc_stack = f->has_operand && f->alloc_known ? f->alloc.alloc_stack : 0;
    key.launch_stack = f->launch_stack_in_key ? f->launch_stack : 0;
    key.action = f->action;

    pthread_mutex_lock(&rep_lock);
    init_locked();
    struct frec *r;
    HASH_FIND(hh, findings, &key, sizeof key, r);
    if (r) {
        r->count++;
        pthread_mutex_unlock(&rep_lock);
        return 0;
    }
    if (nfindings >= MAX_FINDINGS) {
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r->key = key;
    r->count = 1;
    r->severity = f->severity;
    rep_oom = 0;
    HASH_ADD(hh, findings, key, sizeof r->key, r);
    if (rep_oom) {
        free(r);
        dropped++;
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }
    r->id = ++nfindings;
    if (last_rec)
        last_rec->next = r;
    else
        first_rec = r;
    last_rec = r;
    sev_count[f->severity]++;
    if (f->severity == DC_SEV_ERROR)
        __atomic_fetch_add(&errors_atomic, 1, __ATOMIC_RELAXED);
    note_kernel_locked(key.kernel);

    int print = cfg.print_limit <= 0 || printed < (uint64_t)cfg.print_limit;
    if (!print && json_fd < 0) {
        if (!limit_noted) {
            limit_noted = 1;
            dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
        }
        pthread_mutex_unlock(&rep_lock);
        return 1;
    }

    char kname[1024];
    if (l->kernel)
        dc_demangle(l->kernel, kname, sizeof kname);
    else
        snprintf(kname, sizeof kname, "<unknown kernel %p>", l->kernel_key);
    size_t nl = dc_stack_symbolize_ex(f->launch_stack, frames_a, FRAMES_SHOWN, l->kernel);
    size_t na = f->has_operand && f->alloc_known
                    ? dc_stack_symbolize(f->alloc.alloc_stack, frames_b, FRAMES_SHOWN) : 0;

    if (print) {
        struct buf b = { text_buf, sizeof text_buf, 0, 0 };
        format_text(&b, f, kname, nl, na);
        if (b.truncated && b.pos > 5)
            memcpy(b.p + b.pos - 5, "...\n", 5), b.pos--;
        write_all(log_fd, b.p, b.pos);
        printed++;
    } else if (!limit_noted) {
        limit_noted = 1;
        dc_log("print_limit (%d) reached: further findings are counted, not printed", cfg.print_limit);
    }
    if (json_fd >= 0) {
        struct buf b = { json_buf, sizeof json_buf, 0, 0 };
        size_t count_at = 0;
        format_json(&b, f, r->id, kname, nl, na, &count_at);
        if (!b.truncated) {
            write_all(json_fd, b.p, b.pos);
            /* "1" follows count_at: keep what surrounds it for the exit update */
            r->json_head = strndup(b.p, count_at);
            r->json_tail = strdup(b.p + count_at + 1);
        } else {
            dc_log("JSON record of finding %llu too long; left out", (unsigned long long)r->id);
        }
    }
    pthread_mutex_unlock(&rep_lock);
    return 1;
}

void dc_report_count_migrated(uint64_t bytes)
{
    __atomic_fetch_add(&bytes_migrated, bytes, __ATOMIC_RELAXED);
}

void dc_report_count_launch(int checked, enum dc_path path)
{
    __atomic_fetch_add(checked ? &launches_checked : &launches_unchecked, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&launches_by_path[(unsigned)path < DC_PATH_COUNT ? path : DC_PATH_INTERPOSE], 1,
                       __ATOMIC_RELAXED);
}

unsigned long dc_report_error_count(void)
{
    return __atomic_load_n(&errors_atomic, __ATOMIC_RELAXED);
}

void dc_report_stats(struct dc_report_stats *s)
{
    pthread_mutex_lock(&rep_lock);
    s->findings = nfindings;
    s->errors = sev_count[DC_SEV_ERROR];
    s->warnings = sev_count[DC_SEV_WARNING];
    s->infos = sev_count[DC_SEV_INFO];
    s->kernels = nkernels;
    s->printed = printed;
    s->dropped = dropped;
    pthread_mutex_unlock(&rep_lock);
    s->launches_checked = __atomic_load_n(&launches_checked, __ATOMIC_RELAXED);
    s->launches_unchecked = __atomic_load_n(&launches_unchecked, __ATOMIC_RELAXED);
    s->bytes_migrated = __atomic_load_n(&bytes_migrated, __ATOMIC_RELAXED);
    s->launches_interpose = __atomic_load_n(&launches_by_path[DC_PATH_INTERPOSE], __ATOMIC_RELAXED);
    s->launches_cupti = __atomic_load_n(&launches_by_path[DC_PATH_CUPTI], __ATOMIC_RELAXED);
}

void dc_report_finish(void)
{
    pthread_mutex_lock(&rep_lock);
    if (finished || cfg.off) {
        finished = 1;
        pthread_mutex_unlock(&rep_lock);
        return;
    }
    init_locked();
    finished = 1;
    uint64_t lc = __atomic_load_n(&launches_checked, __ATOMIC_RELAXED);
    uint64_t lu = __atomic_load_n(&launches_unchecked, __ATOMIC_RELAXED);
    uint64_t bm = __atomic_load_n(&bytes_migrated, __ATOMIC_RELAXED);
    uint64_t li = __atomic_load_n(&launches_by_path[DC_PATH_INTERPOSE], __ATOMIC_RELAXED);
    uint64_t lcu = __atomic_load_n(&launches_by_path[DC_PATH_CUPTI], __ATOMIC_RELAXED);
    if (json_fd >= 0) {
        for (struct frec *r = first_rec; r; r = r->next) {
            if (r->count <= 1 || !r->json_head || !r->json_tail)
                continue;
            struct buf b = { json_buf, sizeof json_buf, 0, 0 };
            bput(&b, "%s%llu%s", r->json_head, (unsigned long long)r->count, r->json_tail);
            if (!b.truncated)
                write_all(json_fd, b.p, b.pos);
        }
        struct buf b = { json_buf, sizeof json_buf, 0, 0 };
        bput(&b, "{\"type\":\"summary\",\"findings\":%llu,\"errors\":%llu,\"warnings\":%llu,\"infos\":%llu,"
                 "\"kernels\":%llu,\"launches_checked\":%llu,\"launches_unchecked\":%llu,"
                 "\"launches_interpose\":%llu,\"launches_cupti\":%llu,\"not_recorded\":%llu,\"bytes_migrated\":%llu}\n",
             (unsigned long long)nfindings, (unsigned long long)sev_count[DC_SEV_ERROR],
             (unsigned long long)sev_count[DC_SEV_WARNING], (unsigned long long)sev_count[DC_SEV_INFO],
             (unsigned long long)nkernels, (unsigned long long)lc, (unsigned long long)lu,
             (unsigned long long)li, (unsigned long long)lcu, (unsigned long long)dropped, (unsigned long long)bm);
        write_all(json_fd, b.p, b.pos);
    }
    char migrated[64] = "";
    if (cfg.migrate)
        snprintf(migrated, sizeof migrated, "; %llu bytes migrated", (unsigned long long)bm);
    dc_log("SUMMARY: %llu finding%s (%llu error%s, %llu warning%s) in %llu kernel%s; %llu launch%s checked, %llu unchecked"
           " (%llu seen by interpose, %llu by cupti)%s",
           (unsigned long long)nfindings, nfindings == 1 ? "" : "s",
           (unsigned long long)sev_count[DC_SEV_ERROR], sev_count[DC_SEV_ERROR] == 1 ? "" : "s",
           (unsigned long long)sev_count[DC_SEV_WARNING], sev_count[DC_SEV_WARNING] == 1 ? "" : "s",
           (unsigned long long)nkernels, nkernels == 1 ? "" : "s",
           (unsigned long long)lc, lc == 1 ? "" : "es", (unsigned long long)lu,
           (unsigned long long)li, (unsigned long long)lcu, migrated);
    close_sinks();
    pthread_mutex_unlock(&rep_lock);
}

static void reset_findings_locked(void)
{
    struct frec *r, *tmp;
    HASH_ITER(hh, findings, r, tmp) {
        HASH_DEL(findings, r);
        free(r->json_head);
        free(r->json_tail);
        free(r);
    }
    struct kset *k, *ktmp;
    HASH_ITER(hh, kernels, k, ktmp) {
        HASH_DEL(kernels, k);
        free(k);
    }
    first_rec = last_rec = NULL;
    nfindings = nkernels = dropped = printed = 0;
    memset(sev_count, 0, sizeof sev_count);
    limit_noted = 0;
    __atomic_store_n(&errors_atomic, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&launches_checked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&launches_unchecked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&bytes_migrated, 0, __ATOMIC_RELAXED);
    for (int p = 0; p < DC_PATH_COUNT; p++)
        __atomic_store_n(&launches_by_path[p], 0, __ATOMIC_RELAXED);
}

void dc_report_reset(void)
{
    pthread_mutex_lock(&rep_lock);
    reset_findings_locked();
    close_sinks();
    inited = 0;
    finished = 0;
    pthread_mutex_unlock(&rep_lock);
}
