/* symbolize: report-time names for a captured stack (internal to report/,
 * and core/verdict/filter.c's demangling).  Not for the hot path: takes a lock, may
 * read ELF/DWARF files and allocate. */
#ifndef DEVCHECK_SYMBOLIZE_H
#define DEVCHECK_SYMBOLIZE_H
#include <stddef.h>
#include <stdint.h>

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
/* Demangles an Itanium C++ name (demangle.c: libiberty's demangler, linked in,
 * so every process gets readable names).  Writes the demangled name, or `name`
 * unchanged, to out (cut to len); 0 if demangled, -1 otherwise.  No
 * allocation; thread-safe. */
int dc_demangle(const char *name, char *out, size_t len);
/* fork handlers (report.c registers them with the others). */
void dc_stack_fork_prepare(void);
void dc_stack_fork_parent(void);
void dc_stack_fork_child(void);
#endif
