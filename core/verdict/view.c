/* view: what a finding shows of a launch and of an allocation, and the
 * moves of mode=migrate reported as findings (see view.h, check.h). */
#include "core/verdict/view.h"
#include "core/verdict/check.h"
#include "core/kernel/origin.h"
#include "core/owner/blocks.h"
#include "report/counts.h"
#include "report/finding.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

/* The launch as a finding reports it. */
void dc_view_launch(struct dc_finding_launch *out, const struct dc_launch *l)
{
    out->kernel = l->kernel;
    out->kernel_hash = l->kernel_hash;
    out->kernel_key = l->kernel_key;
    out->api = l->api;
    out->device = l->device;
    out->current_device = l->current_device;
    out->stream = l->stream;
    out->path = l->path;
    out->origin = dc_origin_name(l->origin);
}

/* An allocation as a finding reports it (the caching allocator's block
 * holding the operand is put in by dc_block_view once a finding is made:
 * not on the path of a word that makes none). */
void dc_view_alloc(struct dc_finding_alloc *out, const struct dc_alloc *a)
{
    out->base = a->base;
    out->size = a->size;
    out->kind = a->kind;
    out->owner = a->owner;
    out->alloc_stack = a->alloc_stack;
    out->from_driver = a->from_driver;
    out->segment_base = 0;
    out->segment_size = 0;
}

/* ---- mode=migrate ----------------------------------------------------------------------- */

void dc_check_moves_report(const struct dc_launch *l, struct dc_moves *m)
{
    if (!l || !m)
        return;
    struct dc_finding_launch fl;
    dc_view_launch(&fl, l);
    for (unsigned i = 0; i < m->n; i++) {
        const struct dc_move *mv = &m->v[i];
        struct dc_finding f;
        memset(&f, 0, sizeof f);
        f.kind = (enum dc_finding_kind)mv->kind;
        f.severity = (enum dc_severity)mv->severity;
        f.launch = &fl;
        f.launch_stack = mv->launch_stack;
        f.launch_stack_in_key = 1;
        f.has_operand = 1;
        f.param = mv->param;
        f.word_offset = mv->word_offset;
        f.address = mv->address;
        f.alloc_known = mv->alloc_known;
        if (mv->alloc_known) {
            dc_view_alloc(&f.alloc, &mv->alloc);
            (void)dc_block_view(&f.alloc, &mv->alloc, mv->address);
        }
        f.access = mv->access;
        f.word = (enum dc_word_kind)mv->word;
        f.evidence = mv->evidence;
        if (mv->new_address) {
            f.action = DC_ACT_MIGRATED;
            f.to_device = mv->to_device;
            f.moved_bytes = mv->bytes;
            dc_report_count_migrated(mv->bytes);
        } else {
            f.action = DC_ACT_NOT_MIGRATED;
            f.reason = mv->reason ? mv->reason : "not migrated";
        }
        dc_report_finding(&f);
    }
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

void dc_check_count_migrated(uint64_t bytes)
{
    dc_report_count_migrated(bytes);
}

/* ---- how a finding words access (check.c) ---- */

const char *dc_view_denied_note(enum dc_mem_kind kind)
{
    switch (kind) {
    case DC_MEM_POOL: return "the pool grants it no access (cudaMemPoolSetAccess)";
    case DC_MEM_VMM:  return "no access granted with cuMemSetAccess";
    default:          return "peer access not enabled";
    }
}

const char *dc_view_granted_note(const struct dc_alloc *a, int device)
{
    if (a->access & DC_DEV_BIT(device))
        return a->kind == DC_MEM_VMM ? "access granted with cuMemSetAccess" : "access granted";
    if (a->kind == DC_MEM_POOL)
        return "pool access granted";
    return "peer access enabled";
}

/* ---- sync=1's async_error (check.c) ---- */

/* An async_error operand's rank: 0 a pointer the launch device may not
 * access, 1 such a word of unknown meaning, 2 and 3 the accessible ones. */
static int suspicion(const struct dc_opnd *o)
{
    int pointer = o->word == DC_WK_POINTER_PARAM || o->word == DC_WK_POINTER_FIELD;
    return (o->accessible ? 2 : 0) + !pointer;
}

void dc_view_suspects_first(struct dc_opnd *ops, unsigned n)
{
    /* the culprits first: what the launch device could not access (pointers
     * before words of unknown meaning), then the rest; in parameter order
     * within each (a stable insertion sort of at most 64) */
    for (unsigned i = 1; i < n; i++) {
        struct dc_opnd o = ops[i];
        unsigned j = i;
        while (j > 0 && suspicion(&ops[j - 1]) > suspicion(&o)) {
            ops[j] = ops[j - 1];
            j--;
        }
        ops[j] = o;
    }
}

/* async_error: operand o is the suspect, with its allocation. */
void dc_view_suspect(struct dc_finding *f, const struct dc_opnd *o)
{
    f->has_operand = 1;
    f->param = o->param;
    f->word_offset = o->word_offset;
    f->address = o->address;
    f->alloc_known = o->alloc_known;
    f->alloc = o->alloc;
    f->word = o->word;
    f->access = f->alloc_known ? dc_view_denied_note(f->alloc.kind) : "cannot access pageable host memory";
}
