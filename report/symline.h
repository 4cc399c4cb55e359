/* symline: a compile unit's source lines for the symbolizer (report/symbolize.c)
 * through report/dwline.c, in place of libdw's dwfl_module_getsrc and
 * dwarf_getsrcfiles, which decode and sort the whole unit's line table
 * (issue 38).  libdw still finds the module, its Dwarf and the unit; this
 * room reads the unit's DW_AT_stmt_list, the object's .debug_line,
 * .debug_line_str and .debug_str (found once per Dwarf), and keeps each
 * unit's dwline index.  Every function: under the symbolizer's lock, after
 * it loaded libdw. */
#ifndef DC_SYMLINE_H
#define DC_SYMLINE_H
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

struct dc_dwline_sec;
struct dc_dwline_index;

/* A unit's line program, once dc_symline_find answered >= 0. */
struct dc_symline_unit {
    const struct dc_dwline_sec *s;
    Dwarf_Word off;
    unsigned addr_size;
    const char *comp_dir;
    const struct dc_dwline_index *x;
};

/* The row of pc (a DWARF address of module mod) in unit cu: 1 (*file, an
 * index of the unit's file table, and *line), 0 none (libdw: no line), -1
 * when libdw must answer (dwline does not read this unit as libdw would). */
int dc_symline_find(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, struct dc_symline_unit *u, unsigned *file,
                    int *line);

/* The same for a unit read without libdw (report/elfdw.c): its line program
 * at off of s->line (s kept by the caller for as long as the lines are:
 * its sections key the unit's index), its address size and DW_AT_comp_dir.
 * Needs nothing of libdw. */
int dc_symline_find_in(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, const char *comp_dir,
                       uint64_t pc, struct dc_symline_unit *u, unsigned *file, int *line);

/* File idx of the unit's table, named as libdw names it: 1, 0 none, -1 ask
 * libdw. */
int dc_symline_file(const struct dc_symline_unit *u, uint64_t idx, char *buf, size_t len);

/* Forgets every Dwarf's sections and every unit's index (a module gone may
 * free its Dwarf). */
void dc_symline_clear(void);

/* Bytes its indexes hold (--stats). */
size_t dc_symline_bytes(void);
#endif
