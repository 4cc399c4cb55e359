/* capture: the stream captures in progress in the process, so that devcheck's
 * own synchronisations and migrations never invalidate one.  The events
 * (dc_capture_begin / _end) are declared in core/core.h, the front ends'
 * interface; this header adds the question the launch path asks and the
 * fork handlers.
 *
 * What CUDA permits (cuda.h, cuThreadExchangeStreamCaptureMode, and the
 * Programming Guide's "Prohibited and Unhandled Operations"): a thread whose
 * interaction mode is GLOBAL (the default) may not make a potentially unsafe
 * call (synchronising a stream or context, allocating, a synchronous copy)
 * while it has a non-RELAXED capture of its own or any other thread captures
 * in GLOBAL mode (torch.cuda.graph's default); in THREAD_LOCAL mode only its
 * own captures count; in RELAXED mode none.  A prohibited call fails and
 * invalidates those captures.  Independently of the modes, any use of the
 * legacy default stream synchronises with the context's blocking streams, so
 * it invalidates a capture on one of them, whatever its mode. */
#ifndef DEVCHECK_CORE_CAPTURE_H
#define DEVCHECK_CORE_CAPTURE_H
#include <cuda.h>

#pragma GCC visibility push(hidden)
/* Why devcheck may not synchronise stream s now (sync=1), or with migrate
 * also allocate and copy synchronously (mode=migrate): a sentence, or NULL
 * when nothing in the process is capturing in a way that forbids it.  s
 * itself capturing is the caller's own test (cuStreamIsCapturing).  Costs one
 * atomic load while no capture is in progress; otherwise takes the table's
 * lock and may ask the driver this thread's interaction mode.  Guard held. */
const char *dc_capture_conflict(CUstream s, int migrate);
/* Is stream s capturing (cuStreamIsCapturing)?  When the driver cannot
 * say (e.g. another stream captures in global mode and this is the legacy
 * stream), 1: devcheck then leaves it alone.  0 without the entry point.
 * Guard held. */
int dc_stream_captured(CUstream s);

/* fork handlers of the table's lock (core/lifecycle.c registers them); the child
 * forgets every capture (none is in progress in a fresh process's view). */
void dc_capture_fork_prepare(void);
void dc_capture_fork_parent(void);
void dc_capture_fork_child(void);
#pragma GCC visibility pop
#endif
