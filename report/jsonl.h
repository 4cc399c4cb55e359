/* jsonl: the JSON Lines records on the json_path sink: one
 * {"type":"finding",...} object per finding (report/finding.schema.json,
 * report/FORMAT.md), and the {"type":"summary",...} object at exit, with the
 * access and transfer matrices (report/matrix.h's counters). */
#ifndef DEVCHECK_REPORT_JSONL_H
#define DEVCHECK_REPORT_JSONL_H
#include <stdint.h>
#include "report/finding.h"
#include "common/format.h"
#include "report/summary.h"
#include "report/symbolize.h"

#pragma GCC visibility push(hidden)

/* The process a record comes from (every record names it: processes and
 * ranks may share one file, and `devcheck report` merges many). */
struct dc_proc {
    int pid;
    int rank;                   /* -1: none in the environment */
    const char *host;
};

/* Formats finding number `id` into b.  *count_at: where its "count" value
 * (written as 1) starts, so the exit can rewrite the record with the final
 * count. */
void dc_jsonl_finding(struct dc_buf *b, const struct dc_finding *f, uint64_t id, const struct dc_proc *proc,
                      const char *kname, const struct dc_frame *launch_frames, size_t nl,
                      const struct dc_frame *alloc_frames, size_t na, size_t *count_at);
/* The summary object (not_recorded: s->dropped; report/summary.h); the
 * suppressions that matched, from report/suppress.h; the driver's CUDA
 * version and where parameter layouts come from (the driver, or devcheck's
 * image reader). */
void dc_jsonl_summary(struct dc_buf *b, const struct dc_report_stats *s, const struct dc_proc *proc,
                      int driver_version, int driver_layouts);

#pragma GCC visibility pop
#endif
