/* symelf: a frame's names, file, line and inlined calls from its object's own
 * file, without libdw (issue 38), for report/symbolize.c.  Each object's file
 * is mapped at its first frame and read by report/elfdw.c (the ELF symbol;
 * the unit, function and inlined calls) and report/symline.c (the line);
 * what those leave to libdw, the caller asks libdw.  Every function: under
 * the symbolizer's lock. */
#ifndef DC_SYMELF_H
#define DC_SYMELF_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "report/demangle.h"
#include "report/symframe.h"

/* What is asked of an address (report/symbolize.c's kinds). */
enum dc_symelf_kind {
    DC_SYMELF_WHOLE,            /* the function's and its inlined calls' frames, named, with file and line */
    DC_SYMELF_NAMES,            /* the function's frame named: no file, line or inlined calls */
    DC_SYMELF_LINES,            /* the frames with file and line; no ELF symbol looked up */
};

/* Symbolizes pc (a return address less one) of the object name loaded at
 * base with load bias bias (main: the program, read through /proc/self/exe)
 * into out[0..max), innermost first, as report/symbolize.c's libdw path
 * would: the frames' count, or 0 when libdw must answer.  out[0]'s ip,
 * offset, module and module_base are the caller's; the rest is written here
 * (also when 0 is returned: the caller clears it). */
size_t dc_symelf_frames(const char *name, uintptr_t base, uintptr_t bias, int main, uintptr_t pc,
                        struct dc_frame *out, size_t max, enum dc_symelf_kind kind);
/* Whether libdw may fetch debug files with debuginfod (report/symbolize.c's
 * option): an object's separate debug file is then never ruled out here. */
void dc_symelf_set_debuginfod(int on);
/* The places gdb looks for a .gnu_debuglink file named link of the object
 * file_name (report/symbolize.c's libdw callback and this room): beside it,
 * its .debug/, /usr/lib/debug/<its directory>/; place i written to path: 1,
 * or 0 (i past the last, a link with a '/', the path too long or the object
 * itself). */
#define DC_DEBUGLINK_PLACES 3
int dc_debuglink_path(int i, const char *file_name, const char *link, char *path, size_t len);
/* 1: the object's frames have no file, line or inlined call (no DWARF in
 * its file, and no separate debug file where libdw would look): a name is
 * all that symbolizing one of them gives. */
int dc_symelf_bare(const char *name, uintptr_t base, int main);
/* Unmaps every object's file (before libdw reads /proc/self/maps; see
 * symelf.c), forgetting what was read from them. */
void dc_symelf_forget(void);
/* Bytes held (--stats). */
size_t dc_symelf_bytes(void);

/* A frame named by an ELF or DWARF symbol (NULL: left as it is): the symbol
 * version stripped (__libc_start_main@@GLIBC_2.34), demangled. */
static inline void dc_frame_set_name(struct dc_frame *f, const char *sym)
{
    if (!sym)
        return;
    snprintf(f->mangled, sizeof f->mangled, "%.*s", (int)strcspn(sym, "@"), sym);
    dc_demangle(f->mangled, f->function, sizeof f->function);
}

/* The C library's start-up below main (its ELF symbol, before any DWARF). */
static inline int dc_below_main(const char *sym)
{
    return sym && (!strncmp(sym, "__libc_start_", 13) || !strcmp(sym, "_start"));
}
#endif
