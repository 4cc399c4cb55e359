/* symbolize: report-time names for a stack of the depot (report/stackdepot.h;
 * compiler-rt's symbolizer): function, module+offset, file:line, the
 * functions inlined at each address, Python frames.  Not for the hot path:
 * takes a lock, may read ELF/DWARF files and allocate.  An object's own
 * .symtab and DWARF are read without libdw (report/symelf.h); libdw is
 * loaded for a frame that reader leaves to it; without libdw such a frame
 * is named from the dynamic symbols only.  Used inside report/
 * and by core/kernel/select.c (demangling, report/demangle.h, included here
 * because every name the symbolizer gives is demangled by it). */
#ifndef DEVCHECK_SYMBOLIZE_H
#define DEVCHECK_SYMBOLIZE_H
#include <stddef.h>
#include <stdint.h>
#include "report/demangle.h"
#include "report/stack.h"               /* DC_STACK_MAX */
#include "report/symframe.h"            /* struct dc_frame */

/* Frames a symbolized stack may hold: native and Python (DC_PYSTACK_MAX). */
#define DC_FRAMES_MAX (DC_STACK_MAX + 32)

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
    DC_SYM_SHOWN,       /* as DC_SYM_WHOLE for a folded text report (report/fold.h): a frame it folds away
                         * whose object (not the program) has no DWARF anywhere is left unnamed (its module
                         * and offset known, `unnamed` set): a large library's symbol table is not read for
                         * a name nobody reads (issue 38).  dc_stack_name_frames names them */
    DC_SYM_NAMES_LAZY,  /* as DC_SYM_NAMES, but every such frame after the first kept one unnamed */
};
/* dc_stack_symbolize with only what the caller needs: a finding's report
 * names and prints what it shows, and a caller that matches names or reads
 * the Python frames pays for no line table (nor, for the Python frames, for
 * a large library's symbol table: libtorch_cpu's).  Cached as the whole
 * symbolization is; timed with it (--stats). */
size_t dc_stack_symbolize_need(uint32_t id, struct dc_frame *out, size_t max, enum dc_sym_need need);
/* dc_stack_symbolize_ex with a need (DC_SYM_SHOWN for a printed report). */
size_t dc_stack_symbolize_ex_need(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol,
                                  enum dc_sym_need need);
/* Names fr[0 .. n)'s unnamed frames, those of the object module only unless
 * it is NULL (as a whole answer would: one that says nothing about the
 * program is dropped, drop_symbol as dc_stack_symbolize_ex's): the frames'
 * count after. */
size_t dc_stack_name_frames(struct dc_frame *fr, size_t n, const char *drop_symbol, const char *module);
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
/* Tests only (tests/unit/test_elfdw.c): return address ip symbolized
 * without the cache, as a whole (names 0) or named only (names 1), through
 * libdw (libdw 1) or the object's own file (report/elfdw.h; 0): the frames'
 * count, 0 when the file's own reader leaves the address to libdw. */
size_t dc_symbolize_ip_path(uintptr_t ip, int libdw, int names, struct dc_frame *out, size_t max);
/* Bytes the cache of symbolized addresses holds: --stats. */
size_t dc_symbolize_bytes(void);
#endif
