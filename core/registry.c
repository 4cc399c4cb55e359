/* registry: live allocations, interior lookups in O(1) expected time.
 *
 * Key scheme (the invariant every function below keeps):
 *  - Level L (0 <= L < NLEVELS) cuts the address space into chunks of
 *    2^(4 + 4L) bytes (16 B, 256 B, 4 KiB, ... 2^60 B).  An allocation of size
 *    S lives at exactly one level: the smallest whose chunk size is >= S.  It
 *    is entered in the bucket of every chunk of that level it touches, so it
 *    touches at most 2 chunks (at most 16 at the top level, which only holds
 *    ranges larger than 2^56 bytes).
 *  - Buckets form one uthash keyed by (chunk index << 4 | level).  Live
 *    allocations never overlap and an allocation at level L > 0 is larger than
 *    chunk(L)/16, so one chunk meets at most 16 + 2 allocations of its level
 *    (level 0: at most 16 of size 1).  A lookup probes one bucket per
 *    non-empty level and scans at most 18 entries in each: O(NLEVELS * 18),
 *    independent of the number of live allocations.
 *  - Besides the buckets, a treap ordered by base address answers "which live
 *    entries overlap [b, e)" for dc_reg_add (stale entries are removed first)
 *    and dc_reg_set_access in O(log n + k); the lookup path never touches it.
 *  - One rwlock guards everything: lookups share it, updates own it.
 */
#include "core/registry.h"
#include "report/forklock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int reg_oom;             /* set by uthash on allocation failure (under wrlock) */
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); reg_oom = 1; } while (0)
/* Every key in this file is one uint64_t: a multiply-xorshift mix spreads
 * consecutive chunk numbers over the buckets faster than uthash's default
 * byte-wise Jenkins hash. */
#define HASH_FUNCTION(keyptr, keylen, hashv) do { \
        uint64_t _k; \
        memcpy(&_k, (keyptr), sizeof _k); \
        (void)(keylen); \
        _k ^= _k >> 33; \
        _k *= 0xff51afd7ed558ccdull; \
        _k ^= _k >> 33; \
        _k *= 0xc4ceb9fe1a85ec53ull; \
        _k ^= _k >> 33; \
        (hashv) = (unsigned)_k; \
    } while (0)
#include <uthash.h>
#include <utlist.h>

#define NLEVELS 15
#define LEVEL_SHIFT(l) (4u + 4u * (unsigned)(l))
#define BUCKET_INLINE 2

struct entry {
    struct dc_alloc a;
    uintptr_t last;                 /* a.base + a.size - 1 */
    int level;
    struct entry *tl, *tr;          /* treap children (ordered by base) */
    uint32_t prio;                  /* treap heap priority */
    struct entry *prev, *next;      /* list of all entries (drop_ctx, reset) */
};

struct bucket {
    uint64_t key;                   /* chunk << 4 | level */
    UT_hash_handle hh;
    unsigned n, cap;
    struct entry **v;               /* inl while cap == BUCKET_INLINE */
    struct entry *inl[BUCKET_INLINE];
};

struct pool_access {
    uint64_t pool;
    dc_devmask mask;
    UT_hash_handle hh;
};

/* Writer-preferring: a stream of lookups on other threads must not starve an
 * allocation hook. */
static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static struct bucket *buckets;           /* uthash head */
static struct entry *treap_root;
static struct entry *all_entries;        /* utlist DL */
static struct pool_access *pools;        /* uthash head */
static size_t level_count[NLEVELS];      /* live entries per level */
static size_t live_count;
static uintptr_t span_lo = UINTPTR_MAX, span_hi;   /* every live entry is inside */
static uint64_t next_serial = 1;
static uint32_t rng_state = 0x9e3779b9u;
static dc_devmask peer_mask[DC_MAX_DEVICES]; /* bit `to` in peer_mask[from]; atomics */

/* ---- levels and buckets --------------------------------------------------- */

static int level_for(size_t size)
{
    for (int l = 0; l < NLEVELS - 1; l++)
        if (size <= ((size_t)1 << LEVEL_SHIFT(l)))
            return l;
    return NLEVELS - 1;
}

static uint64_t bucket_key(uintptr_t addr, int level)
{
    return ((uint64_t)(addr >> LEVEL_SHIFT(level)) << 4) | (unsigned)level;
}

static struct bucket *bucket_find(uint64_t key)
{
    struct bucket *b;
    HASH_FIND(hh, buckets, &key, sizeof key, b);
    return b;
}

/* Adds e to the bucket `key`; 0 or -1 (nothing changed) on allocation failure. */
static int bucket_put(uint64_t key, struct entry *e)
{
    struct bucket *b = bucket_find(key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b)
            return -1;
        b->key = key;
        b->cap = BUCKET_INLINE;
        b->v = b->inl;
        reg_oom = 0;
        HASH_ADD(hh, buckets, key, sizeof b->key, b);
        if (reg_oom) {
            free(b);
            return -1;
        }
    }
    if (b->n == b->cap) {
        unsigned ncap = b->cap * 2;
        struct entry **nv = malloc(ncap * sizeof *nv);
        if (!nv) {
            if (b->n == 0) {
                HASH_DEL(buckets, b);
                free(b);
            }
            return -1;
        }
        memcpy(nv, b->v, b->n * sizeof *nv);
        if (b->v != b->inl)
            free(b->v);
        b->v = nv;
        b->cap = ncap;
    }
    b->v[b->n++] = e;
    return 0;
}

static void bucket_drop(uint64_t key, struct entry *e)
{
    struct bucket *b = bucket_find(key);
    if (!b)
        return;
    for (unsigned i = 0; i < b->n; i++) {
        if (b->v[i] == e) {
            b->v[i] = b->v[--b->n];
            break;
        }
    }
    if (b->n == 0) {
        HASH_DEL(buckets, b);
        if (b->v != b->inl)
            free(b->v);
        free(b);
    }
}

/* Chunks of e's level that e touches: [c0, c1]. */
static void entry_chunks(const struct entry *e, uintptr_t *c0, uintptr_t *c1)
{
    unsigned s = LEVEL_SHIFT(e->level);
    *c0 = e->a.base >> s;
    *c1 = e->last >> s;
}

static void entry_unbucket(struct entry *e)
{
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    unsigned s = LEVEL_SHIFT(e->level);
    for (uintptr_t c = c0;; c++) {
        bucket_drop(bucket_key(c << s, e->level), e);
        if (c == c1)
            break;
    }
}

static int entry_bucket(struct entry *e)
{
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    unsigned s = LEVEL_SHIFT(e->level);
    for (uintptr_t c = c0;; c++) {
        if (bucket_put(bucket_key(c << s, e->level), e) != 0) {
            /* roll back the chunks already entered */
            for (uintptr_t d = c0; d != c; d++)
                bucket_drop(bucket_key(d << s, e->level), e);
            return -1;
        }
        if (c == c1)
            break;
    }
    return 0;
}

static struct entry *find_locked_excl(uintptr_t addr, const struct entry *excl)
{
    if (addr < span_lo || addr > span_hi)       /* ints, floats, far pointers */
        return NULL;
    for (int l = 0; l < NLEVELS; l++) {
        if (!level_count[l])
            continue;
        struct bucket *b = bucket_find(bucket_key(addr, l));
        if (!b)
            continue;
        for (unsigned i = 0; i < b->n; i++) {
            struct entry *e = b->v[i];
            if (e != excl && e->a.base <= addr && addr <= e->last)
                return e;
        }
    }
    return NULL;
}

static struct entry *find_locked(uintptr_t addr) { return find_locked_excl(addr, NULL); }

/* ---- treap by base address ------------------------------------------------ */

static uint32_t next_prio(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static struct entry *treap_insert(struct entry *t, struct entry *e)
{
    if (!t)
        return e;
    if (e->a.base < t->a.base) {
        t->tl = treap_insert(t->tl, e);
        if (t->tl->prio > t->prio) {            /* rotate right */
            struct entry *l = t->tl;
            t->tl = l->tr;
            l->tr = t;
            return l;
        }
    } else {
        t->tr = treap_insert(t->tr, e);
        if (t->tr->prio > t->prio) {            /* rotate left */
            struct entry *r = t->tr;
            t->tr = r->tl;
            r->tl = t;
            return r;
        }
    }
    return t;
}

static struct entry *treap_merge(struct entry *a, struct entry *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio > b->prio) {
        a->tr = treap_merge(a->tr, b);
        return a;
    }
    b->tl = treap_merge(a, b->tl);
    return b;
}

static struct entry *treap_erase(struct entry *t, const struct entry *e)
{
    if (!t)
        return NULL;
    if (t == e)
        return treap_merge(t->tl, t->tr);
    if (e->a.base < t->a.base)
        t->tl = treap_erase(t->tl, e);
    else
        t->tr = treap_erase(t->tr, e);
    return t;
}

/* The live entry with the smallest base >= x, or NULL. */
static struct entry *treap_lower_bound(uintptr_t x)
{
    struct entry *t = treap_root, *best = NULL;
    while (t) {
        if (t->a.base >= x) {
            best = t;
            t = t->tl;
        } else {
            t = t->tr;
        }
    }
    return best;
}

/* The first live entry other than `excl` overlapping [b, last] (in address
 * order), or NULL.  overlap_next() continues after `prev`. */
static struct entry *overlap_first(uintptr_t b, uintptr_t last, const struct entry *excl)
{
    struct entry *e = find_locked_excl(b, excl);
    if (e)
        return e;
    e = treap_lower_bound(b);
    return e && e->a.base <= last ? e : NULL;
}

static struct entry *overlap_next(const struct entry *prev, uintptr_t last)
{
    if (prev->last == UINTPTR_MAX)
        return NULL;
    struct entry *e = treap_lower_bound(prev->last + 1);
    return e && e->a.base <= last ? e : NULL;
}

/* ---- entries --------------------------------------------------------------- */

static void entry_remove(struct entry *e)
{
    entry_unbucket(e);
    treap_root = treap_erase(treap_root, e);
    DL_DELETE(all_entries, e);
    level_count[e->level]--;
    live_count--;
    free(e);
}

static int range_last(uintptr_t base, size_t size, uintptr_t *last)
{
    if (size == 0 || size - 1 > UINTPTR_MAX - base)
        return -1;
    *last = base + (size - 1);
    return 0;
}

int dc_reg_add(const struct dc_alloc *a)
{
    uintptr_t last;
    if (!a || range_last(a->base, a->size, &last) != 0)
        return -1;
    struct entry *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->a = *a;
    e->last = last;
    e->level = level_for(a->size);

    pthread_rwlock_wrlock(&reg_lock);
    /* Enter the buckets first: if that fails nothing has changed yet.  A
     * stale overlapping entry may share a bucket meanwhile; it is removed
     * below, before the lock is released, so lookups never see both. */
    if (entry_bucket(e) != 0) {
        pthread_rwlock_unlock(&reg_lock);
        free(e);
        return -1;
    }
    for (struct entry *o = overlap_first(a->base, last, e), *n; o; o = n) {
        n = overlap_next(o, last);
        entry_remove(o);
    }
    if (a->base < span_lo)
        span_lo = a->base;
    if (last > span_hi)
        span_hi = last;
    e->a.serial = next_serial++;
    e->prio = next_prio();
    treap_root = treap_insert(treap_root, e);
    DL_APPEND(all_entries, e);
    level_count[e->level]++;
    live_count++;
    pthread_rwlock_unlock(&reg_lock);
    return 0;
}

int dc_reg_remove(uintptr_t base, struct dc_alloc *out)
{
    int rc = -1;
    pthread_rwlock_wrlock(&reg_lock);
    struct entry *e = find_locked(base);
    if (e && e->a.base == base) {
        if (out)
            *out = e->a;
        entry_remove(e);
        rc = 0;
    }
    pthread_rwlock_unlock(&reg_lock);
    return rc;
}

int dc_reg_lookup(uintptr_t addr, struct dc_alloc *out)
{
    int rc = -1;
    pthread_rwlock_rdlock(&reg_lock);
    struct entry *e = find_locked(addr);
    if (e) {
        if (out)
            *out = e->a;
        rc = 0;
    }
    pthread_rwlock_unlock(&reg_lock);
    return rc;
}

void dc_reg_set_access(uintptr_t base, size_t size, int device, int allowed)
{
    uintptr_t last;
    if (device < 0 || device >= DC_MAX_DEVICES || range_last(base, size, &last) != 0)
        return;
    pthread_rwlock_wrlock(&reg_lock);
    for (struct entry *o = overlap_first(base, last, NULL); o; o = overlap_next(o, last)) {
        if (allowed)
            o->a.access |= DC_DEV_BIT(device);
        else
            o->a.access &= ~DC_DEV_BIT(device);
    }
    pthread_rwlock_unlock(&reg_lock);
}

size_t dc_reg_drop_ctx(uint64_t ctx, unsigned kind_mask)
{
    size_t n = 0;
    struct entry *e, *tmp;
    if (!ctx)
        return 0;
    pthread_rwlock_wrlock(&reg_lock);
    DL_FOREACH_SAFE(all_entries, e, tmp) {
        if (e->a.ctx == ctx && (unsigned)e->a.kind < 32 && (kind_mask & (1u << e->a.kind))) {
            entry_remove(e);
            n++;
        }
    }
    pthread_rwlock_unlock(&reg_lock);
    return n;
}

size_t dc_reg_drop_from_driver(void)
{
    size_t n = 0;
    struct entry *e, *tmp;
    pthread_rwlock_wrlock(&reg_lock);
    DL_FOREACH_SAFE(all_entries, e, tmp) {
        if (e->a.from_driver) {
            entry_remove(e);
            n++;
        }
    }
    pthread_rwlock_unlock(&reg_lock);
    return n;
}

size_t dc_reg_count(void)
{
    pthread_rwlock_rdlock(&reg_lock);
    size_t n = live_count;
    pthread_rwlock_unlock(&reg_lock);
    return n;
}

/* ---- peers and pools ------------------------------------------------------- */

static int dev_ok(int d) { return d >= 0 && d < DC_MAX_DEVICES; }

void dc_reg_set_peer(int from, int to, int enabled)
{
    if (!dev_ok(from) || !dev_ok(to))
        return;
    if (enabled)
        __atomic_fetch_or(&peer_mask[from], DC_DEV_BIT(to), __ATOMIC_RELEASE);
    else
        __atomic_fetch_and(&peer_mask[from], ~DC_DEV_BIT(to), __ATOMIC_RELEASE);
}

int dc_reg_peer_enabled(int from, int to)
{
    if (!dev_ok(from) || !dev_ok(to))
        return 0;
    return (__atomic_load_n(&peer_mask[from], __ATOMIC_ACQUIRE) & DC_DEV_BIT(to)) != 0;
}

void dc_reg_pool_set_access(uint64_t pool, int device, int allowed)
{
    if (!dev_ok(device))
        return;
    pthread_rwlock_wrlock(&reg_lock);
    struct pool_access *p;
    HASH_FIND(hh, pools, &pool, sizeof pool, p);
    if (!p && allowed) {
        p = calloc(1, sizeof *p);
        if (p) {
            p->pool = pool;
            reg_oom = 0;
            HASH_ADD(hh, pools, pool, sizeof p->pool, p);
            if (reg_oom) {
                free(p);
                p = NULL;
            }
        }
    }
    if (p) {
        if (allowed)
            p->mask |= DC_DEV_BIT(device);
        else
            p->mask &= ~DC_DEV_BIT(device);
    }
    pthread_rwlock_unlock(&reg_lock);
}

dc_devmask dc_reg_pool_access(uint64_t pool)
{
    dc_devmask m = 0;
    pthread_rwlock_rdlock(&reg_lock);
    struct pool_access *p;
    HASH_FIND(hh, pools, &pool, sizeof pool, p);
    if (p)
        m = p->mask;
    pthread_rwlock_unlock(&reg_lock);
    return m;
}

int dc_reg_may_access(const struct dc_alloc *a, int device)
{
    if (!a || !dev_ok(device))
        return 0;
    int owner_ok = a->owner == device;
    int granted = (a->access & DC_DEV_BIT(device)) != 0;
    switch (a->kind) {
    case DC_MEM_MANAGED:
    case DC_MEM_HOST_PINNED:
    case DC_MEM_HOST_REGISTERED:
        return 1;
    case DC_MEM_DEVICE:
    case DC_MEM_IPC:
        return owner_ok || granted || (dev_ok(a->owner) && dc_reg_peer_enabled(device, a->owner));
    case DC_MEM_POOL:
        return owner_ok || granted || (dc_reg_pool_access(a->pool) & DC_DEV_BIT(device)) != 0;
    case DC_MEM_VMM:
        return granted;
    case DC_MEM_HOST_PAGEABLE:
    case DC_MEM_KIND_COUNT:
        break;
    }
    return 0;
}

void dc_reg_stats(struct dc_reg_stats *s)
{
    memset(s, 0, sizeof *s);
    pthread_rwlock_rdlock(&reg_lock);
    s->live = live_count;
    s->buckets = HASH_COUNT(buckets);
    for (struct bucket *b = buckets; b; b = b->hh.next)
        if (b->n > s->max_bucket)
            s->max_bucket = b->n;
    for (int l = 0; l < NLEVELS; l++)
        if (level_count[l])
            s->levels_used |= 1u << l;
    pthread_rwlock_unlock(&reg_lock);
}

/* ---- reset and fork ---------------------------------------------------------- */

void dc_reg_reset(void)
{
    pthread_rwlock_wrlock(&reg_lock);
    struct entry *e, *tmp;
    DL_FOREACH_SAFE(all_entries, e, tmp) {
        DL_DELETE(all_entries, e);
        free(e);
    }
    struct bucket *b, *btmp;
    HASH_ITER(hh, buckets, b, btmp) {
        HASH_DEL(buckets, b);
        if (b->v != b->inl)
            free(b->v);
        free(b);
    }
    struct pool_access *p, *ptmp;
    HASH_ITER(hh, pools, p, ptmp) {
        HASH_DEL(pools, p);
        free(p);
    }
    treap_root = NULL;
    span_lo = UINTPTR_MAX;
    span_hi = 0;
    memset(level_count, 0, sizeof level_count);
    live_count = 0;
    for (int i = 0; i < DC_MAX_DEVICES; i++)
        __atomic_store_n(&peer_mask[i], 0, __ATOMIC_RELEASE);
    pthread_rwlock_unlock(&reg_lock);
}

void dc_reg_fork_prepare(void) { pthread_rwlock_wrlock(&reg_lock); }
void dc_reg_fork_parent(void)  { pthread_rwlock_unlock(&reg_lock); }
/* In the child the write lock belongs to a thread id that no longer exists
 * (glibc would take the unlock for a reader's): start a fresh lock. */
void dc_reg_fork_child(void) { dc_rwlock_fork_child(&reg_lock, 1); }
