/* lmemo: the thread's last clean launch (issue 38).
 *
 * A launch whose every planned pointer word (struct dc_kernel.pwords) was 0
 * or in memory the launch device owns (or managed memory) has nothing to
 * say, and says nothing again while nothing its verdict rests on has
 * changed: the kernel (its key, its plan and the kernels' generation), the
 * launch device, the words' values, and the registry's generation (every
 * allocation, free, peer and pool access change bumps it; the options do
 * not change after the start).  The same holds for a launch whose words
 * were all clean but one, which repeated a finding from the word memo
 * (core/verdict/wmemo.h) or was legal peer traffic under peer=ignore: kept
 * with it, the record is counted again once the launch stack is proven the
 * record's (dc_lmemo_repeat).  dc_check_launch (core/verdict/check.c)
 * keeps such a launch here; the launch description (core/verdict/launch.c)
 * asks dc_lmemo_again before describing the next one: a hit counts the
 * launch and its clean operands as the check would, and nothing else (no
 * kernel filters: the memo is never filled while they are set; no finding
 * can come of it).  A launch that made a new finding, needed more than the
 * registry's own-memory test or the word memo for a word, repeated more
 * than one, or has more than DC_LMEMO_WORDS planned words is never kept.
 * Per thread, no lock: the last launch of each of up to DC_LMEMO_WAYS
 * kernels in each of DC_LMEMO_SETS sets, a kernel's set by its key (a loop
 * of 8 kernels in turn keeps each unless 5 share a set, p < 0.001; with 8
 * direct-mapped slots, 8 kernels miss one another only by luck: in the runs
 * measured, 3 of bench/run.sh's 8 evicted each other at every launch in one
 * backend and not the other, the kernels' keys differing, and its repeat
 * rows varied by ~450 instructions a launch). */
#ifndef DEVCHECK_CORE_VERDICT_LMEMO_H
#define DEVCHECK_CORE_VERDICT_LMEMO_H
#include <stdint.h>
#include <string.h>
#include "core/kernel/kernels.h"
#include "core/owner/registry.h"
#include "report/counts.h"
#include "report/finding.h"

#pragma GCC visibility push(hidden)

#define DC_LMEMO_WORDS 16
/* The one word of a kept launch that repeated a finding (the word memo's
 * repeat, core/verdict/wmemo.h) or was legal peer traffic ignored by
 * option: its plan index, access-matrix column, the launch stack its
 * record's key has (0: none, legal peer traffic) and its record (ref.r
 * NULL: none, peer=ignore). */
struct dc_lmemo_rep {
    unsigned idx;
    int col;
    uint32_t stack;
    struct dc_report_ref ref;
};
struct dc_lmemo {
    const struct dc_pword *pw;          /* the kernel's plan */
    uint64_t reg_gen, kernels_gen;
    int device;
    unsigned n;                         /* plan words (<= DC_LMEMO_WORDS) */
    uint32_t own, managed;              /* its clean operands (the access matrix) */
    uintptr_t w[DC_LMEMO_WORDS];        /* the words' values */
    int has_rep;                        /* rep: one word repeated a finding; the others were clean */
    struct dc_lmemo_rep rep;
};
/* A set: its kernels' keys (NULL: an empty way), then their entries. */
#define DC_LMEMO_SETS 16
#define DC_LMEMO_WAYS 4
struct dc_lmemo_set {
    const void *key[DC_LMEMO_WAYS];
    struct dc_lmemo way[DC_LMEMO_WAYS];
};
extern __thread struct dc_lmemo_set dc_lmemo[DC_LMEMO_SETS] __attribute__((tls_model("initial-exec")));
/* the set of a kernel's key: the top 4 bits of its mix (core/owner/registry.h) */
#define dc_lmemo_set_of(key) (&dc_lmemo[dc_mix64((uint64_t)(uintptr_t)(key)) >> 60])
_Static_assert(DC_LMEMO_SETS == 16 && DC_LMEMO_WAYS == 4, "dc_lmemo_set_of, dc_lmemo_find");

/* The thread's kept launch of the kernel `key` (not NULL), NULL if none. */
static inline __attribute__((always_inline)) const struct dc_lmemo *dc_lmemo_find(const void *key)
{
    const struct dc_lmemo_set *s = dc_lmemo_set_of(key);
    if (s->key[0] == key)
        return &s->way[0];
    if (s->key[1] == key)
        return &s->way[1];
    if (s->key[2] == key)
        return &s->way[2];
    if (s->key[3] == key)
        return &s->way[3];
    return NULL;
}

struct dc_launch;
/* Keeps l (kernelParams-style args, a plan of at most DC_LMEMO_WORDS words)
 * as the thread's last clean launch when every planned word of it was 0 or
 * one of its own + managed clean operands, at the generations rg, kg read
 * before its lookups; else leaves the memo as it was.  dc_check_launch's. */
void dc_lmemo_keep(const struct dc_launch *l, unsigned own, unsigned managed, const struct dc_lmemo_rep *rep,
                   uint64_t rg, uint64_t kg);
/* The kept launch's repeated finding, again: its launch stack proven (when
 * its key has one) and its record counted, with the access matrix's
 * operand; 1 when done, 0 (nothing counted) when the launch must be
 * checked. */
int dc_lmemo_repeat(const struct dc_lmemo *m, const void *key, int device);

/* 1 when the launch of `key` (plan pw) on `device` (current_device: the
 * runtime's, -1 for none) with kernelParams-style args repeats this
 * thread's last clean launch: then it is counted (checked, seen by `path`,
 * its clean operands), as dc_check_launch would.  0: check it. */
static inline __attribute__((always_inline)) int
dc_lmemo_again(const void *key, const struct dc_pword *pw, int device, int current_device, int path,
               void *const *args)
{
    const struct dc_lmemo *m = key ? dc_lmemo_find(key) : NULL;
    if (!m || m->pw != pw || m->device != device || (current_device >= 0 && current_device != device) ||
        m->reg_gen != __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE) ||
        m->kernels_gen != __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE))
        return 0;
    const uintptr_t *w = m->w;
    for (const struct dc_pword *q = pw, *end = pw + m->n; q < end; q++, w++) {
        const unsigned char *p = args[q->param];
        uintptr_t v = 0;
        if (__builtin_expect(p != NULL, 1))
            memcpy(&v, p + q->offset, sizeof v);
        if (v != *w)
            return 0;
    }
    if (__builtin_expect(m->has_rep, 0) && !dc_lmemo_repeat(m, key, device))
        return 0;
    struct dc_launch_counts *c = dc_counts();
    if (__builtin_expect(c->shared || (unsigned)path >= DC_PATH_COUNT || (unsigned)device >= DC_MATRIX_DEVICES, 0)) {
        dc_counts_launch(c, 1, (enum dc_path)path);
        dc_counts_clean(c, device, m->own, m->managed);
        return 1;
    }
    /* the thread's own block (report/counts.h): dc_counts_add's stores, shared tested once */
#define DC_LMEMO_ADD(x, n) __atomic_store_n(&(x), __atomic_load_n(&(x), __ATOMIC_RELAXED) + (n), __ATOMIC_RELAXED)
    DC_LMEMO_ADD(c->checked, 1);
    DC_LMEMO_ADD(c->by_path[path], 1);
    DC_LMEMO_ADD(c->clean[device][0], m->own);
    DC_LMEMO_ADD(c->clean[device][1], m->managed);
#undef DC_LMEMO_ADD
    return 1;
}

#pragma GCC visibility pop
#endif
