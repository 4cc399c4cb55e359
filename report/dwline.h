/* dwline: the source line of one address from a compile unit's DWARF line
 * program (.debug_line, versions 2-5), the answer libdw's
 * dwfl_module_getsrc + dwfl_lineinfo give, without libdw's whole-unit table.
 *
 * libdw 0.188 answers a line query by decoding every row of the unit into a
 * list (a malloc per row past 2048), sorting the rows by address and
 * searching them; its dwarf_getsrcfiles, for an inlined call's file, does
 * the same.  Measured with callgrind on a C program's first report
 * (bench/launches.cu first): 4 to 15 million instructions, most of the first
 * report.  No maintained library answers one address without that sort
 * (libdw, LLVM's DWARFDebugLine and gimli's line program all build the whole
 * table), so this reader decodes the program once, keeping only the row that
 * libdw's sorted search would pick, and allocates nothing.
 *
 * Outputs equal libdw's: the same row (libdw's order: address, then an
 * end_sequence before a row at the same address, then the row that came
 * later in the program; the unit's highest row counts as its end), the
 * same file name (the directory joined with '/' unless the name is
 * absolute; DWARF < 5: directory 0 is the unit's DW_AT_comp_dir, file 0
 * "???").  Whatever this reader does not decode as libdw would (a form it
 * does not know, DW_LNE_define_file, a value libdw truncates or refuses, a
 * LEB128 number of unusual length) answers -1: the caller asks libdw.
 * Functions of their bytes: no state; only dc_dwline_index allocates (its
 * index); every read is bounded by the section (tests/fuzz/fuzz_dwline.c). */
#ifndef DC_DWLINE_H
#define DC_DWLINE_H
#include <stddef.h>
#include <stdint.h>

/* The sections a line program's header may point into (NULL, 0 when the
 * object has none). */
struct dc_dwline_sec {
    const uint8_t *line;
    size_t line_size;
    const uint8_t *line_str;            /* .debug_line_str (DW_FORM_line_strp) */
    size_t line_str_size;
    const uint8_t *str;                 /* .debug_str (DW_FORM_strp) */
    size_t str_size;
};

/* The row of the line program at offset off of .debug_line (the unit's
 * DW_AT_stmt_list; addr_size its address size) that holds pc (a DWARF
 * address): returns 1 and sets *file (an index into the header's file
 * table) and *line; 0 when no row holds pc (libdw: no line); -1 when the
 * program is not one this reader decodes as libdw does (then ask libdw). */
int dc_dwline_find(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, uint64_t pc,
                   unsigned *file, int *line);

/* A unit's sequences, for lookups without decoding the whole program again:
 * each sequence's place in the program, lowest and highest row address, its
 * last row in libdw's order at the highest one, and whether its addresses
 * never decrease (a lookup then stops at the first row past the address). */
struct dc_dwline_seq {
    size_t at, rows;
    uint64_t lo, hi;
    int mono, top_end, top_line;
    unsigned top_file;
    size_t mark0, nmarks;               /* its marks: mark[mark0 .. mark0 + nmarks) */
};
/* The state machine after a row of a monotonic sequence (every 64th): a
 * lookup decodes from the last mark at or below its address. */
struct dc_dwline_mark {
    size_t at;                          /* the next opcode, from the program's start */
    uint64_t addr;
    int64_t line;
    unsigned op_index, file, column, isa, is_stmt;
};
struct dc_dwline_hdr;                   /* the unit's header, decoded (dwline.c) */
struct dc_dwline_index {
    struct dc_dwline_hdr *hdr;          /* malloc'd, as the rest; dc_dwline_index_free */
    struct dc_dwline_seq *seq;
    size_t nseq;
    struct dc_dwline_mark *mark;        /* malloc'd */
    size_t nmark;
    uint64_t max_addr;
};

/* Decodes the program at off once into *x: 0, or -1 (as dc_dwline_find;
 * *x is then empty). */
int dc_dwline_index(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, struct dc_dwline_index *x);
void dc_dwline_index_free(struct dc_dwline_index *x);

/* dc_dwline_find's answer through the unit's index (valid while the
 * sections are): only the sequences whose rows straddle pc are decoded,
 * monotonic ones from the mark below pc. */
int dc_dwline_lookup(const struct dc_dwline_index *x, uint64_t pc, unsigned *file, int *line);

/* The name of file idx of the header at off, built as libdw builds it, into
 * buf (NUL-terminated, cut to len): returns 1; 0 when the table has no such
 * file (libdw: NULL); -1 when undecodable (ask libdw).  comp_dir: the unit's
 * DW_AT_comp_dir, or NULL (DWARF < 5 only).  Only meaningful after
 * dc_dwline_find answered >= 0 for the same unit (the program is valid). */
int dc_dwline_file(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, const char *comp_dir,
                   uint64_t idx, char *buf, size_t len);
/* The same through the unit's index (its header decoded once). */
int dc_dwline_index_file(const struct dc_dwline_sec *s, const struct dc_dwline_index *x, const char *comp_dir,
                         uint64_t idx, char *buf, size_t len);
#endif
