/* stackdepot: every distinct stack stored once, named by a small id
 * (compiler-rt's stackdepot).  The capture (report/stack.c) hands it a
 * stack's key; the symbolizer (report/symbolize.c) reads the stack back by
 * its id.
 *
 * The key: n native IPs, then npy Python frames (struct dc_pyraw, whole
 * words each, innermost first) when the capturing thread ran Python.  Keys
 * are deduplicated by a hash of their words in an open-addressing table
 * read without a lock; a new key is stored once (under the depot's lock),
 * with the descriptions of its Python code objects (report/pystack.h), and
 * gets the next id.  Ids start at 1; 0 means "no stack".  Records are never
 * freed, so an id stays valid for the life of the process. */
#ifndef DEVCHECK_REPORT_STACKDEPOT_H
#define DEVCHECK_REPORT_STACKDEPOT_H
#include <stddef.h>
#include <stdint.h>
#include "report/pystack.h"

#pragma GCC visibility push(hidden)

/* Words of the key one Python frame takes. */
#define DC_PYWORDS (sizeof(struct dc_pyraw) / sizeof(uintptr_t))

/* The id of the key ips[0 .. n + DC_PYWORDS * npy); stored when new (its
 * Python frames described while their code objects are alive: call it on
 * the capturing thread).  0 when it cannot be stored (no memory, the depot
 * full).  Lock-free when the key is known. */
uint32_t dc_stackdepot_put(const uintptr_t *ips, uint32_t n, uint32_t npy);
/* Copies up to max native IPs of stack `id` into ips; returns the count (0 if unknown). */
size_t dc_stackdepot_get(uint32_t id, uintptr_t *ips, size_t max);
/* The Python frames of stack `id`, innermost first, and the ids of their
 * code objects' descriptions; returns the count. */
size_t dc_stackdepot_get_py(uint32_t id, struct dc_pyraw *py, uint32_t *desc, size_t max);
/* fork: prepare takes the depot's lock for writing, parent releases it, the
 * child re-initialises it (report/report.c orders them with the others). */
void dc_stackdepot_fork_prepare(void);
void dc_stackdepot_fork_parent(void);
void dc_stackdepot_fork_child(void);

/* Bytes the depot holds (records, tables): --stats. */
size_t dc_stackdepot_bytes(void);

#pragma GCC visibility pop
#endif
