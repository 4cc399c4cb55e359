/* blocks: a caching allocator's blocks (see blocks.h).
 *
 * One open-addressing table keyed by the block's base (linear probing,
 * deletion by backward shift, so no tombstones), at most half full: a block
 * handed out or taken back costs one hash and a short probe under the
 * mutex; this runs on every tensor allocation and free.  A finding's view
 * of an address probes the address itself first (a tensor's data pointer
 * is most often its block's base), then walks the table: O(live blocks),
 * paid only when a finding is made. */
#include "core/owner/blocks.h"
#include "core/owner/registry.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct block {
    uintptr_t base;                     /* 0: an empty slot */
    uint64_t size;
    uint64_t seg_serial;                /* the registry allocation holding it when it came */
    uint32_t stack;
};

static pthread_mutex_t blk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *tab;
static size_t cap;                      /* 0 or a power of two */
static size_t used;                     /* live blocks; atomic (read without the lock) */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&blk_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&blk_lock); }
static void fork_child(void) { dc_mutex_fork_child(&blk_lock); }
static void atfork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static inline size_t slot_of(uintptr_t base, size_t mask) { return (size_t)dc_mix64(base) & mask; }

/* The slot holding base, or the empty slot where it would go (blk_lock held, cap > 0). */
static size_t find_slot(uintptr_t base)
{
    size_t mask = cap - 1, i = slot_of(base, mask);
    while (tab[i].base && tab[i].base != base)
        i = (i + 1) & mask;
    return i;
}

/* Room for one more (blk_lock held): 0, or -1 (nothing changed). */
static int reserve(void)
{
    if (cap && (used + 1) * 2 <= cap)
        return 0;
    size_t ncap = cap ? 2 * cap : 1024;
    struct block *n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    struct block *old = tab;
    size_t ocap = cap;
    tab = n;
    cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].base)
            tab[find_slot(old[i].base)] = old[i];
    free(old);
    return 0;
}

/* Empties slot i, moving later entries of its probe run back (blk_lock held). */
static void erase_at(size_t i)
{
    size_t mask = cap - 1;
    for (size_t j = (i + 1) & mask; tab[j].base; j = (j + 1) & mask) {
        size_t home = slot_of(tab[j].base, mask);
        /* j's entry may move to i when its home is not in (i, j] (cyclically) */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            tab[i] = tab[j];
            i = j;
        }
    }
    tab[i].base = 0;
    __atomic_store_n(&used, used - 1, __ATOMIC_RELAXED);
}

/* Expandable segments map a block's pages one handle at a time: a block
 * may span several registry allocations, each starting where the one before
 * ends.  At most this many are followed. */
#define MAX_SPAN 65536

uint64_t dc_block_holder(uintptr_t base, size_t size)
{
    const struct dc_alloc *seg = base && size ? dc_reg_lookup_ref(base) : NULL;
    if (!seg || size - 1 > UINTPTR_MAX - base)
        return 0;
    uint64_t serial = seg->serial;
    uintptr_t last = base + (size - 1), end = seg->base + (seg->size - 1);
    for (unsigned n = 0; end < last; n++) {
        const struct dc_alloc *next = n < MAX_SPAN ? dc_reg_lookup_ref(end + 1) : NULL;
        if (!next || next->base != end + 1)
            return 0;
        end = next->base + (next->size - 1);
    }
    return serial;
}

void dc_block_add(uintptr_t base, size_t size, uint64_t seg_serial, uint32_t stack)
{
    if (!base || !size || !seg_serial)
        return;
    pthread_once(&atfork_once, atfork);
    pthread_mutex_lock(&blk_lock);
    if (reserve() == 0) {
        size_t i = find_slot(base);
        __atomic_store_n(&used, used + !tab[i].base, __ATOMIC_RELAXED);
        tab[i] = (struct block){ .base = base, .size = size, .seg_serial = seg_serial, .stack = stack };
    }
    pthread_mutex_unlock(&blk_lock);
}

void dc_block_remove(uintptr_t base)
{
    if (!base || __atomic_load_n(&used, __ATOMIC_RELAXED) == 0)
        return;
    pthread_mutex_lock(&blk_lock);
    if (cap) {
        size_t i = find_slot(base);
        if (tab[i].base)
            erase_at(i);
    }
    pthread_mutex_unlock(&blk_lock);
}

/* Is b, a block holding an address of allocation seg, still of the
 * allocation it came in?  *home gets that allocation (seg, or the one at
 * b's base when b starts before seg: pages of an expandable segment). */
static int still_nested(const struct block *b, const struct dc_alloc *seg, struct dc_alloc *home)
{
    if (b->base >= seg->base && b->base - seg->base < seg->size) {
        *home = *seg;
        return b->seg_serial == seg->serial;
    }
    return dc_reg_lookup(b->base, home) == 0 && home->serial == b->seg_serial;
}

/* The live block holding addr, an address of allocation seg, or NULL
 * (blk_lock held). */
static const struct block *holder(uintptr_t addr, const struct dc_alloc *seg, struct dc_alloc *home)
{
    if (!cap)
        return NULL;
    const struct block *b = &tab[find_slot(addr)];
    if (b->base && still_nested(b, seg, home))
        return b;
    for (size_t i = 0; i < cap; i++) {
        b = &tab[i];
        if (b->base && b->base <= addr && addr - b->base < b->size && still_nested(b, seg, home))
            return b;
    }
    return NULL;
}

int dc_block_view(struct dc_finding_alloc *out, const struct dc_alloc *seg, uintptr_t addr)
{
    if (!out || !seg || out->segment_size || __atomic_load_n(&used, __ATOMIC_RELAXED) == 0)
        return 0;
    struct dc_alloc in = *seg, home;    /* seg may be in the thread's registry cache, which lookups reuse */
    pthread_mutex_lock(&blk_lock);
    const struct block *b = holder(addr, &in, &home);
    if (b) {
        out->segment_base = home.base;
        out->segment_size = home.size;
        out->base = b->base;
        out->size = b->size;
        out->alloc_stack = b->stack;
    }
    pthread_mutex_unlock(&blk_lock);
    return b != NULL;
}

size_t dc_block_count(void) { return __atomic_load_n(&used, __ATOMIC_RELAXED); }

void dc_block_reset(void)
{
    pthread_mutex_lock(&blk_lock);
    free(tab);
    tab = NULL;
    cap = 0;
    __atomic_store_n(&used, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&blk_lock);
}
