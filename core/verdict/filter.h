/* filter: which launches the check looks at (the options kernel_name and
 * kernel_name_exclude, decided by name in core/kernel/select.h),
 * and which once-per-kernel notes have been made (unchecked_kernel).  Both
 * are decided once per kernel (its handle, or a hash of its name without
 * one) and cached.  Thread-safe; never calls CUDA. */
#ifndef DEVCHECK_CORE_FILTER_H
#define DEVCHECK_CORE_FILTER_H
#include "core/verdict/check.h"

#pragma GCC visibility push(hidden)

/* 1 when l's kernel is to be checked.  mark_unchecked: l is an unchecked
 * launch; *first_unchecked is then set when it is the kernel's first (its
 * note is due), else 0. */
int dc_filter_selected(const struct dc_launch *l, int mark_unchecked, int *first_unchecked);
/* Forgets every decision and note (dc_check_reset). */
void dc_filter_reset(void);
/* fork handlers of the cache's lock (core/lifecycle.c registers them). */
void dc_filter_fork_prepare(void);
void dc_filter_fork_parent(void);
void dc_filter_fork_child(void);

#pragma GCC visibility pop
#endif
