/* symframe: one symbolized frame, what report/symbolize.h gives (and
 * report/symelf.h fills without libdw).  Apart so that both may name it. */
#ifndef DC_SYMFRAME_H
#define DC_SYMFRAME_H
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
    int unnamed;                /* not named yet (DC_SYM_SHOWN, DC_SYM_NAMES_LAZY): a library frame whose
                                 * object has no DWARF anywhere, so its name is all it lacks */
};
#endif
