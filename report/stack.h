/* stack: capture fast, symbolize late (compiler-rt's stacktrace).
 * dc_stack_capture() takes the caller's instruction pointers with libunwind
 * (and the thread's Python frames), stores the stack once in the depot
 * (report/stackdepot.h) and returns its small id; symbols (function,
 * module+offset, file:line via libdw) are resolved only when a finding is
 * reported (report/symbolize.h).  Thread-safe; returns 0 when the stack
 * cannot be captured or stored (never fails the caller).  libunwind is
 * loaded with dlopen(RTLD_LOCAL) on first use, never linked (its symbols
 * stay out of the program's global scope); without it stacks are empty. */
#ifndef DEVCHECK_STACK_H
#define DEVCHECK_STACK_H
#include <stdint.h>
#include <stddef.h>
#define DC_STACK_MAX 48                         /* native frames a stack keeps */
uint32_t dc_stack_capture(int skip);            /* skip: frames above the caller to drop */
/* dc_stack_capture for a stack that recurs (a launch with a finding): the
 * same id, from a per-thread cache of its own that proves a stack seen
 * before is still on the stack without unwinding it (x86-64; elsewhere
 * dc_stack_capture).  `tag`: what the caller knows tells stacks apart (the
 * launch's kernel): a stack is looked for among those of its tag.  The first
 * capture of a stack on a thread costs an unwind and a walk (about ten). */
uint32_t dc_stack_capture_finding(int skip, uintptr_t tag);
/* 0: dc_stack_capture returns 0 (no stack) from now on, 1 (the default):
 * it captures.  The replay (replay/) judges launches of a recorded process:
 * its own frames are no launch's stack. */
void dc_stack_set_capture(int on);
/* fork: libunwind's locks and the Python frame reader's (report/report.c
 * orders them with the others). */
void dc_stack_fork_prepare(void);
void dc_stack_fork_parent(void);
void dc_stack_fork_child(void);
#endif
