/* frames: what a report says about a symbolized stack (report/symbolize.h)
 * besides its frames: where its Python part starts, the user's own line,
 * whether the allocation is a caching allocator's segment. */
#ifndef DEVCHECK_REPORT_FRAMES_H
#define DEVCHECK_REPORT_FRAMES_H
#include "report/symbolize.h"

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Native frames of fr[0..n): the Python frames follow them. */
size_t dc_frames_native(const struct dc_frame *fr, size_t n);
/* The innermost Python frame in the user's own code (not the standard
 * library, site-packages, frozen modules), else the innermost Python frame;
 * NULL without Python frames. */
const struct dc_frame *dc_frames_user(const struct dc_frame *fr, size_t n);
/* Does the allocation stack fr[0..n) go through a caching allocator, so the
 * allocation is a segment holding many tensors (PyTorch's caching allocator
 * unless PYTORCH_NO_CUDA_MEMORY_CACHING is set in the process, its
 * expandable segments, XLA/TensorFlow's BFC allocator, RMM's pools)? */
int dc_frames_segment(const struct dc_frame *fr, size_t n);

#pragma GCC visibility pop
#endif
