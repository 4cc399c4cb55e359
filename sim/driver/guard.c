/* guard: a host twin sees memory as its device does.
 *
 * Device memory is reached by a twin through its unified addresses, the
 * same mappings the sim itself uses.  While a twin runs (a "window", one at
 * a time in the process), every mapping its launch device may not access
 * (sim_mem_prot_plan: other devices' memory without peer or pool access,
 * VMM ranges not granted, IPC mappings, reserved ranges with nothing mapped)
 * is PROT_NONE.  A twin that touches one takes SIGSEGV; our handler records
 * the address (the launch's context gets its sticky
 * CUDA_ERROR_ILLEGAL_ADDRESS at the window's end), maps a zero-filled
 * private scratch range over that entry and returns, so the twin continues
 * on scratch and returns normally: no longjmp through foreign frames (a
 * Python ctypes twin unwinds as it should), nothing it writes there reaches
 * device memory.  At the window's end every entry is made accessible again
 * (scratched ones mapped back from their file) and the handler the program
 * had is put back.
 *
 * Other threads keep running.  One that touches protected memory (the
 * sim's own byte copies, a test reading device memory from the host) waits
 * in the handler until the window closes, then retries the access.  Any
 * other SIGSEGV goes to the handler the program had installed (Python's
 * faulthandler, a JVM's, a sanitizer's), called as it asked to be, or to
 * the default action.  Our handler is installed when the first window
 * opens and stays: a thread that faulted on a window's protection may take
 * its signal only after the window closed, so the program's handler cannot
 * be put back without racing that delivery.  A window that finds another
 * handler installed (the program set its own since) keeps that one as the
 * handler to chain to and installs ours again.
 *
 * Limits: a twin must not call CUDA (its copies would fault as the twin's
 * own accesses); twins run one at a time while any window is needed;
 * pageable host memory cannot be protected (operands.c decides it). */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROT 4096

static struct sim_prot g_ent[MAX_PROT];     /* the open (or last) window's plan; lock held */
/* what the handler reads of it, with atomic loads: other threads may take a
 * fault of an earlier window while the next one is being planned */
static _Atomic uintptr_t g_pub_base[MAX_PROT];
static _Atomic size_t g_pub_len[MAX_PROT];
static atomic_int g_valid[MAX_PROT];        /* 0: forgotten (unmapped or remapped meanwhile) */
/* Every range outside the arenas that some window protected and that is
 * still mapped (IPC and VMM mappings, reserved holes): where another
 * thread's fault may be a window's, also one already closed.  Written with
 * the lock held, read by the handler; a freed slot has length 0. */
#define MAX_REG 1024
static _Atomic uintptr_t g_reg_base[MAX_REG];
static _Atomic size_t g_reg_len[MAX_REG];
static atomic_size_t g_nreg;
static atomic_int g_scratched[MAX_PROT];
static atomic_size_t g_nent;
static atomic_uint g_seq;                   /* odd while a window is open */
static atomic_long g_win_tid;               /* the thread running the window's twin */
static atomic_uintptr_t g_fault_addr;       /* the twin's first illegal access */
static atomic_uint g_nfault;
static struct sigaction g_old;              /* the program's handler, chained to (lock held to write) */
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_open;                          /* lock held */

static long tid(void) { return (long)syscall(SYS_gettid); }

/* Index of the valid entry holding a, or -1. */
static long entry_of(uintptr_t a)
{
    size_t n = atomic_load_explicit(&g_nent, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        uintptr_t b = atomic_load_explicit(&g_pub_base[i], memory_order_relaxed);
        size_t len = atomic_load_explicit(&g_pub_len[i], memory_order_relaxed);
        if (atomic_load_explicit(&g_valid[i], memory_order_relaxed) && a >= b && a - b < len)
            return (long)i;
    }
    return -1;
}

static int in_registry(uintptr_t a)
{
    size_t n = atomic_load_explicit(&g_nreg, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        uintptr_t b = atomic_load_explicit(&g_reg_base[i], memory_order_relaxed);
        if (a >= b && a - b < atomic_load_explicit(&g_reg_len[i], memory_order_relaxed))
            return 1;
    }
    return 0;
}

/* lock held */
static void registry_add(uintptr_t base, size_t len)
{
    size_t n = atomic_load(&g_nreg), free_slot = n;
    for (size_t i = 0; i < n; i++) {
        size_t l = atomic_load_explicit(&g_reg_len[i], memory_order_relaxed);
        if (l == len && atomic_load_explicit(&g_reg_base[i], memory_order_relaxed) == base)
            return;
        if (l == 0 && free_slot == n)
            free_slot = i;
    }
    if (free_slot == MAX_REG)
        return;         /* full: such a fault goes to the program's handler */
    atomic_store_explicit(&g_reg_base[free_slot], base, memory_order_relaxed);
    atomic_store_explicit(&g_reg_len[free_slot], len, memory_order_release);
    if (free_slot == n)
        atomic_store_explicit(&g_nreg, n + 1, memory_order_release);
}

/* Can a be read right now (async-signal-safe: a syscall, no access)? */
static int readable(uintptr_t a)
{
    char b;
    struct iovec l = { &b, 1 }, r = { (void *)a, 1 };
    return syscall(SYS_process_vm_readv, (long)getpid(), &l, 1L, &r, 1L, 0L) == 1;
}

static void nap(void)
{
    struct timespec ts = { 0, 50 * 1000 };
    nanosleep(&ts, NULL);
}

/* The handler the program had: called as it asked, or the default action
 * (restored, so that returning re-executes the access and takes it). */
static void chain(int sig, siginfo_t *si, void *uc)
{
    struct sigaction old = g_old;
    if (old.sa_flags & SA_SIGINFO) {
        if (old.sa_sigaction) {
            old.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
        old.sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (tid() == atomic_load(&g_win_tid)) {
        long i = entry_of(a);
        if (i >= 0 && !atomic_load(&g_scratched[i])) {
            uintptr_t none = 0;
            atomic_compare_exchange_strong(&g_fault_addr, &none, a);
            atomic_fetch_add(&g_nfault, 1);
            uintptr_t b = atomic_load_explicit(&g_pub_base[i], memory_order_relaxed);
            size_t len = atomic_load_explicit(&g_pub_len[i], memory_order_relaxed);
            long m = syscall(SYS_mmap, b, len, (long)(PROT_READ | PROT_WRITE),
                             (long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE), -1L, 0L);
            if (m == (long)b) {
                atomic_store(&g_scratched[i], 1);
                errno = saved;
                return;
            }
        }
        chain(sig, si, uc);
        errno = saved;
        return;
    }
    /* another thread, in memory a window protects (open, or closed since
     * the fault): it waits for the window to close and retries.  Arenas are
     * read-write outside windows; elsewhere only what is readable now is
     * retried (a reserved hole stays a fault). */
    if (sim_mem_in_arena(a) || in_registry(a)) {
        unsigned s;
        while ((s = atomic_load(&g_seq)) & 1) {
            while (atomic_load(&g_seq) == s)
                nap();
        }
        if (sim_mem_in_arena(a) || readable(a)) {
            errno = saved;
            return;
        }
    }
    chain(sig, si, uc);
    errno = saved;
}

void sim_guard_forget(uintptr_t base, size_t len)
{
    size_t n = atomic_load(&g_nent);
    for (size_t i = 0; i < n; i++)
        if (base < g_ent[i].base + g_ent[i].len && g_ent[i].base < base + len)
            atomic_store(&g_valid[i], 0);
    n = atomic_load(&g_nreg);
    for (size_t i = 0; i < n; i++) {
        uintptr_t b = atomic_load_explicit(&g_reg_base[i], memory_order_relaxed);
        if (base < b + atomic_load_explicit(&g_reg_len[i], memory_order_relaxed) && b < base + len)
            atomic_store_explicit(&g_reg_len[i], 0, memory_order_relaxed);
    }
}

/* Ours installed, the program's kept in g_old (lock held); 0 on failure. */
static int install(void)
{
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) != 0)
        return 0;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)
        return 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    g_old = cur;
    return sigaction(SIGSEGV, &sa, NULL) == 0;
}

static void restore(size_t i)
{
    struct sim_prot *e = &g_ent[i];
    if (!atomic_load(&g_scratched[i])) {
        if (e->kind == SIM_PROT_FILE)
            mprotect((void *)e->base, e->len, PROT_READ | PROT_WRITE);
        return;
    }
    if (e->kind == SIM_PROT_FILE) {
        void *p = mmap((void *)e->base, e->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
                       e->fd, e->off);
        if (p != MAP_FAILED)
            madvise(p, e->len, MADV_DONTFORK);
    } else {
        mmap((void *)e->base, e->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    }
}

void sim_twin_run(sim_twin_fn twin, void **args, const unsigned grid[3], const unsigned block[3],
                  struct sim_ctx *c, const char *name)
{
    long me = tid();
    sim_lock();
    if (g_open && atomic_load(&g_win_tid) == me) {     /* a twin launching a kernel */
        sim_unlock();
        twin(args, grid, block);
        return;
    }
    while (g_open)
        sim_cond_wait(&g_cv);
    size_t n = sim_mem_prot_plan(c->dev, c, g_ent, MAX_PROT);
    if (n == 0) {
        sim_unlock();
        twin(args, grid, block);
        return;
    }
    g_open = 1;
    /* the handler first: from the first mprotect on, any thread may fault */
    atomic_store(&g_nent, 0);
    for (size_t i = 0; i < n; i++) {
        atomic_store_explicit(&g_pub_base[i], g_ent[i].base, memory_order_relaxed);
        atomic_store_explicit(&g_pub_len[i], g_ent[i].len, memory_order_relaxed);
        atomic_store(&g_scratched[i], 0);
        atomic_store(&g_valid[i], 1);
        if (!sim_mem_in_arena(g_ent[i].base))
            registry_add(g_ent[i].base, g_ent[i].len);
    }
    atomic_store(&g_fault_addr, 0);
    atomic_store(&g_nfault, 0);
    atomic_store(&g_win_tid, me);
    atomic_store_explicit(&g_nent, n, memory_order_release);
    atomic_fetch_add(&g_seq, 1);                        /* odd: open */
    int installed = install();
    for (size_t i = 0; i < n; i++)
        if (g_ent[i].kind == SIM_PROT_FILE && (!installed || mprotect((void *)g_ent[i].base, g_ent[i].len, PROT_NONE) != 0))
            atomic_store(&g_valid[i], 0);
    sim_unlock();

    twin(args, grid, block);

    sim_lock();
    for (size_t i = 0; i < n; i++)
        if (atomic_load(&g_valid[i]))
            restore(i);
    atomic_store(&g_win_tid, 0);
    atomic_fetch_add(&g_seq, 1);                        /* even: closed */
    g_open = 0;
    pthread_cond_broadcast(&g_cv);
    uintptr_t fa = atomic_load(&g_fault_addr);
    if (fa && sim_obj_get(c, T_CTX)) {
        c->fault_pending = 1;
        if (sim_g.verbose) {
            char what[160], line[768];
            sim_mem_describe(fa, what, sizeof what);
            int len = snprintf(line, sizeof line,
                               "simcuda: %s on device %d: the host twin accessed 0x%llx (%s), which this device "
                               "may not access: CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization\n",
                               name, c->dev, (unsigned long long)fa, what);
            if (len > 0)
                (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        }
    }
    sim_unlock();
}
