/* subscribe: devcheck's CUPTI subscription and its lifecycle -- which
 * libcupti, subscribing, enabling the callbacks, giving the subscription up.
 * What the callbacks mean is cupti/translate.c's (it hands its callback
 * function to dc_cupti_start); this file never looks into one.
 *
 * Contract:
 *  - dc_cupti_start runs once, from the front end's start (the start-up,
 *    with the options parsed and the driver bound, the guard held, unless
 *    backend=interpose).  It loads libcupti.so.13 (or CUDA 12's
 *    libcupti.so.12) with dlopen (the rule below and in README), resolves
 *    its functions with dlsym, subscribes as "devcheck" and enables the
 *    driver domain's callbacks for access grants, peer access, kernel images
 *    and a client's cuGetProcAddress (cupti/cbids.h), the resource domain's
 *    and, with backend=cupti, the launch, allocation, free and copy
 *    callbacks of the driver and runtime domains (with backend=both, only
 *    once a call past the interposer showed up: dc_cupti_want_busy).  When
 *    CUPTI cannot be used (absent, failing, or held by another subscriber)
 *    it writes one line saying why (naming the holder): devcheck runs on
 *    interposition alone.  Never fails the program.
 *  - It yields: CUPTI allows one subscriber, and when the program subscribes
 *    itself (a profiler: the interposer's cuptiSubscribe hooks see it, and
 *    call the core's dc_core_yield_cupti first), it unsubscribes, says so in
 *    one line and never subscribes again: devcheck goes on with
 *    interposition alone.
 *
 * Which libcupti (first that applies):
 *  1. DEVCHECK_CUPTI, when set: that file and no other.
 *  2. The platform's own: a libcupti.so.13 (or .12) in the directory of the
 *     libcuda.so.1 the process loaded (found with dladdr on the real driver
 *     function).  NVIDIA's driver directory holds none; the simulated
 *     platform (build/sim) ships its libcupti beside its libcuda.
 *  3. No CUPTI when the driver is not NVIDIA's and brought none: NVIDIA's
 *     driver file is versioned (libcuda.so.1 -> libcuda.so.<driver version>),
 *     or on WSL a plain libcuda.so.1 byte-identical to the libcuda.so.1.1
 *     beside it (/usr/lib/wsl/lib holds copies, not links); any other driver
 *     (the simulated one) gets only the CUPTI of step 2, never NVIDIA's,
 *     which cannot work without NVIDIA's driver.
 *  4. For libcupti.so.13, then libcupti.so.12 (.12 first when the process
 *     runs CUDA 12's runtime: libcudart.so.12 loaded, no .13; .13 not at all
 *     under a driver older than 13.0): the loader's own search,
 *     dlopen("libcupti.so.1N") (LD_LIBRARY_PATH wins), then
 *     $CUDA_HOME/extras/CUPTI/lib64, $CUDA_HOME/lib64 (CUDA_HOME defaults to
 *     /usr/local/cuda), then Python's site-packages/nvidia/cu13/lib (CUDA
 *     13's wheels) and site-packages/nvidia/cuda_cupti/lib (CUDA 12's; of the
 *     objects already loaded, $VIRTUAL_ENV, $CONDA_PREFIX). */
/* cupti.h brings cuda.h and cuda_runtime_api.h. */
#include <cupti.h>
#include "core/core.h"
#include "cupti/cbids.h"
#include "cupti/subscribe.h"
#include "report/report.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the CUPTI functions devcheck calls (typed from cupti.h) --------------- */

#define CUPTI_FUNCS(X)          \
    X(cuptiSubscribe_v2)        \
    X(cuptiSubscribe)           \
    X(cuptiUnsubscribe)         \
    X(cuptiEnableCallback)      \
    X(cuptiEnableDomain)        \
    X(cuptiGetCallbackName)     \
    X(cuptiGetResultString)

#define X(name) static __typeof__(&name) p_##name;
CUPTI_FUNCS(X)
#undef X

static CUpti_SubscriberHandle subscriber;
/* sub_lock orders devcheck's subscription (dc_cupti_start), giving it up
 * (dc_cupti_yield) and enabling the busy callbacks (dc_cupti_want_busy);
 * program_subscribed: the program asked for CUPTI, devcheck never
 * subscribes again.  The callbacks read the state of subscribe.h without
 * the lock. */
static pthread_mutex_t sub_lock = PTHREAD_MUTEX_INITIALIZER;
static int program_subscribed;
int dc_cupti_subscribed, dc_cupti_busy_on, dc_cupti_live;

/* dc_cupti_live: both of the above, for the callbacks' one load; sub_lock held. */
static void set_live(void)
{
    __atomic_store_n(&dc_cupti_live,
                     __atomic_load_n(&dc_cupti_subscribed, __ATOMIC_RELAXED) &&
                         __atomic_load_n(&dc_cupti_busy_on, __ATOMIC_RELAXED),
                     __ATOMIC_RELEASE);
}
int dc_cupti_rt = DC_RT13;

/* The callbacks devcheck enables: cupti/cbids.h. */

/* The busy driver callbacks and the runtime domain's (dc_cupti_busy_on says
 * they are enabled); returns how many could not be enabled.  *no_launch: why
 * not one driver launch callback could be (CUPTI_SUCCESS when one was). */
static unsigned enable_busy(CUptiResult *no_launch)
{
    unsigned failed = 0, launches = 0;
    CUptiResult why = CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof busy_cbids / sizeof busy_cbids[0]; i++) {
        CUptiResult r = p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, busy_cbids[i]);
        failed += r != CUPTI_SUCCESS;
        if (is_driver_launch(busy_cbids[i])) {
            launches += r == CUPTI_SUCCESS;
            if (r != CUPTI_SUCCESS && why == CUPTI_SUCCESS)
                why = r;
        }
    }
    *no_launch = launches ? CUPTI_SUCCESS : why;
    for (size_t i = 0; i < N_RT_LAUNCHES; i++)
        failed += p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, rt_launches[i].cbid) != CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof runtime_mem_cbids / sizeof runtime_mem_cbids[0]; i++)
        failed += p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_mem_cbids[i]) != CUPTI_SUCCESS;
    return failed;
}

/* Beside the interposer (backend=both) a call reaches the driver through the
 * interposer's hooks (checked there), or through the entry points the
 * interposed dlsym / cuGetProcAddress handed out (the same hooks), or past
 * them: a plugin bound to its own runtime with RTLD_DEEPBIND, a library with
 * the C library's own dlsym.  CUPTI enables a callback for every call of an
 * entry point or for none, so the busy callbacks (every launch, allocation,
 * free and copy) would come at each call's enter and exit only to be
 * ignored.  They wait: the always-enabled ones (driver_cbids) are calls a
 * driver client makes before its first launch (its cuGetProcAddress, its
 * modules and kernel handles) and the calls that change who may access what,
 * all hooked, all rare.  The first of them that arrives with no guard held
 * (`cbid`) came past the hooks: the busy callbacks and the runtime domain's
 * are enabled, and that code's launches, allocations and copies are checked
 * from then on, its runtime calls under their own names.  Not seen:
 * launches, allocations and copies from code whose every other call goes
 * through the hooks (backend=cupti sees those).  Guard held; never waits for
 * sub_lock (a subscription changing now: the next call past the hooks tries
 * again). */
void dc_cupti_want_busy(CUpti_CallbackId cbid)
{
    if (pthread_mutex_trylock(&sub_lock) != 0)
        return;
    if (__atomic_load_n(&dc_cupti_subscribed, __ATOMIC_ACQUIRE) && !__atomic_load_n(&dc_cupti_busy_on, __ATOMIC_RELAXED)) {
        CUptiResult no_launch;          /* the hooks still check what goes through them */
        unsigned failed = enable_busy(&no_launch);
        __atomic_store_n(&dc_cupti_busy_on, 1, __ATOMIC_RELAXED);
        set_live();
        const char *name = NULL;
        if (!p_cuptiGetCallbackName ||
            p_cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || !name)
            name = "a driver call";
        dc_logv(1, "CUPTI: %s reached the driver past the interposer; CUPTI now sees every launch, allocation "
                   "and copy%s", name, failed ? " (some callbacks could not be enabled)" : "");
    }
    pthread_mutex_unlock(&sub_lock);
}

/* --- loading ------------------------------------------------------------------ */

/* Room for a directory of PATH_MAX and a file name. */
#define PATHBUF (PATH_MAX + 64)

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* Directory of the loaded driver into dir (no trailing slash); its file's
 * real name into real.  0, or -1 when unknown. */
static int driver_file(char *dir, size_t dlen, char *real, size_t rlen)
{
    Dl_info info;
    void *sym = dc_driver_symbol();
    if (!sym || !dladdr(sym, &info) || !info.dli_fname || !*info.dli_fname)
        return -1;
    char rp[PATH_MAX];
    if (!realpath(info.dli_fname, rp))
        snprintf(rp, sizeof rp, "%s", info.dli_fname);
    snprintf(real, rlen, "%s", rp);
    snprintf(dir, dlen, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

/* A file name libcuda.so.<driver version> (580.95.05; 1.1 on WSL). */
static int versioned_name(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return !strncmp(b, "libcuda.so.", 11) && strcmp(b + 11, "1") != 0 && b[11] >= '0' && b[11] <= '9';
}

/* Files a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC), same = 0;
    struct stat sa, sb;
    if (fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 && sa.st_size == sb.st_size) {
        char ba[4096], bb[4096];
        same = 1;
        for (;;) {
            ssize_t na = read(fa, ba, sizeof ba);
            if (na <= 0) {
                same = na == 0;
                break;
            }
            ssize_t nb = 0, r;
            while (nb < na && (r = read(fb, bb + nb, (size_t)(na - nb))) > 0)
                nb += r;
            if (nb != na || memcmp(ba, bb, (size_t)na) != 0) {
                same = 0;
                break;
            }
        }
    }
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    return same;
}

/* NVIDIA's driver: its file is libcuda.so.<driver version> (libcuda.so.1 a
 * symbolic link to it: the driver packages, the container toolkit), or it is
 * a plain libcuda.so.1 with a byte-identical libcuda.so.<version> beside it
 * (WSL's /usr/lib/wsl/lib holds copies: libcuda.so, libcuda.so.1 and
 * libcuda.so.1.1, none a link). */
static int nvidia_driver(const char *dir, const char *real)
{
    if (versioned_name(real))
        return 1;
    char pat[PATHBUF];
    snprintf(pat, sizeof pat, "%s/libcuda.so.[0-9]*", dir);
    glob_t g;
    int nv = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; !nv && i < g.gl_pathc; i++)
            nv = versioned_name(g.gl_pathv[i]) && same_bytes(g.gl_pathv[i], real);
        globfree(&g);
    }
    return nv;
}

static void *try_open(const char *path, char *used, size_t ulen)
{
    if (!exists(path))
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(used, ulen, "%s", path);
    return h;
}

/* site-packages of an object already loaded (torch/lib, ...). */
static int find_site(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *n = info->dlpi_name;
    char *out = data;
    const char *m = n ? strstr(n, "/site-packages/") : NULL;
    if (!m && n)
        m = strstr(n, "/dist-packages/");
    if (!m)
        return 0;
    size_t len = (size_t)(m - n) + 15;
    if (len + 1 > PATH_MAX)
        return 0;
    memcpy(out, n, len);
    out[len] = 0;
    return 1;
}

/* The CUPTI versions devcheck uses, each with where NVIDIA's wheels put it
 * under site-packages (CUDA 13's share nvidia/cu13/lib; CUDA 12's have
 * nvidia/cuda_cupti/lib) and the runtime whose calls it reports. */
struct cupti_major {
    const char *soname;
    const char *wheel_dirs[2];
    int rt;                     /* enum dc_rt */
};
static const struct cupti_major majors[] = {
    { "libcupti.so.13", { "nvidia/cu13/lib", "nvidia/cuda_cupti/lib" }, DC_RT13 },
    { "libcupti.so.12", { "nvidia/cuda_cupti/lib", NULL }, DC_RT12 },
};
#define N_MAJORS (sizeof majors / sizeof majors[0])

static void *open_python(const struct cupti_major *m, char *used, size_t ulen)
{
    char site[PATH_MAX] = "", path[PATHBUF];
    dl_iterate_phdr(find_site, site);
    for (size_t w = 0; *site && w < 2 && m->wheel_dirs[w]; w++) {
        snprintf(path, sizeof path, "%s%s/%s", site, m->wheel_dirs[w], m->soname);
        void *h = try_open(path, used, ulen);
        if (h)
            return h;
    }
    const char *roots[] = { getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX") };
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i] || !*roots[i])
            continue;
        for (size_t w = 0; w < 2 && m->wheel_dirs[w]; w++) {
            snprintf(path, sizeof path, "%s/lib/python3*/site-packages/%s/%s", roots[i], m->wheel_dirs[w], m->soname);
            glob_t g;
            if (glob(path, 0, NULL, &g) == 0) {
                void *h = NULL;
                for (size_t j = 0; !h && j < g.gl_pathc; j++)
                    h = try_open(g.gl_pathv[j], used, ulen);
                globfree(&g);
                if (h)
                    return h;
            }
        }
    }
    return NULL;
}

/* The order to try the CUPTI versions in: the one of the runtime the process
 * has loaded (a CUDA 12 program's libcudart.so.12 and no .13) first, then
 * the newest; CUPTI 13 not at all under a driver older than 13.0, which it
 * cannot work with. */
static size_t major_order(const struct cupti_major **order)
{
    size_t n = 0;
    int drv = dc_driver_version();
    void *rt12 = dlopen("libcudart.so.12", RTLD_LAZY | RTLD_NOLOAD);
    void *rt13 = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
    int twelve_first = rt12 && !rt13;
    if (rt12)
        dlclose(rt12);
    if (rt13)
        dlclose(rt13);
    if (twelve_first)
        order[n++] = &majors[1];
    if (drv <= 0 || drv >= 13000)
        order[n++] = &majors[0];
    if (!twelve_first)
        order[n++] = &majors[1];
    return n;
}

/* The CUPTI version of a library named by the user (DEVCHECK_CUPTI). */
static const struct cupti_major *major_of(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (size_t i = 0; i < N_MAJORS; i++)
        if (!strcmp(b, majors[i].soname))
            return &majors[i];
    return &majors[0];
}

/* The libcupti to use (rule at the top) and its version in *major, or NULL
 * with *why set. */
static void *open_cupti(char *used, size_t ulen, char *why, size_t wlen, const struct cupti_major **major)
{
    const char *env = getenv("DEVCHECK_CUPTI");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(used, ulen, "%s", env);
            *major = major_of(env);
            return h;
        }
        const char *e = dlerror();
        snprintf(why, wlen, "cannot load DEVCHECK_CUPTI=%s (%s)", env, e ? e : "dlopen failed");
        return NULL;
    }
    const struct cupti_major *order[N_MAJORS];
    size_t norder = major_order(order);
    char dir[PATH_MAX], real[PATH_MAX], path[PATHBUF];
    if (driver_file(dir, sizeof dir, real, sizeof real) == 0) {
        for (size_t i = 0; i < N_MAJORS; i++) {        /* the platform's own, any version */
            snprintf(path, sizeof path, "%s/%s", dir, majors[i].soname);
            if (!exists(path))
                continue;
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(used, ulen, "%s", path);
                *major = &majors[i];
                return h;
            }
            const char *e = dlerror();
            snprintf(why, wlen, "cannot load the driver's CUPTI %s (%s)", path, e ? e : "dlopen failed");
            return NULL;
        }
        if (!nvidia_driver(dir, real)) {
            snprintf(why, wlen, "the driver %s is not NVIDIA's and has no libcupti.so.13 (or .12) beside it", real);
            return NULL;
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (!home || !*home)
        home = "/usr/local/cuda";
    for (size_t k = 0; k < norder; k++) {
        const struct cupti_major *m = order[k];
        *major = m;
        void *h = dlopen(m->soname, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            Dl_info info;
            void *f = dlsym(h, "cuptiSubscribe");
            snprintf(used, ulen, "%s", f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : m->soname);
            return h;
        }
        const char *sub[] = { "extras/CUPTI/lib64", "lib64" };
        for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
            snprintf(path, sizeof path, "%s/%s/%s", home, sub[i], m->soname);
            if ((h = try_open(path, used, ulen)))
                return h;
        }
        if ((h = open_python(m, used, ulen)))
            return h;
    }
    snprintf(why, wlen, "no libcupti.so.13 or libcupti.so.12 found (LD_LIBRARY_PATH, %s/extras/CUPTI/lib64, "
                        "%s/lib64, site-packages/nvidia/cu13/lib or nvidia/cuda_cupti/lib; or set DEVCHECK_CUPTI)",
             home, home);
    return NULL;
}

static const char *result_name(CUptiResult r)
{
    const char *s = NULL;
    if (!p_cuptiGetResultString || p_cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "CUPTI error";
    return s;
}

/* One line, on the log sink. */
static void alone(const char *why)
{
    dc_log("CUPTI: %s; running on interposition alone", why);
}

/* Subscribes `callback`, unless the program already asked for CUPTI;
 * sub_lock held.  beside: the interposer checks the program's calls too
 * (backend=both). */
static int start_locked(int beside, CUpti_CallbackFunc callback)
{
    char used[PATHBUF] = "", why[2 * PATHBUF] = "";
    if (program_subscribed) {
        alone("the program subscribes to CUPTI itself (a profiler), which allows one subscriber");
        return 0;
    }
    const struct cupti_major *major = &majors[0];
    void *h = open_cupti(used, sizeof used, why, sizeof why, &major);
    if (!h) {
        alone(why);
        return 0;
    }
    dc_cupti_rt = major->rt;
#define X(name) p_##name = (__typeof__(p_##name))dlsym(h, #name);
    CUPTI_FUNCS(X)
#undef X
    if ((!p_cuptiSubscribe_v2 && !p_cuptiSubscribe) || !p_cuptiEnableCallback || !p_cuptiEnableDomain ||
        !p_cuptiUnsubscribe) {
        snprintf(why, sizeof why, "%s lacks cuptiSubscribe/cuptiEnableCallback/cuptiEnableDomain", used);
        alone(why);
        return 0;
    }

    /* cuptiSubscribe_v2 names the holder; CUPTI 12 may have cuptiSubscribe only */
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
    CUpti_SubscriberParams sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    sp.subscriberName = "devcheck";
    sp.oldSubscriberName = holder;
    sp.oldSubscriberSize = sizeof holder;
    CUptiResult r = p_cuptiSubscribe_v2 ? p_cuptiSubscribe_v2(&subscriber, callback, NULL, &sp)
                                        : p_cuptiSubscribe(&subscriber, callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        holder[sizeof holder - 1] = 0;
        snprintf(why, sizeof why, "held by another subscriber (%s)", *holder ? holder : "unnamed");
        alone(why);
        return 0;
    }
    if (r != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "%s failed: %s", p_cuptiSubscribe_v2 ? "cuptiSubscribe_v2" : "cuptiSubscribe",
                 result_name(r));
        alone(why);
        return 0;
    }

    unsigned failed = 0;
    CUptiResult first_failure = CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof driver_cbids / sizeof driver_cbids[0]; i++) {
        r = p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver_cbids[i]);
        if (r != CUPTI_SUCCESS && !failed++)
            first_failure = r;
    }
    if (failed == sizeof driver_cbids / sizeof driver_cbids[0]) {
        /* subscribed but blind: with backend=cupti the hooks would pass
         * everything through unchecked */
        snprintf(why, sizeof why, "cannot enable the driver callbacks: %s", result_name(first_failure));
        p_cuptiUnsubscribe(subscriber);
        alone(why);
        return 0;
    }
    /* Beside the interposer the busy callbacks wait for a call past the
     * hooks (dc_cupti_want_busy). */
    __atomic_store_n(&dc_cupti_busy_on, !beside, __ATOMIC_RELAXED);
    if (!beside) {
        CUptiResult no_launch;
        failed += enable_busy(&no_launch);
        if (no_launch != CUPTI_SUCCESS) {
            /* backend=cupti with no launch callback: as blind as above */
            snprintf(why, sizeof why, "cannot enable the launch callbacks: %s", result_name(no_launch));
            p_cuptiUnsubscribe(subscriber);
            alone(why);
            return 0;
        }
    }
    r = p_cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
    if (r != CUPTI_SUCCESS) {
        /* without the resource domain, destroyed contexts would go unseen */
        snprintf(why, sizeof why, "cannot enable the resource domain: %s", result_name(r));
        p_cuptiUnsubscribe(subscriber);
        alone(why);
        return 0;
    }
    dc_logv(1, "CUPTI %s: subscribed as devcheck%s", used, failed ? " (some callbacks could not be enabled)" : "");
    __atomic_store_n(&dc_cupti_subscribed, 1, __ATOMIC_RELEASE);
    set_live();
    return 1;
}

/* A fork child has none of the parent's other threads: sub_lock held by
 * one of them (inside dc_cupti_start, dc_cupti_yield or dc_cupti_want_busy)
 * would never be released, and the child's own cuptiSubscribe would wait
 * for it for ever (dc_cupti_yield).  The child re-initialises it.  No prepare handler takes it,
 * as the core's do with its leaf locks: it is held across calls into CUPTI
 * and the loader, which may register fork handlers of their own while glibc
 * holds its atfork lock for the prepare handlers.  What a thread was doing
 * under it is left half done in the child, which is safe: the flags only
 * ever lead to a call being tried again or given up. */
static void sub_fork_child(void) { pthread_mutex_init(&sub_lock, NULL); }

int dc_cupti_start(int beside, CUpti_CallbackFunc callback)
{
    pthread_atfork(NULL, NULL, sub_fork_child);     /* start runs once */
    pthread_mutex_lock(&sub_lock);
    int r = start_locked(beside, callback);
    pthread_mutex_unlock(&sub_lock);
    return r;
}

/* The program subscribes (a profiler: torch.profiler/Kineto, Nsight Systems,
 * Triton's Proton): CUPTI allows one subscriber, so devcheck gives its
 * subscription up, for good, before the program's call reaches CUPTI. */
int dc_cupti_yield(void)
{
    pthread_mutex_lock(&sub_lock);
    program_subscribed = 1;
    int had = __atomic_exchange_n(&dc_cupti_subscribed, 0, __ATOMIC_ACQ_REL);
    set_live();
    if (had)
        p_cuptiUnsubscribe(subscriber);
    pthread_mutex_unlock(&sub_lock);
    if (had)
        dc_log("CUPTI: the program subscribes to CUPTI itself (a profiler); devcheck gave its subscription up "
               "and runs on interposition alone");
    return had;
}
