/* view: a launch and an allocation as a finding reports them (struct
 * dc_finding_launch, struct dc_finding_alloc), how a finding words access,
 * and sync=1's suspects, for the checks of core/verdict/ (check.c; view.c's
 * own report of mode=migrate's moves, dc_check_moves_report in check.h). */
#ifndef DEVCHECK_CORE_VERDICT_VIEW_H
#define DEVCHECK_CORE_VERDICT_VIEW_H

#include "core/verdict/launch.h"
#include "core/owner/registry.h"
#include "report/finding.h"

#pragma GCC visibility push(hidden)

/* The launch l as a finding reports it. */
void dc_view_launch(struct dc_finding_launch *out, const struct dc_launch *l);

/* The allocation a as a finding reports it (the caching allocator's block
 * holding the operand is put in by dc_block_view once a finding is made). */
void dc_view_alloc(struct dc_finding_alloc *out, const struct dc_alloc *a);

/* What a finding says of an operand the launch device may not access
 * (kind: the allocation's), or may (a: its allocation). */
const char *dc_view_denied_note(enum dc_mem_kind kind);
const char *dc_view_granted_note(const struct dc_alloc *a, int device);

/* sync=1's async_error: the n operands ordered suspects first (what the
 * launch device could not access, pointers before words of unknown meaning);
 * dc_view_suspect makes operand o f's suspect, with its allocation. */
void dc_view_suspects_first(struct dc_opnd *ops, unsigned n);
void dc_view_suspect(struct dc_finding *f, const struct dc_opnd *o);

#pragma GCC visibility pop
#endif
