/* memory: the memory events (declared in core/owner/owner.h, the front
 * ends' interface); this header adds what the core's own start-up needs. */
#ifndef DEVCHECK_CORE_MEMORY_H
#define DEVCHECK_CORE_MEMORY_H
#include "core/owner/owner.h"

#pragma GCC visibility push(hidden)
/* fork handlers of the VMM tables' lock (core/lifecycle.c registers them). */
void dc_mem_fork_prepare(void);
void dc_mem_fork_parent(void);
void dc_mem_fork_child(void);
#pragma GCC visibility pop
#endif
