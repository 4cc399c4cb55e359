/* devcheck [options] [--] program [args]: runs the program under
 * libdevcheck.so, Compute Sanitizer style, and follows its whole process
 * tree; `devcheck report [options] FILE...` merges JSON Lines files;
 * `devcheck replay [options] TRACE...` judges recorded launches (replay/).
 *
 * The options come from the same flag table as DEVCHECK_OPTIONS (core/
 * flags.def, through dc_options_from_argv); they are handed to the library
 * in DEVCHECK_OPTIONS, after any the environment already holds (the last
 * occurrence of a key wins).  LD_PRELOAD gets libdevcheck.so, found relative
 * to this executable (home_path).  With no loadable libcuda.so.1 (or with
 * --sim N) the program runs on the simulated GPUs, with the sim's
 * libcudart.so.13 preloaded after libdevcheck.so, and after it the sim's
 * NVIDIA libraries (cuBLAS, ...: the file names in the sim directory's
 * preload.list, sim/libs/README.md): a program that finds NVIDIA's
 * libcudart.so.13 or libcublas.so.13 through an RPATH (PyTorch's wheels),
 * which beats LD_LIBRARY_PATH, then gets the sim's, since the loader reuses
 * a library already loaded under the same soname (and so does a
 * dlopen("libcublas.so.13", RTLD_LOCAL), as JAX opens them).
 *
 * The process tree: the wrapper is the program's parent (fork + exec) and a
 * child subreaper, so every descendant that outlives its parent is still
 * waited for.  It makes a private directory (tree_dir) where every devcheck
 * process of the tree -- forked, exec'ed, posix_spawn'ed, Python
 * multiprocessing with fork or spawn: they all inherit the environment --
 * writes its JSON Lines records, one file per process image.  When the last
 * process has exited it merges them (report/merge.h): one SUMMARY line for
 * the tree, the used suppressions, and the merged JSON / SARIF / JUnit /
 * HTML files asked for, one per distinct expansion of their paths (each
 * process expands %r, %h, %q{VAR} itself: see write_patterns);
 * error_exitcode applies to the tree.  Signals sent to
 * the wrapper are forwarded to the program (those a terminal sends to the
 * whole foreground group reach it directly); the wrapper then exits with the
 * program's status, or dies of the program's signal, so its caller cannot
 * tell the difference.  Its stdout is never written.
 *
 * For Python programs (framework_env): nothing that changes how the program
 * allocates (the frameworks' caching allocators stay on: turned off, CUDA
 * graph capture fails and a training step is several times slower; each
 * PyTorch tensor's own block comes from its allocator's events, preload/
 * blocks.c); devcheck's sitecustomize
 * (../lib/python) goes first on PYTHONPATH to explain PyTorch's device
 * errors; NVTX_INJECTION64_PATH names libdevcheck.so, which records NVTX
 * ranges.  A variable the environment already sets is left as it is.
 *
 * Exit status of the wrapper itself: 2 for a bad command line (a malformed
 * suppression file included: the program is not started), 127 (126) when
 * the program cannot be run. */
#include "core/base/options.h"
#include "report/documents.h"
#include "report/merge.h"
#include "report/report.h"
#include "report/sinks.h"
#include "replay/replay.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define SIM_DEFAULT_DEVICES 4

static void die(int status, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(status);
}

/* Directory of this executable (no trailing slash). */
static int self_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    if ((size_t)snprintf(out, len, "%s", exe) >= len)
        return -1;
    return 0;
}

/* path relative to the working directory when it lies below it (for the
 * one-line notice), else absolute. */
static const char *display_path(const char *path)
{
    static char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return path;
    size_t n = strlen(cwd);
    if (!strncmp(path, cwd, n) && path[n] == '/')
        return path + n + 1;
    return path;
}

/* A sanitizer runtime this wrapper was built with must come first in the
 * program's LD_PRELOAD too: libdevcheck.so is built with the same flags. */
static int find_san(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *n = info->dlpi_name;
    if (n && (strstr(n, "/libasan.so") || strstr(n, "/libtsan.so"))) {
        snprintf((char *)data, PATH_MAX, "%s", n);
        return 1;
    }
    return 0;
}

/* out = a + b; exits when it does not fit. */
static void join(char *out, size_t len, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 1 > len)
        die(127, "devcheck: path too long: %s%s", a, b);
    memcpy(out, a, na);
    memcpy(out + na, b, nb + 1);
}

/* out = the path of one of devcheck's files, relative to this executable's
 * directory dir: installed ("make install", and the Python wheel's
 * devcheck/_native/), PREFIX/bin/devcheck finds PREFIX/lib/devcheck/
 * (libdevcheck.so, sim/, python/); in the build tree, BUILD/bin/devcheck
 * finds BUILD/lib/libdevcheck.so, BUILD/sim, BUILD/lib/python.  No path of
 * the build is compiled in.  installed and build start with "/../". */
static void home_path(char *out, size_t len, const char *dir, const char *installed, const char *build)
{
    char probe[PATH_MAX];
    join(probe, sizeof probe, dir, "/../lib/devcheck/libdevcheck.so");
    join(out, len, dir, access(probe, F_OK) == 0 ? installed : build);
}

static void set_env(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        die(127, "devcheck: cannot set %s: %s", name, strerror(errno));
}

/* Appends key=value (quoted as the option parser wants) to the
 * environment's DEVCHECK_OPTIONS. */
static void add_option(const char *key, const char *value)
{
    const char *old = getenv("DEVCHECK_OPTIONS");
    const char *q = strpbrk(value, ": \t\n\r\"'") || !*value ? (strchr(value, '"') ? "'" : "\"") : "";
    size_t n = (old ? strlen(old) : 0) + strlen(key) + strlen(value) + 8;
    char *s = malloc(n);
    if (!s)
        die(127, "devcheck: out of memory%s%s", "", "");
    snprintf(s, n, "%s%s%s=%s%s%s", old && *old ? old : "", old && *old ? ":" : "", key, q, value, q);
    set_env("DEVCHECK_OPTIONS", s);
    free(s);
}

/* ---- setuid programs ------------------------------------------------------------ */

/* The file execvp would run (PATH search), or NULL. */
static const char *find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/'))
        return snprintf(out, len, "%s", name) < (int)len ? out : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/bin:/usr/bin";
    for (const char *p = path; p;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        if ((size_t)snprintf(out, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "", name) < len && access(out, X_OK) == 0)
            return out;
        p = colon ? colon + 1 : NULL;
    }
    return NULL;
}

/* The loader runs a program in secure mode (AT_SECURE) -- and then ignores
 * LD_PRELOAD with a slash -- when exec changes the effective user or group
 * (setuid/setgid bits) or grants file capabilities. */
static void warn_if_secure(const char *prog)
{
    char path[PATH_MAX];
    struct stat st;
    struct statvfs fs;
    if (!find_program(prog, path, sizeof path) || stat(path, &st) != 0 ||
        (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID)))
        return;
    const char *why = NULL;
    if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
        why = "setuid";
    else if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
        why = "setgid";
    else if (getxattr(path, "security.capability", NULL, 0) > 0)
        why = "given file capabilities";
    if (why)
        fprintf(stderr, "devcheck: %s is %s: the loader ignores LD_PRELOAD for it, so nothing in it will be checked\n",
                display_path(path), why);
}

/* ---- the process tree ------------------------------------------------------------ */

static volatile pid_t child_pid;

/* Forwards a signal sent to the wrapper (kill, not the terminal: a
 * terminal's reaches the whole foreground process group, the program too). */
static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si && si->si_code == SI_KERNEL)
        return;
    if (child_pid > 0)
        kill(child_pid, sig);
}

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT };

/* ---- the tree's files, grouped by each process's own paths ------------------------ */

/* The path options the wrapper writes for the tree.  Every process expands
 * them itself (its own %r, %h, %q{VAR}, %p) into its tree file's first line
 * (report/sinks.c tree_header), so `devcheck --json r%r.jsonl -- mpirun ...`
 * writes one file per rank, as `mpirun ... devcheck --json r%r.jsonl --`
 * does.  The log takes each group's summary; a json_path with %p is written
 * by the processes themselves. */
enum { P_JSON, P_SARIF, P_JUNIT, P_HTML, P_LOG, P_COUNT };
static const char *const path_keys[P_COUNT] = { "json_path", "sarif_path", "junit_path", "html_path", "log_path" };

static const char *path_option(int k)
{
    const char *v = k == P_JSON ? dc_opt.json_path : k == P_SARIF ? dc_opt.sarif_path : k == P_JUNIT ?
                    dc_opt.junit_path : k == P_HTML ? dc_opt.html_path : dc_opt.log_path;
    if (!v[0] || ((k == P_JSON || k == P_LOG) && strstr(v, "%p")))
        return NULL;
    return v;
}

/* TREE/.paths: `key NUL pattern NUL` for each path option above. */
static void write_patterns(const char *tree)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/.paths", tree);
    FILE *f = fopen(path, "we");
    if (!f)
        return;                         /* every process then goes by the wrapper's own expansion */
    for (int k = 0; k < P_COUNT; k++) {
        const char *v = path_option(k);
        if (v)
            fprintf(f, "%s%c%s%c", path_keys[k], 0, v, 0);
    }
    fclose(f);
}

struct tfile {
    char *path;
    char *exp[P_COUNT];         /* the process's own expansion; NULL: the wrapper's */
    int rank;                   /* from its header; -1: none */
    int launcher;               /* no rank, no findings, in a tree with ranks (mark_launchers) */
};

static void bad_line(void *ctx, const char *origin, long lineno, const char *why)
{
    (void)ctx;
    if (lineno)
        fprintf(stderr, "devcheck: %s:%ld: %s; skipped\n", origin, lineno, why);
    else                                /* the file's count (dc_model_add_file) */
        fprintf(stderr, "devcheck: %s: %s\n", origin, why);
}

/* The header of a tree file: {"type":"process",...,"paths":{...}}. */
static void read_header(struct tfile *t)
{
    FILE *f = fopen(t->path, "re");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    fclose(f);
    struct dc_json *v = n > 0 ? dc_json_parse(line, (size_t)n, NULL) : NULL;
    free(line);
    const char *type = dc_json_str(dc_json_get(v, "type"));
    t->rank = -1;
    if (type && !strcmp(type, "process")) {
        t->rank = (int)dc_json_int(dc_json_get(v, "rank"), -1);
        const struct dc_json *paths = dc_json_get(v, "paths");
        for (int k = 0; k < P_COUNT; k++) {
            const char *e = dc_json_str(dc_json_get(paths, path_keys[k]));
            t->exp[k] = e && *e ? strdup(e) : NULL;
        }
    }
    dc_json_free(v);
}

/* The tree's files (in name order, so the merged files do not depend on the
 * directory's order), each with its header; *n of them. */
static struct tfile *scan_tree(const char *dir, size_t *n)
{
    struct dirent **names = NULL;
    int k = scandir(dir, &names, NULL, versionsort);
    struct tfile *t = calloc(k > 0 ? (size_t)k : 1, sizeof *t);
    *n = 0;
    for (int i = 0; i < k; i++) {
        if (t && names[i]->d_name[0] != '.' && asprintf(&t[*n].path, "%s/%s", dir, names[i]->d_name) >= 0)
            read_header(&t[(*n)++]);
        free(names[i]);
    }
    free(names);
    return t;
}

/* Frees t and removes the directory with everything in it (the processes'
 * files, .paths, the log claims). */
static void remove_tree(const char *dir, struct tfile *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].path);
        for (int k = 0; k < P_COUNT; k++)
            free(t[i].exp[k]);
    }
    free(t);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The merged model of the files whose `in` is set (all when in is NULL; a
 * bad line is named then only, once); *files: how many could be read.
 * NULL: out of memory. */
static struct dc_model *tree_model(const struct tfile *t, size_t n, const char *in, size_t *files)
{
    struct dc_model *m = dc_model_new(dc_opt.source_root);
    *files = 0;
    if (!m)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if ((!in || in[i]) && dc_model_add_file(m, t[i].path, in ? NULL : bad_line, NULL) == 0)
            (*files)++;
    m->migrate = dc_opt.mode == DC_MODE_MIGRATE;
    dc_model_merge(m);
    return m;
}

/* A launcher (torchrun's own Python process, which touches CUDA) has no
 * rank of its own: %r would make it rank 0.  A process without a rank and
 * without findings, in a tree where other processes have a rank, is left
 * out of the files a %r path names (the tree's summary still counts it), so
 * each rank's file holds that rank's records only. */
static void mark_launchers(struct tfile *t, size_t n, const struct dc_model *whole)
{
    int ranked = 0;
    for (size_t i = 0; i < n; i++)
        ranked |= t[i].rank >= 0;
    for (size_t i = 0; ranked && i < n; i++) {
        t[i].launcher = t[i].rank < 0;
        for (size_t p = 0; p < whole->nprocs && t[i].launcher; p++)
            if (whole->procs[p].findings && !strcmp(whole->procs[p].origin, t[i].path))
                t[i].launcher = 0;
    }
}

/* Path option k as file i's process expanded it; own: the wrapper's
 * expansion (a file without a header: the process could not read TREE/.paths). */
static const char *group_key(const struct tfile *t, size_t i, int k, const char *own)
{
    return t[i].exp[k] ? t[i].exp[k] : own;
}

/* The groups of path option k: fn(path, model of the group, ctx) once per
 * distinct expansion, `whole` for a group of every file (and for a tree
 * without files, under the wrapper's own expansion).  path has its '%'
 * doubled (the writers expand it again).  Returns the number of groups. */
static size_t for_each_group(const struct tfile *t, size_t n, int k, struct dc_model *whole,
                             void (*fn)(const char *path, struct dc_model *m, void *ctx), void *ctx)
{
    const char *pattern = path_option(k);
    char own[PATH_MAX], esc[2 * PATH_MAX];
    if (!pattern || dc_path_expand(pattern, own, sizeof own) != 0)
        return 0;
    char *in = calloc(n + 1, 1), *done = calloc(n + 1, 1);
    if (!in || !done)
        n = 0;                          /* out of memory: the whole tree, as one */
    int by_rank = strstr(pattern, "%r") != NULL;
    for (size_t i = 0; i < n; i++)
        done[i] = by_rank && t[i].launcher;
    size_t groups = 0;
    for (size_t i = 0; i <= n; i++) {
        int rest = i == n;              /* no group yet (no files): the wrapper's own expansion */
        if (rest ? groups > 0 : done[i])
            continue;
        const char *key = rest ? own : group_key(t, i, k, own);
        size_t members = 0;
        for (size_t j = 0; j < n; j++) {
            in[j] = !done[j] && !strcmp(group_key(t, j, k, own), key);
            done[j] |= in[j];
            members += in[j];
        }
        size_t e = 0;
        for (const char *c = key; *c && e + 2 < sizeof esc; c++) {
            if (*c == '%')
                esc[e++] = '%';
            esc[e++] = *c;
        }
        esc[e] = 0;
        size_t files;
        struct dc_model *m = members == n ? whole : tree_model(t, n, in, &files);
        if (m)
            fn(esc, m, ctx);
        if (m != whole)
            dc_model_free(m);
        groups++;
    }
    free(in);
    free(done);
    return groups;
}

static void write_document(const char *path, struct dc_model *m, void *ctx)
{
    int k = *(const int *)ctx;
    dc_model_write_documents(m, k == P_SARIF ? path : NULL, k == P_JUNIT ? path : NULL, k == P_HTML ? path : NULL,
                             k == P_JSON ? path : NULL);
}

/* The suppressions used, the processes that left no summary, the SUMMARY. */
static void print_summary(const struct dc_model *m, FILE *out)
{
    for (size_t i = 0; i < m->nsupps; i++)
        fprintf(out, "devcheck: used_suppression: %llu %s (%s:%d)\n", (unsigned long long)m->supps[i].count,
                m->supps[i].name, m->supps[i].file, m->supps[i].line);
    if (m->procs_without_summary)
        fprintf(out, "devcheck: %u process%s left no summary (killed before exit); %s findings are counted\n",
                m->procs_without_summary, m->procs_without_summary == 1 ? "" : "es",
                m->procs_without_summary == 1 ? "its" : "their");
    char line[1024];
    struct dc_buf b = { line, sizeof line, 0, 0 };
    dc_text_summary_for_model(m, &b);
    fprintf(out, "%s\n", line);
}

/* A group's summary to its log (the tree's, when it is one group). */
static void write_log_summary(const char *path, struct dc_model *m, void *ctx)
{
    size_t tree_files = *(const size_t *)ctx;
    char p[PATH_MAX];
    FILE *f = dc_path_expand(path, p, sizeof p) == 0 ? fopen(p, "ae") : NULL;
    FILE *out = f ? f : stderr;
    if (!tree_files)
        fprintf(out, "devcheck: no process of the tree used CUDA: nothing was checked\n");
    print_summary(m, out);
    if (f)
        fclose(f);
}

/* Dies of `sig` as the program did (no core dump of the wrapper itself). */
static void die_of(int sig)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

static int run_tree(char **prog, const char *tree)
{
    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
        die(126, "devcheck: cannot run '%s': %s", prog[0], strerror(errno));
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* block the forwarded signals until the handlers and child_pid exist */
    sigset_t fwd, old;
    sigemptyset(&fwd);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaddset(&fwd, forwarded[i]);
    sigprocmask(SIG_BLOCK, &fwd, &old);
    pid_t pid = fork();
    if (pid < 0)
        die(126, "devcheck: cannot run '%s': %s", prog[0], strerror(errno));
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(prog[0], prog);
        int e = errno;
        ssize_t w = write(err_pipe[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    child_pid = pid;
    close(err_pipe[1]);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = forward;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded[i], &sa, NULL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    int exec_errno = 0;
    ssize_t r;
    while ((r = read(err_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(err_pipe[0]);
    if (r == (ssize_t)sizeof exec_errno) {
        waitpid(pid, NULL, 0);
        remove_tree(tree, NULL, 0);
        fprintf(stderr, "devcheck: cannot run '%s': %s\n", prog[0], strerror(exec_errno));
        return exec_errno == ENOENT ? 127 : 126;
    }

    /* every process of the tree: the program, and the orphans we adopt */
    int status = 0;
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;                      /* ECHILD: the tree is done */
        }
        if (w == pid) {
            status = st;
            child_pid = 0;
        }
    }

    size_t n = 0, files = 0;
    struct tfile *t = scan_tree(tree, &n);
    struct dc_model *m = tree_model(t, t ? n : 0, NULL, &files);
    int errors = 0;
    if (m) {
        errors = m->totals.errors > m->totals.expected;     /* a test's devcheck_expected errors do not count */
        mark_launchers(t, t ? n : 0, m);
        for (int k = P_JSON; k <= P_HTML; k++)
            for_each_group(t, t ? n : 0, k, m, write_document, &k);
        if (dc_opt.mode != DC_MODE_OFF) {
            /* the tree's summary: to the log, or to each log of a log_path
             * its processes expand differently (%r) and then to stderr too */
            size_t logs = for_each_group(t, t ? n : 0, P_LOG, m, write_log_summary, &files);
            if (logs != 1) {
                if (!files)
                    fprintf(stderr, "devcheck: no process of the tree used CUDA: nothing was checked\n");
                print_summary(m, stderr);
            }
        }
    }
    remove_tree(tree, t, t ? n : 0);
    dc_model_free(m);
    fflush(NULL);
    if (WIFSIGNALED(status))
        die_of(WTERMSIG(status));
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (code == 0 && errors && dc_opt.error_exitcode)
        return dc_opt.error_exitcode;
    return code;
}

/* Parses the command line's options into dc_opt; *consumed: where the
 * program (or the files) start.  0, or 2 (said why). */
static int parse_command_line(int argc, char **argv, int *consumed, char *opts, size_t optslen)
{
    char err[2048];
    if (dc_options_from_argv(argc - 1, argv + 1, consumed, opts, optslen, err, sizeof err) != 0 ||
        dc_options_parse(opts, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    return 0;
}

/* ---- devcheck report FILE... ------------------------------------------------------ */

/* `devcheck report`'s command line, GNU getopt style: options before,
 * between and after the files, everything after `--` a file (and `-`
 * alone).  The options go to dc_opt; the files, in their order, to
 * files[] (NULL-terminated, argc entries at most).  0, or 2 (said why). */
static int parse_report_line(int argc, char **argv, char **files)
{
    char opts[4096] = "", one[4096], err[2048];
    size_t nf = 0, len = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            while (++i < argc)
                files[nf++] = argv[i];
            break;
        }
        if (a[0] != '-' || !a[1]) {
            files[nf++] = argv[i];
            continue;
        }
        /* one option: with the next word when that is not an option (its
         * value, or a file after a bool: the parser takes it only when it
         * is the bool's value), else alone (a bool, --key=value) */
        int consumed = 0, two = i + 1 < argc && argv[i + 1][0] != '-';
        if ((!two || dc_options_from_argv(2, argv + i, &consumed, one, sizeof one, err, sizeof err) != 0) &&
            dc_options_from_argv(1, argv + i, &consumed, one, sizeof one, err, sizeof err) != 0 &&
            dc_options_from_argv(i + 1 < argc ? 2 : 1, argv + i, &consumed, one, sizeof one, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
        i += consumed - 1;
        size_t n = strlen(one);
        if (len + n + 2 > sizeof opts) {
            fprintf(stderr, "devcheck: ERROR: too many options\n");
            return 2;
        }
        snprintf(opts + len, sizeof opts - len, "%s%s", len ? ":" : "", one);
        len += n + (len ? 1 : 0);
    }
    files[nf] = NULL;
    if (dc_options_parse(opts, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    return 0;
}

/* The files of a `devcheck report` or `devcheck replay` command line, its
 * options parsed into dc_opt (malloc'd, NULL-terminated); NULL after a bad
 * line, said on stderr. */
static char **option_files(int argc, char **argv)
{
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files)
        die(2, "devcheck: out of memory%s%s", "", "");
    if (parse_report_line(argc, argv, files) != 0) {
        free(files);
        return NULL;
    }
    return files;
}

static int report_main(int argc, char **argv)
{
    char **files = option_files(argc, argv);
    if (!files)
        return 2;
    if (dc_opt.help) {
        printf("usage: devcheck report [--json F] [--sarif F] [--junit F] [--html F] [--source-root D] FILE...\n"
               "  Merges devcheck JSON Lines files (processes, ranks, hosts) into one deduplicated\n"
               "  report on stdout and the files asked for.  Options may come before, between and\n"
               "  after the files; every argument after -- is a file.  Exit status: 0 no errors\n"
               "  found, 1 errors found, 2 a bad command line or a file that cannot be read.\n");
        free(files);
        return 0;
    }
    if (!files[0]) {
        fprintf(stderr, "devcheck: ERROR: report: no files given (usage: devcheck report [options] FILE...)\n");
        free(files);
        return 2;
    }
    struct dc_model *m = dc_model_new(dc_opt.source_root);
    if (!m)
        die(2, "devcheck: out of memory%s%s", "", "");
    m->verbosity = dc_opt.verbosity;
    int unreadable = 0;
    for (char **f = files; *f; f++) {
        if (dc_model_add_file(m, *f, bad_line, NULL) != 0) {
            fprintf(stderr, "devcheck: cannot read '%s': %s\n", *f, strerror(errno));
            unreadable = 1;
        }
    }
    dc_model_merge(m);
    for (size_t i = 0; i < m->nf; i++) {
        struct dc_sbuf t = { 0 };
        dc_model_text(m, &m->f[i], &t);
        if (t.p)
            printf("==devcheck== %s", t.p);
        dc_sfree(&t);
    }
    print_summary(m, stdout);
    fflush(stdout);
    int bad_docs = dc_model_write_documents(m, dc_opt.sarif_path, dc_opt.junit_path, dc_opt.html_path,
                                            dc_opt.json_path[0] ? dc_opt.json_path : NULL);
    int errors = m->totals.errors > 0;
    dc_model_free(m);
    free(files);
    return unreadable || bad_docs ? 2 : errors ? 1 : 0;
}

/* ---- devcheck replay [--origins FILE] [options] TRACE... --------------------------- */

static int replay_main(int argc, char **argv)
{
    /* --origins is the replay's own: taken out before the flag table parses
     * the rest */
    const char *origins = NULL;
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < argc)
                argv[n++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--origins")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "devcheck: ERROR: replay: --origins needs a file\n");
                return 2;
            }
            origins = argv[++i];
        } else if (!strncmp(argv[i], "--origins=", 10)) {
            origins = argv[i] + 10;
        } else {
            argv[n++] = argv[i];
        }
    }
    argv[n] = NULL;
    argc = n;
    /* options anywhere until --, as devcheck report takes them */
    char **files = option_files(argc, argv);
    if (!files)
        return 2;
    if (dc_opt.help) {
        free(files);
        printf("usage: devcheck replay [--origins FILE] [options] TRACE...\n"
               "  Runs devcheck's launch check over recorded launches (JSON Lines, gzip'd or plain: a\n"
               "  recorder's on a real GPU, or devcheck's own --record-launches DIR) and prints the\n"
               "  reports, the SUMMARY line and the files asked for (--json, --sarif, ...) as a live\n"
               "  run would.  Each word's owner and mapping, the kernel's name, parameter layout and\n"
               "  origin come from the record; the parameter types from devcheck's own evidence (the\n"
               "  mangled name).  --origins FILE: a TSV of trace name (the file's name without\n"
               "  .jsonl.gz), kernel name and the object that loaded it (libcublasLt.so.13, NVRTC,\n"
               "  the program ...), for records that do not say it.  A malformed line is named\n"
               "  (file:line) and the rest is judged.  Exit status: 0 no errors found, 1 errors\n"
               "  found, 2 a bad command line or a file that cannot be read.  mode=migrate and sync=1\n"
               "  need a running program.  Report options (see devcheck --help):\n"
               "  --json-path F, --log-file F, --sarif F, --junit F, --html F, --print-limit N,\n"
               "  --host-memory P, --peer P, --kernel-name P, --suppressions F, --verbosity N;\n"
               "  options may come before, between and after the traces (every argument after --\n"
               "  is a trace).\n");
        return 0;
    }
    int nfiles = 0;
    while (files[nfiles])
        nfiles++;
    if (!nfiles) {
        fprintf(stderr, "devcheck: ERROR: replay: no traces given (usage: devcheck replay [--origins FILE] "
                        "[options] TRACE...)\n");
        free(files);
        return 2;
    }
    int status = dc_replay_run(files, nfiles, origins);
    free(files);
    return status;
}

/* "rt lib1 lib2 ...": the sim's runtime, then each library that sim's
 * preload.list names (one file name a line, in the build's order) and
 * that is there; malloc'ed. */
static char *sim_preloads(const char *sim, const char *rt)
{
    char list[PATH_MAX], line[256], path[PATH_MAX];
    size_t len = strlen(rt), cap = len + 1;
    char *out = malloc(cap);
    if (!out)
        die(127, "devcheck: out of memory%s%s", "", "");
    memcpy(out, rt, len + 1);
    join(list, sizeof list, sim, "/preload.list");
    FILE *f = fopen(list, "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!*line || strpbrk(line, "/ \t:") || snprintf(path, sizeof path, "%s/%s", sim, line) >= (int)sizeof path ||
            access(path, R_OK) != 0)
            continue;
        size_t n = strlen(path);
        char *grown = realloc(out, cap + n + 1);
        if (!grown)
            die(127, "devcheck: out of memory%s%s", "", "");
        out = grown;
        out[len] = ' ';
        memcpy(out + len + 1, path, n + 1);
        len += n + 1;
        cap += n + 1;
    }
    if (f)
        fclose(f);
    return out;
}

/* Puts dir first in the colon-separated list of environment variable name. */
static void prepend_path(const char *name, const char *dir)
{
    const char *old = getenv(name);
    char *path = malloc(strlen(dir) + (old ? strlen(old) : 0) + 2);
    if (!path)
        die(127, "devcheck: out of memory%s%s", "", "");
    sprintf(path, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    set_env(name, path);
    free(path);
}

static void set_default_env(const char *name, const char *value)
{
    const char *v = getenv(name);
    if (!v || !*v)
        set_env(name, value);
}

/* The environment of a Python program under devcheck (see the top). */
static void framework_env(const char *dir, const char *lib)
{
    if (dc_opt.framework_caching)
        fprintf(stderr, "devcheck: --framework-caching is ignored: caching allocators are always kept now\n");
    if (dc_opt.nvtx)
        set_default_env("NVTX_INJECTION64_PATH", lib);
    if (dc_opt.framework_errors) {
        char buf[PATH_MAX], py[PATH_MAX];
        home_path(buf, sizeof buf, dir, "/../lib/devcheck/python", "/../lib/python");
        if (!realpath(buf, py))
            return;
        prepend_path("PYTHONPATH", py);
    }
}

/* ---- devcheck [options] program ---------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "report"))
        return report_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "replay"))
        return replay_main(argc - 1, argv + 1);
    char opts[4096], err[4600];
    int consumed = 0;
    if (parse_command_line(argc, argv, &consumed, opts, sizeof opts) != 0)
        return 2;
    if (dc_opt.help) {
        printf("usage: devcheck [options] [--] program [args]\n"
               "       devcheck report [options] FILE...      (merge JSON Lines files; see devcheck report --help)\n"
               "       devcheck replay [options] TRACE...     (judge recorded launches; see devcheck replay --help)\n"
               "  Runs program with libdevcheck.so preloaded, following its whole process tree;\n"
               "  without an NVIDIA driver (or with --sim N), on the simulated GPUs.  The program's\n"
               "  exit status is kept.\n\n");
        dc_options_help(stdout);
        return 0;
    }
    char **prog = argv + 1 + consumed;
    if (!prog[0]) {
        fprintf(stderr, "devcheck: ERROR: no program given (usage: devcheck [options] [--] program [args]; see --help)\n");
        return 2;
    }

    char dir[PATH_MAX], lib[PATH_MAX], sim[PATH_MAX], buf[PATH_MAX], simrt[PATH_MAX] = "";
    char *simpre = NULL;
    if (self_dir(dir, sizeof dir) != 0)
        die(127, "devcheck: cannot locate the devcheck executable%s%s", "", "");
    home_path(buf, sizeof buf, dir, "/../lib/devcheck/libdevcheck.so", "/../lib/libdevcheck.so");
    if (!realpath(buf, lib))
        die(127, "devcheck: cannot find %s: %s", buf, strerror(errno));

    /* DEVCHECK_OPTIONS: the environment's first, ours after (ours win).  An
     * invalid environment value would make the library drop everything, the
     * command line included: it is reported here and left out instead. */
    const char *old = getenv("DEVCHECK_OPTIONS");
    if (old && *old && dc_options_parse(old, err, sizeof err) != 0) {
        fprintf(stderr, "%s (in DEVCHECK_OPTIONS; ignored)\n", err);
        old = NULL;
        if (!*opts)
            unsetenv("DEVCHECK_OPTIONS");
    }
    /* Inside another wrapper's tree: that wrapper follows this process too. */
    int nested = old && *old && dc_opt.tree_dir[0];
    if (*opts) {
        char *merged = malloc((old ? strlen(old) : 0) + strlen(opts) + 2);
        if (!merged)
            die(127, "devcheck: out of memory%s%s", "", "");
        sprintf(merged, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", opts);
        set_env("DEVCHECK_OPTIONS", merged);
        free(merged);
    }
    /* dc_opt as the library will see it (sim= may come from either part). */
    const char *final = getenv("DEVCHECK_OPTIONS");
    if (dc_options_parse(final, err, sizeof err) != 0) {           /* both parts were valid */
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (dc_opt.suppressions[0] && dc_report_check_suppressions(dc_opt.suppressions, err, sizeof err) != 0) {
        fprintf(stderr, "%s (the program is not started)\n", err);
        return 2;
    }

    /* The simulated GPUs: when asked, or when no driver can be loaded. */
    int force = dc_opt.sim > 0;
    int use_sim = force;
    if (!use_sim) {
        void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            dlclose(h);
        else
            use_sim = 1;
    }
    if (use_sim) {
        home_path(buf, sizeof buf, dir, "/../lib/devcheck/sim", "/../sim");
        if (!realpath(buf, sim))
            join(sim, sizeof sim, buf, "");
        char ndev[32];
        const char *envdev = getenv("SIMCUDA_DEVICES");
        if (force)
            snprintf(ndev, sizeof ndev, "%d", dc_opt.sim);
        else
            snprintf(ndev, sizeof ndev, "%s", envdev && *envdev ? envdev : "4");
        set_env("SIMCUDA_DEVICES", ndev);
        prepend_path("LD_LIBRARY_PATH", sim);
        join(simrt, sizeof simrt, sim, "/libcudart.so.13");
        simpre = sim_preloads(sim, simrt);
        if (force)
            fprintf(stderr, "devcheck: running on %s simulated GPUs (%s, its libcudart.so.13 preloaded)\n", ndev,
                    display_path(sim));
        else
            fprintf(stderr, "devcheck: no NVIDIA driver found; running on %s simulated GPUs (%s, its libcudart.so.13 "
                    "preloaded)\n", ndev, display_path(sim));
    }

    /* LD_PRELOAD: [sanitizer runtime] libdevcheck.so [the sim's runtime and
     * libraries] [what was there].  libdevcheck.so comes before the sim's
     * libraries, so its library hooks are found first, as before NVIDIA's. */
    char san[PATH_MAX] = "";
    dl_iterate_phdr(find_san, san);
    const char *pre = getenv("LD_PRELOAD");
    const char *simp = simpre ? simpre : "";
    char *preload = malloc(strlen(san) + strlen(lib) + strlen(simp) + (pre ? strlen(pre) : 0) + 4);
    if (!preload)
        die(127, "devcheck: out of memory%s%s", "", "");
    sprintf(preload, "%s%s%s%s%s%s%s", san, *san ? " " : "", lib, *simp ? " " : "", simp,
            pre && *pre ? " " : "", pre && *pre ? pre : "");
    set_env("LD_PRELOAD", preload);
    free(preload);
    free(simpre);
    warn_if_secure(prog[0]);

    framework_env(dir, lib);
    if (nested) {
        execvp(prog[0], prog);
        int e = errno;
        fprintf(stderr, "devcheck: cannot run '%s': %s\n", prog[0], strerror(e));
        return e == ENOENT ? 127 : 126;
    }

    /* The tree: the wrapper is its root (the shared files are truncated
     * once, here; every process appends), the processes write their records
     * to a private directory, the wrapper writes the merged files. */
    dc_report_prestart(dc_opt.log_path, dc_opt.json_path);
    const char *tmp = getenv("TMPDIR");
    char tree[PATH_MAX];
    snprintf(tree, sizeof tree, "%s/devcheck-tree.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tree)) {
        snprintf(tree, sizeof tree, "/tmp/devcheck-tree.XXXXXX");
        if (!mkdtemp(tree))
            die(126, "devcheck: cannot create a directory for the process tree's records: %s%s", strerror(errno), "");
    }
    add_option("tree_dir", tree);
    write_patterns(tree);
    if (dc_opt.json_path[0] && !strstr(dc_opt.json_path, "%p"))
        add_option("json_path", "");            /* the wrapper writes the merged file */
    if (dc_opt.error_exitcode)
        add_option("error_exitcode", "0");      /* the wrapper applies it to the tree */
    return run_tree(prog, tree);
}
