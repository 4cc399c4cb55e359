/* fold: which frames of a stack a text report shows (issue 41: a finding's
 * block fits in a screen): the innermost always, a run of two or more
 * library frames after it folded behind a count (verbosity >= 1 unfolds).
 * report/text.c prints by it; report/symbolize.c names by it (DC_SYM_SHOWN:
 * a folded frame's name is never read, so a large library's symbol table
 * is not read for it, issue 38). */
#ifndef DC_FOLD_H
#define DC_FOLD_H
#include <stddef.h>
#include "report/symframe.h"

/* A frame the user did not write: a Python file where Python put libraries
 * (report/pystack.h), a native frame of a system folder or with no source
 * line (a library's), the CUDA toolkit's headers. */
int dc_frame_library(const struct dc_frame *f);
/* Whether any of fr[0 .. n) (one stack's native, or its Python, frames) is
 * the user's own. */
int dc_frames_any_user(const struct dc_frame *fr, size_t n);
/* Of a folded stack fr[0 .. n) (user: dc_frames_any_user's answer), the
 * library frames from i on that fold with it (the innermost frame stays
 * when the user wrote none of them): frame i is shown unless this is 2 or
 * more. */
size_t dc_frames_run(const struct dc_frame *fr, size_t n, size_t i, int user);
#endif
