/* lmemo: the thread's last clean launch (see lmemo.h). */
#include "core/verdict/lmemo.h"
#include "core/verdict/check.h"
#include "report/matrix.h"
#include "report/stack.h"

__thread struct dc_lmemo dc_lmemo[DC_LMEMO_SLOTS] __attribute__((tls_model("initial-exec")));

void dc_lmemo_keep(const struct dc_launch *l, unsigned own, unsigned managed, const struct dc_lmemo_rep *rep,
                   uint64_t rg, uint64_t kg)
{
    uintptr_t w[DC_LMEMO_WORDS];
    unsigned nonzero = 0;
    if (!l->args || l->npwords > DC_LMEMO_WORDS)
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
    struct dc_lmemo *m = &dc_lmemo[dc_lmemo_slot(l->kernel_key)];
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
    m->key = l->kernel_key;
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
