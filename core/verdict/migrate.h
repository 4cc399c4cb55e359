/* migrate: mode=migrate.  Before the launch, each operand the check handed
 * back (dc_launch_state.moves: device memory the launch device may not
 * access, pageable host memory) is copied to a new allocation on the launch
 * device, once per source range, after the work queued on its owner has
 * finished; the launch gets a private copy of its arguments with those words
 * rewritten (the program's own argument storage is never written).  After
 * the launch the copies are written back (host memory: only the bytes the
 * kernel changed) and freed.  A move that cannot be made keeps the original
 * word and says why (dc_move.reason).  Guard held throughout. */
#ifndef DEVCHECK_CORE_MIGRATE_H
#define DEVCHECK_CORE_MIGRATE_H
#include "core/verdict/launch.h"

#pragma GCC visibility push(hidden)

/* Moves L->moves (n > 0) to the launch device; sets each move's new_address,
 * bytes or reason, and L->args / L->extra to the rewritten arguments when
 * anything moved. */
void dc_migrate(struct dc_launch_state *L);
/* Copies back and frees every migrated source (the kernel may have written
 * it); launched: the launch succeeded, so the copies hold its results.
 * Counts the bytes copied back. */
void dc_migrate_back(struct dc_launch_state *L, int launched);

#pragma GCC visibility pop
#endif
