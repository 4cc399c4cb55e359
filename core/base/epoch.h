/* epoch: safe memory reclamation for the core's read-mostly structures
 * (epoch-based reclamation, as in Fraser's thesis and crossbeam-epoch).
 *
 * Readers take no lock and write no shared cache line: a read-side section
 * stores the current epoch into the calling thread's own record (one cache
 * line per thread) and clears it at the end.  A writer that unlinks an object
 * hands it to dc_epoch_retire(); it is freed only once no section that could
 * have seen it is still open.  Writers never wait for readers: retired
 * objects wait in a list, freed by later retires (and dc_epoch_reclaim).
 *
 * Contract:
 *  - Between dc_epoch_enter() and dc_epoch_exit() on a thread, every object
 *    reached through an atomic (acquire) load of a published pointer stays
 *    allocated.  Sections nest; a section may call writers (a retire inside
 *    a section is freed after it).  Never call CUDA or block long inside one.
 *  - Thread-safe; async-signal-unsafe (the first section of a thread
 *    allocates its record).  If the record cannot be allocated the thread
 *    falls back to a shared, always-open record: correct, only slower to
 *    reclaim.
 *  - fork(): the child keeps only its own thread's record (dc_epoch_fork_child).
 */
#ifndef DEVCHECK_CORE_EPOCH_H
#define DEVCHECK_CORE_EPOCH_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct dc_epoch_rec;
extern __thread struct dc_epoch_rec *dc_epoch_self __attribute__((tls_model("initial-exec")));

struct dc_epoch_rec *dc_epoch_register(void);
void dc_epoch_enter_rec(struct dc_epoch_rec *r);
void dc_epoch_exit_rec(struct dc_epoch_rec *r);

static inline struct dc_epoch_rec *dc_epoch_rec(void)
{
    struct dc_epoch_rec *r = dc_epoch_self;
    return __builtin_expect(r != NULL, 1) ? r : dc_epoch_register();
}
static inline void dc_epoch_enter(void) { dc_epoch_enter_rec(dc_epoch_rec()); }
static inline void dc_epoch_exit(void) { dc_epoch_exit_rec(dc_epoch_rec()); }

/* For objects a writer recycles itself (the registry's entries): unlink the
 * object, then stamp it with dc_epoch_advance(); it may be reused once its
 * stamp is below dc_epoch_min_active(). */
uint64_t dc_epoch_advance(void);
uint64_t dc_epoch_min_active(void);

/* Frees p with fn(p) once every section open now has ended. */
void dc_epoch_retire(void *p, void (*fn)(void *));
/* Frees what can be freed now (tests; writers call it as they retire). */
void dc_epoch_reclaim(void);

void dc_epoch_fork_prepare(void);
void dc_epoch_fork_parent(void);
void dc_epoch_fork_child(void);

#pragma GCC visibility pop
#endif
