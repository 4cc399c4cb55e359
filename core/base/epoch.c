/* epoch: epoch-based reclamation (see epoch.h).
 *
 * g_epoch only grows.  A section announces the epoch it read (acquire) in
 * its thread's record with a seq_cst exchange (a full barrier), then reads
 * the structures.  A
 * writer unlinks an object, then stamps it with the epoch it advances
 * (seq_cst fetch_add): a section that announced a later epoch read g_epoch
 * after the unlink, so cannot reach the object; one that announced the
 * stamp or earlier may, and the object waits until that record is quiescent
 * (0) or later.  Records are never freed: a thread's record goes back to the
 * pool when the thread exits, for the next thread. */
#include "core/base/epoch.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct dc_epoch_rec {
    uint64_t active;                    /* 0: quiescent; else the epoch announced (atomic) */
    unsigned depth;                     /* nesting, the owning thread's */
    int in_use;                         /* claimed by a thread (atomic) */
    int shared;                         /* the fallback record: always open */
    struct dc_epoch_rec *next;          /* the list of records (set before publishing) */
} __attribute__((aligned(64)));         /* one cache line per thread */

__thread struct dc_epoch_rec *dc_epoch_self __attribute__((tls_model("initial-exec")));

static struct dc_epoch_rec *recs;       /* atomic list head */
static uint64_t g_epoch = 1;
static struct dc_epoch_rec shared_rec = { .active = 1, .in_use = 1, .shared = 1 };
static int shared_used;                 /* a thread runs on the fallback record: nothing is freed */
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thread_gone(void *p)
{
    struct dc_epoch_rec *r = p;
    if (!r || r->shared)
        return;
    r->depth = 0;
    __atomic_store_n(&r->active, 0, __ATOMIC_RELEASE);
    if (dc_epoch_self == r)
        dc_epoch_self = NULL;
    __atomic_store_n(&r->in_use, 0, __ATOMIC_RELEASE);
}

static void make_key(void) { (void)pthread_key_create(&exit_key, thread_gone); }

struct dc_epoch_rec *dc_epoch_register(void)
{
    pthread_once(&key_once, make_key);
    struct dc_epoch_rec *r;
    for (r = __atomic_load_n(&recs, __ATOMIC_ACQUIRE); r; r = r->next) {
        int zero = 0;
        if (!__atomic_load_n(&r->in_use, __ATOMIC_RELAXED) &&
            __atomic_compare_exchange_n(&r->in_use, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            break;
    }
    if (!r) {
        r = aligned_alloc(64, sizeof *r);
        if (!r) {
            __atomic_store_n(&shared_used, 1, __ATOMIC_SEQ_CST);
            return dc_epoch_self = &shared_rec;
        }
        memset(r, 0, sizeof *r);
        r->in_use = 1;
        struct dc_epoch_rec *head = __atomic_load_n(&recs, __ATOMIC_RELAXED);
        do
            r->next = head;
        while (!__atomic_compare_exchange_n(&recs, &head, r, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    }
    r->depth = 0;
    dc_epoch_self = r;
    (void)pthread_setspecific(exit_key, r);
    return r;
}

void dc_epoch_enter_rec(struct dc_epoch_rec *r)
{
    if (r->shared)
        return;
    if (r->depth++ == 0) {
        /* A sequentially consistent exchange, to the thread's own line: the
         * announcement is visible before any read of the structures (a full
         * barrier, as a fence would be; ThreadSanitizer models RMWs, not
         * fences), and a writer that reads it has seen our earlier sections end. */
        (void)__atomic_exchange_n(&r->active, __atomic_load_n(&g_epoch, __ATOMIC_ACQUIRE), __ATOMIC_SEQ_CST);
    }
}

void dc_epoch_exit_rec(struct dc_epoch_rec *r)
{
    if (!r->shared && --r->depth == 0)
        __atomic_store_n(&r->active, 0, __ATOMIC_RELEASE);
}

uint64_t dc_epoch_advance(void) { return __atomic_fetch_add(&g_epoch, 1, __ATOMIC_SEQ_CST); }

uint64_t dc_epoch_min_active(void)
{
    uint64_t min = __atomic_load_n(&g_epoch, __ATOMIC_SEQ_CST);
    for (struct dc_epoch_rec *r = __atomic_load_n(&recs, __ATOMIC_ACQUIRE); r; r = r->next) {
        uint64_t a = __atomic_load_n(&r->active, __ATOMIC_ACQUIRE);
        if (a && a < min)
            min = a;
    }
    return __atomic_load_n(&shared_used, __ATOMIC_SEQ_CST) ? 0 : min;
}

/* --- retired objects ------------------------------------------------------------- */

struct retired {
    void *p;
    void (*fn)(void *);
    uint64_t stamp;
    struct retired *next;
};
static pthread_mutex_t limbo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct retired *limbo;           /* newest first */

static void reclaim_locked(void)
{
    uint64_t min = dc_epoch_min_active();
    struct retired **pp = &limbo;
    while (*pp) {
        struct retired *x = *pp;
        if (x->stamp < min) {
            *pp = x->next;
            x->fn(x->p);
            free(x);
        } else {
            pp = &x->next;
        }
    }
}

void dc_epoch_retire(void *p, void (*fn)(void *))
{
    if (!p)
        return;
    struct retired *x = malloc(sizeof *x);
    if (!x)
        return;                         /* kept for good: never freed under a reader */
    x->p = p;
    x->fn = fn;
    pthread_mutex_lock(&limbo_lock);
    x->stamp = dc_epoch_advance();
    x->next = limbo;
    limbo = x;
    reclaim_locked();
    pthread_mutex_unlock(&limbo_lock);
}

void dc_epoch_reclaim(void)
{
    pthread_mutex_lock(&limbo_lock);
    reclaim_locked();
    pthread_mutex_unlock(&limbo_lock);
}

void dc_epoch_fork_prepare(void) { pthread_mutex_lock(&limbo_lock); }
void dc_epoch_fork_parent(void) { pthread_mutex_unlock(&limbo_lock); }
/* The child has one thread: every other record is quiescent and free. */
void dc_epoch_fork_child(void)
{
    dc_mutex_fork_child(&limbo_lock);
    for (struct dc_epoch_rec *r = __atomic_load_n(&recs, __ATOMIC_ACQUIRE); r; r = r->next) {
        if (r == dc_epoch_self)
            continue;
        r->depth = 0;
        __atomic_store_n(&r->active, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->in_use, 0, __ATOMIC_RELAXED);
    }
}
