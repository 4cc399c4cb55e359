/* stack: the calling thread's stack, captured fast (compiler-rt's
 * stacktrace; see stack.h).
 *
 * Capture (hot path: allocations, launches with findings) first asks the
 * thread's cache of its recent stacks (x86-64: proven still on the stack by
 * the return addresses in their slots, see "the per-thread cache" below);
 * otherwise it takes the IPs with libunwind and the thread's Python frames
 * (report/pystack.h), drops devcheck's own leading frames, and hands the key
 * to the depot (report/stackdepot.h), which names it by its id.  Names come
 * later, at report time (report/symbolize.h).
 *
 * Nothing leaks into the program's symbol resolution: libunwind is never
 * linked.  As a dependency of a preloaded object it would come ahead of the
 * program's own libraries in the global scope: libunwind.so.8 exports
 * unversioned _Unwind_RaiseException and friends, which would then take every
 * C++ exception of a late-loaded library (Python importing torch) away from
 * libgcc_s, even with mode=off.  It is loaded with dlopen(RTLD_LOCAL) at the
 * first capture and called through a table of pointers typed from its header
 * (common/lazylib.h): its symbols stay out of the global scope. */
#define UNW_LOCAL_ONLY
#include "report/stack.h"
#include "common/lazylib.h"
#include "common/forklock.h"
#include "report/pystack.h"
#include "report/stackdepot.h"
#include "report/stats.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The thread's Python frames into key words at out (--stats times the
 * reads that found some). */
static inline uint32_t py_capture(uintptr_t *out)
{
    uint64_t t = DC_STATS_BEGIN();
    uint32_t n = (uint32_t)dc_py_capture((struct dc_pyraw *)(void *)out, DC_PYSTACK_MAX);
    if (t && n)
        dc_stats_add(DC_T_PYFRAMES, dc_stats_clock() - t);
    return n;
}

/* --- libunwind, loaded on first use ------------------------------------------------ */

/* libunwind.so.8: unw_init_local etc. are macros naming the target's
 * functions (_ULx86_64_init_local); unw_getcontext is unw_tdep_getcontext, a
 * function of the library on x86-64 (_Ux86_64_getcontext) but inline
 * assembly on aarch64 (libunwind-aarch64.h), used as it is there. */
#if defined(__aarch64__)
#define UNW_GETCONTEXT_FUNC(X)
#define unw_getcontext_call(uc) unw_tdep_getcontext(uc)
#else
#define UNW_GETCONTEXT_FUNC(X) X(unw_tdep_getcontext)
#define unw_getcontext_call(uc) p_unw_tdep_getcontext(uc)
#endif
/* the stack cache's (x86-64) */
#if defined(__x86_64__)
#define SC_FUNCS(X) X(unw_get_save_loc) X(unw_is_signal_frame)
#else
#define SC_FUNCS(X)
#endif
#define UNW_FUNCS(X)                    \
    UNW_GETCONTEXT_FUNC(X)              \
    SC_FUNCS(X)                         \
    X(unw_init_local)                   \
    X(unw_get_reg)                      \
    X(unw_step)                         \
    X(unw_backtrace)

DC_LAZY_POINTERS(UNW_FUNCS)

/* libunwind's state: 0 not tried, 1 loaded, -1 unavailable; published with
 * a release store, read without the lock once set.  Threads that capture
 * while it loads wait for it (a stack missing on one thread would make its
 * finding a separate one). */
static int unw_state;
static pthread_mutex_t unw_lock = PTHREAD_MUTEX_INITIALIZER;

static void unw_warm_up(void);

static int unw_ready(void)
{
    return DC_LAZY_LOAD_ONCE_THEN(unw_state, unw_lock, "libunwind.so.8", UNW_FUNCS, unw_warm_up());
}

#if defined(__SANITIZE_THREAD__)
/* Under ThreadSanitizer only: unw_backtrace keeps a per-thread trace cache
 * whose TSD destructor takes a libunwind mutex after TSan has finished the
 * exiting thread, which crashes the TSan runtime.  The unw_step walk has no
 * per-thread destructor.  Inlined, so frame 0 is dc_stack_capture as with
 * unw_backtrace. */
static inline __attribute__((always_inline)) int capture_ips(void **buf, int max)
{
    unw_context_t uc;
    unw_cursor_t cur;
    int n = 0;
    if (unw_getcontext_call(&uc) != 0 || p_unw_init_local(&cur, &uc) != 0)
        return 0;
    do {
        unw_word_t ip;
        if (p_unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
            break;
        buf[n++] = (void *)(uintptr_t)ip;
    } while (n < max && p_unw_step(&cur) > 0);
    return n;
}
#else
#define capture_ips p_unw_backtrace
#endif

/* libunwind initialises itself at its first unwind (its signal masks,
 * written without its lock): once, while it is being loaded under unw_lock,
 * before any other thread may unwind at the same time. */
static void own_text_find(void);
static __attribute__((noinline)) void unw_warm_up(void)
{
    void *warm[4];
    (void)capture_ips(warm, 4);
    own_text_find();
}

/* libdevcheck's own executable segments, [own_lo, own_hi): set once, by
 * unw_warm_up, before the first stack is kept; empty where devcheck is
 * linked into the executable (the unit tests: the program's own frames).
 * A stack's leading frames in them are not part of its key (stack_id): the
 * same program frames reached through two of devcheck's paths (a launch's
 * first check, scan_launch, and the later ones, scan_plan) are one stack,
 * so one finding -- report time drops those frames anyway. */
static uintptr_t own_lo, own_hi;

static int own_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
    int mine = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        mine |= me >= a && me < b;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (!mine)
        return 0;
    if (info->dlpi_name && info->dlpi_name[0]) {        /* a shared object, not the executable */
        own_lo = lo;
        own_hi = hi;
    }
    return 1;
}

static void own_text_find(void)
{
    (void)dl_iterate_phdr(own_text_cb, (void *)(uintptr_t)dc_stack_capture);
}

/* Held (shared) while a thread is inside libunwind, taken exclusively by the
 * fork handlers: libunwind's own mutexes have no fork handlers, so a child
 * forked while another thread was unwinding would hang at its first capture.
 * Writers first: a stream of captures cannot hold a fork off. */
static pthread_rwlock_t unwind_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/* --- the per-thread cache of recent native stacks (x86-64) ------------------------
 *
 * An unwind costs about 80 instructions a frame; a program allocates from
 * the same few places again and again.  Each thread keeps its last SC_WAYS
 * native stacks, each with the memory words that prove it is still the
 * stack: for every kept frame k >= 1, the return address IP_k in its slot
 * (x86-64's call pushes it at CFA(k-1) - 8), and, for a frame that may size
 * itself at run time (a frame-pointer frame: rbp == its CFA - 16, as every
 * function with alloca, a VLA or -fno-omit-frame-pointer has), the value of
 * its rbp where its callee saved it.
 *
 * Why that proves it: dc_stack_capture's own CFA is compared first.  Given
 * CFA(k-1), the slot of IP_k is fixed, so reading IP_k there proves frame
 * k is the same function at the same call.  Given IP_k and CFA(k-1), the
 * CFA of a frame whose size is fixed at that instruction is fixed; the CFA
 * of a frame-pointer frame is rbp + 16, and its rbp is read where it was
 * saved, in a frame already proven.  By induction every kept frame is the
 * one captured before: the same return addresses, the stack id of before.
 * Not cached (unwound every time): a stack with a signal frame, a frame
 * whose slot does not hold its return address, a frame-pointer frame whose
 * rbp libunwind cannot place in memory.  A check costs one load and one
 * compare, so a hit costs a few instructions a frame and no call into
 * libunwind.  Python frames are read every time (the interpreter's native
 * frames are the same for different Python lines). */
/* The stack id of the key: n native IPs, then npy Python frames (read into
 * ips + n); stored when new; 0 when it cannot be. */
static uint32_t stack_id(uintptr_t *ips, uint32_t n, uint32_t npy);
#if defined(__x86_64__)
#define STACK_CACHE 1
#define SC_WAYS 4
#define SC_CHECKS (2 * (DC_STACK_MAX + 32))
struct sc_check {
    uintptr_t addr, value;
};
struct sc_entry {
    uintptr_t cfa;                      /* dc_stack_capture's CFA; 0: an empty way */
    uint32_t id;                        /* the stack id when it had no Python frames, else 0 */
    uint32_t first;                     /* frames dropped: 1 + skip */
    uint32_t got;                       /* frames kept, from raw[0] (dc_stack_capture): first + n */
    uint32_t nchecks;
    uintptr_t raw[DC_STACK_MAX + 32];
    struct sc_check chk[SC_CHECKS];
};
struct fc_cache;
#define SC_SEEN 16                      /* stack ids seen once, direct-mapped */
#define SC_WALK_COST 64                 /* captures a walk costs */
#define SC_CREDIT_MAX (64 * SC_WALK_COST)
struct sc_cache {
    unsigned next;                      /* the way the next walk fills */
    unsigned credit;                    /* captures earn it, walks spend it */
    uint32_t seen[SC_SEEN];
    struct sc_entry way[SC_WAYS];
    struct fc_cache *fc;                /* the finding stacks' (below), made at the first */
};

/* Frames a stack keeps of got unwound ones: raw[first .. sc_kept). */
static inline uint32_t sc_kept(int got, uint32_t first)
{
    uint32_t keep = first + DC_STACK_MAX;
    return (uint32_t)got < keep ? (uint32_t)got : keep;
}

static __thread struct sc_cache *sc_tls __attribute__((tls_model("initial-exec")));
static __thread int sc_failed __attribute__((tls_model("initial-exec")));
static pthread_key_t sc_key;
static pthread_once_t sc_once = PTHREAD_ONCE_INIT;

static void sc_gone(void *p)
{
    if (sc_tls == p)
        sc_tls = NULL;
    free(((struct sc_cache *)p)->fc);
    free(p);
}
static void sc_key_make(void) { (void)pthread_key_create(&sc_key, sc_gone); }

/* The calling thread's cache, made at its first capture; NULL without memory. */
static struct sc_cache *sc_get(void)
{
    struct sc_cache *c = sc_tls;
    if (__builtin_expect(c != NULL || sc_failed, 1))
        return c;
    pthread_once(&sc_once, sc_key_make);
    c = calloc(1, sizeof *c);
    if (c && pthread_setspecific(sc_key, c) != 0) {
        free(c);
        c = NULL;
    }
    if (c)
        c->credit = 2 * SC_WALK_COST;   /* a thread's first two walks */
    sc_failed = !c;
    sc_tls = c;
    return c;
}

/* Every word still holds what it held (the reads stay inside this thread's
 * live stack: see above). */
#define SC_WORD(k) (*(const volatile uintptr_t *)(k).addr ^ (k).value)
__attribute__((no_sanitize_address)) static int sc_valid(const struct sc_entry *e)
{
    /* four words a branch: a hit reads every word, a miss stops within
     * four of the first that differs (about 5 instructions a word, not 7) */
    const struct sc_check *k = e->chk, *end = k + e->nchecks;
    for (; end - k >= 4; k += 4)
        if (SC_WORD(k[0]) | SC_WORD(k[1]) | SC_WORD(k[2]) | SC_WORD(k[3]))
            return 0;
    uintptr_t d = 0;
    for (; k < end; k++)
        d |= SC_WORD(*k);
    return !d;
}
#undef SC_WORD

/* Unwinds with unw_step (it tells each frame's stack pointer and where rbp
 * was saved) into raw, and the checks into e when the stack can be cached
 * (e->cfa set; 0 otherwise).  The frames a stack keeps are raw[first ..
 * keep): only those are checked.  Inlined, so
 * frame 0 is dc_stack_capture as with unw_backtrace. */
__attribute__((no_sanitize_address)) static inline __attribute__((always_inline)) int
walk_ips(void **raw, int max, uint32_t keep, struct sc_entry *e)
{
    unw_context_t uc;
    unw_cursor_t cur;
    int n = 0, ok = e != NULL;
    uint32_t nchk = 0;
    unw_word_t cfa0 = 0, prev_rbp = 0;
    uintptr_t prev_rbp_at = 0;          /* where the previous frame's rbp is saved; 0: not in memory */
    if (e)
        e->cfa = 0;
    if (unw_getcontext_call(&uc) != 0 || p_unw_init_local(&cur, &uc) != 0)
        return 0;
    do {
        unw_word_t ip, sp = 0;
        if (p_unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
            break;
        raw[n] = (void *)(uintptr_t)ip;
        if (ok && n > 0 && (uint32_t)n < keep) {
            if (p_unw_get_reg(&cur, UNW_REG_SP, &sp) < 0 || *(const uintptr_t *)(sp - 8) != ip) {
                ok = 0;
            } else {
                if (n == 1)
                    cfa0 = sp;
                else if (prev_rbp == sp - 16) {         /* frame n-1 may size itself at run time */
                    if (!prev_rbp_at || nchk == SC_CHECKS)
                        ok = 0;
                    else
                        e->chk[nchk++] = (struct sc_check){ prev_rbp_at, prev_rbp };
                }
                if (ok && nchk < SC_CHECKS)
                    e->chk[nchk++] = (struct sc_check){ sp - 8, ip };
                else
                    ok = 0;
            }
        }
        if (ok && (uint32_t)n + 1 < keep) {
            /* this frame's rbp, and where it is saved, for the test at frame n + 1 */
            unw_save_loc_t loc;
            prev_rbp_at = 0;
            if (p_unw_get_reg(&cur, UNW_X86_64_RBP, &prev_rbp) < 0 || p_unw_is_signal_frame(&cur) > 0)
                ok = 0;
            else if (p_unw_get_save_loc(&cur, UNW_X86_64_RBP, &loc) == 0 && loc.type == UNW_SLT_MEMORY &&
                     *(const uintptr_t *)loc.u.addr == prev_rbp &&
                     /* not the copy of the registers made for the walk: that
                      * one holds nothing on the next capture */
                     (loc.u.addr < (unw_word_t)(uintptr_t)&uc || loc.u.addr >= (unw_word_t)(uintptr_t)(&uc + 1)))
                prev_rbp_at = (uintptr_t)loc.u.addr;
        }
        n++;
    } while (n < max && p_unw_step(&cur) > 0);
    if (ok && cfa0) {
        e->nchecks = nchk;
        e->got = (uint32_t)n;
        memcpy(e->raw, raw, (size_t)n * sizeof *raw);
        e->cfa = cfa0;
    }
    return n;
}

/* A cache hit: the stack id of e's frames and this thread's Python frames
 * (read into ips). */
static inline uint32_t sc_hit(struct sc_entry *e, uint32_t first, uintptr_t *ips)
{
    uint32_t n = e->got - first;
    uint32_t npy = py_capture(ips + n);
    if (!npy && e->id)
        return e->id;
    memcpy(ips, e->raw + first, n * sizeof ips[0]);
    uint32_t id = stack_id(ips, n, npy);
    if (!npy)
        e->id = id;
    return id;
}

/* Makes e the proof of the stack just unwound into raw (n frames kept from
 * raw[first], stack `id`, npy Python frames) by a walk; 1 when it is one
 * (the walk saw the unwind's frames: never a hit that would name another
 * stack than an unwind does), else 0 and e stays empty.  capped: the
 * unwind had more frames than the n kept.  Inlined, so frame
 * 0 is the capturing function, as in raw. */
static inline __attribute__((always_inline)) int sc_prove(struct sc_entry *e, uint32_t first, uint32_t n,
                                                          int capped, void *const *raw, uintptr_t cfa,
                                                          uint32_t id, uint32_t npy)
{
    void *again[DC_STACK_MAX + 32];
    e->first = first;
    e->id = 0;
    pthread_rwlock_rdlock(&unwind_lock);
    int got2 = walk_ips(again, (int)(sizeof again / sizeof again[0]), first + n, e);
    pthread_rwlock_unlock(&unwind_lock);
    /* the walk kept the unwind's frames: as many (more when the unwind's
     * were cut at n) */
    if (e->cfa == cfa && got2 > (int)first && (capped ? got2 >= (int)(first + n) : got2 == (int)(first + n)) &&
        !memcmp(again + first, raw + first, n * sizeof raw[0])) {
        e->got = first + n;
        e->id = npy ? 0 : id;
        return 1;
    }
    e->cfa = 0;
    return 0;
}
#endif


static int capture_off;

void dc_stack_set_capture(int on) { __atomic_store_n(&capture_off, !on, __ATOMIC_RELAXED); }

__attribute__((noinline)) uint32_t dc_stack_capture(int skip)
{
    if (__builtin_expect(__atomic_load_n(&capture_off, __ATOMIC_RELAXED), 0))
        return 0;
    void *raw[DC_STACK_MAX + 32];
    if (skip < 0)
        skip = 0;
    if (skip > 31)
        skip = 31;
    uint32_t first = 1 + (uint32_t)skip;        /* raw[0] is this function; the caller starts at raw[1] */
    uintptr_t ips[DC_STACK_MAX + DC_PYWORDS * DC_PYSTACK_MAX];
    int got;
#if defined(STACK_CACHE)
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
    struct sc_cache *c = sc_get();
    struct sc_entry *e = NULL;
    for (unsigned w = 0; c && w < SC_WAYS; w++) {
        struct sc_entry *x = &c->way[w];
        if (x->cfa == cfa && x->first == first && sc_valid(x)) {
            e = x;
            break;
        }
    }
    if (c)
        c->credit += c->credit < SC_CREDIT_MAX;
    if (e)
        return sc_hit(e, first, ips);
#endif
    if (!unw_ready())
        return 0;
    pthread_rwlock_rdlock(&unwind_lock);
    got = capture_ips(raw, (int)(sizeof raw / sizeof raw[0]));
    pthread_rwlock_unlock(&unwind_lock);
    if (got <= (int)first)
        return 0;
    uint32_t n = (uint32_t)got - first;
    if (n > DC_STACK_MAX)
        n = DC_STACK_MAX;
    for (uint32_t i = 0; i < n; i++)
        ips[i] = (uintptr_t)raw[first + i];
    uint32_t npy = py_capture(ips + n);
    uint32_t id = stack_id(ips, n, npy);
#if defined(STACK_CACHE)
    /* A stack seen again is worth caching.  The walk that proves it costs
     * about ten times an unwind (unw_step, ~800 instructions a frame), paid
     * from a credit every capture earns one unit of: at most one walk per
     * SC_WALK_COST captures, so a thread whose stacks do not repeat, or
     * cycle through more than the cache holds, pays a fraction more than
     * the unwinds alone. */
    if (c && id && c->credit >= SC_WALK_COST && c->seen[id % SC_SEEN] == id) {
        c->credit -= SC_WALK_COST;
        c->seen[id % SC_SEEN] = 0;
        if (sc_prove(&c->way[c->next], first, n, got > (int)(first + n), raw, cfa, id, npy))
            c->next = (c->next + 1) % SC_WAYS;
    } else if (c && id) {
        c->seen[id % SC_SEEN] = id;
    }
#endif
    return id;
}

/* --- the per-thread cache of finding stacks (x86-64) ------------------------------
 *
 * A finding that recurs (a training step's repeated warning) comes from the
 * same few stacks again and again, more of them than the cache above keeps,
 * and an allocation's stacks would evict them.  dc_stack_capture_finding
 * keeps its own FC_WAYS stacks per thread, each proven still on the stack as
 * above, and walks (the proof) a stack the first time it misses, without
 * the credit: a repeat then costs its proof and the Python frames, no
 * unwinding.  A stack that cannot be proven (a signal frame, ...) is
 * remembered as such and unwound each time, as dc_stack_capture does. */
#if defined(STACK_CACHE)
#define FC_WAYS 16
#define FC_UNPROVEN 16                  /* stack ids that could not be proven, direct-mapped */
#define FC_HINTS 16                     /* a tag's last way, direct-mapped */
struct fc_cache {
    unsigned next;
    unsigned char hint[FC_HINTS];       /* the way that last proved a stack of tags hashing here */
    uint32_t unproven[FC_UNPROVEN];
    uintptr_t tag[FC_WAYS];             /* the caller's tag of each way's stack */
    struct sc_entry way[FC_WAYS];
};
static inline size_t fc_hint_slot(uintptr_t tag)
{
    return (size_t)(((uint64_t)tag * 0x9e3779b97f4a7c15ull) >> 60) % FC_HINTS;
}

/* The calling thread's finding stacks, made at its first finding; NULL
 * without memory. */
static struct fc_cache *fc_get(void)
{
    struct sc_cache *c = sc_get();
    if (c && !c->fc)
        c->fc = calloc(1, sizeof *c->fc);
    return c ? c->fc : NULL;
}
#endif

/* Frames a finding's stack keeps of got unwound ones, raw[first ..
 * return): DC_STACK_MAX beyond devcheck's own leading frames, whose number
 * depends on the call chain inside devcheck that asked; stack_id drops
 * them, so the id is the same from any chain (core/verdict/check.c captures
 * from two). */
static uint32_t finding_kept(void *const *raw, int got, uint32_t first)
{
    uint32_t own = 0;
    while (first + own < (uint32_t)got && (uintptr_t)raw[first + own] >= own_lo &&
           (uintptr_t)raw[first + own] < own_hi)
        own++;
    uint32_t keep = first + DC_STACK_MAX;
    if (first + own >= (uint32_t)got)               /* only our own: as dc_stack_capture keeps them */
        return (uint32_t)got < keep ? (uint32_t)got : keep;
    keep += own;
    return (uint32_t)got < keep ? (uint32_t)got : keep;
}

__attribute__((noinline)) uint32_t dc_stack_capture_finding(int skip, uintptr_t tag)
{
    if (__builtin_expect(__atomic_load_n(&capture_off, __ATOMIC_RELAXED), 0))
        return 0;
    if (skip < 0)
        skip = 0;
    if (skip > 31)
        skip = 31;
    uint32_t first = 1 + (uint32_t)skip;        /* raw[0] is this function */
    uintptr_t ips[DC_STACK_MAX + 32 + DC_PYWORDS * DC_PYSTACK_MAX];
#if defined(STACK_CACHE)
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
    struct fc_cache *c = fc_get();
    if (c) {
        /* the way this tag hit last first (a loop's launches repeat it),
         * then every way */
        unsigned char *hint = &c->hint[fc_hint_slot(tag)];
        struct sc_entry *e = &c->way[*hint];
        if (c->tag[*hint] == tag && e->cfa == cfa && e->first == first && sc_valid(e))
            return sc_hit(e, first, ips);
        for (unsigned w = 0; w < FC_WAYS; w++) {
            e = &c->way[w];
            if (c->tag[w] == tag && e->cfa == cfa && e->first == first && sc_valid(e)) {
                *hint = (unsigned char)w;
                return sc_hit(e, first, ips);
            }
        }
    }
#else
    (void)tag;
#endif
    if (!unw_ready())
        return 0;
    void *raw[DC_STACK_MAX + 32];
    pthread_rwlock_rdlock(&unwind_lock);
    int got = capture_ips(raw, (int)(sizeof raw / sizeof raw[0]));
    pthread_rwlock_unlock(&unwind_lock);
    if (got <= (int)first)
        return 0;
    uint32_t n = finding_kept(raw, got, first) - first;
    for (uint32_t i = 0; i < n; i++)
        ips[i] = (uintptr_t)raw[first + i];
    uint32_t npy = py_capture(ips + n);
    uint32_t id = stack_id(ips, n, npy);
#if defined(STACK_CACHE)
    if (!c || !id || c->unproven[id % FC_UNPROVEN] == id)
        return id;
    c->tag[c->next] = tag;
    if (sc_prove(&c->way[c->next], first, n, got > (int)(first + n), raw, cfa, id, npy)) {
        c->hint[fc_hint_slot(tag)] = (unsigned char)c->next;
        c->next = (c->next + 1) % FC_WAYS;
    } else {
        c->unproven[id % FC_UNPROVEN] = id;
    }
#endif
    __asm__ volatile("" ::: "memory");          /* raw[0] stays this function: not a tail call */
    return id;
}

static uint32_t stack_id(uintptr_t *ips, uint32_t n, uint32_t npy)
{
    uint32_t own = 0;
    while (own < n && ips[own] >= own_lo && ips[own] < own_hi)
        own++;
    if (own && (own < n || npy)) {          /* devcheck's own frames first: not the stack's (own_lo) */
        n -= own;
        memmove(ips, ips + own, (n + DC_PYWORDS * npy) * sizeof ips[0]);
    }
    return dc_stackdepot_put(ips, n, npy);
}

/* fork: libunwind's loading lock, then the unwinding lock (leaves: nothing
 * of ours is taken while they are held), then the Python frame reader's. */
void dc_stack_fork_prepare(void)
{
    pthread_mutex_lock(&unw_lock);
    pthread_rwlock_wrlock(&unwind_lock);
    dc_py_fork_prepare();
}

void dc_stack_fork_parent(void)
{
    dc_py_fork_parent();
    pthread_rwlock_unlock(&unwind_lock);
    pthread_mutex_unlock(&unw_lock);
}

void dc_stack_fork_child(void)
{
    dc_py_fork_child();
    dc_rwlock_fork_child(&unwind_lock, 1);
    dc_mutex_fork_child(&unw_lock);
}
