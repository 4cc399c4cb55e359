/* contexts: the context events (declared in core/core.h, the front ends'
 * interface); this header adds what the core's own start-up needs. */
#ifndef DEVCHECK_CORE_CONTEXTS_H
#define DEVCHECK_CORE_CONTEXTS_H
#include "core/core.h"

#pragma GCC visibility push(hidden)
/* fork handlers of the peer links' lock (core/core.c registers them). */
void dc_ctx_fork_prepare(void);
void dc_ctx_fork_parent(void);
void dc_ctx_fork_child(void);
#pragma GCC visibility pop
#endif
