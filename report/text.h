/* text: a finding as the text report block on the log sink:
 *   ==devcheck== SEVERITY: kind: kernel NAME launched on cuda:D (...)
 *       operand: ..., action: ..., launch stack:, allocated at:, hint: ...
 * (report/FORMAT.md describes it). */
#ifndef DEVCHECK_REPORT_TEXT_H
#define DEVCHECK_REPORT_TEXT_H
#include "report/finding.h"
#include "common/format.h"
#include "report/frames.h"
#include "report/symbolize.h"

#pragma GCC visibility push(hidden)

/* Formats f (kname: its kernel's display name; the symbolized launch and
 * allocation stacks) into b. */
void dc_text_finding(struct dc_buf *b, const struct dc_finding *f, const char *kname,
                     const struct dc_frame *launch_frames, size_t nl, const struct dc_frame *alloc_frames, size_t na);

/* framework_device_error: the note attached to the framework's exception
 * (the user's line, each tensor's device and allocation line, the fix), no
 * trailing newline.  Under the report's lock (dc_report_framework_note). */
void dc_text_framework_note(struct dc_buf *b, const struct dc_finding *f);


#pragma GCC visibility pop
#endif
