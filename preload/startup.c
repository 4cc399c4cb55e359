/* startup: devcheck's start-up and finish, the one place that starts
 * everything: binds the driver (preload/bind.c), parses the options, opens
 * the report, starts the front ends and learns the program's exit status.
 *
 * Start-up is lazy and once-only (pthread_once): the first hooked call in the
 * process initialises, whichever thread and whenever it comes, including from
 * another library's constructor that runs before ours.  Our own constructor
 * does no CUDA work: a process that never touches CUDA is left alone.  The
 * CUPTI subscriber is started through the core's front-end registration
 * (dc_core_start_frontends): the interposer never names it. */
#include "preload/bind.h"
#include "preload/startup.h"
#include "preload/export.h"
#include "preload/arch.h"
#include "report/report.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- state --------------------------------------------------------------- */

int dc_interpose = 1;                   /* the hooks do their work */

enum { ST_NONE = 0, ST_DONE, ST_DEAD }; /* ST_DEAD: fork interrupted init */
static int init_state;
static int init_running;                /* set while init() runs (fork check) */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Exit status the program asked for (main's return value or exit()'s
 * argument); -1 while unknown. */
static volatile int exit_status = -1;

/* One line on stderr before the report sinks exist; no allocation. */
static void early_line(const char *msg)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "devcheck: %s\n", msg);
    if (n > 0) {
        size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
        ssize_t w = write(2, buf, len);
        (void)w;
    }
}

/* --- start-up -------------------------------------------------------------- */

static void init(void)
{
    struct timespec t0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);   /* --stats: the start-up's CPU time */
    dc_guard++;
    __atomic_store_n(&init_running, 1, __ATOMIC_RELEASE);
    const struct dc_binding *b = dc_bind_driver();

    char errbuf[512] = "";
    const char *env = getenv("DEVCHECK_OPTIONS");
    if (dc_options_parse(env, errbuf, sizeof errbuf) != 0) {
        /* dc_opt holds the defaults now; the program runs on.  One line,
         * one write(). */
        char line[640];
        size_t n = strlen(errbuf);
        while (n && errbuf[n - 1] == '\n')
            errbuf[--n] = 0;
        int len = snprintf(line, sizeof line, "%s (in DEVCHECK_OPTIONS; using the defaults)\n", errbuf);
        if (len > 0) {
            if ((size_t)len >= sizeof line) {
                len = sizeof line - 1;
                line[len - 1] = '\n';
            }
            ssize_t w = write(2, line, (size_t)len);
            (void)w;
        }
    }

    if (dc_opt.help)                    /* the table, then the program runs on */
        dc_options_help(stderr);

    int active = 0;
    if (dc_opt.mode == DC_MODE_OFF) {
        active = 0;
    } else if (!b->libcuda) {
        char msg[400];
        snprintf(msg, sizeof msg, "no CUDA driver (%s); checking nothing", b->error);
        early_line(msg);
    } else if (b->missing) {
        char msg[400];
        snprintf(msg, sizeof msg, "the CUDA driver lacks %s; checking nothing", b->missing);
        early_line(msg);
    } else {
        dc_core_open();
        active = 1;
        Dl_info info;
        void *drv = dc_driver_symbol();
        if (!drv || !dladdr(drv, &info) || !info.dli_fname)
            info.dli_fname = "libcuda.so.1";
        dc_logv(1, "driver %s: %u of %u hooked driver entry points present", info.dli_fname, b->present,
                b->hooked);
        /* backend=cupti: the hooks pass through, unless CUPTI cannot be had */
        int seen = dc_core_start_frontends();
        __atomic_store_n(&dc_interpose, dc_opt.backend != DC_BACKEND_CUPTI || !seen, __ATOMIC_RELAXED);
        if (dc_interpose)
            dc_ctx_track();         /* every context change reaches a hook from now on */
        struct timespec t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        dc_core_started((uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec);
    }
    __atomic_store_n(&init_state, ST_DONE, __ATOMIC_RELEASE);
    __atomic_store_n(&dc_ready, active, __ATOMIC_RELEASE);
    __atomic_store_n(&init_running, 0, __ATOMIC_RELEASE);
    dc_guard--;
}

int dc_enter_slow(void)
{
    int st = __atomic_load_n(&init_state, __ATOMIC_ACQUIRE);
    if (st == ST_DEAD)
        return 0;
    if (st == ST_NONE)
        pthread_once(&init_once, init);
    return __atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE);
}

/* --- a CUDA library no hook sees ------------------------------------------------ *
 * A plugin loaded with RTLD_DEEPBIND binds to its own libcudart, and that
 * runtime to its own libc's dlsym: no hook of ours is ever called, so
 * devcheck would never start, and CUPTI (which sees such calls) would never
 * subscribe.  Programs reach a plugin's functions with dlsym (ctypes, Python's
 * extension imports, plugin registries), and dlsym is ours: when a lookup
 * finds devcheck not started and a CUDA library (libcuda.so*, libcudart*)
 * loaded since the last look, devcheck starts.  Only once main runs (the
 * sanitizer runtimes call dlsym during their own start-up). */
static int main_started;
static unsigned long long seen_adds;    /* dlpi_adds at the last look */

static unsigned initial_objects;        /* objects loaded before main: never unloaded */

struct cuda_look {
    unsigned long long adds;
    int first, found;
    unsigned index;
};

DC_NO_SANITIZE static int look_for_cuda(struct dl_phdr_info *info, size_t size, void *data)
{
    struct cuda_look *l = data;
    if (l->first) {
        l->first = 0;
        l->adds = size >= offsetof(struct dl_phdr_info, dlpi_subs) ? info->dlpi_adds : 0;
        if (l->adds && l->adds == __atomic_load_n(&seen_adds, __ATOMIC_RELAXED))
            return 1;                   /* nothing loaded since the last look */
    }
    /* Only what was loaded since main: a CUDA library the program was linked
     * with (or the wrapper preloaded: the sim's runtime) reaches our hooks
     * when it is used, and a process that never uses it is left alone. */
    if (l->index++ < __atomic_load_n(&initial_objects, __ATOMIC_RELAXED))
        return 0;
    const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
    b = b ? b + 1 : n;
    if (b && (!strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcudart", 9))) {
        l->found = 1;
        return 1;
    }
    return 0;
}

DC_NO_SANITIZE void dc_start_if_cuda_loaded(void)
{
    if (dc_guard || !__atomic_load_n(&main_started, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != ST_NONE)
        return;
    struct cuda_look l = { 0, 1, 0, 0 };
    dl_iterate_phdr(look_for_cuda, &l);
    __atomic_store_n(&seen_adds, l.adds, __ATOMIC_RELAXED);
    if (l.found)
        (void)dc_enter_slow();
}

void dc_yield_cupti_to_program(void)
{
    if (dc_guard)
        return;                 /* devcheck's own subscription */
    dc_guard++;
    if (__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && dc_core_yield_cupti())
        __atomic_store_n(&dc_interpose, 1, __ATOMIC_RELAXED);
    dc_guard--;
}

/* The report's summary and the exit status, after everything else the
 * program runs at exit: registered from our constructor with
 * __cxa_atexit(.., NULL) -- before __libc_start_main registers the loader's
 * destructor pass (_dl_fini), and not tied to our object (so our own
 * destructors' __cxa_finalize does not run it early) -- it runs after every
 * atexit handler and every shared library's destructor: findings made there
 * are counted and written before the summary.  With error_exitcode it then
 * ends the process with _exit(): what remains is only stdio's flush, done
 * here (fflush), and handlers registered before devcheck's constructor ran
 * (another preloaded library's). */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

static void finish(void *unused)
{
    (void)unused;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE))
        return;
    dc_guard++;
    int status = dc_core_finish(exit_status);
    if (status >= 0) {
        fflush(NULL);
        _exit(status);
    }
    dc_guard--;
}

/* --- fatal signals ------------------------------------------------------------ *
 * A signal that would end the program (its disposition is the default one
 * when devcheck starts) first completes the summary and every file, then
 * ends the program as it would have: the handler resets itself
 * (SA_RESETHAND) and raises the signal again.  A handler the program
 * installs later replaces ours: the program's own wins. */
static const int fatal_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGPIPE, SIGALRM, SIGTERM,
    SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
};

static void on_fatal_signal(int sig)
{
    int saved = errno;
    if (__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE)) {
        dc_guard++;
        dc_core_finish_signal(sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
        dc_guard--;
    }
    errno = saved;
    raise(sig);                 /* default action now; delivered when the handler returns */
}

static void install_signal_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigfillset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* --- fork ----------------------------------------------------------------- */

/* The core's own locks have their handlers (dc_core_open); this one is the
 * start-up's. */
static void fork_child(void)
{
    dc_resolve_fork_child();
    /* Another thread was initialising: its pthread_once never completes in
     * the child.  The child passes everything through instead of waiting. */
    if (__atomic_load_n(&init_running, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != ST_DONE)
        __atomic_store_n(&init_state, ST_DEAD, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void ctor(void)
{
    pthread_atfork(dc_resolve_fork_prepare, dc_resolve_fork_parent, fork_child);
    /* Only the options' files and the exit path here: no CUDA work (the
     * first hooked call starts devcheck).  A bad DEVCHECK_OPTIONS is said
     * by init(); here it means the defaults. */
    char err[512];
    dc_options_parse(getenv("DEVCHECK_OPTIONS"), err, sizeof err);
    if (dc_opt.mode == DC_MODE_OFF)
        return;
    dc_core_prestart();
    __cxa_atexit(finish, NULL, NULL);
    install_signal_handlers();
}

/* --- exit status ----------------------------------------------------------- */

typedef int (*main_fn)(int, char **, char **);
typedef int (*lsm_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
static main_fn real_main;

static int count_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size;
    ++*(unsigned *)data;
    return 0;
}

static int main_hook(int argc, char **argv, char **envp)
{
    unsigned n = 0;
    dl_iterate_phdr(count_object, &n);
    __atomic_store_n(&initial_objects, n, __ATOMIC_RELAXED);
    __atomic_store_n(&main_started, 1, __ATOMIC_RELEASE);
    int r = real_main(argc, argv, envp);
    exit_status = r & 0xff;
    return r;
}

static int start_main(const char *version, main_fn main, int argc, char **argv, void (*init_fn)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    lsm_fn real = (lsm_fn)dc_next_versioned("__libc_start_main", version);
    if (!real)
        real = (lsm_fn)dc_next_versioned("__libc_start_main", "GLIBC_2.34");
    if (!real) {
        early_line("cannot find __libc_start_main");
        _exit(127);
    }
    real_main = main;
    return real(main_hook, argc, argv, init_fn, fini, rtld_fini, stack_end);
}

/* glibc's startup: learn main's return value.  Under both versions libc
 * defines (preload/arch.h): programs linked against glibc 2.34 or later
 * import __libc_start_main@GLIBC_2.34, older ones the base version. */
int dc_lsm_v2_34(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                 void (*rtld_fini)(void), void *stack_end) DC_EXPORT;
int dc_lsm_v2_34(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                 void (*rtld_fini)(void), void *stack_end)
{
    return start_main("GLIBC_2.34", main, argc, argv, init_fn, fini, rtld_fini, stack_end);
}
int dc_lsm_base(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                void (*rtld_fini)(void), void *stack_end) DC_EXPORT;
int dc_lsm_base(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                void (*rtld_fini)(void), void *stack_end)
{
    return start_main(DC_GLIBC_BASE, main, argc, argv, init_fn, fini, rtld_fini, stack_end);
}
__asm__(".symver dc_lsm_v2_34, __libc_start_main@@GLIBC_2.34\n"
        ".symver dc_lsm_base, __libc_start_main@" DC_GLIBC_BASE "\n");

/* exit(): learn an explicit exit status.  exit@@<base version> (the version
 * script, preload/exports.map.in). */
DC_EXPORT void exit(int status)
{
    exit_status = status & 0xff;
    void (*real)(int) = (void (*)(int))dc_next_versioned("exit", DC_GLIBC_BASE);
    if (real)
        real(status);
    fflush(NULL);
    _exit(status);
}
