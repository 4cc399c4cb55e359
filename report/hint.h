/* hint: what the user should do about a finding, in one sentence and in the
 * words of the client that launched (PyTorch, numba, cuda.core, Python's
 * cuda-bindings, C: report/frames.h): the text block's `hint:` line and the
 * JSON "hint" say the same. */
#ifndef DEVCHECK_REPORT_HINT_H
#define DEVCHECK_REPORT_HINT_H
#include "common/format.h"
#include "report/finding.h"
#include "report/frames.h"

#pragma GCC visibility push(hidden)

/* The fix hint for f, no prefix or newline, into b (nothing for a kind
 * without one). */
void dc_hint(struct dc_buf *b, const struct dc_finding *f, enum dc_client client);

#pragma GCC visibility pop
#endif
