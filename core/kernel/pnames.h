/* pnames: kernel parameters by the names their source gives them (issue 41,
 * item 6).  A JIT compiler's front end tells the names once per compiled
 * kernel -- Triton's launcher (devcheck's Python hook reads the kernel's
 * signature, JITFunction.arg_names without the constexpr ones, and the
 * compiled kernel's name), and NVRTC's source (core/kernel/source.c, when
 * a module is loaded from a program's output) -- and a finding on that
 * kernel's parameter i names it ("param 0 (x_ptr)").
 *
 * Contract: thread-safe (one mutex); memory bounded (DC_PNAMES_MAX kernels,
 * the first told wins; later ones are dropped); a name once handed out stays
 * valid for the process's life. */
#ifndef DEVCHECK_CORE_PNAMES_H
#define DEVCHECK_CORE_PNAMES_H

#pragma GCC visibility push(hidden)

/* kernel (its name as the image gives it) has nnames parameters named
 * names[0..nnames).  Returns 0, or -1 (bad input, or the table is full). */
int dc_pnames_set(const char *kernel, unsigned nnames, const char *const *names);
/* Parameter `param` of `kernel` by name, or NULL when nobody told it. */
const char *dc_pnames_get(const char *kernel, int param);
/* Forget everything (tests). */
void dc_pnames_reset(void);

#define DC_PNAMES_MAX 1024
#define DC_PNAMES_PARAMS 64

#pragma GCC visibility pop
#endif
