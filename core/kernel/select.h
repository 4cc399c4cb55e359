/* select: which kernels the options kernel_name and kernel_name_exclude
 * leave to be checked, decided by a kernel's name (matched against the
 * mangled and the demangled name).  Never calls CUDA; no state. */
#ifndef DEVCHECK_CORE_KERNEL_SELECT_H
#define DEVCHECK_CORE_KERNEL_SELECT_H
#include "core/base/options.h"

#pragma GCC visibility push(hidden)

/* 1 when either name filter is set: without one every kernel is selected
 * and nothing below need be asked (the launch path's common case). */
static inline int dc_name_filters_set(void)
{
    return (dc_opt.kernel_name && *dc_opt.kernel_name) ||
           (dc_opt.kernel_name_exclude && *dc_opt.kernel_name_exclude);
}
/* The decision by the kernel's (mangled) name (NULL: unknown): 1 when
 * selected, else 0 and *why says which option left it out ("excluded by
 * kernel_name_exclude", "not selected by kernel_name"). */
int dc_kernel_name_selected(const char *name, const char **why);

#pragma GCC visibility pop
#endif
