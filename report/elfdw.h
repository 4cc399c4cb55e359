/* elfdw: a loaded object's ELF file read without libdw, for the symbolizer
 * (report/symbolize.c, issue 38): the ELF symbol holding an address as
 * libdw's dwfl_module_addrname names it, and from the file's own DWARF the
 * compile unit (its line program's place, for report/dwline.c), the function
 * and the inlined calls holding an address, as report/symbolize.c's libdw
 * path finds them (dwfl_module_addrdie through .debug_aranges, the unit's
 * functions with code by address, dwarf_haspc down the function's blocks,
 * dwarf_attr_integrate for names).
 *
 * libdw costs a C program's first report its load (libdw, libelf and four
 * compression libraries), /proc/self/maps read with sscanf and every object
 * of the process opened: most of the ~2 ms of CPU of a first report.  This
 * room answers from the one object's file, mapped, for what it reads as libdw
 * does; whatever it does not (no .symtab in the file, separate debug files,
 * compressed sections, 64-bit DWARF, string or address indexes, a reference
 * into another unit, a symbol libdw's choice among sizeless labels decides)
 * answers -1: the caller asks libdw.  Every read is bounded by its section
 * (tests/fuzz/fuzz_elfdw.c).  Not thread-safe: the caller serializes. */
#ifndef DC_ELFDW_H
#define DC_ELFDW_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "report/dwline.h"

struct dc_elfdw_unit;

/* An ELF file's image (its bytes, which the caller keeps) and what was
 * found in it. */
struct dc_elfdw {
    const uint8_t *img;
    size_t size;
    int ok;                             /* a 64-bit little-endian ET_EXEC/ET_DYN this room reads */
    const uint8_t *sym;                 /* libdw's table: .symtab (NULL: none, or unreadable), or the
                                         * .dynsym once dc_elfdw_no_debug_file says libdw takes it */
    size_t nsym;
    size_t first_global;                /* its sh_info */
    const char *strtab;
    size_t strtab_size;
    int has_symtab;                     /* a SHT_SYMTAB (libdw never looks further for symbols) */
    const uint8_t *dynsym;              /* .dynsym and .dynstr (NULL: none, or unreadable) */
    size_t ndynsym, dyn_first_global;
    const char *dynstr;
    size_t dynstr_size;
    int xindex;                         /* extended section indexes: libdw */
    const uint8_t *phdr;                /* program headers (the loaded ranges) */
    size_t nphdr;
    /* where libdw would look for a separate debug file (symelf.c looks) */
    int own_dwarf;                      /* a .debug_* or .zdebug_* section: libdw looks for none */
    const char *debuglink;              /* .gnu_debuglink's file name (NULL: none) */
    const uint8_t *build_id;            /* NT_GNU_BUILD_ID's bytes (NULL: none) */
    size_t build_id_len;
    int debugdata;                      /* .gnu_debugdata (a compressed table libdw reads) */
    int no_debug_file;                  /* dc_elfdw_no_debug_file was told so */
    const uint8_t *shdr;                /* section headers (for a symbol's section) */
    size_t nsec;
    int dw_unreadable;                  /* a .debug_* section this room cannot read (compressed) */
    const uint8_t *info, *abbrev, *aranges, *ranges, *rnglists;
    size_t info_size, abbrev_size, aranges_size, ranges_size, rnglists_size;
    struct dc_dwline_sec lines;         /* .debug_line, .debug_line_str, .debug_str */
    struct dc_elfdw_unit *units;        /* the units read so far: malloc'd, dc_elfdw_free */
};

/* A NUL-terminated string at off of sec[0 .. size), NULL if none. */
static inline const char *dc_elfdw_str(const uint8_t *sec, size_t size, uint64_t off)
{
    if (!sec || off >= size || !memchr(sec + off, 0, size - off))
        return NULL;
    return (const char *)sec + off;
}

/* Reads img[0..size) as an ELF file into *e (nothing allocated): 0, or -1
 * when it is not one this room reads (e->ok 0). */
int dc_elfdw_open(struct dc_elfdw *e, const uint8_t *img, size_t size);
/* Frees what lookups allocated (the units' abbreviations and functions). */
void dc_elfdw_free(struct dc_elfdw *e);

/* The caller found no separate debug file where libdw would look for one
 * (report/symelf.c: the build-id tree, the .gnu_debuglink places; not with
 * debuginfod): libdw then reads this file alone.  A file without DWARF of
 * its own is then answered (dc_elfdw_at: 0, no unit), and one without a
 * .symtab has its symbols from the .dynsym, as libdw's find_symtab does
 * (elfutils libdwfl/dwfl_module_getdwarf.c), unless a .gnu_debugdata holds
 * a compressed table libdw would add. */
void dc_elfdw_no_debug_file(struct dc_elfdw *e);

/* addr (an address of the file) lies in one of its PT_LOAD segments. */
int dc_elfdw_loaded(const struct dc_elfdw *e, uint64_t addr);

/* The name of the ELF symbol libdw gives for addr (an address of the file:
 * the load bias taken off): 1 (*name in the image), 0 none, -1 ask libdw
 * (also: a table too large to walk for one address: dc_elfdw_symbols). */
int dc_elfdw_symbol(const struct dc_elfdw *e, uint64_t addr, const char **name);
/* The same for the addresses addr[0 .. n) (ascending, distinct) in one pass
 * over the table, a table of any size: res[k] and name[k] as
 * dc_elfdw_symbol's answer and *name for addr[k].  0, or -1 when no pass
 * could be made (res[] then all -1). */
int dc_elfdw_symbols(const struct dc_elfdw *e, const uint64_t *addr, size_t n, int *res, const char **name);
/* Nonzero: one walk of the table per address costs little (below, ask
 * dc_elfdw_symbols for several at once). */
int dc_elfdw_walks(const struct dc_elfdw *e);

#define DC_ELFDW_INLINE_MAX 16
/* An inlined call holding the address (dc_elfdw_at's chain). */
struct dc_elfdw_call {
    const char *name;                   /* its function's name (linkage name first), NULL if none */
    int has_line, has_file;
    uint64_t line, file;                /* DW_AT_call_line, DW_AT_call_file */
};
/* What the DWARF says of an address. */
struct dc_elfdw_at {
    /* the unit */
    uint64_t stmt_list;                 /* its line program's offset in .debug_line */
    unsigned addr_size;
    const char *comp_dir;               /* NULL if none */
    /* the function: fn 0 when no function of the unit holds the address */
    int fn;
    const char *fn_name;                /* the physical function's name (NULL if none) */
    int n;                              /* inlined calls holding it, innermost first */
    struct dc_elfdw_call chain[DC_ELFDW_INLINE_MAX];
};
/* The unit, function and inlined calls holding addr (a DWARF address): 1,
 * 0 when no unit holds it (.debug_aranges: libdw then has no DIE for it; or
 * the file has no DWARF and, by dc_elfdw_no_debug_file, no debug file),
 * -1 ask libdw (also: the file has no DWARF of its own and no one said
 * that libdw would find no separate debug file). */
int dc_elfdw_at(struct dc_elfdw *e, uint64_t addr, struct dc_elfdw_at *at);
/* Bytes its units hold (--stats). */
size_t dc_elfdw_bytes(const struct dc_elfdw *e);
#endif
