/* counts: the launch counters, one block per thread, and the bytes
 * migrated (see counts.h). */
#include "report/counts.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

static struct dc_launch_counts *count_blocks;                  /* atomic list head */
static struct dc_launch_counts count_fallback = { .shared = 1 };   /* when a block cannot be made */
__thread struct dc_launch_counts *dc_my_counts __attribute__((tls_model("initial-exec")));
static pthread_key_t counts_key;
static pthread_once_t counts_once = PTHREAD_ONCE_INIT;
static uint64_t bytes_migrated;                         /* atomic */

void dc_report_count_migrated(uint64_t bytes)
{
    __atomic_fetch_add(&bytes_migrated, bytes, __ATOMIC_RELAXED);
}

static void counts_gone(void *p)
{
    struct dc_launch_counts *c = p;
    if (dc_my_counts == c)
        dc_my_counts = NULL;
    __atomic_store_n(&c->in_use, 0, __ATOMIC_RELEASE);
}
static void counts_key_make(void) { (void)pthread_key_create(&counts_key, counts_gone); }

struct dc_launch_counts *dc_counts_claim(void)
{
    pthread_once(&counts_once, counts_key_make);
    struct dc_launch_counts *c;
    for (c = __atomic_load_n(&count_blocks, __ATOMIC_ACQUIRE); c; c = c->next) {
        int zero = 0;
        if (!__atomic_load_n(&c->in_use, __ATOMIC_RELAXED) &&
            __atomic_compare_exchange_n(&c->in_use, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            break;
    }
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return &count_fallback;
        c->in_use = 1;
        struct dc_launch_counts *head = __atomic_load_n(&count_blocks, __ATOMIC_RELAXED);
        do
            c->next = head;
        while (!__atomic_compare_exchange_n(&count_blocks, &head, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    }
    (void)pthread_setspecific(counts_key, c);
    return dc_my_counts = c;
}

void dc_report_count_launch(int checked, enum dc_path path) { dc_counts_launch(dc_counts(), checked, path); }

/* The sum over every block (field at `off`). */
static uint64_t count_sum(size_t off)
{
    uint64_t n = __atomic_load_n((uint64_t *)((char *)&count_fallback + off), __ATOMIC_RELAXED);
    for (struct dc_launch_counts *c = __atomic_load_n(&count_blocks, __ATOMIC_ACQUIRE); c; c = c->next)
        n += __atomic_load_n((uint64_t *)((char *)c + off), __ATOMIC_RELAXED);
    return n;
}

static void count_zero(struct dc_launch_counts *c)
{
    __atomic_store_n(&c->checked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->unchecked, 0, __ATOMIC_RELAXED);
    for (int p = 0; p < DC_PATH_COUNT; p++)
        __atomic_store_n(&c->by_path[p], 0, __ATOMIC_RELAXED);
    for (int d = 0; d < DC_MATRIX_DEVICES; d++)
        for (int m = 0; m < 2; m++)
            __atomic_store_n(&c->clean[d][m], 0, __ATOMIC_RELAXED);
}

uint64_t dc_report_clean_operands(int device, int managed)
{
    if ((unsigned)device >= DC_MATRIX_DEVICES)
        return 0;
    return count_sum(offsetof(struct dc_launch_counts, clean) + ((size_t)device * 2 + (managed != 0)) * sizeof(uint64_t));
}

void dc_counts_stats(struct dc_report_stats *s)
{
    s->launches_checked = count_sum(offsetof(struct dc_launch_counts, checked));
    s->launches_unchecked = count_sum(offsetof(struct dc_launch_counts, unchecked));
    s->bytes_migrated = __atomic_load_n(&bytes_migrated, __ATOMIC_RELAXED);
    s->launches_interpose = count_sum(offsetof(struct dc_launch_counts, by_path[DC_PATH_INTERPOSE]));
    s->launches_cupti = count_sum(offsetof(struct dc_launch_counts, by_path[DC_PATH_CUPTI]));
}

void dc_counts_reset(void)
{
    __atomic_store_n(&bytes_migrated, 0, __ATOMIC_RELAXED);
    count_zero(&count_fallback);
    for (struct dc_launch_counts *c = __atomic_load_n(&count_blocks, __ATOMIC_ACQUIRE); c; c = c->next)
        count_zero(c);
}
