/* symbolize: report-time names for a stack of the depot (report/stackdepot.h;
 * compiler-rt's symbolizer): function, module+offset, file:line, the
 * functions inlined at each address, Python frames.  Not for the hot path:
 * takes a lock, may read ELF/DWARF files and allocate.  Without libdw
 * (loaded on first use) names come from the dynamic symbols only.  Used inside report/
 * and by core/kernel/select.c (demangling, report/demangle.h, included here
 * because every name the symbolizer gives is demangled by it). */
#ifndef DEVCHECK_SYMBOLIZE_H
#define DEVCHECK_SYMBOLIZE_H
#include <stddef.h>
#include <stdint.h>
#include "report/demangle.h"
#include "report/stack.h"               /* DC_STACK_MAX */

/* Frames a symbolized stack may hold: native and Python (DC_PYSTACK_MAX). */
#define DC_FRAMES_MAX (DC_STACK_MAX + 32)

struct dc_frame {
    uintptr_t ip;               /* return address as captured */
    uintptr_t offset;           /* ip - 1 relative to the module's base */
    uintptr_t module_base;
    char module[512];           /* path of the object ("" if unknown) */
    char function[512];         /* demangled when possible ("" if unknown) */
    char mangled[512];          /* symbol as in the ELF symbol table */
    char file[512];             /* DWARF source file ("" without debug info) */
    int line;                   /* 0 without debug info */
    int python;                 /* a Python frame (file, line, function: co_name); no module */
};

/* Symbolizes stack `id` into out[0..max), innermost first, leaving out frames
 * of libdevcheck itself (when the core lives in a shared object, not in the
 * main program as in the unit tests) and nvcc launch stubs.  Returns the count.
 * A stack captured while the thread ran Python ends with its Python frames
 * (python = 1, innermost first, at most half of max), after the native
 * frames; the native frames then stop at the interpreter's own (its Python
 * frames tell that part) unless dc_stack_set_interpreter_frames(1). */
size_t dc_stack_symbolize(uint32_t id, struct dc_frame *out, size_t max);
/* The same, also leaving out frames whose symbol is drop_symbol (the launched
 * kernel's mangled name: nvcc's host-side wrapper of the kernel carries it).
 * Each address expands into the functions inlined at it (addr2line -i), so
 * an inlined cuda_runtime.h template does not hide the program's line. */
size_t dc_stack_symbolize_ex(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol);
/* The stacks ids[0 .. nids) (at most 4; 0 skipped) are about to be
 * symbolized: the next stack symbolized (with names) names their frames in
 * large libraries with its own, one pass over each library's symbol table
 * (report/symindex.h). */
void dc_stack_prefetch(const uint32_t *ids, size_t nids);
/* What a caller needs of a stack's frames (dc_stack_symbolize_need): */
enum dc_sym_need {
    DC_SYM_WHOLE,       /* everything: dc_stack_symbolize_ex */
    DC_SYM_NAMES,       /* native frames named only (module, offset, function, mangled): no file or line, no
                         * inlined calls (no DWARF read), then the Python frames */
    DC_SYM_PYTHON,      /* the Python frames alone when the stack has any (no native frame named), else as
                         * DC_SYM_NAMES */
    DC_SYM_LINES,       /* when the stack has Python frames: native frames with module, offset, file and line
                         * (and inlined calls) but no ELF symbol looked up, so unnamed (but where an earlier
                         * whole answer named them), none left out by name; then the Python frames.  A stack
                         * without Python frames: as DC_SYM_WHOLE */
};
/* dc_stack_symbolize with only what the caller needs: a finding's report
 * names and prints what it shows, and a caller that matches names or reads
 * the Python frames pays for no line table (nor, for the Python frames, for
 * a large library's symbol table: libtorch_cpu's).  Cached as the whole
 * symbolization is; timed with it (--stats). */
size_t dc_stack_symbolize_need(uint32_t id, struct dc_frame *out, size_t max, enum dc_sym_need need);
/* 1: symbolization may ask the debuginfod servers of DEBUGINFOD_URLS for
 * debug info (libdw's standard lookup); 0 (the default): local files only.
 * Takes effect before the first symbolization. */
void dc_stack_set_debuginfod(int on);
/* Native frames of the Python interpreter kept in stacks that have Python
 * frames (1), or cut there (0, the default). */
void dc_stack_set_interpreter_frames(int keep);
/* fork handlers (report/report.c orders them with the others). */
void dc_symbolize_fork_prepare(void);
void dc_symbolize_fork_parent(void);
void dc_symbolize_fork_child(void);
/* Bytes the cache of symbolized addresses holds: --stats. */
size_t dc_symbolize_bytes(void);
#endif
