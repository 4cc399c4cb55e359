/* filter: which launches are checked, and the once-per-kernel notes (see
 * filter.h). */
#include "core/verdict/filter.h"
#include "core/base/options.h"
#include "core/kernel/select.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int chk_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); chk_oom = 1; } while (0)
#include <uthash.h>

/* What we remember per kernel: the filter decision, and whether its
 * unchecked_kernel note has been made. */
struct kfilter {
    uintptr_t key;
    UT_hash_handle hh;
    int selected;
    int unchecked_seen;
};

static pthread_rwlock_t k_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct kfilter *kfilters;

static uintptr_t kernel_id(const struct dc_launch *l)
{
    if (l->kernel_key)
        return (uintptr_t)l->kernel_key;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = l->kernel ? l->kernel : ""; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ull;
    }
    return (uintptr_t)(h | 1);      /* odd: never a real handle's alignment */
}

static int decide_selected(const struct dc_launch *l)
{
    const char *why;
    return dc_kernel_name_selected(l->kernel, &why);
}

/* Returns the kernel's cached info (a copy), creating it on first sight. */
static struct kfilter kernel_info(const struct dc_launch *l, int mark_unchecked, int *first_unchecked)
{
    uintptr_t id = kernel_id(l);
    struct kfilter *k, copy;
    *first_unchecked = 0;
    pthread_rwlock_rdlock(&k_lock);
    HASH_FIND(hh, kfilters, &id, sizeof id, k);
    if (k && !(mark_unchecked && !k->unchecked_seen)) {
        copy = *k;
        pthread_rwlock_unlock(&k_lock);
        return copy;
    }
    pthread_rwlock_unlock(&k_lock);

    int selected = decide_selected(l);
    pthread_rwlock_wrlock(&k_lock);
    HASH_FIND(hh, kfilters, &id, sizeof id, k);
    if (!k) {
        k = calloc(1, sizeof *k);
        if (k) {
            k->key = id;
            k->selected = selected;
            chk_oom = 0;
            HASH_ADD(hh, kfilters, key, sizeof k->key, k);
            if (chk_oom) {
                free(k);
                k = NULL;
            }
        }
    }
    if (!k) {               /* out of memory: decide without caching */
        memset(&copy, 0, sizeof copy);
        copy.selected = selected;
        *first_unchecked = mark_unchecked;
        pthread_rwlock_unlock(&k_lock);
        return copy;
    }
    if (mark_unchecked && !k->unchecked_seen) {
        k->unchecked_seen = 1;
        *first_unchecked = 1;
    }
    copy = *k;
    pthread_rwlock_unlock(&k_lock);
    return copy;
}

void dc_filter_reset(void)
{
    pthread_rwlock_wrlock(&k_lock);
    struct kfilter *k, *tmp;
    HASH_ITER(hh, kfilters, k, tmp) {
        HASH_DEL(kfilters, k);
        free(k);
    }
    pthread_rwlock_unlock(&k_lock);
}

void dc_filter_fork_prepare(void) { pthread_rwlock_wrlock(&k_lock); }
void dc_filter_fork_parent(void)  { pthread_rwlock_unlock(&k_lock); }
void dc_filter_fork_child(void)  { dc_rwlock_fork_child(&k_lock, 0); }

int dc_filter_selected(const struct dc_launch *l, int mark_unchecked, int *first_unchecked)
{
    /* the common case, decided without the table: no filter, a checked launch */
    if (!mark_unchecked && !dc_name_filters_set()) {
        *first_unchecked = 0;
        return 1;
    }
    return kernel_info(l, mark_unchecked, first_unchecked).selected;
}
