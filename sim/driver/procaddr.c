/* The cuGetProcAddress table: one row per PFN_<name>_v<version>[_ptsz|_ptds]
 * typedef of the toolkit's cudaTypedefs.h, generated at build time by
 * gen_tables.py (procaddr_table.h), sorted by base name.  Rows whose symbol
 * this library does not define carry a NULL pointer, so the lookup can still
 * tell "unknown symbol" from "version not sufficient". */
#include "internal.h"

#define P_FN_0(sym) NULL
#define P_FN_1(sym) ((void *)&sym)
#define P(base, version, variant, sym, impl) { base, version, variant, P_FN_##impl(sym), #sym },

const struct procent sim_proc_table[] = {
#include "procaddr_table.h"
};
const size_t sim_proc_count = sizeof sim_proc_table / sizeof sim_proc_table[0];
