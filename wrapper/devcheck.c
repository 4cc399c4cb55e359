/* devcheck [options] [--] program [args]: runs the program under
 * libdevcheck.so, Compute Sanitizer style.
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
 * already loaded under the same soname.  The program is exec'ed: its
 * exit status and signals are its own.
 *
 * Exit status of the wrapper itself: 2 for a bad command line, 127 (126)
 * when the program cannot be run. */
#include "core/options.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
    char opts[4096], err[2048];
    int consumed = 0;
    if (dc_options_from_argv(argc - 1, argv + 1, &consumed, opts, sizeof opts, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (dc_options_parse(opts, err, sizeof err) != 0) {         /* cannot happen: validated above */
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (dc_opt.help) {
        printf("usage: devcheck [options] [--] program [args]\n"
               "  Runs program with libdevcheck.so preloaded; without an NVIDIA driver (or\n"
               "  with --sim N), on the simulated GPUs.  The program's exit status is kept.\n\n");
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
        const char *ldp = getenv("LD_LIBRARY_PATH");
        char *path = malloc(strlen(sim) + (ldp ? strlen(ldp) : 0) + 2);
        if (!path)
            die(127, "devcheck: out of memory%s%s", "", "");
        sprintf(path, "%s%s%s", sim, ldp && *ldp ? ":" : "", ldp && *ldp ? ldp : "");
        set_env("LD_LIBRARY_PATH", path);
        free(path);
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

    execvp(prog[0], prog);
    int e = errno;
    fprintf(stderr, "devcheck: cannot run '%s': %s\n", prog[0], strerror(e));
    return e == ENOENT ? 127 : 126;
}
