/* wmemo: the thread's memo of plan words that repeat a finding (see wmemo.h). */
#include "core/verdict/wmemo.h"
#include "core/owner/registry.h"

#include <stddef.h>

/* 16 sets of 4 ways, a word's set by its plan word and value: the peer
 * words of a loop of 8 kernels in turn (one value, the owner's: a set by
 * the plan alone) all stay unless 5 share a set (p < 0.001).  With 32
 * slots of two ways, 3 of a set evicted each other at every launch in some
 * runs (the plans' addresses differ from run to run): bench/run.sh's repeat
 * rows then checked 3 of 8 launches in full (+450 instructions a launch). */
#define WMEMO_SETS 16
#define WMEMO_WAYS 4
static __thread struct dc_wmemo wmemo_tls[WMEMO_SETS * WMEMO_WAYS] __attribute__((tls_model("initial-exec")));
static __thread uint64_t wmemo_tick __attribute__((tls_model("initial-exec")));

/* A full mix of the plan word and the value (core/owner/registry.h): evenly spaced
 * plans (a kernel table's) and one value (a peer word's) land in sets as at
 * random.  (pw ^ v >> 4) * 2^64/phi, the one multiplication of before, put
 * 8 plans 144 bytes apart (a Fibonacci number) in one set. */
size_t dc_wmemo_set(const struct dc_pword *pw, uintptr_t v)
{
    _Static_assert(WMEMO_SETS == 16, "the hash's top 4 bits");
    return (size_t)(dc_mix64((uint64_t)(uintptr_t)pw ^ ((uint64_t)v * 0x9e3779b97f4a7c15ull)) >> 60);
}

/* The first way of the set of (pw, v). */
static inline struct dc_wmemo *set_of(const struct dc_pword *pw, uintptr_t v)
{
    return &wmemo_tls[dc_wmemo_set(pw, v) * WMEMO_WAYS];
}

const struct dc_wmemo *dc_wmemo_find(const void *kernel_key, const struct dc_pword *pw, uintptr_t v, int device,
                                     uint64_t reg_gen, uint64_t kernels_gen)
{
    struct dc_wmemo *m = set_of(pw, v);
    for (int w = 0; w < WMEMO_WAYS; w++, m++)
        if (m->pw == pw && m->v == v) {
            if (m->kernel_key != kernel_key || m->reg_gen != reg_gen || m->kernels_gen != kernels_gen ||
                m->device != device)
                return NULL;
            m->used = ++wmemo_tick;
            return m;
        }
    return NULL;
}

void dc_wmemo_put(const struct dc_wmemo *e)
{
    if (!e || !e->pw)
        return;
    /* the word's way, else the one used longest ago */
    struct dc_wmemo *set = set_of(e->pw, e->v), *m = set;
    for (int w = 0; w < WMEMO_WAYS; w++) {
        if (set[w].pw == e->pw && set[w].v == e->v) {
            m = &set[w];
            break;
        }
        if (set[w].used < m->used)
            m = &set[w];
    }
    *m = *e;
    m->used = ++wmemo_tick;
}
