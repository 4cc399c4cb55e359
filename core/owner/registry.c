/* registry: live allocations, interior lookups in O(1) expected time, read
 * without locks.
 *
 * Key scheme (the invariant every function below keeps):
 *  - Level L (0 <= L < NLEVELS) cuts the address space into chunks of
 *    2^(4 + 4L) bytes (16 B, 256 B, 4 KiB, ... 2^60 B).  An allocation of size
 *    S lives at exactly one level: the smallest whose chunk size is >= S.  It
 *    has one table slot for every chunk of that level it touches: at most 2
 *    (at most 16 at the top level, which only holds ranges larger than 2^56
 *    bytes).  Live allocations never overlap and an allocation at level L > 0
 *    is larger than chunk(L)/16, so one chunk meets at most 16 + 2
 *    allocations of its level.  A lookup probes, for each level that holds
 *    allocations, the slots of the address's chunk: independent of the
 *    number of live allocations.
 *  - The table is open addressing with linear probing, one 64-bit slot per
 *    (allocation, chunk): the high 32 bits of the chunk key's hash, then the
 *    entry's id; EMPTY (0) ends a probe, TOMB (a removed slot) does not.  It
 *    is rebuilt into a new table (grown, or rid of tombstones) and the old
 *    one retired (core/base/epoch.c).
 *  - Entries are 64-byte records in slabs that are never freed, named by a
 *    32-bit id.  A removed entry waits until no reader can hold it (its
 *    epoch stamp), then is reused.  Published entries are immutable but for
 *    `access` (atomic): readers read them without synchronisation beyond the
 *    acquire load of the slot.
 *  - A treap of ids ordered by base answers "which live entries overlap
 *    [b, e)" for dc_reg_add (stale entries are removed first) and
 *    dc_reg_set_access in O(log n + k), and finds the entry a free names by
 *    its base; readers never touch it.  Its insert, erase and searches are
 *    loops down one path (no recursion): an allocation and its free cost
 *    a few descents of ~log n nodes each.
 *  - Writers hold one mutex; every change increments `gen`, which validates
 *    the readers' per-thread caches (address -> copy of the entry, in the
 *    thread's epoch record): a launch passing the same pointers as the last
 *    one finds them there, without a probe.
 */
#include "core/owner/registry.h"
#include "core/base/epoch.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NLEVELS 15
#define LEVEL_SHIFT(l) (4u + 4u * (unsigned)(l))
#define SLAB_BITS 12
#define SLAB_SIZE (1u << SLAB_BITS)
#define MAX_SLABS (1u << 14)            /* 64M entries */
#define EMPTY 0ull
#define TOMB (~0ull)
#define NO_LEVEL 0xff                   /* a free entry */
#define MIN_TABLE 1024u
#define POOLS 1024u                     /* pools with access grants (cuMemPoolSetAccess) */

struct entry {
    /* what readers read (immutable while published, but access) */
    uintptr_t base, last;
    dc_devmask access;                  /* atomic */
    uint64_t pool, ctx, serial;
    uint32_t stack;
    uint8_t kind, level, from_driver;
    int8_t owner;
    /* the writer's */
    uint32_t tl, tr;                    /* treap children (ids); tl: next free id when free */
};

struct table {
    uint64_t mask;
    uint64_t slot[];
};

struct pool_access {
    uint64_t pool;                      /* atomic; 0: free */
    dc_devmask mask;                    /* atomic */
};

/* limbo: removed ids waiting for their readers, oldest first */
struct limbo_item {
    uint64_t stamp;
    uint32_t id;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *slabs[MAX_SLABS];  /* published with release stores */
static uint32_t nslabs, next_fresh;     /* writer: slabs made; ids handed out from the last */
static uint32_t free_head;              /* writer: free ids, linked through tl */
static struct limbo_item *limbo;        /* writer: a ring */
static size_t limbo_cap, limbo_head, limbo_len;
static struct table *table;             /* atomic */
static size_t t_used, t_tombs;          /* writer */
static uint32_t treap_root;             /* writer */
static size_t level_count[NLEVELS];     /* writer */
static uint32_t level_mask;             /* atomic: bit L when level L holds entries */
static size_t live_count;               /* atomic */
static uintptr_t span_lo = UINTPTR_MAX, span_hi;   /* atomic: every live entry is inside */
static uint64_t next_serial = 1;
uint64_t dc_reg_gen = 1;                /* atomic: increases with every change (peers' and pools' access too) */
static struct pool_access pools[POOLS];
static dc_devmask peer_mask[DC_MAX_DEVICES]; /* bit `to` in peer_mask[from]; atomics */

/* ---- ids, keys, hashing ------------------------------------------------------ */

static inline struct entry *entry_of(uint32_t id)
{
    uint32_t i = id - 1;
    struct entry *s = __atomic_load_n(&slabs[i >> SLAB_BITS], __ATOMIC_ACQUIRE);
    return &s[i & (SLAB_SIZE - 1)];
}


static int level_for(size_t size)
{
    for (int l = 0; l < NLEVELS - 1; l++)
        if (size <= ((size_t)1 << LEVEL_SHIFT(l)))
            return l;
    return NLEVELS - 1;
}

static inline uint64_t chunk_key(uintptr_t chunk, int level) { return ((uint64_t)chunk << 4) | (unsigned)level; }

/* ---- the reader's lookup ----------------------------------------------------- */

/* The id of the live entry containing addr, or 0.  Readers call it inside
 * an epoch section; the writer under reg_lock. */
static uint32_t find_id(uintptr_t addr)
{
    if (addr < __atomic_load_n(&span_lo, __ATOMIC_RELAXED) || addr > __atomic_load_n(&span_hi, __ATOMIC_RELAXED))
        return 0;                       /* ints, floats, far pointers */
    const struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (!t)
        return 0;
    uint64_t mask = t->mask;
    for (uint32_t m = __atomic_load_n(&level_mask, __ATOMIC_ACQUIRE); m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t h = dc_mix64(chunk_key(addr >> LEVEL_SHIFT(l), l));
        uint32_t tag = (uint32_t)(h >> 32);
        for (uint64_t i = h & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
            uint64_t s = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
            if (s == EMPTY)
                break;
            if (s == TOMB || (uint32_t)(s >> 32) != tag)
                continue;
            const struct entry *e = entry_of((uint32_t)s);
            if (e->level == l && e->base <= addr && addr <= e->last)
                return (uint32_t)s;
        }
    }
    return 0;
}

static const struct entry *find(uintptr_t addr)
{
    uint32_t id = find_id(addr);
    return id ? entry_of(id) : NULL;
}

static void view(struct dc_alloc *out, const struct entry *e)
{
    out->base = e->base;
    out->size = e->last - e->base + 1;
    out->access = __atomic_load_n(&e->access, __ATOMIC_RELAXED);
    out->pool = e->pool;
    out->ctx = e->ctx;
    out->serial = e->serial;
    out->alloc_stack = e->stack;
    out->kind = (enum dc_mem_kind)e->kind;
    out->owner = e->owner;
    out->from_driver = e->from_driver;
}

/* The per-thread cache (registry.h): direct-mapped on the address, valid
 * while dc_reg_gen is; allocated at a thread's first lookup, freed when it
 * exits.  A thread without one (no memory) uses a single slot. */
__thread struct dc_reg_tc *dc_reg_tcache __attribute__((tls_model("initial-exec")));
static __thread struct dc_alloc fallback_answer __attribute__((tls_model("initial-exec")));
static __thread int tcache_failed __attribute__((tls_model("initial-exec")));
static pthread_key_t tc_key;
static pthread_once_t tc_once = PTHREAD_ONCE_INIT;

static void tc_gone(void *p)
{
    if (dc_reg_tcache == p)
        dc_reg_tcache = NULL;
    free(p);
}
static void tc_key_make(void) { (void)pthread_key_create(&tc_key, tc_gone); }

static struct dc_reg_tc *tc_get(void)
{
    struct dc_reg_tc *c = dc_reg_tcache;
    if (!c && !tcache_failed) {
        pthread_once(&tc_once, tc_key_make);
        c = calloc(1, sizeof *c);
        if (c && pthread_setspecific(tc_key, c) != 0) {
            free(c);
            c = NULL;
        }
        tcache_failed = !c;
        dc_reg_tcache = c;
    }
    return c;
}

const struct dc_alloc *dc_reg_lookup_slow(uintptr_t addr)
{
    struct dc_reg_tc *c = tc_get();
    size_t i = dc_reg_tc_index(addr);
    uint64_t g = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    if (c && c->addr[i] == addr && c->gen[i] == g && addr)
        return &c->a[i];
    if (c && c->addr[i ^ 1] == addr && c->gen[i ^ 1] == g && addr)
        return &c->a[i ^ 1];
    /* its own slot when that holds nothing current, else the one beside it
     * when that does not, else its own */
    if (c && c->addr[i] && c->gen[i] == g && !(c->addr[i ^ 1] && c->gen[i ^ 1] == g))
        i ^= 1;
    struct dc_alloc *out = c ? &c->a[i] : &fallback_answer;   /* a thread without a cache: no caching */
    struct dc_epoch_rec *r = dc_epoch_rec();
    dc_epoch_enter_rec(r);
    const struct entry *e = find(addr);
    if (e) {
        view(out, e);
        if (c) {
            c->own[i] = dc_alloc_own_bit(out);
            c->addr[i] = addr;
            c->gen[i] = g;
        }
    }
    dc_epoch_exit_rec(r);
    return e ? out : NULL;
}

int dc_reg_lookup(uintptr_t addr, struct dc_alloc *out)
{
    const struct dc_alloc *a = dc_reg_lookup_ref(addr);
    if (!a)
        return -1;
    if (out)
        *out = *a;
    return 0;
}

/* ---- the writer: entries ------------------------------------------------------- */

static void changed(void) { __atomic_fetch_add(&dc_reg_gen, 1, __ATOMIC_RELEASE); }

/* Moves the limbo's reclaimable ids to the free list. */
static void limbo_reclaim(void)
{
    if (!limbo_len)
        return;
    uint64_t min = dc_epoch_min_active();
    while (limbo_len && limbo[limbo_head].stamp < min) {
        uint32_t id = limbo[limbo_head].id;
        entry_of(id)->tl = free_head;
        free_head = id;
        limbo_head = (limbo_head + 1) % limbo_cap;
        limbo_len--;
    }
}

/* A fresh id (its entry zeroed but for nothing the readers could see), or 0. */
static uint32_t entry_alloc(void)
{
    if (!free_head)
        limbo_reclaim();
    if (free_head) {
        uint32_t id = free_head;
        free_head = entry_of(id)->tl;
        return id;
    }
    if (next_fresh == nslabs * SLAB_SIZE) {
        if (nslabs == MAX_SLABS)
            return 0;
        struct entry *s = calloc(SLAB_SIZE, sizeof *s);
        if (!s)
            return 0;
        for (unsigned i = 0; i < SLAB_SIZE; i++)
            s[i].level = NO_LEVEL;
        __atomic_store_n(&slabs[nslabs], s, __ATOMIC_RELEASE);
        nslabs++;
    }
    return ++next_fresh;
}

/* An id that was never published goes straight back. */
static void entry_unused(uint32_t id)
{
    entry_of(id)->tl = free_head;
    free_head = id;
}

/* A removed id waits for the readers that may hold it.  When the limbo
 * cannot grow, the id is never reused (a leak, never a use after reuse). */
static void entry_retire(uint32_t id)
{
    if (limbo_len == limbo_cap) {
        size_t ncap = limbo_cap ? 2 * limbo_cap : 256;
        struct limbo_item *n = malloc(ncap * sizeof *n);
        if (!n)
            return;
        for (size_t i = 0; i < limbo_len; i++)
            n[i] = limbo[(limbo_head + i) % limbo_cap];
        free(limbo);
        limbo = n;
        limbo_cap = ncap;
        limbo_head = 0;
    }
    limbo[(limbo_head + limbo_len) % limbo_cap] = (struct limbo_item){ dc_epoch_advance(), id };
    limbo_len++;
}

/* ---- the writer: the table ---------------------------------------------------- */

static void table_free(void *p) { free(p); }

/* Writes slot value v for key k into t (no capacity check). */
static void table_put(struct table *t, uint64_t k, uint32_t id)
{
    uint64_t h = dc_mix64(k);
    uint64_t v = (h >> 32 << 32) | id;
    for (uint64_t i = h & t->mask;; i = (i + 1) & t->mask) {
        uint64_t s = t->slot[i];
        if (s == EMPTY || s == TOMB) {
            if (s == TOMB)
                t_tombs--;
            __atomic_store_n(&t->slot[i], v, __ATOMIC_RELEASE);
            t_used++;
            return;
        }
    }
}

static void table_drop(struct table *t, uint64_t k, uint32_t id)
{
    uint64_t h = dc_mix64(k);
    uint64_t v = (h >> 32 << 32) | id;
    for (uint64_t i = h & t->mask, n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        uint64_t s = t->slot[i];
        if (s == EMPTY)
            return;
        if (s == v) {
            __atomic_store_n(&t->slot[i], TOMB, __ATOMIC_RELEASE);
            t_used--;
            t_tombs++;
            return;
        }
    }
}

/* Chunks of e's level that e touches: [c0, c1]. */
static void entry_chunks(const struct entry *e, uintptr_t *c0, uintptr_t *c1)
{
    unsigned s = LEVEL_SHIFT(e->level);
    *c0 = e->base >> s;
    *c1 = e->last >> s;
}

static size_t entry_nchunks(const struct entry *e)
{
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    return (size_t)(c1 - c0) + 1;
}

static void entry_bucket_in(struct table *t, uint32_t id, const struct entry *e)
{
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    for (uintptr_t c = c0;; c++) {
        table_put(t, chunk_key(c, e->level), id);
        if (c == c1)
            break;
    }
}

/* Every published entry, in base order (the treap). */
static void treap_each(uint32_t t, void (*fn)(uint32_t, void *), void *arg)
{
    while (t) {
        const struct entry *e = entry_of(t);
        treap_each(e->tl, fn, arg);
        fn(t, arg);
        t = e->tr;
    }
}

static void rebucket(uint32_t id, void *t) { entry_bucket_in(t, id, entry_of(id)); }

/* Makes room for `more` slots: rebuilds into a table of at most 50% load
 * when used + tombstones would pass 75%.  0, or -1 (nothing changed). */
static int table_reserve(size_t more)
{
    struct table *t = table;
    size_t cap = t ? (size_t)t->mask + 1 : 0;
    if (t && (t_used + t_tombs + more) * 4 <= cap * 3)
        return 0;
    size_t ncap = MIN_TABLE;
    while (ncap < 2 * (t_used + more))
        ncap *= 2;
    struct table *n = calloc(1, sizeof *n + ncap * sizeof n->slot[0]);
    if (!n)
        return -1;
    n->mask = ncap - 1;
    t_used = t_tombs = 0;
    treap_each(treap_root, rebucket, n);
    __atomic_store_n(&table, n, __ATOMIC_RELEASE);
    if (t)
        dc_epoch_retire(t, table_free);
    return 0;
}

static void entry_unbucket(uint32_t id, const struct entry *e)
{
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    for (uintptr_t c = c0;; c++) {
        table_drop(table, chunk_key(c, e->level), id);
        if (c == c1)
            break;
    }
}


/* ---- the writer: the treap by base address -------------------------------------- */

/* A fixed pseudo-random priority per id (Fibonacci hashing). */
static inline uint32_t prio(uint32_t id) { return id * 0x9e3779b1u; }

/* Inserts id, whose base no live entry has: down the search path while the
 * nodes outrank it, then the subtree there is split around its base
 * (iterative: no recursion, one pass). */
static void treap_insert(uint32_t id)
{
    struct entry *e = entry_of(id);
    uintptr_t key = e->base;
    uint32_t p = prio(id), *link = &treap_root;
    while (*link && prio(*link) > p) {
        struct entry *t = entry_of(*link);
        link = key < t->base ? &t->tl : &t->tr;
    }
    uint32_t t = *link, *l = &e->tl, *r = &e->tr;
    while (t) {
        struct entry *te = entry_of(t);
        if (te->base < key) {
            *l = t;
            l = &te->tr;
            t = te->tr;
        } else {
            *r = t;
            r = &te->tl;
            t = te->tl;
        }
    }
    *l = *r = 0;
    *link = id;
}

/* The link that holds the live entry whose base is `base` (*link == 0: none). */
static uint32_t *treap_link(uintptr_t base)
{
    uint32_t *link = &treap_root;
    while (*link) {
        struct entry *t = entry_of(*link);
        if (t->base == base)
            break;
        link = base < t->base ? &t->tl : &t->tr;
    }
    return link;
}

/* Takes the node at *link out: its two subtrees merged in its place. */
static void treap_unlink(uint32_t *link)
{
    struct entry *e = entry_of(*link);
    uint32_t a = e->tl, b = e->tr;      /* every base in a < every base in b */
    while (a && b) {
        if (prio(a) > prio(b)) {
            *link = a;
            link = &entry_of(a)->tr;
            a = *link;
        } else {
            *link = b;
            link = &entry_of(b)->tl;
            b = *link;
        }
    }
    *link = a ? a : b;
}

/* One descent around x: returns the live entry with the smallest base > x
 * (0: none); *below gets the one with the largest base <= x (0: none). */
static uint32_t treap_around(uintptr_t x, uint32_t *below)
{
    uint32_t t = treap_root, lo = 0, hi = 0;
    while (t) {
        struct entry *te = entry_of(t);
        if (te->base <= x) {
            lo = t;
            t = te->tr;
        } else {
            hi = t;
            t = te->tl;
        }
    }
    *below = lo;
    return hi;
}

/* The first live entry overlapping [b, last] (in address order), or 0;
 * overlap_next() continues after `prev`.  The entry with the largest base
 * <= b overlaps if it reaches b; else the one with the smallest base > b,
 * if it starts by last. */
static uint32_t overlap_first(uintptr_t b, uintptr_t last)
{
    uint32_t below, above = treap_around(b, &below);
    if (below && entry_of(below)->last >= b)
        return below;
    return above && entry_of(above)->base <= last ? above : 0;
}

/* The entry after prev, if it starts by last (none after an entry that ends
 * at the top of the address space: no base is above its last). */
static uint32_t overlap_next(uint32_t prev, uintptr_t last)
{
    uint32_t below, id = treap_around(entry_of(prev)->last, &below);
    return id && entry_of(id)->base <= last ? id : 0;
}

/* ---- the writer: add and remove -------------------------------------------------------- */

/* Removes live entry id; link is the treap link that holds it. */
static void entry_remove_at(uint32_t id, uint32_t *link)
{
    struct entry *e = entry_of(id);
    entry_unbucket(id, e);
    if (*link == id)
        treap_unlink(link);
    if (--level_count[e->level] == 0)
        __atomic_fetch_and(&level_mask, ~(1u << e->level), __ATOMIC_RELEASE);
    __atomic_store_n(&live_count, live_count - 1, __ATOMIC_RELAXED);
    entry_retire(id);
}

static void entry_remove(uint32_t id) { entry_remove_at(id, treap_link(entry_of(id)->base)); }

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
    pthread_mutex_lock(&reg_lock);
    uint32_t id = entry_alloc();
    if (!id) {
        pthread_mutex_unlock(&reg_lock);
        return -1;
    }
    struct entry *e = entry_of(id);
    e->base = a->base;
    e->last = last;
    __atomic_store_n(&e->access, a->access, __ATOMIC_RELAXED);
    e->pool = a->pool;
    e->ctx = a->ctx;
    e->stack = a->alloc_stack;
    e->kind = (uint8_t)a->kind;
    e->owner = (int8_t)(a->owner < -1 || a->owner >= DC_MAX_DEVICES ? -1 : a->owner);
    e->from_driver = a->from_driver != 0;
    e->level = (uint8_t)level_for(a->size);
    e->tl = e->tr = 0;
    /* room first: if that fails nothing has changed yet */
    if (table_reserve(entry_nchunks(e)) != 0) {
        e->level = NO_LEVEL;
        entry_unused(id);
        pthread_mutex_unlock(&reg_lock);
        return -1;
    }
    /* stale entries the range overlaps (the program freed them behind our
     * back) go first, so lookups never see both */
    for (uint32_t o = overlap_first(a->base, last), n; o; o = n) {
        n = overlap_next(o, last);
        entry_remove(o);
    }
    e->serial = next_serial++;
    if (a->base < span_lo)
        __atomic_store_n(&span_lo, a->base, __ATOMIC_RELAXED);
    if (last > span_hi)
        __atomic_store_n(&span_hi, last, __ATOMIC_RELAXED);
    if (level_count[e->level]++ == 0)
        __atomic_fetch_or(&level_mask, 1u << e->level, __ATOMIC_RELEASE);
    entry_bucket_in(table, id, e);              /* published: release stores of its slots */
    treap_insert(id);
    __atomic_store_n(&live_count, live_count + 1, __ATOMIC_RELAXED);
    changed();
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

int dc_reg_remove(uintptr_t base, struct dc_alloc *out)
{
    int rc = -1;
    pthread_mutex_lock(&reg_lock);
    uint32_t *link = treap_link(base), id = *link;
    if (id) {
        if (out)
            view(out, entry_of(id));
        entry_remove_at(id, link);
        changed();
        rc = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void dc_reg_set_access(uintptr_t base, size_t size, int device, int allowed)
{
    uintptr_t last;
    if (device < 0 || device >= DC_MAX_DEVICES || range_last(base, size, &last) != 0)
        return;
    pthread_mutex_lock(&reg_lock);
    for (uint32_t o = overlap_first(base, last); o; o = overlap_next(o, last)) {
        struct entry *e = entry_of(o);
        if (allowed)
            __atomic_fetch_or(&e->access, DC_DEV_BIT(device), __ATOMIC_RELAXED);
        else
            __atomic_fetch_and(&e->access, ~DC_DEV_BIT(device), __ATOMIC_RELAXED);
    }
    changed();
    pthread_mutex_unlock(&reg_lock);
}

/* Is id published (not removed, not free)?  Removed entries keep their
 * fields while readers may hold them. */
static int published(uint32_t id)
{
    const struct entry *e = entry_of(id);
    return e->level != NO_LEVEL && find_id(e->base) == id;
}

struct drop_arg {
    uint64_t ctx;                       /* 0: entries the driver told of */
    unsigned kind_mask;
};

/* Removes every published entry the argument picks; returns count.
 * reg_lock held. */
static size_t drop_where(const struct drop_arg *d)
{
    size_t n = 0;
    for (uint32_t id = 1; id <= next_fresh; id++) {
        const struct entry *e = entry_of(id);
        int pick = d->ctx ? e->ctx == d->ctx && e->kind < 32 && (d->kind_mask & (1u << e->kind)) : e->from_driver;
        if (pick && published(id)) {
            entry_remove(id);
            n++;
        }
    }
    if (n)
        changed();
    return n;
}

size_t dc_reg_drop_ctx(uint64_t ctx, unsigned kind_mask)
{
    if (!ctx)
        return 0;
    struct drop_arg d = { ctx, kind_mask };
    pthread_mutex_lock(&reg_lock);
    size_t n = drop_where(&d);
    pthread_mutex_unlock(&reg_lock);
    return n;
}

size_t dc_reg_drop_from_driver(void)
{
    struct drop_arg d = { 0, 0 };
    pthread_mutex_lock(&reg_lock);
    size_t n = drop_where(&d);
    pthread_mutex_unlock(&reg_lock);
    return n;
}

size_t dc_reg_count(void) { return __atomic_load_n(&live_count, __ATOMIC_RELAXED); }

size_t dc_reg_bytes(void)
{
    pthread_mutex_lock(&reg_lock);
    const struct table *t = table;
    size_t n = (size_t)nslabs * SLAB_SIZE * sizeof(struct entry) +
               (t ? sizeof *t + ((size_t)t->mask + 1) * sizeof t->slot[0] : 0);
    pthread_mutex_unlock(&reg_lock);
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
    changed();                          /* who may access what: verdicts kept by generation change */
}

static uint32_t peer_stack[DC_MAX_DEVICES][DC_MAX_DEVICES];

void dc_reg_set_peer_stack(int from, int to, uint32_t stack)
{
    if (dev_ok(from) && dev_ok(to))
        __atomic_store_n(&peer_stack[from][to], stack, __ATOMIC_RELAXED);
}

uint32_t dc_reg_peer_stack(int from, int to)
{
    return dev_ok(from) && dev_ok(to) ? __atomic_load_n(&peer_stack[from][to], __ATOMIC_RELAXED) : 0;
}

int dc_reg_peer_enabled(int from, int to)
{
    if (!dev_ok(from) || !dev_ok(to))
        return 0;
    return (__atomic_load_n(&peer_mask[from], __ATOMIC_ACQUIRE) & DC_DEV_BIT(to)) != 0;
}

/* The pool's slot: its own, or (create) the free one its probe ends at; NULL. */
static struct pool_access *pool_slot(uint64_t pool, int create)
{
    if (!pool)
        return NULL;
    for (uint64_t i = dc_mix64(pool) % POOLS, n = 0; n < POOLS; i = (i + 1) % POOLS, n++) {
        uint64_t p = __atomic_load_n(&pools[i].pool, __ATOMIC_ACQUIRE);
        if (p == pool)
            return &pools[i];
        if (!p) {
            if (!create)
                return NULL;
            __atomic_store_n(&pools[i].pool, pool, __ATOMIC_RELEASE);
            return &pools[i];
        }
    }
    return NULL;                        /* full: the grant is not recorded */
}

void dc_reg_pool_set_access(uint64_t pool, int device, int allowed)
{
    if (!dev_ok(device))
        return;
    pthread_mutex_lock(&reg_lock);
    struct pool_access *p = pool_slot(pool, allowed);
    if (p) {
        if (allowed)
            __atomic_fetch_or(&p->mask, DC_DEV_BIT(device), __ATOMIC_RELEASE);
        else
            __atomic_fetch_and(&p->mask, ~DC_DEV_BIT(device), __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&reg_lock);
    changed();
}

dc_devmask dc_reg_pool_access(uint64_t pool)
{
    struct pool_access *p = pool_slot(pool, 0);
    return p ? __atomic_load_n(&p->mask, __ATOMIC_ACQUIRE) : 0;
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

/* ---- shape (tests) ------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct keys {
    uint64_t *v;
    size_t n, cap;
};

static void add_keys(uint32_t id, void *arg)
{
    struct keys *k = arg;
    const struct entry *e = entry_of(id);
    uintptr_t c0, c1;
    entry_chunks(e, &c0, &c1);
    for (uintptr_t c = c0; k->n < k->cap; c++) {
        k->v[k->n++] = chunk_key(c, e->level);
        if (c == c1)
            break;
    }
}

void dc_reg_stats(struct dc_reg_stats *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&reg_lock);
    s->live = live_count;
    for (int l = 0; l < NLEVELS; l++)
        if (level_count[l])
            s->levels_used |= 1u << l;
    /* buckets: the distinct (level, chunk) keys of the live entries */
    struct keys k = { t_used ? malloc(t_used * sizeof *k.v) : NULL, 0, t_used };
    if (k.v)
        treap_each(treap_root, add_keys, &k);
    uint64_t *keys = k.v;
    size_t nk = k.n;
    if (nk)                             /* qsort's array must not be NULL, even empty */
        qsort(keys, nk, sizeof *keys, cmp_u64);
    for (size_t i = 0, run = 0; i < nk; i++) {
        run = i && keys[i] == keys[i - 1] ? run + 1 : 1;
        if (run == 1)
            s->buckets++;
        if (run > s->max_bucket)
            s->max_bucket = run;
    }
    free(keys);
    pthread_mutex_unlock(&reg_lock);
}

/* ---- reset and fork ---------------------------------------------------------- */

void dc_reg_reset(void)
{
    pthread_mutex_lock(&reg_lock);
    for (uint32_t id = 1; id <= next_fresh; id++)
        if (published(id))
            entry_remove(id);
    for (unsigned i = 0; i < POOLS; i++) {
        __atomic_store_n(&pools[i].mask, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&pools[i].pool, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&span_lo, UINTPTR_MAX, __ATOMIC_RELAXED);
    __atomic_store_n(&span_hi, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < DC_MAX_DEVICES; i++)
        __atomic_store_n(&peer_mask[i], 0, __ATOMIC_RELEASE);
    changed();
    pthread_mutex_unlock(&reg_lock);
}

void dc_reg_fork_prepare(void) { pthread_mutex_lock(&reg_lock); }
void dc_reg_fork_parent(void)  { pthread_mutex_unlock(&reg_lock); }
void dc_reg_fork_child(void) { dc_mutex_fork_child(&reg_lock); }
