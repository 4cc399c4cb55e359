/* counts: the launch counters, one block per thread, and the bytes
 * migrated: what the core counts on its hot paths for the summary.
 * A launch writes only its own thread's block -- no shared cache line, no
 * atomic read-modify-write -- and the summary and the access matrix sum
 * every block.  Blocks are never freed: a thread's block goes back to the
 * pool when it exits, its counts kept, for the next thread.  When no block
 * can be made, a thread counts in one shared block (`shared`: atomic adds). */
#ifndef DEVCHECK_REPORT_COUNTS_H
#define DEVCHECK_REPORT_COUNTS_H
#include <stdint.h>
#include "report/finding.h"             /* enum dc_path */
#include "report/matrix.h"              /* DC_MATRIX_DEVICES */
#include "report/summary.h"             /* struct dc_report_stats */

#pragma GCC visibility push(hidden)

struct dc_launch_counts {
    uint64_t checked, unchecked, by_path[DC_PATH_COUNT];    /* atomics, written by the owner */
    uint64_t clean[DC_MATRIX_DEVICES][2];   /* clean operands by launch device: own memory, managed */
    int shared;                             /* the fallback block: every thread adds atomically */
    int in_use;                             /* atomic */
    struct dc_launch_counts *next;          /* set before publishing */
};

extern __thread struct dc_launch_counts *dc_my_counts __attribute__((tls_model("initial-exec")));
struct dc_launch_counts *dc_counts_claim(void);

/* The calling thread's block. */
static inline struct dc_launch_counts *dc_counts(void)
{
    struct dc_launch_counts *c = dc_my_counts;
    return __builtin_expect(c != NULL, 1) ? c : dc_counts_claim();
}

static inline void dc_counts_add(const struct dc_launch_counts *c, uint64_t *x, uint64_t n)
{
    if (__builtin_expect(c->shared, 0))
        __atomic_fetch_add(x, n, __ATOMIC_RELAXED);
    else
        __atomic_store_n(x, __atomic_load_n(x, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* A launch checked (or not) on `path`; its clean operands on `device`. */
static inline void dc_counts_launch(struct dc_launch_counts *c, int checked, enum dc_path path)
{
    dc_counts_add(c, checked ? &c->checked : &c->unchecked, 1);
    dc_counts_add(c, &c->by_path[(unsigned)path < DC_PATH_COUNT ? path : DC_PATH_INTERPOSE], 1);
}
static inline void dc_counts_clean(struct dc_launch_counts *c, int device, uint64_t own, uint64_t managed)
{
    if ((unsigned)device >= DC_MATRIX_DEVICES)
        return;
    dc_counts_add(c, &c->clean[device][0], own);
    dc_counts_add(c, &c->clean[device][1], managed);
}

/* Counts a launch for the summary: checked (1) or unchecked (0), seen by
 * detection path `path` (dc_counts_launch on the calling thread's block). */
void dc_report_count_launch(int checked, enum dc_path path);
/* Adds to the summary's bytes_migrated. */
void dc_report_count_migrated(uint64_t bytes);
/* The clean operands of launches on `device`, summed over every thread:
 * managed 0 its own memory, 1 managed memory (the access matrix). */
uint64_t dc_report_clean_operands(int device, int managed);
/* The summary's launch counters and bytes migrated into s (the other
 * fields untouched). */
void dc_counts_stats(struct dc_report_stats *s);
/* Zeroes every counter (a fork child, tests); the blocks stay. */
void dc_counts_reset(void);

#pragma GCC visibility pop
#endif
