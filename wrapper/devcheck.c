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
 * libcudart.so.13 preloaded after libdevcheck.so: a program that finds
 * NVIDIA's libcudart.so.13 through an RPATH (PyTorch's wheels), which beats
 * LD_LIBRARY_PATH, then gets the sim's, since the loader reuses a library
 * already loaded under the same soname.
 *
 * The process tree: the wrapper is the program's parent (fork + exec) and a
 * child subreaper, so every descendant that outlives its parent is still
 * waited for.  It makes a private directory (tree_dir) where every devcheck
 * process of the tree -- forked, exec'ed, posix_spawn'ed, Python
 * multiprocessing with fork or spawn: they all inherit the environment --
 * writes its JSON Lines records, one file per process image.  When the last
 * process has exited it merges them (report/merge.h): one SUMMARY line for
 * the tree, the used suppressions, and the merged JSON / SARIF / JUnit /
 * HTML files asked for; error_exitcode applies to the tree.  Signals sent to
 * the wrapper are forwarded to the program (those a terminal sends to the
 * whole foreground group reach it directly); the wrapper then exits with the
 * program's status, or dies of the program's signal, so its caller cannot
 * tell the difference.  Its stdout is never written.
 *
 * For Python programs (framework_env): PyTorch's, JAX's and TensorFlow's
 * caching allocators are turned off unless framework_caching=1, so each
 * tensor's allocation site is its own; devcheck's sitecustomize
 * (../lib/python) goes first on PYTHONPATH to explain PyTorch's device
 * errors; NVTX_INJECTION64_PATH names libdevcheck.so, which records NVTX
 * ranges.  A variable the environment already sets is left as it is.
 *
 * Exit status of the wrapper itself: 2 for a bad command line (a malformed
 * suppression file included: the program is not started), 127 (126) when
 * the program cannot be run. */
#include "core/options.h"
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

static void bad_line(void *ctx, const char *origin, long lineno, const char *why)
{
    (void)ctx;
    fprintf(stderr, "devcheck: %s:%ld: %s; skipped\n", origin, lineno, why);
}

/* Reads every file of the tree directory into m (in name order, so the
 * merged files do not depend on the directory's order), then removes them. */
static size_t read_tree(struct dc_model *m, const char *dir)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, versionsort);
    size_t files = 0;
    char path[PATH_MAX + 300];
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            if (dc_model_add_file(m, path, bad_line, NULL) == 0)
                files++;
            unlink(path);
        }
        free(names[i]);
    }
    free(names);
    rmdir(dir);
    return files;
}

/* The log the wrapper's own summary goes to: log_path when it does not
 * name a process (%p), else stderr. */
static FILE *summary_stream(void)
{
    if (!dc_opt.log_path[0] || strstr(dc_opt.log_path, "%p"))
        return stderr;
    char path[PATH_MAX];
    if (dc_path_expand(dc_opt.log_path, path, sizeof path) != 0)
        return stderr;
    FILE *f = fopen(path, "ae");
    return f ? f : stderr;
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
        rmdir(tree);
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

    struct dc_model *m = dc_model_new(dc_opt.source_root);
    size_t files = m ? read_tree(m, tree) : 0;
    rmdir(tree);
    int errors = 0;
    if (m) {
        m->migrate = dc_opt.mode == DC_MODE_MIGRATE;
        dc_model_merge(m);
        errors = m->totals.errors > 0;
        const char *json = dc_opt.json_path[0] && !strstr(dc_opt.json_path, "%p") ? dc_opt.json_path : NULL;
        dc_model_write_documents(m, dc_opt.sarif_path, dc_opt.junit_path, dc_opt.html_path, json);
        if (dc_opt.mode != DC_MODE_OFF) {
            FILE *out = summary_stream();
            if (!files)
                fprintf(out, "devcheck: no process of the tree used CUDA: nothing was checked\n");
            print_summary(m, out);
            if (out != stderr)
                fclose(out);
        }
    }
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

static int report_main(int argc, char **argv)
{
    char opts[4096];
    int consumed = 0;
    if (parse_command_line(argc, argv, &consumed, opts, sizeof opts) != 0)
        return 2;
    if (dc_opt.help) {
        printf("usage: devcheck report [--json F] [--sarif F] [--junit F] [--html F] [--source-root D] FILE...\n"
               "  Merges devcheck JSON Lines files (processes, ranks, hosts) into one deduplicated\n"
               "  report on stdout and the files asked for.  Exit status: 0 no errors found, 1 errors\n"
               "  found, 2 a bad command line or a file that cannot be read.\n");
        return 0;
    }
    char **files = argv + 1 + consumed;
    if (!files[0]) {
        fprintf(stderr, "devcheck: ERROR: report: no files given (usage: devcheck report [options] FILE...)\n");
        return 2;
    }
    struct dc_model *m = dc_model_new(dc_opt.source_root);
    if (!m)
        die(2, "devcheck: out of memory%s%s", "", "");
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
    char opts[4096];
    int consumed = 0;
    if (parse_command_line(argc, argv, &consumed, opts, sizeof opts) != 0)
        return 2;
    if (dc_opt.help) {
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
               "  --host-memory P, --peer P, --kernel-name P, --suppressions F, --verbosity N.\n");
        return 0;
    }
    char **files = argv + 1 + consumed;
    if (!files[0]) {
        fprintf(stderr, "devcheck: ERROR: replay: no traces given (usage: devcheck replay [--origins FILE] "
                        "[options] TRACE...)\n");
        return 2;
    }
    int nfiles = 0;
    while (files[nfiles])
        nfiles++;
    return dc_replay_run(files, nfiles, origins);
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
    if (!dc_opt.framework_caching) {
        set_default_env("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        set_default_env("XLA_PYTHON_CLIENT_ALLOCATOR", "platform");
        set_default_env("TF_GPU_ALLOCATOR", "cuda_malloc");
    }
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
        if (force)
            fprintf(stderr, "devcheck: running on %s simulated GPUs (%s, its libcudart.so.13 preloaded)\n", ndev,
                    display_path(sim));
        else
            fprintf(stderr, "devcheck: no NVIDIA driver found; running on %s simulated GPUs (%s, its libcudart.so.13 "
                    "preloaded)\n", ndev, display_path(sim));
    }

    /* LD_PRELOAD: [sanitizer runtime] libdevcheck.so [the sim's runtime]
     * [what was there]. */
    char san[PATH_MAX] = "";
    dl_iterate_phdr(find_san, san);
    const char *pre = getenv("LD_PRELOAD");
    char *preload = malloc(strlen(san) + strlen(lib) + strlen(simrt) + (pre ? strlen(pre) : 0) + 4);
    if (!preload)
        die(127, "devcheck: out of memory%s%s", "", "");
    sprintf(preload, "%s%s%s%s%s%s%s", san, *san ? " " : "", lib, *simrt ? " " : "", simrt,
            pre && *pre ? " " : "", pre && *pre ? pre : "");
    set_env("LD_PRELOAD", preload);
    free(preload);
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
    if (dc_opt.json_path[0] && !strstr(dc_opt.json_path, "%p"))
        add_option("json_path", "");            /* the wrapper writes the merged file */
    if (dc_opt.error_exitcode)
        add_option("error_exitcode", "0");      /* the wrapper applies it to the tree */
    return run_tree(prog, tree);
}
