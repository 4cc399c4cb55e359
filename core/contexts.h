/* contexts: a context's peer links and its end, which every room hears of
 * (the owner's memory, the kernel descriptions); the current-context
 * caches are the base's (core/base/base.h). */
#ifndef DEVCHECK_CORE_CONTEXTS_H
#define DEVCHECK_CORE_CONTEXTS_H
#include <cuda.h>
#include "core/base/base.h"

#pragma GCC visibility push(hidden)
/* Peer access from the current context to `peer` was enabled (1) or
 * disabled (0); an access already enabled (not enabled) counts as one. */
void dc_ctx_peer_access(CUcontext peer, int enable);
/* Context ctx is gone (destroyed, or a primary context reset): the device,
 * pool, IPC and managed memory made in it and the peer links it took part in
 * are forgotten, and the descriptions of its functions (the driver may reuse
 * their handles); other contexts of the same device keep theirs. */
void dc_ctx_destroyed(CUcontext ctx);
/* The device's primary context if it is active, else NULL (a retain would
 * create an inactive one).  For a reset: it is the context that goes. */
CUcontext dc_primary_context(CUdevice dev);
/* fork handlers of the peer links' lock (core/lifecycle.c registers them). */
void dc_ctx_fork_prepare(void);
void dc_ctx_fork_parent(void);
void dc_ctx_fork_child(void);
#pragma GCC visibility pop
#endif
