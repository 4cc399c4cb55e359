/* wmemo: the thread's memo of plan words that repeat a finding (see wmemo.h). */
#include "core/verdict/wmemo.h"

#include <stddef.h>

#define WMEMO 32
static __thread struct dc_wmemo wmemo_tls[WMEMO] __attribute__((tls_model("initial-exec")));
static __thread uint64_t wmemo_tick __attribute__((tls_model("initial-exec")));

static inline size_t slot(const struct dc_pword *pw, uintptr_t v)
{
    uint64_t h = ((uint64_t)(uintptr_t)pw ^ (v >> 4)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 59);
}

const struct dc_wmemo *dc_wmemo_find(const void *kernel_key, const struct dc_pword *pw, uintptr_t v, int device,
                                     uint64_t reg_gen, uint64_t kernels_gen)
{
    size_t i = slot(pw, v);
    struct dc_wmemo *m = &wmemo_tls[i];
    if (m->pw != pw || m->v != v)
        m = &wmemo_tls[i ^ 1];
    if (m->pw != pw || m->v != v || m->kernel_key != kernel_key || m->reg_gen != reg_gen ||
        m->kernels_gen != kernels_gen || m->device != device)
        return NULL;
    m->used = ++wmemo_tick;
    return m;
}

void dc_wmemo_put(const struct dc_wmemo *e)
{
    if (!e || !e->pw)
        return;
    size_t i = slot(e->pw, e->v);
    struct dc_wmemo *m = &wmemo_tls[i];
    if (m->pw != e->pw || m->v != e->v) {       /* a new word: the way used longer ago */
        struct dc_wmemo *o = &wmemo_tls[i ^ 1];
        if (o->pw == e->pw && o->v == e->v)
            m = o;
        else if (o->used < m->used)
            m = o;
    }
    *m = *e;
    m->used = ++wmemo_tick;
}
