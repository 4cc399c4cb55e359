/* frames: what a report says about a symbolized stack (report/symbolize.h)
 * besides its frames: where its Python part starts, the user's own line
 * (also among a framework error's op stack), the client that launched,
 * whether the allocation is a caching allocator's segment. */
#ifndef DEVCHECK_REPORT_FRAMES_H
#define DEVCHECK_REPORT_FRAMES_H
#include "report/finding.h"
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
/* framework_device_error: the user's frame among the op's Python stack (the
 * innermost frame in the user's own code, else the op's), or NULL; the
 * report leads with it. */
const struct dc_pyloc *dc_framework_user_frame(const struct dc_finding *f);

/* peer_access by peer access: who enabled it, read from the enabling call's
 * stack (f->peer_stack, symbolized into a buffer of its own: call under the
 * report's lock): the driver or runtime call (the outermost, the program's
 * own; NULL not seen), whether PyTorch made it (for a copy between two
 * GPUs: the user never called it), the user's frame (NULL none).  0, or -1
 * when f is not such a finding. */
struct dc_peer_enabler {
    const char *api;
    int torch;
    const struct dc_frame *user;
};
int dc_frames_peer_enabler(const struct dc_finding *f, struct dc_peer_enabler *out);

/* The program's client library, as the launch tells: its Python frames
 * (numba, cuda.core, PyTorch or Triton), else cuda.core's launcher among its
 * native frames, else PyTorch loaded in the process
 * (an extension's kernel), else any Python frame (cuda-bindings), else C. */
enum dc_client { DC_CLIENT_C = 0, DC_CLIENT_PYTHON, DC_CLIENT_TORCH, DC_CLIENT_NUMBA, DC_CLIENT_CUDA_CORE };
enum dc_client dc_frames_client(const struct dc_frame *fr, size_t n);

/* numba's kernels take each array argument flattened into 5 + 2 * ndim
 * parameters (meminfo, parent, nitems, itemsize, data, shape[ndim],
 * strides[ndim]), each scalar as one: for parameter `param` of the kernel
 * whose demangled name is `demangled` (`m::add(Array<float, 1, C, mutable,
 * aligned>, ...)`), *arg is the Python argument's index and *field its part
 * ("data", "shape", ...; "" for a scalar).  0 on success, -1 if the name is
 * not numba's or param is out of range. */
int dc_numba_param(const char *demangled, int param, int *arg, const char **field);

/* The expression of argument `arg` in the call `name[...](a, b, c)` or
 * `name(a, b, c)` on line `line` of `file` (the user's launch line), into
 * out; 0 on success.  Reads the file (report time only). */
int dc_call_arg(const char *file, int line, const char *name, int arg, char *out, size_t len);

#pragma GCC visibility pop
#endif
