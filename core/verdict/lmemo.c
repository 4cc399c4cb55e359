/* lmemo: the thread's last clean launch (see lmemo.h). */
#include "core/verdict/lmemo.h"
#include "core/verdict/check.h"
#include "report/matrix.h"
#include "report/stack.h"

__thread struct dc_lmemo_set dc_lmemo[DC_LMEMO_SETS] __attribute__((tls_model("initial-exec")));
static __thread unsigned lmemo_next __attribute__((tls_model("initial-exec")));  /* the way a full set gives up */

void dc_lmemo_keep(const struct dc_launch *l, unsigned own, unsigned managed, const struct dc_lmemo_rep *rep,
                   uint64_t rg, uint64_t kg)
{
    uintptr_t w[DC_LMEMO_WORDS];
    unsigned nonzero = 0;
    if (!l->args || !l->kernel_key || l->npwords > DC_LMEMO_WORDS)
        return;
    for (unsigned i = 0; i < l->npwords; i++) {
        const unsigned char *p = l->args[l->pwords[i].param];
        w[i] = 0;
        if (p)
            memcpy(&w[i], p + l->pwords[i].offset, sizeof w[i]);
        nonzero += w[i] != 0;
    }
    if (nonzero != own + managed + (rep != NULL))
        return;                         /* a word said something, or was decided by more than the registry */
    /* the kernel's way, else an empty one, else the next in turn */
    struct dc_lmemo_set *s = dc_lmemo_set_of(l->kernel_key);
    unsigned way = DC_LMEMO_WAYS;
    for (unsigned i = 0; i < DC_LMEMO_WAYS && way == DC_LMEMO_WAYS; i++)
        if (s->key[i] == l->kernel_key)
            way = i;
    for (unsigned i = 0; i < DC_LMEMO_WAYS && way == DC_LMEMO_WAYS; i++)
        if (!s->key[i])
            way = i;
    if (way == DC_LMEMO_WAYS)
        way = lmemo_next++ % DC_LMEMO_WAYS;
    s->key[way] = l->kernel_key;
    struct dc_lmemo *m = &s->way[way];
    memcpy(m->w, w, l->npwords * sizeof w[0]);
    m->has_rep = rep != NULL;
    if (rep)
        m->rep = *rep;
    m->pw = l->pwords;
    m->n = l->npwords;
    m->reg_gen = rg;
    m->kernels_gen = kg;
    m->device = l->device;
    m->own = own;
    m->managed = managed;
}

int dc_lmemo_repeat(const struct dc_lmemo *m, const void *key, int device)
{
    /* as core/verdict/check.c plan_word_check: the stack first, then the record */
    if (m->rep.stack && dc_stack_capture_finding(0, (uintptr_t)key) != m->rep.stack)
        return 0;
    if (m->rep.ref.r && !dc_report_repeat_ref(&m->rep.ref))
        return 0;
    dc_report_count_operand(device, m->rep.col);
    return 1;
}
