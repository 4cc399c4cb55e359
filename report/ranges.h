/* ranges: each thread's open NVTX ranges (push/pop), so a finding can name
 * the ranges it happened in (outermost first).  Fed by the NVTX injection
 * (preload/nvtx.c); read by the report when it records a finding on the
 * same thread.  Per-thread fixed storage: no lock, no allocation.  The
 * outermost DC_RANGES_MAX ranges are kept (names cut to DC_RANGE_NAME - 1
 * bytes); deeper ones are counted so pops stay matched. */
#ifndef DEVCHECK_REPORT_RANGES_H
#define DEVCHECK_REPORT_RANGES_H

#pragma GCC visibility push(hidden)

#define DC_RANGES_MAX 16
#define DC_RANGE_NAME 128

/* Pushes a range named `name` (NULL: "?") on the calling thread; returns
 * the new depth - 1 (NVTX's return value for a push). */
int dc_ranges_push(const char *name);
/* Pops the innermost range; returns the depth before, or -1 if none was open. */
int dc_ranges_pop(void);
/* Pointers to the calling thread's open range names, outermost first, valid
 * until the thread pushes or pops again; returns the count (<= max). */
unsigned dc_ranges_get(const char **names, unsigned max);

#pragma GCC visibility pop
#endif
