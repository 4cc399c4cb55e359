/* symwant: the return addresses a report is about to name: the stack being
 * named and the stacks the report announced (issue 38).  A large library's
 * symbol table is read in one pass for all of its frames among them, not
 * once per frame: report/symelf.c (from the file, no libdw) and
 * report/symindex.c (libdw's table) each ask here at their first miss in a
 * module. */
#ifndef DC_SYMWANT_H
#define DC_SYMWANT_H
#include <stddef.h>
#include <stdint.h>

/* The return addresses of the stack being named (n 0 or ips NULL: none).  Under the
 * symbolizer's lock. */
void dc_symwant_stack(const uintptr_t *ips, size_t n);
/* The stacks (the stack depot's ids; up to 3, 0 skipped) a report is about
 * to name (report/report.c).  Takes its own lock. */
void dc_symwant_announce(const uint32_t *ids, size_t n);
/* The addresses named (each return address less one, the call) that mine
 * says are its own (mine(arg, pc) nonzero), into out[0 .. max): their
 * count; the stack being named first.  Under the symbolizer's lock. */
size_t dc_symwant_collect(int (*mine)(void *arg, uint64_t pc), void *arg, uint64_t *out, size_t max);
#endif
