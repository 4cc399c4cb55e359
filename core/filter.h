/* filter: which launches the check looks at (the options kernel_name and
 * kernel_name_exclude, matched against the mangled and the demangled name),
 * and which once-per-kernel notes have been made (unchecked_kernel).  Both
 * are decided once per kernel (its handle, or a hash of its name without
 * one) and cached.  Thread-safe; never calls CUDA. */
#ifndef DEVCHECK_CORE_FILTER_H
#define DEVCHECK_CORE_FILTER_H
#include "core/check.h"

#pragma GCC visibility push(hidden)

/* 1 when l's kernel is to be checked.  mark_unchecked: l is an unchecked
 * launch; *first_unchecked is then set when it is the kernel's first (its
 * note is due), else 0. */
int dc_filter_selected(const struct dc_launch *l, int mark_unchecked, int *first_unchecked);
/* The decision itself, by the kernel's (mangled) name (NULL: unknown):
 * 1 when selected, else 0 and *why says which option left it out
 * ("excluded by kernel_name_exclude", "not selected by kernel_name"). */
int dc_filter_name_selected(const char *name, const char **why);
/* Forgets every decision and note (dc_check_reset). */
void dc_filter_reset(void);
/* fork handlers of the cache's lock (core/core.c registers them). */
void dc_filter_fork_prepare(void);
void dc_filter_fork_parent(void);
void dc_filter_fork_child(void);

#pragma GCC visibility pop
#endif
