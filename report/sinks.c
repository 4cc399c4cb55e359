/* sinks: where the report's records go (see sinks.h for the guarantees). */
#include "report/sinks.h"
#include "common/forklock.h"
#include "common/format.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum { S_LOG = 0, S_JSON, S_TREE, S_COUNT };

struct sink {
    const char *what;           /* the option, for the lines an error gives */
    const char *fallback;       /* what happens instead, for those lines */
    int fd;                     /* -1: none */
    int owned;                  /* we opened it: checked before each write, closed by us */
    dev_t dev;                  /* what we opened (owned) */
    ino_t ino;
    int error_said;             /* one line per sink */
    int cut;                    /* the last record was cut by an error: next starts on a new line */
    char path[4096];            /* as opened; "" for stderr / none */
};

static struct sink sinks[S_COUNT] = {
    { .what = "log_path", .fallback = "writing to stderr", .fd = 2 },
    { .what = "json_path", .fallback = "no JSON output", .fd = -1 },
    { .what = "tree_dir", .fallback = "the wrapper will miss this process", .fd = -1 },
};
/* Guards the sinks' fds while one is checked, reopened or written; never
 * taken in a signal handler (dc_sinks_signal_mode). */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static int in_signal;
static int root = -1;                   /* this process is its tree's root (-1: not asked yet) */
static char claim_dir[4096];            /* tree_dir: a shared file's first opener truncates it */
static int shared_truncated;            /* the root truncated its shared files (once) */
static uint64_t write_errors;           /* atomic */

/* ---- small helpers --------------------------------------------------------------- */

static void raw_write(int fd, const char *s, size_t n)
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

/* One line `devcheck: ...` straight to stderr (errors of the sinks themselves). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[4600];
    int n = snprintf(line, sizeof line, "devcheck: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    raw_write(2, line, len);
}

static void lock(void)
{
    if (!__atomic_load_n(&in_signal, __ATOMIC_RELAXED))
        pthread_mutex_lock(&sink_lock);
}

static void unlock(void)
{
    if (!__atomic_load_n(&in_signal, __ATOMIC_RELAXED))
        pthread_mutex_unlock(&sink_lock);
}

void dc_sinks_signal_mode(void) { __atomic_store_n(&in_signal, 1, __ATOMIC_RELAXED); }

uint64_t dc_sinks_write_errors(void) { return __atomic_load_n(&write_errors, __ATOMIC_RELAXED); }

/* ---- paths ------------------------------------------------------------------------ */

int dc_env_rank(void)
{
    static const char *const vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        char *end;
        long r = strtol(v, &end, 10);
        if (!*end && r >= 0 && r < (1L << 30))
            return (int)r;
    }
    return -1;
}

int dc_path_expand(const char *in, char *out, size_t len)
{
    size_t o = 0;
    if (!len)
        return -1;
    for (const char *p = in; *p; p++) {
        char tmp[256];
        const char *s = tmp;
        tmp[0] = 0;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(tmp, sizeof tmp, "%d", (int)getpid());
            p++;
        } else if (p[0] == '%' && p[1] == 'r') {
            int r = dc_env_rank();
            snprintf(tmp, sizeof tmp, "%d", r < 0 ? 0 : r);
            p++;
        } else if (p[0] == '%' && p[1] == 'h') {
            if (gethostname(tmp, sizeof tmp - 1) != 0)
                snprintf(tmp, sizeof tmp, "localhost");
            tmp[sizeof tmp - 1] = 0;
            p++;
        } else if (p[0] == '%' && p[1] == 'q' && p[2] == '{') {
            const char *close = strchr(p + 3, '}');
            if (!close || (size_t)(close - (p + 3)) >= sizeof tmp)
                return -1;
            memcpy(tmp, p + 3, (size_t)(close - (p + 3)));
            tmp[close - (p + 3)] = 0;
            s = getenv(tmp);
            if (!s)
                s = "";
            p = close;
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

/* A path that names stderr or stdout itself: that fd, not a new file. */
static int std_fd(const char *path)
{
    if (!strcmp(path, "/dev/stderr") || !strcmp(path, "/dev/fd/2") || !strcmp(path, "/proc/self/fd/2"))
        return 2;
    if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1") || !strcmp(path, "/proc/self/fd/1"))
        return 1;
    return -1;
}

/* Files devcheck writes: regular files, terminals, and the memory devices
 * (major 1: /dev/null, /dev/zero, /dev/full).  NULL or why not. */
static const char *unfit(int fd, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return NULL;
    if (S_ISCHR(st->st_mode) && (major(st->st_rdev) == 1 || isatty(fd)))
        return NULL;
    if (S_ISFIFO(st->st_mode))
        return "a FIFO";
    if (S_ISSOCK(st->st_mode))
        return "a socket";
    if (S_ISDIR(st->st_mode))
        return "a directory";
    return "a device";
}

/* The lowest fd number devcheck's files move to: far above what a program
 * opens first, below the limit. */
static int high_base(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 512;
    if (rl.rlim_cur >= 2048)
        return 1000;
    return rl.rlim_cur / 2 > 3 ? (int)(rl.rlim_cur / 2) : 3;
}

/* Opens `path` for appending (creating it; flags may add O_TRUNC or
 * O_EXCL), checks its type, moves it to a high fd.  quiet: no line on
 * failure.  -1 on failure (said why unless quiet). */
static int open_checked(struct sink *s, const char *path, int flags, int quiet, dev_t *dev, ino_t *ino)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (flags & O_EXCL), 0644);
    if (fd < 0) {
        if (!quiet && errno != EEXIST)
            say("cannot open %s '%s': %s; %s", s->what, path,
                errno == ENXIO ? "a FIFO with no reader (devcheck writes only regular files, terminals and /dev/null)"
                               : strerror(errno), s->fallback);
        return -1;
    }
    struct stat st;
    const char *why = fstat(fd, &st) != 0 ? "cannot be examined" : unfit(fd, &st);
    if (why) {
        close(fd);
        if (!quiet)
            say("%s '%s' is %s: devcheck writes only regular files, terminals and /dev/null; %s", s->what, path, why,
                s->fallback);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if ((flags & O_TRUNC) && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0 && !quiet)
        say("cannot truncate %s '%s': %s", s->what, path, strerror(errno));
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, high_base());
    if (hi >= 0) {
        close(fd);
        fd = hi;
    }
    *dev = st.st_dev;
    *ino = st.st_ino;
    return fd;
}

/* Is s->fd still the file we opened?  The program may have closed it, and
 * reused its number for a file of its own. */
static int still_ours(const struct sink *s)
{
    struct stat st;
    return fstat(s->fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

static void sink_close(struct sink *s)
{
    if (s->fd >= 0 && s->owned && still_ours(s)) {
        fsync(s->fd);
        close(s->fd);
    }
    s->fd = -1;
    s->owned = 0;
    s->path[0] = 0;
    s->cut = 0;
}

/* Under the wrapper: is this process the first of the tree to open `path`
 * (TREE_DIR/.claim-<hash of the path>, created O_EXCL)?  A log_path each
 * rank expands to its own file is then truncated by that rank's first
 * process, as the root truncates the one file every process shares. */
static int tree_claim(const char *path)
{
    if (!claim_dir[0])
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    char claim[4200];
    if ((size_t)snprintf(claim, sizeof claim, "%s/.claim-%016llx", claim_dir, (unsigned long long)h) >= sizeof claim)
        return 0;
    int fd = open(claim, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Opens sink s on option value opt (NULL/"": none).  trunc: truncate a
 * regular file (a per-process path, or the root's shared one); under the
 * wrapper also when this process is the first of the tree to open it. */
static void sink_open(struct sink *s, const char *opt, int trunc)
{
    s->fd = -1;
    s->owned = 0;
    s->path[0] = 0;
    s->cut = 0;
    if (!opt || !*opt)
        return;
    char path[sizeof s->path];
    if (dc_path_expand(opt, path, sizeof path) != 0) {
        say("%s '%s' is too long or has an unclosed %%q{; %s", s->what, opt, s->fallback);
        return;
    }
    int sfd = std_fd(path);
    if (sfd >= 0) {
        s->fd = sfd;
        snprintf(s->path, sizeof s->path, "%s", path);
        return;
    }
    if (!trunc && tree_claim(path))
        trunc = 1;
    int fd = open_checked(s, path, trunc ? O_TRUNC : 0, 0, &s->dev, &s->ino);
    if (fd < 0)
        return;
    s->fd = fd;
    s->owned = 1;
    snprintf(s->path, sizeof s->path, "%s", path);
}

/* The wrapper's own path options (TREE_DIR/.paths: `key NUL pattern NUL`
 * pairs), read once when the tree sink first opens; a fork child keeps
 * them.  Each tree file starts with the process's own expansion of them. */
static char tree_patterns[8192];
static size_t tree_patterns_len;
static char tree_header_buf[20480];

static void tree_read_patterns(const char *dir)
{
    char path[4200];
    tree_patterns_len = 0;
    if ((size_t)snprintf(path, sizeof path, "%s/.paths", dir) >= sizeof path)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return;
    ssize_t n;
    while (tree_patterns_len < sizeof tree_patterns &&
           ((n = read(fd, tree_patterns + tree_patterns_len, sizeof tree_patterns - tree_patterns_len)) > 0 ||
            (n < 0 && errno == EINTR)))
        tree_patterns_len += n > 0 ? (size_t)n : 0;
    close(fd);
    if (tree_patterns_len == sizeof tree_patterns)
        tree_patterns_len = 0;          /* cut: none rather than half */
}

/* {"type":"process","pid":P,"rank":R|null,"host":H,"paths":{key:expanded,...}}
 * into s (no allocation: also in a fork child). */
static void tree_header(struct sink *s)
{
    struct dc_buf b = { tree_header_buf, sizeof tree_header_buf, 0, 0 };
    char host[256], path[4096];
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    int rank = dc_env_rank();
    dc_bput(&b, "{\"type\":\"process\",\"pid\":%d,\"rank\":", (int)getpid());
    if (rank < 0)
        dc_bput(&b, "null");
    else
        dc_bput(&b, "%d", rank);
    dc_bput(&b, ",\"host\":");
    dc_bjson_str(&b, host);
    dc_bput(&b, ",\"paths\":{");
    int first = 1;
    for (size_t at = 0; at < tree_patterns_len;) {
        const char *key = tree_patterns + at;
        size_t kl = strnlen(key, tree_patterns_len - at);
        if (at + kl + 1 >= tree_patterns_len)
            break;
        const char *pat = key + kl + 1;
        size_t pl = strnlen(pat, tree_patterns_len - (at + kl + 1));
        if (at + kl + 1 + pl >= tree_patterns_len)
            break;
        at += kl + 1 + pl + 1;
        if (dc_path_expand(pat, path, sizeof path) != 0)
            continue;                   /* the wrapper uses its own expansion */
        dc_bput(&b, "%s", first ? "" : ",");
        first = 0;
        dc_bjson_str(&b, key);
        dc_bput(&b, ":");
        dc_bjson_str(&b, path);
    }
    dc_bput(&b, "}}\n");
    if (!b.truncated)
        raw_write(s->fd, b.p, b.pos);
}

/* The tree file: TREE_DIR/<pid>.<n>.jsonl, a new one per process image,
 * its first line the process's header (tree_header). */
static void tree_open(struct sink *s, const char *dir)
{
    s->fd = -1;
    s->owned = 0;
    s->path[0] = 0;
    s->cut = 0;
    if (!dir || !*dir)
        return;
    for (int n = 0; n < 1000; n++) {
        char path[sizeof s->path];
        if ((size_t)snprintf(path, sizeof path, "%s/%d.%d.jsonl", dir, (int)getpid(), n) >= sizeof path)
            break;
        int fd = open_checked(s, path, O_EXCL, 1, &s->dev, &s->ino);
        if (fd >= 0) {
            s->fd = fd;
            s->owned = 1;
            snprintf(s->path, sizeof s->path, "%s", path);
            tree_header(s);
            return;
        }
        if (errno != EEXIST)
            break;
    }
    say("cannot create a file in tree_dir '%s': %s; the wrapper will miss this process (%d)", dir,
        strerror(errno), (int)getpid());
}

/* Writes one record to s: checks first that the fd is still ours (else
 * opens the path again, appending), then one write().  An error: one line
 * per sink, counted. */
static void sink_write(struct sink *s, const char *p, size_t n)
{
    lock();
    if (s->fd >= 0 && s->owned && !still_ours(s)) {
        /* the program closed our file (and maybe opened one of its own on
         * the number): never touch that fd again; append to our path */
        dev_t dev;
        ino_t ino;
        int fd = open_checked(s, s->path, 0, 1, &dev, &ino);
        if (fd >= 0) {
            s->fd = fd;
            s->dev = dev;
            s->ino = ino;
        } else {
            s->fd = s == &sinks[S_LOG] ? 2 : -1;
            s->owned = 0;
            if (!s->error_said) {
                s->error_said = 1;
                say("%s '%s' was closed by the program and cannot be opened again; %s", s->what, s->path,
                    s == &sinks[S_LOG] ? "writing to stderr" : "its records are lost");
            }
        }
    }
    int fd = s->fd;
    if (fd < 0) {
        unlock();
        return;
    }
    if (s->cut) {
        raw_write(fd, "\n", 1);         /* the cut record stays one (corrupt) line */
        s->cut = 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            __atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
            s->cut = done > 0;
            if (!s->error_said) {
                s->error_said = 1;
                say("cannot write %s '%s': %s; devcheck's records there are incomplete (counted in the summary)",
                    s->what, s->path[0] ? s->path : "stderr", strerror(e));
            }
            break;
        }
        done += (size_t)w;
    }
    unlock();
}

/* ---- open, reopen, close ------------------------------------------------------------ */

/* A per-process path: truncated when opened.  A shared one is appended to;
 * the root truncates it once, before main (dc_sinks_truncate_shared) or,
 * when devcheck started earlier (CUDA called from another library's
 * constructor), when it first opens it. */
static int per_process(const char *opt) { return opt && strstr(opt, "%p") != NULL; }
static int truncate_at_open(const char *opt)
{
    return per_process(opt) || (dc_sinks_claim_root() && !shared_truncated);
}

void dc_sinks_close(void)
{
    lock();
    for (int i = 0; i < S_COUNT; i++)
        sink_close(&sinks[i]);
    sinks[S_LOG].fd = 2;
    unlock();
}

void dc_sinks_open(const char *log_path, const char *json_path, const char *tree_dir)
{
    lock();
    snprintf(claim_dir, sizeof claim_dir, "%s", tree_dir ? tree_dir : "");
    sink_open(&sinks[S_LOG], log_path, truncate_at_open(log_path));
    if (sinks[S_LOG].fd < 0)
        sinks[S_LOG].fd = 2;
    sink_open(&sinks[S_JSON], json_path, truncate_at_open(json_path));
    shared_truncated = 1;
    if (tree_dir && *tree_dir)
        tree_read_patterns(tree_dir);
    tree_open(&sinks[S_TREE], tree_dir);
    unlock();
}

void dc_sinks_reopen_child(const char *log_path, const char *json_path, const char *tree_dir)
{
    if (per_process(log_path)) {
        sink_close(&sinks[S_LOG]);
        sink_open(&sinks[S_LOG], log_path, 1);
        if (sinks[S_LOG].fd < 0)
            sinks[S_LOG].fd = 2;
    }
    if (per_process(json_path)) {
        sink_close(&sinks[S_JSON]);
        sink_open(&sinks[S_JSON], json_path, 1);
    }
    if (tree_dir && *tree_dir) {
        sink_close(&sinks[S_TREE]);     /* the child's copy of the parent's fd */
        tree_open(&sinks[S_TREE], tree_dir);
    }
}

void dc_sinks_fork_prepare(void) { pthread_mutex_lock(&sink_lock); }
void dc_sinks_fork_parent(void) { pthread_mutex_unlock(&sink_lock); }
void dc_sinks_fork_child(void) { dc_mutex_fork_child(&sink_lock); }

int dc_sinks_have_json(void) { return sinks[S_JSON].fd >= 0 || sinks[S_TREE].fd >= 0; }

void dc_sink_text(const char *s, size_t n) { sink_write(&sinks[S_LOG], s, n); }

void dc_sink_json(const char *s, size_t n)
{
    if (sinks[S_JSON].fd >= 0)
        sink_write(&sinks[S_JSON], s, n);
    if (sinks[S_TREE].fd >= 0)
        sink_write(&sinks[S_TREE], s, n);
}

const char *dc_sinks_log_used(void) { return sinks[S_LOG].path; }
const char *dc_sinks_json_used(void) { return sinks[S_JSON].path; }

/* ---- documents ---------------------------------------------------------------------- */

int dc_sinks_write_document(const char *what, const char *opt, const char *data, size_t n)
{
    char path[4096], tmp[4200];
    struct sink s = { .what = what, .fallback = "not written", .fd = -1 };
    if (!opt || !*opt)
        return 0;
    if (dc_path_expand(opt, path, sizeof path) != 0) {
        say("%s '%s' is too long or has an unclosed %%q{; not written", what, opt);
        __atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
        return -1;
    }
    int fd = std_fd(path), owned = 0;
    struct stat st;
    if (fd < 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        dev_t dev;
        ino_t ino;
        fd = open_checked(&s, path, 0, 0, &dev, &ino);     /* a terminal, /dev/null: directly */
        if (fd < 0) {
            __atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
            return -1;
        }
        owned = 1;
    }
    if (fd >= 0) {
        s.fd = fd;
        snprintf(s.path, sizeof s.path, "%s", path);    /* named in an error (/dev/full), not "stderr" */
        sink_write(&s, data, n);
        if (owned)
            close(fd);
        return s.error_said ? -1 : 0;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0) {
        say("cannot write %s '%s': %s", what, path, strerror(errno));
        __atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
        return -1;
    }
    s.fd = fd;
    snprintf(s.path, sizeof s.path, "%s", path);
    sink_write(&s, data, n);
    int bad = s.error_said || fsync(fd) != 0;
    close(fd);
    if (bad || rename(tmp, path) != 0) {
        if (!s.error_said)
            say("cannot write %s '%s': %s", what, path, strerror(errno));
        if (!s.error_said)
            __atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- the root of a process tree ----------------------------------------------------- */

int dc_sinks_claim_root(void)
{
    if (root >= 0)
        return root;
    char b[32];
    snprintf(b, sizeof b, "%d", (int)getpid());
    const char *v = getenv("DEVCHECK_ROOT_PID");
    if (v && *v) {
        root = !strcmp(v, b);   /* the root's own exec chain (env VAR=.. prog, sh -c 'exec prog') */
        return root;
    }
    setenv("DEVCHECK_ROOT_PID", b, 1);
    return root = 1;
}

static void truncate_one(const char *opt)
{
    char path[4096];
    if (!opt || !*opt || per_process(opt) || dc_path_expand(opt, path, sizeof path) != 0 || std_fd(path) >= 0)
        return;
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        int r = ftruncate(fd, 0);
        (void)r;
    }
    close(fd);
}

void dc_sinks_truncate_shared(const char *log_path, const char *json_path)
{
    if (shared_truncated)
        return;                 /* opened (and truncated) already */
    shared_truncated = 1;
    truncate_one(log_path);
    truncate_one(json_path);
}

void dc_sinks_forget_root(void)
{
    root = 0;
    shared_truncated = 1;
}
