/* interpose: binding the real CUDA functions, start-up, dlsym and
 * cuGetProcAddress substitution, exit status.
 *
 * Start-up is lazy and once-only (pthread_once): the first hooked call in the
 * process initialises, whichever thread and whenever it comes, including from
 * another library's constructor that runs before ours.  Our own constructor
 * does no CUDA work: a process that never touches CUDA is left alone. */
#include "preload/preload.h"
#include "core/options.h"
#include "report/report.h"
#include "cupti/cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the table --------------------------------------------------------- */

#define DC_DRV(name, req)  __typeof__(&name) dc_real_##name;
#define DC_RT(name, since) __typeof__(&name) dc_real_##name;
#define DC_AUX(name, req)  __typeof__(&name) dc_real_##name;
#define DC_RTAUX(name)     __typeof__(&name) dc_real_##name;
#include "preload/hooks.def"

struct drv_entry {
    const char *name;
    void **real;            /* &dc_real_<name> */
    void *wrapper;          /* our exported definition; NULL for DC_AUX */
    int required;
};

static const struct drv_entry drv_table[] = {
#define DC_DRV(name, req) { #name, (void **)&dc_real_##name, (void *)&name, req },
#define DC_AUX(name, req) { #name, (void **)&dc_real_##name, NULL, req },
#include "preload/hooks.def"
};
#define N_DRV (sizeof drv_table / sizeof drv_table[0])

/* --- state --------------------------------------------------------------- */

__thread int dc_guard __attribute__((tls_model("initial-exec")));
int dc_ready;                           /* initialised and active */
int dc_interpose = 1;                   /* the hooks do their work */

enum { ST_NONE = 0, ST_DONE, ST_DEAD }; /* ST_DEAD: fork interrupted init */
static int init_state;
static int init_running;                /* set while init() runs (fork check) */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

void *(*dc_real_dlsym)(void *, const char *);   /* used by the dlsym stub */
static void *libcuda;
static char bind_error[256];
static const char *missing_required;

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

/* --- binding ------------------------------------------------------------- */

/* The dlsym path runs before a sanitizer runtime is initialised (ASan's own
 * start-up calls dlsym): no instrumentation there. */
#define DC_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

DC_NO_SANITIZE static void bind_dlsym(void)
{
    void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&dc_real_dlsym, (void *(*)(void *, const char *))p, __ATOMIC_RELEASE);
}

/* Resolves every driver entry point of the table from libcuda.so.1.  Runs once,
 * with the guard held (the loader may run code that reaches our hooks). */
static void bind_driver(void)
{
    dc_guard++;
    if (!dc_real_dlsym)
        bind_dlsym();
    libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        const char *e = dlerror();
        snprintf(bind_error, sizeof bind_error, "%s", e ? e : "libcuda.so.1: cannot open");
    } else if (dc_real_dlsym) {
        for (size_t i = 0; i < N_DRV; i++) {
            void *p = dc_real_dlsym(libcuda, drv_table[i].name);
            __atomic_store_n(drv_table[i].real, p, __ATOMIC_RELEASE);
            if (!p && drv_table[i].required && !missing_required)
                missing_required = drv_table[i].name;
        }
    }
    dc_guard--;
}

/* Needs only the real dlsym (not bind_once, which a fork may have left
 * half-run in a child). */
void *dc_resolve_rt(const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    if (!dc_real_dlsym)
        return NULL;
    dc_guard++;
    void *p = dc_real_dlsym(RTLD_NEXT, name);
    dc_guard--;
    return p;
}

void *dc_driver_symbol(void)
{
    return (void *)__atomic_load_n(&dc_real_cuMemAlloc_v2, __ATOMIC_ACQUIRE);
}

void *dc_substitute(void *p)
{
    if (!p || !__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE))
        return p;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && *drv_table[i].real == p)
            return drv_table[i].wrapper;
    return p;
}

/* --- start-up -------------------------------------------------------------- */

static void init(void)
{
    dc_guard++;
    __atomic_store_n(&init_running, 1, __ATOMIC_RELEASE);
    pthread_once(&bind_once, bind_driver);

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
    } else if (!libcuda) {
        char msg[400];
        snprintf(msg, sizeof msg, "no CUDA driver (%s); checking nothing", bind_error);
        early_line(msg);
    } else if (missing_required) {
        char msg[400];
        snprintf(msg, sizeof msg, "the CUDA driver lacks %s; checking nothing", missing_required);
        early_line(msg);
    } else {
        dc_report_init();
        active = 1;
        unsigned present = 0, hooked = 0;
        Dl_info info;
        for (size_t i = 0; i < N_DRV; i++)
            if (drv_table[i].wrapper) {
                hooked++;
                present += *drv_table[i].real != NULL;
            }
        if (!dc_real_cuMemAlloc_v2 || !dladdr((void *)dc_real_cuMemAlloc_v2, &info) || !info.dli_fname)
            info.dli_fname = "libcuda.so.1";
        dc_logv(1, "driver %s: %u of %u hooked driver entry points present", info.dli_fname, present, hooked);
        /* backend=cupti: the hooks pass through, unless CUPTI cannot be had */
        int cupti = dc_opt.backend != DC_BACKEND_INTERPOSE && dc_cupti_start();
        __atomic_store_n(&dc_interpose, dc_opt.backend != DC_BACKEND_CUPTI || !cupti, __ATOMIC_RELAXED);
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

/* The report's summary and the exit status.  A destructor runs after every
 * atexit handler of the program, so launches made there are counted too. */
__attribute__((destructor)) static void finish(void)
{
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE))
        return;
    dc_guard++;
    dc_report_finish();
    int st = exit_status;
    if (dc_opt.error_exitcode != 0 && st >= 0 && (st & 0xff) == 0 && dc_report_error_count() > 0) {
        fflush(NULL);
        _exit(dc_opt.error_exitcode);
    }
    dc_guard--;
}

/* --- fork ----------------------------------------------------------------- */

static void fork_prepare(void)
{
    dc_launch_fork_prepare();
    dc_mem_fork_prepare();
}
static void fork_parent(void)
{
    dc_mem_fork_parent();
    dc_launch_fork_parent();
}
static void fork_child(void)
{
    dc_mem_fork_child();
    dc_launch_fork_child();
    /* Another thread was initialising: its pthread_once never completes in
     * the child.  The child passes everything through instead of waiting. */
    if (__atomic_load_n(&init_running, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != ST_DONE)
        __atomic_store_n(&init_state, ST_DEAD, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void ctor(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* --- dlsym ------------------------------------------------------------------ */

/* Called by the dlsym entry stub.  Returns the wrapper to hand back, or NULL:
 * the stub then jumps to the real dlsym with the caller's own return address
 * (RTLD_NEXT is relative to the caller, so the real dlsym must see it).
 * Substitutes only exact names of hooked driver entry points, and only when
 * the lookup would have returned the driver's own function. */
DC_NO_SANITIZE static int same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

DC_NO_SANITIZE static const struct drv_entry *hooked_entry(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u' || name[2] < 'A' || name[2] > 'Z')
        return NULL;
    for (size_t i = 0; i < N_DRV; i++)
        if (drv_table[i].wrapper && same_name(drv_table[i].name, name))
            return &drv_table[i];
    return NULL;
}

void *dc_dlsym_subst(void *handle, const char *name);
DC_NO_SANITIZE void *dc_dlsym_subst(void *handle, const char *name)
{
    if (!__atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE))
        bind_dlsym();
    const struct drv_entry *e = hooked_entry(name);
    if (!e || dc_guard || !dc_enter_slow())
        return NULL;
    dc_guard++;
    void *p = dc_real_dlsym ? dc_real_dlsym(handle, name) : NULL;
    dc_guard--;
    return p && p == *e->real ? e->wrapper : NULL;
}

#if defined(__x86_64__)
/* The exported dlsym: dlsym@GLIBC_2.2.5 and dlsym@@GLIBC_2.34.  Written in
 * assembly so that the fall-through is a true tail jump, whatever the
 * optimisation level: glibc's dlsym resolves RTLD_NEXT relative to its
 * return address, which must stay our caller's. */
__asm__(
    "    .text\n"
    "    .p2align 4\n"
    "    .globl dc_dlsym_v2_34\n"
    "    .type dc_dlsym_v2_34, @function\n"
    "    .globl dc_dlsym_v2_2_5\n"
    "    .type dc_dlsym_v2_2_5, @function\n"
    "dc_dlsym_v2_34:\n"
    "dc_dlsym_v2_2_5:\n"
    "    .cfi_startproc\n"
    "    pushq %rdi\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    pushq %rsi\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    subq $8, %rsp\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    call dc_dlsym_subst\n"
    "    addq $8, %rsp\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    popq %rsi\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    popq %rdi\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    testq %rax, %rax\n"
    "    jnz 1f\n"
    "    movq dc_real_dlsym(%rip), %rax\n"
    "    testq %rax, %rax\n"
    "    jz 1f\n"
    "    jmp *%rax\n"
    "1:  ret\n"
    "    .cfi_endproc\n"
    "    .size dc_dlsym_v2_34, .-dc_dlsym_v2_34\n"
    "    .size dc_dlsym_v2_2_5, .-dc_dlsym_v2_2_5\n"
    "    .symver dc_dlsym_v2_34, dlsym@@GLIBC_2.34\n"
    "    .symver dc_dlsym_v2_2_5, dlsym@GLIBC_2.2.5\n");
#else
/* Elsewhere: a C tail call (the compiler makes it a jump at -O1 and above). */
DC_EXPORT void *dc_dlsym_v2_34(void *handle, const char *name)
{
    void *s = dc_dlsym_subst(handle, name);
    return s ? s : dc_real_dlsym(handle, name);
}
__asm__(".symver dc_dlsym_v2_34, dlsym@@GLIBC_2.34\n"
        ".symver dc_dlsym_v2_34, dlsym@GLIBC_2.2.5\n");
#endif

/* --- cuGetProcAddress ----------------------------------------------------- */

/* Called with the caller's version and flags; if the driver answers with the
 * real variant X that the table hooks (_v2, _ptsz, ...), X's wrapper goes back
 * instead.  cudart asks for cuGetProcAddress itself and gets ours. */
DC_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                               cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    if (!dc_enter())
        return DC_REAL(cuGetProcAddress_v2, symbol, pfn, cudaVersion, flags, symbolStatus);
    CUresult r = DC_REAL(cuGetProcAddress_v2, symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = dc_substitute(*pfn);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    if (!dc_enter())
        return DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    CUresult r = DC_REAL(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = dc_substitute(*pfn);
    dc_leave();
    return r;
}

/* --- exit status ----------------------------------------------------------- */

typedef int (*main_fn)(int, char **, char **);
typedef int (*lsm_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
static main_fn real_main;

static int main_hook(int argc, char **argv, char **envp)
{
    int r = real_main(argc, argv, envp);
    exit_status = r & 0xff;
    return r;
}

static int start_main(const char *version, main_fn main, int argc, char **argv, void (*init_fn)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    lsm_fn real = (lsm_fn)dlvsym(RTLD_NEXT, "__libc_start_main", version);
    if (!real)
        real = (lsm_fn)dlvsym(RTLD_NEXT, "__libc_start_main", "GLIBC_2.34");
    if (!real) {
        early_line("cannot find __libc_start_main");
        _exit(127);
    }
    real_main = main;
    return real(main_hook, argc, argv, init_fn, fini, rtld_fini, stack_end);
}

/* glibc's startup: learn main's return value. */
int dc_lsm_v2_34(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                 void (*rtld_fini)(void), void *stack_end) DC_EXPORT;
int dc_lsm_v2_34(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                 void (*rtld_fini)(void), void *stack_end)
{
    return start_main("GLIBC_2.34", main, argc, argv, init_fn, fini, rtld_fini, stack_end);
}
int dc_lsm_v2_2_5(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                  void (*rtld_fini)(void), void *stack_end) DC_EXPORT;
int dc_lsm_v2_2_5(main_fn main, int argc, char **argv, void (*init_fn)(void), void (*fini)(void),
                  void (*rtld_fini)(void), void *stack_end)
{
    return start_main("GLIBC_2.2.5", main, argc, argv, init_fn, fini, rtld_fini, stack_end);
}
__asm__(".symver dc_lsm_v2_34, __libc_start_main@@GLIBC_2.34\n"
        ".symver dc_lsm_v2_2_5, __libc_start_main@GLIBC_2.2.5\n");

/* exit(): learn an explicit exit status. */
DC_EXPORT void exit(int status)
{
    exit_status = status & 0xff;
    void (*real)(int) = (void (*)(int))dlvsym(RTLD_NEXT, "exit", "GLIBC_2.2.5");
    if (real)
        real(status);
    fflush(NULL);
    _exit(status);
}
