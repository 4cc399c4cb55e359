/* regbench: the registry's lookups (core/owner/registry.c) from 1, 2 and 4
 * threads, the way launches on several devices use it: 10,000 live
 * allocations of mixed sizes, each thread resolving interior addresses of
 * them.  The sim serialises launches, so only the registry itself can show
 * whether devcheck's structures serialise threads.  Prints, per thread
 * count, the CPU time per lookup (each thread's own CPU clock, so other
 * load on the machine does not count) and the lookups per second of wall
 * time (the best of ROUNDS interleaved rounds: a run that shared the
 * machine's cores with another program is not the registry's doing); then
 * `scaling: R2 R4`, the CPU time per lookup with 2 and 4 threads over that
 * with 1 (1.0: no interference; a lock on a shared cache line
 * makes it several times that when the threads run at the same time), and
 * `scaling_rwlock: R2 R4` for the same lookups each under one process-wide
 * rwlock, the old registry's scheme, as the reference. */
#include "core/owner/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NALLOC 10000
#define NADDR 4096
#define LOOKUPS 2000000L
#define ROUNDS 3

static uintptr_t addrs[NADDR];
static int go;
static int use_rwlock;          /* the reference: each lookup under one process-wide rwlock */
static pthread_rwlock_t ref_lock = PTHREAD_RWLOCK_INITIALIZER;

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct job {
    double cpu_ns;
    long found;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
        ;
    double t0 = now(CLOCK_THREAD_CPUTIME_ID);
    long found = 0;
    unsigned i = (unsigned)(uintptr_t)j * 2654435761u;
    for (long n = 0; n < LOOKUPS; n++) {
        struct dc_alloc a;
        if (use_rwlock)
            pthread_rwlock_rdlock(&ref_lock);
        found += dc_reg_lookup(addrs[i++ % NADDR], &a) == 0;
        if (use_rwlock)
            pthread_rwlock_unlock(&ref_lock);
    }
    j->cpu_ns = now(CLOCK_THREAD_CPUTIME_ID) - t0;
    j->found = found;
    return NULL;
}

/* CPU ns per lookup with t threads, one run; *wall_ns: its wall time. */
static double run_once(int t, double *wall_ns)
{
    pthread_t th[8];
    struct job jobs[8];
    __atomic_store_n(&go, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < t; i++)
        pthread_create(&th[i], NULL, worker, &jobs[i]);
    double w0 = now(CLOCK_MONOTONIC);
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    double cpu = 0;
    long found = 0;
    for (int i = 0; i < t; i++) {
        pthread_join(th[i], NULL);
        cpu += jobs[i].cpu_ns;
        found += jobs[i].found;
    }
    *wall_ns = now(CLOCK_MONOTONIC) - w0;
    if (found != LOOKUPS * t)
        fprintf(stderr, "regbench: %ld of %ld lookups found\n", found, LOOKUPS * t);
    return cpu / ((double)LOOKUPS * t);
}

/* CPU ns per lookup with 1, 2 and 4 threads (per[0..2]): the best of ROUNDS
 * rounds, each running the three in turn (so that a spell of other load on
 * the machine's cores meets all three, not one). */
static void run(double per[3])
{
    static const int threads[3] = { 1, 2, 4 };
    double wall[3] = { 0 };
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 3; k++) {
            double w, p = run_once(threads[k], &w);
            if (r == 0 || p < per[k])
                per[k] = p, wall[k] = w;
        }
    for (int k = 0; k < 3; k++)
        printf("threads=%d%s cpu_ns_per_lookup=%.1f lookups_per_s=%.0f\n", threads[k],
               use_rwlock ? " (under a rwlock)" : "", per[k], (double)LOOKUPS * threads[k] / wall[k] * 1e9);
}

int main(void)
{
    uintptr_t base = (uintptr_t)0x7f0000000000ull;
    for (int i = 0; i < NALLOC; i++) {
        struct dc_alloc a = { 0 };
        size_t size = (size_t)64 << (i % 11);
        a.base = base;
        a.size = size;
        a.kind = DC_MEM_DEVICE;
        a.owner = i % 4;
        if (dc_reg_add(&a) != 0) {
            fprintf(stderr, "regbench: dc_reg_add failed\n");
            return 1;
        }
        if (i % (NALLOC / NADDR + 1) == 0 || i < NADDR)
            addrs[i % NADDR] = base + size / 2;
        base += (size + 511) & ~(uintptr_t)511;
    }
    printf("setup: %d live allocations of 64 B .. 64 KiB, %ld lookups per thread\n", NALLOC, LOOKUPS);
    double lf[3], rw[3];
    run(lf);
    use_rwlock = 1;
    run(rw);
    printf("scaling: %.2f %.2f\n", lf[1] / lf[0], lf[2] / lf[0]);
    printf("scaling_rwlock: %.2f %.2f\n", rw[1] / rw[0], rw[2] / rw[0]);
    return 0;
}
