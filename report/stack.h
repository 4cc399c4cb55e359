/* stack: capture fast, symbolize late.  dc_stack_capture() takes the caller's
 * instruction pointers with libunwind, deduplicates the array by hash and
 * returns a small id; symbols (function, module+offset, file:line via libdw)
 * are resolved only when a finding is reported.  Thread-safe; returns 0 when
 * the stack cannot be captured or stored (never fails the caller).
 * libunwind and libdw are loaded with dlopen(RTLD_LOCAL) on first use, never
 * linked (their symbols stay out of the program's global scope); without
 * them stacks are empty, or named from the dynamic symbols only. */
#ifndef DEVCHECK_STACK_H
#define DEVCHECK_STACK_H
#include <stdint.h>
#include <stddef.h>
#define DC_STACK_MAX 48
uint32_t dc_stack_capture(int skip);            /* skip: frames above the caller to drop */
/* dc_stack_capture for a stack that recurs (a launch with a finding): the
 * same id, from a per-thread cache of its own that proves a stack seen
 * before is still on the stack without unwinding it (x86-64; elsewhere
 * dc_stack_capture).  `tag`: what the caller knows tells stacks apart (the
 * launch's kernel): a stack is looked for among those of its tag.  The first
 * capture of a stack on a thread costs an unwind and a walk (about ten). */
uint32_t dc_stack_capture_finding(int skip, uintptr_t tag);
/* Copies up to max IPs of stack `id` into ips; returns the count (0 if unknown). */
size_t dc_stack_get(uint32_t id, uintptr_t *ips, size_t max);
/* 1: symbolization may ask the debuginfod servers of DEBUGINFOD_URLS for
 * debug info (libdw's standard lookup); 0 (the default): local files only.
 * Takes effect before the first symbolization. */
void dc_stack_set_debuginfod(int on);
/* The Python frames captured with stack `id` (report/pystack.h: the calling
 * thread's, when it ran Python), innermost first, and the ids of their code
 * objects' descriptions; returns the count. */
struct dc_pyraw;
size_t dc_stack_get_py(uint32_t id, struct dc_pyraw *py, uint32_t *desc, size_t max);
/* Native frames of the Python interpreter kept in stacks that have Python
 * frames (1), or cut there (0, the default). */
void dc_stack_set_interpreter_frames(int keep);
/* 0: dc_stack_capture returns 0 (no stack) from now on, 1 (the default):
 * it captures.  The replay (replay/) judges launches of a recorded process:
 * its own frames are no launch's stack. */
void dc_stack_set_capture(int on);
/* Frames a symbolized stack may hold: native and Python (DC_PYSTACK_MAX). */
#define DC_FRAMES_MAX (DC_STACK_MAX + 32)
#endif
