/* hostdwarf: a kernel's parameter types from the debug information of its
 * host-side function.  nvcc compiles every __global__ function twice: for
 * the device, and for the host as the launch stub that carries the same
 * mangled name and the same parameters.  A program built with -g describes
 * that host function in DWARF, so the layout of a struct passed by value is
 * known field by field: which 8-byte words hold pointers, which hold
 * scalars, which are padding.
 *
 * Contract: reads the ELF files of the objects loaded in the process
 * (/proc/self/exe for the program; separate debug files are not searched,
 * and nothing is fetched: debuginfod is never asked); needs no CUDA; any
 * object, however malformed, gives an answer; allocates only what it
 * returns and its working state, freed before it returns.  Costly (an
 * object's symbol table and one compilation unit are read): call it once
 * per kernel, never per launch. */
#ifndef DEVCHECK_CORE_HOSTDWARF_H
#define DEVCHECK_CORE_HOSTDWARF_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum dc_dw_kind {
    DC_DW_UNKNOWN = 0,
    DC_DW_POINTER,          /* a pointer parameter */
    DC_DW_SCALAR,           /* a base or enumeration type */
    DC_DW_AGGREGATE,        /* a struct / class / array passed by value: words[] */
};

struct dc_dw_param {
    uint8_t kind;           /* enum dc_dw_kind */
    uint32_t size;          /* bytes */
    uint8_t *words;         /* DC_DW_AGGREGATE: size / 8 classes (enum dc_word, core/kernel/kernels.h) */
};

/* The parameters of the host function whose mangled name is `name`, found
 * in the debug information of a loaded object whose symbol table defines
 * it: up to max in out[], the count returned (-1: no debug information
 * describes it).  Free with dc_dwarf_params_free. */
int dc_dwarf_params(const char *name, struct dc_dw_param *out, int max);
void dc_dwarf_params_free(struct dc_dw_param *p, int n);
/* The same from a kernel image's own DWARF: the device function `name`
 * (its linkage name; an extern "C" kernel's name) in the ELF cubin at elf
 * (`size` bytes; nvcc -G writes .debug_info there, -g does not), read from
 * a copy.  The count, or -1 when its DWARF does not describe it. */
int dc_dwarf_image_params(const void *elf, size_t size, const char *name, struct dc_dw_param *out, int max);
/* fork handlers of the lock that loads libdw (core/lifecycle.c registers them). */
void dc_hostdwarf_fork_prepare(void);
void dc_hostdwarf_fork_parent(void);
void dc_hostdwarf_fork_child(void);

#pragma GCC visibility pop
#endif
