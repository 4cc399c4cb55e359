/* stackdepot: each distinct stack stored once (see stackdepot.h).
 *
 * Lookup (every capture that missed the thread's cache, report/stack.c):
 * the key's words are hashed once, then the table is probed without a lock.
 * A grown table keeps the old one allocated, so a reader still probing it
 * reads valid memory; records are never freed.  Writers (a stack never
 * seen) and the readers by id take stack_lock. */
#include "report/stackdepot.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACKS (1u << 22)

/* The key: n native IPs, then npy Python frames (DC_PYWORDS words each);
 * after the key, the npy ids of their code objects' descriptions. */
struct stack_rec {
    uint64_t hash;              /* of the key's words */
    uint32_t id;
    uint32_t n, npy;
    uint32_t *py_desc;
    uintptr_t ips[];
};
_Static_assert(sizeof(struct dc_pyraw) % sizeof(uintptr_t) == 0, "a Python frame is whole words of the key");

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
static size_t rec_bytes, table_bytes;   /* --stats: the records, the tables (old ones kept) */

static struct stack_rec *table_probe(const struct stack_table *t, uint64_t h, const uintptr_t *key, uint32_t n,
                                     uint32_t npy)
{
    for (size_t i = (size_t)h & t->mask, k = 0; k <= t->mask; i = (i + 1) & t->mask, k++) {
        struct stack_rec *r = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
        if (!r)
            return NULL;
        if (r->hash == h && r->n == n && r->npy == npy && !memcmp(r->ips, key, (n + DC_PYWORDS * npy) * sizeof *key))
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
        table_bytes += sizeof *n + cap * sizeof n->slot[0];
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

uint32_t dc_stackdepot_put(const uintptr_t *ips, uint32_t n, uint32_t npy)
{
    size_t keylen = (n + DC_PYWORDS * npy) * sizeof ips[0];

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
    rec_bytes += sizeof *r + keylen + npy * sizeof desc[0];
    id = r->id;
out:
    pthread_rwlock_unlock(&stack_lock);
    return id;
}

size_t dc_stackdepot_get(uint32_t id, uintptr_t *ips, size_t max)
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

size_t dc_stackdepot_get_py(uint32_t id, struct dc_pyraw *py, uint32_t *desc, size_t max)
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

size_t dc_stackdepot_bytes(void)
{
    pthread_rwlock_rdlock(&stack_lock);
    size_t n = rec_bytes + table_bytes + (size_t)cap_ids * sizeof *by_id;
    pthread_rwlock_unlock(&stack_lock);
    return n;
}

void dc_stackdepot_fork_prepare(void) { pthread_rwlock_wrlock(&stack_lock); }
void dc_stackdepot_fork_parent(void) { pthread_rwlock_unlock(&stack_lock); }
void dc_stackdepot_fork_child(void) { dc_rwlock_fork_child(&stack_lock, 0); }
