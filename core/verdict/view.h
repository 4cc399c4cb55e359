/* view: a launch and an allocation as a finding reports them (struct
 * dc_finding_launch, struct dc_finding_alloc), for the checks of
 * core/verdict/ (check.c; view.c's own report of mode=migrate's moves,
 * dc_check_moves_report in check.h). */
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

#pragma GCC visibility pop
#endif
