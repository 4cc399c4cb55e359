/* ptrinfo: what a pointer-class word is when devcheck did not see its
 * memory allocated.  The launch check asks here after the registry:
 *  1. the driver (cuPointerGetAttributes: memory type, device ordinal,
 *     range start and size, managed, context, pool), guard held: memory it
 *     knows enters the registry marked "told by the driver" (so the next
 *     launch finds it there; the frees and unmaps devcheck sees remove it);
 *  2. one past the end of a range the driver knows is an end iterator;
 *  3. the process's mappings (/proc/self/maps, cached, read again on a
 *     miss; under a replay, the record's: dc_process_bind, core/core.h):
 *     pageable host memory is only an ordinary readable mapping --
 *     private (anonymous, heap, stack, file) or a shared mapping of a regular
 *     file or of /dev/shm -- never a device file (/dev/nvidia*), a mapping
 *     without read permission (the driver's PROT_NONE reservation of the
 *     device address space), a kernel special mapping ([vvar], [vdso]) or a
 *     shared memfd mapping (device memory backing: not provably host memory).
 * Answers the driver and the mappings gave are cached per address (a
 * lock-free table, invalidated by every free or unmap devcheck sees), so a
 * repeated launch asks nobody.
 *
 * Contract: thread-safe; calls the driver only with the guard held; never
 * dereferences the address. */
#ifndef DEVCHECK_CORE_PTRINFO_H
#define DEVCHECK_CORE_PTRINFO_H
#include <stddef.h>
#include <stdint.h>
#include "core/owner/registry.h"

#pragma GCC visibility push(hidden)

enum dc_addr {
    DC_ADDR_NOTHING = 0,    /* nothing devcheck can name: no finding */
    DC_ADDR_HOST,           /* ordinary pageable host memory the driver does not know */
    DC_ADDR_KNOWN,          /* the driver knows it: *a (also recorded in the registry) */
    DC_ADDR_END,            /* one past the end of memory the driver knows: an end iterator */
};
/* What v is (the registry did not know it). */
int dc_addr_lookup(uintptr_t v, struct dc_alloc *a);
/* Memory went away (a free, an unmap, a context destroyed): cached answers
 * are dropped. */
void dc_addr_forget(void);

/* The mapping holding v: DC_MAP_HOST (ordinary readable host memory; *end
 * the mapping's end, *writable), DC_MAP_OTHER (*what says which: "a device
 * file (/dev/nvidiactl)", "no read permission", ...) or DC_MAP_NONE. */
enum dc_map { DC_MAP_NONE = 0, DC_MAP_HOST, DC_MAP_OTHER };
int dc_maps_lookup(uintptr_t v, uintptr_t *end, int *writable, char *what, size_t what_len);
/* One line of /proc/self/maps classified the same way (tests). */
int dc_maps_classify(const char *line, uintptr_t *lo, uintptr_t *hi, int *writable, char *what, size_t what_len);

/* fork handlers of the mappings' lock (core/lifecycle.c registers them). */
void dc_ptrinfo_fork_prepare(void);
void dc_ptrinfo_fork_parent(void);
void dc_ptrinfo_fork_child(void);

#pragma GCC visibility pop
#endif
