/* stack: capture with libunwind, dedup by hash of the IP array, symbolize late.
 *
 * Capture (hot path: allocations, launches with findings) first asks the
 * thread's cache of its recent stacks (x86-64: proven still on the stack by
 * the return addresses in their slots, see "the per-thread cache" below);
 * otherwise it takes the IPs with libunwind, hashes the key's words once, and
 * looks the key up in a table read without a lock; a new key is stored once
 * (under stack_lock) and gets the next id.
 * Ids start at 1 and index `by_id`; 0 means "no stack".
 *
 * Symbolization (report time only, serialized by sym_lock): dladdr for the
 * module and its base, libdw (dwfl over /proc/self/maps) for the ELF symbol
 * (static functions too) and the DWARF file:line, names demangled by the
 * linked-in demangler (demangle.c).
 *
 * Nothing leaks into the program's symbol resolution: libunwind and libdw are
 * never linked.  As dependencies of a preloaded object they would come ahead
 * of the program's own libraries in the global scope: libunwind.so.8 exports
 * unversioned _Unwind_RaiseException and friends, which would then take every
 * C++ exception of a late-loaded library (Python importing torch) away from
 * libgcc_s, even with mode=off; libdw brings libelf, zlib, bzip2, lzma and
 * zstd.  Each is loaded with dlopen(RTLD_LOCAL) on first use (libunwind at the
 * first capture, libdw at the first report) and called through a table of
 * pointers typed from its header: their symbols stay out of the global scope.
 *
 * Symbolization is offline unless dc_stack_set_debuginfod(1): libdw's standard
 * debuginfo lookup asks the debuginfod servers of DEBUGINFOD_URLS for every
 * module without local debug info (up to 90 s each, inside a report, sending
 * the program's build ids out); devcheck's own lookup reads local files only
 * (the build-id tree, then the .gnu_debuglink places). */
#define UNW_LOCAL_ONLY
#include "report/stack.h"
#include "common/lazylib.h"
#include "report/symbolize.h"
#include "common/forklock.h"
#include "report/pystack.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the libraries, loaded on first use ----------------------------------------- */

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
/* libdw.so.1 */
#define DW_FUNCS(X)                     \
    X(dwfl_begin)                       \
    X(dwfl_report_begin)                \
    X(dwfl_linux_proc_report)           \
    X(dwfl_report_end)                  \
    X(dwfl_addrmodule)                  \
    X(dwfl_module_addrname)             \
    X(dwfl_module_info)                 \
    X(dwfl_module_getsrc)               \
    X(dwfl_lineinfo)                    \
    X(dwfl_module_addrdie)              \
    X(dwfl_linux_proc_find_elf)         \
    X(dwfl_standard_find_debuginfo)     \
    X(dwfl_build_id_find_debuginfo)     \
    X(dwarf_getscopes)                  \
    X(dwarf_getsrcfiles)                \
    X(dwarf_tag)                        \
    X(dwarf_attr)                       \
    X(dwarf_attr_integrate)             \
    X(dwarf_formstring)                 \
    X(dwarf_formudata)                  \
    X(dwarf_diename)                    \
    X(dwarf_filesrc)

DC_LAZY_POINTERS(UNW_FUNCS)
DC_LAZY_POINTERS(DW_FUNCS)

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

/* libdw: under sym_lock. */
static int dw_state;                    /* 0 not tried, 1 loaded, -1 unavailable */

static int dw_ready(void)
{
    if (dw_state == 0) {
        void *h_ = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
        int ok = 0;
        if (h_)
            DC_LAZY_BIND(h_, DW_FUNCS, ok);
        dw_state = ok ? 1 : -1;
    }
    return dw_state == 1;
}

static int use_debuginfod;

void dc_stack_set_debuginfod(int on) { __atomic_store_n(&use_debuginfod, on != 0, __ATOMIC_RELAXED); }

#define MAX_STACKS (1u << 22)
#define DC_INLINE_MAX 16        /* frames one address can expand to (inlining) */

/* The key: n native IPs, then npy Python frames (struct dc_pyraw, two words
 * each, innermost first) when the capturing thread ran Python; after the
 * key, the npy ids of their code objects' descriptions (pystack.h). */
struct stack_rec {
    uint64_t hash;              /* of the key's words */
    uint32_t id;
    uint32_t n, npy;
    uint32_t *py_desc;
    uintptr_t ips[];
};
#define PYWORDS (sizeof(struct dc_pyraw) / sizeof(uintptr_t))
_Static_assert(sizeof(struct dc_pyraw) % sizeof(uintptr_t) == 0, "a Python frame is whole words of the key");
_Static_assert(DC_FRAMES_MAX == DC_STACK_MAX + DC_PYSTACK_MAX, "stack.h's DC_FRAMES_MAX");

/* Stacks are deduplicated by their key: a hash of its words, computed once
 * while they are copied, then an open-addressing table of records read
 * without a lock (records are never freed; a grown table keeps the old one
 * allocated, so a reader still probing it reads valid memory).  Writers (a
 * stack never seen) and dc_stack_get take stack_lock. */
struct stack_table {
    size_t mask;
    struct stack_table *older;          /* the table this one replaced (kept) */
    struct stack_rec *slot[];           /* atomic */
};

static pthread_rwlock_t stack_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct stack_table *stack_tab;   /* atomic */
static size_t stack_used;
static struct stack_rec **by_id;        /* by_id[id - 1] */
static uint32_t nstacks, cap_ids;

static struct stack_rec *table_probe(const struct stack_table *t, uint64_t h, const uintptr_t *key, uint32_t n,
                                     uint32_t npy)
{
    for (size_t i = (size_t)h & t->mask, k = 0; k <= t->mask; i = (i + 1) & t->mask, k++) {
        struct stack_rec *r = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
        if (!r)
            return NULL;
        if (r->hash == h && r->n == n && r->npy == npy && !memcmp(r->ips, key, (n + PYWORDS * npy) * sizeof *key))
            return r;
    }
    return NULL;
}

/* Adds r (stack_lock held for writing); 0, or -1 when memory ran out. */
static int table_insert(struct stack_rec *r)
{
    struct stack_table *t = stack_tab;
    if (!t || (stack_used + 1) * 4 > (t->mask + 1) * 3) {
        size_t cap = t ? 2 * (t->mask + 1) : 1024;
        struct stack_table *n = calloc(1, sizeof *n + cap * sizeof n->slot[0]);
        if (!n)
            return -1;
        n->mask = cap - 1;
        n->older = t;
        for (size_t i = 0; t && i <= t->mask; i++) {
            struct stack_rec *o = t->slot[i];
            if (!o)
                continue;
            size_t j = (size_t)o->hash & n->mask;
            while (n->slot[j])
                j = (j + 1) & n->mask;
            n->slot[j] = o;
        }
        __atomic_store_n(&stack_tab, n, __ATOMIC_RELEASE);
        t = n;
    }
    size_t j = (size_t)r->hash & t->mask;
    while (t->slot[j])
        j = (j + 1) & t->mask;
    __atomic_store_n(&t->slot[j], r, __ATOMIC_RELEASE);
    stack_used++;
    return 0;
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
__attribute__((no_sanitize_address)) static int sc_valid(const struct sc_entry *e)
{
    for (uint32_t i = 0; i < e->nchecks; i++)
        if (*(const volatile uintptr_t *)e->chk[i].addr != e->chk[i].value)
            return 0;
    return 1;
}

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
    uint32_t npy = (uint32_t)dc_py_capture((struct dc_pyraw *)(void *)(ips + n), DC_PYSTACK_MAX);
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
 * stack than an unwind does), else 0 and e stays empty.  Inlined, so frame
 * 0 is the capturing function, as in raw. */
static inline __attribute__((always_inline)) int sc_prove(struct sc_entry *e, uint32_t first, uint32_t n,
                                                          void *const *raw, uintptr_t cfa, uint32_t id,
                                                          uint32_t npy)
{
    void *again[DC_STACK_MAX + 32];
    e->first = first;
    e->id = 0;
    pthread_rwlock_rdlock(&unwind_lock);
    int got2 = walk_ips(again, (int)(sizeof again / sizeof again[0]), first + n, e);
    pthread_rwlock_unlock(&unwind_lock);
    if (e->cfa == cfa && got2 > (int)first && sc_kept(got2, first) == first + n &&
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
    uintptr_t ips[DC_STACK_MAX + PYWORDS * DC_PYSTACK_MAX];
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
    uint32_t npy = (uint32_t)dc_py_capture((struct dc_pyraw *)(void *)(ips + n), DC_PYSTACK_MAX);
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
        if (sc_prove(&c->way[c->next], first, n, raw, cfa, id, npy))
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
struct fc_cache {
    unsigned next;
    uint32_t unproven[FC_UNPROVEN];
    uintptr_t tag[FC_WAYS];             /* the caller's tag of each way's stack */
    struct sc_entry way[FC_WAYS];
};
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

__attribute__((noinline)) uint32_t dc_stack_capture_finding(int skip, uintptr_t tag)
{
    if (__builtin_expect(__atomic_load_n(&capture_off, __ATOMIC_RELAXED), 0))
        return 0;
#if defined(STACK_CACHE)
    if (skip < 0)
        skip = 0;
    if (skip > 31)
        skip = 31;
    uint32_t first = 1 + (uint32_t)skip;        /* raw[0] is this function */
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
    struct fc_cache *c = fc_get();
    if (!c)
        goto plain;
    uintptr_t ips[DC_STACK_MAX + PYWORDS * DC_PYSTACK_MAX];
    for (unsigned w = 0; w < FC_WAYS; w++) {
        struct sc_entry *e = &c->way[w];
        if (c->tag[w] == tag && e->cfa == cfa && e->first == first && sc_valid(e))
            return sc_hit(e, first, ips);
    }
    if (!unw_ready())
        return 0;
    void *raw[DC_STACK_MAX + 32];
    pthread_rwlock_rdlock(&unwind_lock);
    int got = capture_ips(raw, (int)(sizeof raw / sizeof raw[0]));
    pthread_rwlock_unlock(&unwind_lock);
    if (got <= (int)first)
        return 0;
    uint32_t n = sc_kept(got, first) - first;
    for (uint32_t i = 0; i < n; i++)
        ips[i] = (uintptr_t)raw[first + i];
    uint32_t npy = (uint32_t)dc_py_capture((struct dc_pyraw *)(void *)(ips + n), DC_PYSTACK_MAX);
    uint32_t id = stack_id(ips, n, npy);
    if (!id || c->unproven[id % FC_UNPROVEN] == id)
        return id;
    c->tag[c->next] = tag;
    if (sc_prove(&c->way[c->next], first, n, raw, cfa, id, npy))
        c->next = (c->next + 1) % FC_WAYS;
    else
        c->unproven[id % FC_UNPROVEN] = id;
    return id;
plain:;
#else
    (void)tag;
#endif
    /* raw[1] of dc_stack_capture is this function: not a tail call */
    uint32_t plain_id = dc_stack_capture(skip + 1);
    __asm__ volatile("" ::: "memory");
    return plain_id;
}

static uint32_t stack_id(uintptr_t *ips, uint32_t n, uint32_t npy)
{
    uint32_t own = 0;
    while (own < n && ips[own] >= own_lo && ips[own] < own_hi)
        own++;
    if (own && (own < n || npy)) {          /* devcheck's own frames first: not the stack's (own_lo) */
        n -= own;
        memmove(ips, ips + own, (n + PYWORDS * npy) * sizeof ips[0]);
    }
    size_t keylen = (n + PYWORDS * npy) * sizeof ips[0];

    uint64_t h = 0x9e3779b97f4a7c15ull ^ n ^ ((uint64_t)npy << 32);
    for (size_t i = 0; i < keylen / sizeof ips[0]; i++) {
        h = (h ^ ips[i]) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    const struct stack_table *t = __atomic_load_n(&stack_tab, __ATOMIC_ACQUIRE);
    struct stack_rec *r = t ? table_probe(t, h, ips, n, npy) : NULL;
    if (r)
        return r->id;
    uint32_t id = 0;

    /* A new stack: its code objects described while they are alive. */
    uint32_t desc[DC_PYSTACK_MAX];
    if (npy)
        dc_py_describe((const struct dc_pyraw *)(const void *)(ips + n), npy, desc);

    pthread_rwlock_wrlock(&stack_lock);
    if (stack_tab && (r = table_probe(stack_tab, h, ips, n, npy)) != NULL) {       /* another thread won */
        id = r->id;
        goto out;
    }
    if (nstacks >= MAX_STACKS)
        goto out;
    if (nstacks == cap_ids) {
        uint32_t ncap = cap_ids ? cap_ids * 2 : 1024;
        struct stack_rec **nb = realloc(by_id, ncap * sizeof *nb);
        if (!nb)
            goto out;
        by_id = nb;
        cap_ids = ncap;
    }
    r = malloc(sizeof *r + keylen + npy * sizeof desc[0]);
    if (!r)
        goto out;
    r->hash = h;
    r->n = n;
    r->npy = npy;
    memcpy(r->ips, ips, keylen);
    r->py_desc = (uint32_t *)(void *)((char *)r->ips + keylen);
    memcpy(r->py_desc, desc, npy * sizeof desc[0]);
    r->id = nstacks + 1;
    if (table_insert(r) != 0) {
        free(r);
        goto out;
    }
    by_id[nstacks++] = r;
    id = r->id;
out:
    pthread_rwlock_unlock(&stack_lock);
    return id;
}

size_t dc_stack_get(uint32_t id, uintptr_t *ips, size_t max)
{
    size_t n = 0;
    pthread_rwlock_rdlock(&stack_lock);
    if (id >= 1 && id <= nstacks) {
        const struct stack_rec *r = by_id[id - 1];
        n = r->n < max ? r->n : max;
        memcpy(ips, r->ips, n * sizeof *ips);
    }
    pthread_rwlock_unlock(&stack_lock);
    return n;
}

size_t dc_stack_get_py(uint32_t id, struct dc_pyraw *py, uint32_t *desc, size_t max)
{
    size_t n = 0;
    pthread_rwlock_rdlock(&stack_lock);
    if (id >= 1 && id <= nstacks) {
        const struct stack_rec *r = by_id[id - 1];
        n = r->npy < max ? r->npy : max;
        memcpy(py, r->ips + r->n, n * sizeof *py);
        memcpy(desc, r->py_desc, n * sizeof *desc);
    }
    pthread_rwlock_unlock(&stack_lock);
    return n;
}

static int keep_interpreter;

void dc_stack_set_interpreter_frames(int keep) { __atomic_store_n(&keep_interpreter, keep != 0, __ATOMIC_RELAXED); }


/* ---- symbolization -------------------------------------------------------------- */

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static int own_known, own_is_main;
static void *own_base;

/* Opens fd on path; the path is handed to libdw (it frees it). */
static int open_debug(const char *path, char **debuginfo_file_name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && debuginfo_file_name) {
        free(*debuginfo_file_name);
        *debuginfo_file_name = strdup(path);
    }
    return fd;
}

/* libdw's find_debuginfo callback without the network: the build-id tree
 * (/usr/lib/debug/.build-id/xx/yyyy.debug, dwfl_build_id_find_debuginfo, which
 * never asks debuginfod), then the places gdb looks for a .gnu_debuglink
 * file: beside the object, its .debug/, /usr/lib/debug/<its directory>/. */
static int find_debuginfo_offline(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                                  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                                  char **debuginfo_file_name)
{
    int fd = p_dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                            debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !debuglink_file || !*debuglink_file || !file_name || strchr(debuglink_file, '/'))
        return fd;
    const char *slash = strrchr(file_name, '/');
    int dlen = slash ? (int)(slash - file_name) : 0;
    static const char *const fmt[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
        char path[4096];
        int n = snprintf(path, sizeof path, fmt[i], dlen, file_name, debuglink_file);
        if (n <= 0 || (size_t)n >= sizeof path || !strcmp(path, file_name))
            continue;
        if ((fd = open_debug(path, debuginfo_file_name)) >= 0)
            return fd;
    }
    return -1;
}

static Dwfl_Callbacks dwfl_cb;

static void dwfl_refresh(void)
{
    if (!dwfl) {
        if (!dw_ready())
            return;
        dwfl_cb.find_elf = p_dwfl_linux_proc_find_elf;
        dwfl_cb.find_debuginfo = __atomic_load_n(&use_debuginfod, __ATOMIC_RELAXED) ? p_dwfl_standard_find_debuginfo
                                                                                  : find_debuginfo_offline;
        dwfl = p_dwfl_begin(&dwfl_cb);
        if (!dwfl)
            return;
    }
    p_dwfl_report_begin(dwfl);
    if (p_dwfl_linux_proc_report(dwfl, getpid()) != 0) {
        p_dwfl_report_end(dwfl, NULL, NULL);
        return;
    }
    p_dwfl_report_end(dwfl, NULL, NULL);
}

static void own_module(void)
{
    if (own_known)
        return;
    Dl_info info;
    struct link_map *lm = NULL;
    if (dladdr1((void *)(uintptr_t)dc_stack_capture, &info, (void **)&lm, RTLD_DL_LINKMAP)) {
        own_base = info.dli_fbase;
        own_is_main = !lm || !lm->l_name || !lm->l_name[0];
    } else {
        own_is_main = 1;
    }
    own_known = 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Frames that say nothing about the program: nvcc's launch stubs, the
 * kernel's host-side wrapper (it has the kernel's own symbol), the toolkit's
 * inline helpers (cudaLaunchKernel<>, cudaMalloc<> of cuda_runtime.h,
 * __cudaLaunchKernel_helper of crt/), and the C library's start-up below
 * main. */
static int boring_frame(const struct dc_frame *f, const char *drop_symbol)
{
    if (drop_symbol && *drop_symbol && f->mangled[0] && !strcmp(f->mangled, drop_symbol))
        return 1;
    return strstr(f->function, "__device_stub__") != NULL ||
           strstr(f->mangled, "__device_stub__") != NULL ||
           !strncmp(f->mangled, "__cudaLaunch", 12) ||        /* __cudaLaunchKernel_helper */
           ends_with(f->file, "/cuda_runtime.h") ||
           strstr(f->file, "/include/crt/") != NULL ||
           !strncmp(f->mangled, "__libc_start_", 13) || !strcmp(f->mangled, "_start");
}

/* Innermost frames of a stack captured in a CUPTI callback: the driver and
 * libcupti delivering it (libcuda.so*, libcupti.so*).  Dropped while no
 * frame has been kept, so the stack starts where the program's call entered
 * CUDA, as the interposer's do. */
static int callback_machinery(const struct dc_frame *f)
{
    const char *b = strrchr(f->module, '/');
    b = b ? b + 1 : f->module;
    return !strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcupti.so", 11);
}

static void set_name(struct dc_frame *f, const char *sym)
{
    if (!sym)
        return;
    /* strip a symbol version: __libc_start_main@@GLIBC_2.34 */
    snprintf(f->mangled, sizeof f->mangled, "%.*s", (int)strcspn(sym, "@"), sym);
    dc_demangle(f->mangled, f->function, sizeof f->function);
}

/* Name of a subprogram or inlined-subroutine DIE: its linkage name (mangled)
 * if it has one, else its plain name; through DW_AT_abstract_origin. */
static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *n = NULL;
    if (p_dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        p_dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        n = p_dwarf_formstring(&attr);
    return n ? n : p_dwarf_diename(die);
}

/* Symbolizes one captured address into up to max frames: the function that
 * holds the call, and the functions inlined into it (innermost first, as
 * addr2line -i).  Returns the number of frames written (>= 1 when max >= 1). */
static size_t symbolize_ip(uintptr_t ip, struct dc_frame *out, size_t max, int *refreshed)
{
    if (!max)
        return 0;
    uintptr_t pc = ip ? ip - 1 : 0;       /* return address -> call instruction */
    struct dc_frame *f = &out[0];
    memset(f, 0, sizeof *f);
    f->ip = ip;
    f->offset = pc;
    Dl_info info;
    memset(&info, 0, sizeof info);
    if (dladdr((void *)pc, &info) && info.dli_fname) {
        snprintf(f->module, sizeof f->module, "%s", info.dli_fname);
        f->offset = pc - (uintptr_t)info.dli_fbase;
        f->module_base = (uintptr_t)info.dli_fbase;
    }
    const char *sym = info.dli_sname;
    Dwfl_Module *mod = dwfl ? p_dwfl_addrmodule(dwfl, pc) : NULL;
    if (!mod && !*refreshed) {
        *refreshed = 1;               /* a library loaded since the last report */
        dwfl_refresh();
        mod = dwfl ? p_dwfl_addrmodule(dwfl, pc) : NULL;
    }
    if (!mod) {
        set_name(f, sym);
        return 1;
    }
    const char *s = p_dwfl_module_addrname(mod, pc);
    if (s)
        sym = s;
    if (!f->module[0]) {
        const char *mname = p_dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (mname)
            snprintf(f->module, sizeof f->module, "%s", mname);
    }
    Dwfl_Line *ln = p_dwfl_module_getsrc(mod, pc);
    if (ln) {
        int line = 0;
        const char *file = p_dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
        if (file && line > 0) {
            snprintf(f->file, sizeof f->file, "%s", file);
            f->line = line;
        }
    }
    set_name(f, sym);

    /* Inline chain: scopes[0] is the innermost scope holding pc. */
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = p_dwfl_module_addrdie(mod, pc, &bias);
    Dwarf_Die *scopes = NULL;
    int nscopes = cu ? p_dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    if (nscopes <= 0) {
        free(scopes);
        return 1;
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (p_dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    size_t k = 0;               /* frame being filled: out[k] */
    for (int i = 0; i < nscopes; i++) {
        int tag = p_dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        if (tag == DW_TAG_subprogram) {
            /* the physical function: keep the ELF symbol name unless none */
            if (!out[k].mangled[0])
                set_name(&out[k], die_name(&scopes[i]));
            break;
        }
        /* out[k] is inside this inlined subroutine; its caller gets a frame
         * at the call site */
        set_name(&out[k], die_name(&scopes[i]));
        if (k + 1 >= max)
            break;
        struct dc_frame *c = &out[k + 1];
        *c = out[k];
        c->mangled[0] = c->function[0] = c->file[0] = 0;
        c->line = 0;
        c->mangled[0] = 0;
        Dwarf_Attribute attr;
        Dwarf_Word w;
        if (p_dwarf_attr(&scopes[i], DW_AT_call_line, &attr) && p_dwarf_formudata(&attr, &w) == 0)
            c->line = (int)w;
        if (files && p_dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && p_dwarf_formudata(&attr, &w) == 0) {
            const char *file = p_dwarf_filesrc(files, (size_t)w, NULL, NULL);
            if (file)
                snprintf(c->file, sizeof c->file, "%s", file);
        }
        if (!c->file[0])
            c->line = 0;
        /* the outermost function's name is the ELF symbol, set below if the
         * chain ends without a subprogram scope */
        set_name(c, sym);
        k++;
    }
    free(scopes);
    return k + 1;
}

size_t dc_stack_symbolize_ex(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol)
{
    uintptr_t ips[DC_STACK_MAX];
    struct dc_pyraw py[DC_PYSTACK_MAX];
    uint32_t desc[DC_PYSTACK_MAX];
    size_t n = dc_stack_get(id, ips, DC_STACK_MAX), k = 0;
    size_t npy = dc_stack_get_py(id, py, desc, DC_PYSTACK_MAX);
    if ((!n && !npy) || !max)
        return 0;
    if (npy > max / 2)
        npy = max / 2;
    size_t nmax = max - npy;                        /* room left for the Python frames */
    /* With Python frames, the native stack ends where the interpreter begins
     * (unless interpreter frames are kept): the Python frames say the rest. */
    uintptr_t interp = npy && !__atomic_load_n(&keep_interpreter, __ATOMIC_RELAXED) ? dc_py_interpreter_base() : 0;
    static struct dc_frame tmp[DC_INLINE_MAX];     /* under sym_lock */
    pthread_mutex_lock(&sym_lock);
    own_module();
    if (!dwfl)
        dwfl_refresh();
    int refreshed = 0;
    for (size_t i = 0; i < n && k < nmax; i++) {
        size_t m = symbolize_ip(ips[i], tmp, DC_INLINE_MAX, &refreshed);
        if (!own_is_main && own_base && tmp[0].module_base == (uintptr_t)own_base)
            continue;               /* inside libdevcheck itself */
        if (!k && callback_machinery(&tmp[0]))
            continue;               /* the driver or CUPTI calling a CUPTI callback */
        if (interp && tmp[0].module_base == interp)
            break;                  /* the interpreter: its Python frames follow */
        for (size_t j = 0; j < m && k < nmax; j++)
            if (!boring_frame(&tmp[j], drop_symbol))
                out[k++] = tmp[j];
    }
    for (size_t i = 0; i < npy && k < max; i++) {
        struct dc_frame *f = &out[k++];
        memset(f, 0, sizeof *f);
        f->python = 1;
        dc_py_resolve(desc[i], py[i].offset, f->file, sizeof f->file, &f->line, f->function, sizeof f->function);
    }
    pthread_mutex_unlock(&sym_lock);
    return k;
}

size_t dc_stack_symbolize(uint32_t id, struct dc_frame *out, size_t max)
{
    return dc_stack_symbolize_ex(id, out, max, NULL);
}

/* fork: take the symbolizer lock, then the stack table's (the order
 * dc_stack_symbolize never inverts: it reads the table before sym_lock),
 * then libunwind's loading lock and the unwinding lock (leaves: nothing of
 * ours is taken while they are held). */
void dc_stack_fork_prepare(void)
{
    pthread_mutex_lock(&sym_lock);
    pthread_rwlock_wrlock(&stack_lock);
    pthread_mutex_lock(&unw_lock);
    pthread_rwlock_wrlock(&unwind_lock);
    dc_py_fork_prepare();
}

void dc_stack_fork_parent(void)
{
    dc_py_fork_parent();
    pthread_rwlock_unlock(&unwind_lock);
    pthread_mutex_unlock(&unw_lock);
    pthread_rwlock_unlock(&stack_lock);
    pthread_mutex_unlock(&sym_lock);
}

void dc_stack_fork_child(void)
{
    dc_py_fork_child();
    dc_rwlock_fork_child(&unwind_lock, 1);
    dc_mutex_fork_child(&unw_lock);
    dc_rwlock_fork_child(&stack_lock, 0);
    pthread_mutex_unlock(&sym_lock);
}
