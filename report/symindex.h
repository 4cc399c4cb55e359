/* symindex: the ELF symbol holding an address, as libdw names it, from an
 * index of each large module's symbols put in buckets by address once
 * (report/symbolize.c's native names).
 *
 * libdw's dwfl_module_addrname walks the module's whole symbol table for
 * every address it is asked; an index answers from a bucket or two and the
 * same name: libdw's choice among the symbols that hold the address (its
 * aliases and nested symbols) is replayed on those alone, and what the index
 * cannot decide alone is asked of libdw.  Not thread-safe: the caller
 * serializes (report/symbolize.c's sym_lock). */
#ifndef DC_SYMINDEX_H
#define DC_SYMINDEX_H
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

/* dwfl_module_addrname(mod, addr): the name of the ELF symbol libdw would
 * give for addr (a module's address, bias applied), NULL if none.  A module
 * with few symbols is asked directly; a large one gets its index at its
 * first lookup, kept until dc_symindex_clear (a module found again at the
 * same Dwfl_Module with another name, range or symbol count is indexed
 * anew). */
const char *dc_symindex_name(Dwfl_Module *mod, GElf_Addr addr);
/* The addresses a report is about to name (return addresses ips[0 .. n),
 * each less one, as report/symbolize.c names them): those in a large module
 * not indexed yet are named in one pass over its symbol table, no index
 * made (a torch report's few frames in libtorch_cpu.so's 546,000 symbols),
 * and kept for dc_symindex_name; a module met more often gets its index. */
void dc_symindex_prefetch(Dwfl *dwfl, const uintptr_t *ips, size_t n);
/* Forgets every index (their Dwfl_Modules are about to go: dwfl_end). */
void dc_symindex_clear(void);
/* Bytes the indexes hold (--stats' symbol cache). */
size_t dc_symindex_bytes(void);
/* Whether an index is filled from the symbol table's own entries where
 * libdw's table is one plain section (1, the default) or from libdw's
 * reading of each symbol (0: the slow build, which tests/unit/test_symindex
 * compares too).  Applies to the indexes made afterwards. */
void dc_symindex_set_direct_read(int on);
#endif
