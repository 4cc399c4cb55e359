/* symline: a compile unit's source lines for the symbolizer, read by
 * report/dwline.c (see symline.h).
 *
 * libdw answers a line (dwfl_module_getsrc) and an inlined call's file
 * (dwarf_getsrcfiles) by decoding the unit's whole line program and sorting
 * its rows: callgrind, bench/launches.cu first, 3.9 million instructions of
 * the 8.6 million of a C program's first report (15 of 23 under
 * backend=cupti, where the sim runtime's frames add their units).
 * report/dwline.c decodes the one unit's program without a table and
 * answers what libdw would; what it does not read, libdw still answers.
 * Each Dwarf's sections are found once, each unit's index made once; both
 * forgotten together (dc_symline_clear).  Under the symbolizer's lock. */
#include "report/symline.h"
#include "common/lazylib.h"
#include "report/dwline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int sl_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); sl_oom = 1; } while (0)
#include <uthash.h>

/* What it asks of libdw and libelf, bound from the copy the symbolizer
 * loaded (RTLD_NOLOAD, RTLD_LAZY as it: a second dlopen with RTLD_NOW would
 * bind all of libdw's PLT slots). */
#define SL_FUNCS(X)                     \
    X(dwfl_module_getdwarf)             \
    X(dwarf_tag)                        \
    X(dwarf_attr)                       \
    X(dwarf_formudata)                  \
    X(dwarf_formstring)                 \
    X(dwarf_diecu)                      \
    X(dwarf_getelf)                     \
    X(elf_getshdrstrndx)                \
    X(elf_nextscn)                      \
    X(elf_strptr)                       \
    X(elf_getdata)                      \
    X(elf_getident)                     \
    X(gelf_getshdr)

DC_LAZY_POINTERS(SL_FUNCS)
static int sl_state;                    /* 0 not tried, 1 bound, -1 not */

static int bound(void) { return DC_LAZY_BIND_LOADED(sl_state, "libdw.so.1", SL_FUNCS); }

#define LINE_SECS_MAX 64
static struct line_secs {
    Dwarf *dbg;
    int ok;
    struct dc_dwline_sec s;
} line_secs[LINE_SECS_MAX];
static size_t line_nsecs;

static const struct dc_dwline_sec *secs_of(Dwarf *dbg)
{
    for (size_t i = 0; i < line_nsecs; i++)
        if (line_secs[i].dbg == dbg)
            return line_secs[i].ok ? &line_secs[i].s : NULL;
    if (line_nsecs == LINE_SECS_MAX)
        return NULL;
    struct line_secs *x = &line_secs[line_nsecs++];
    memset(x, 0, sizeof *x);
    x->dbg = dbg;
    Elf *elf = p_dwarf_getelf(dbg);
    size_t shstrndx;
    char *id = elf ? p_elf_getident(elf, NULL) : NULL;
    static const uint16_t one = 1;
    int host = *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
    if (!id || id[EI_DATA] != host || p_elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;            /* dwline reads the host's byte order */
    for (Elf_Scn *scn = p_elf_nextscn(elf, NULL); scn; scn = p_elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!p_gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        const char *name = p_elf_strptr(elf, shstrndx, sh.sh_name);
        const uint8_t **where = NULL;
        size_t *size = NULL;
        if (!name)
            continue;
        if (!strcmp(name, ".debug_line"))
            where = &x->s.line, size = &x->s.line_size;
        else if (!strcmp(name, ".debug_line_str"))
            where = &x->s.line_str, size = &x->s.line_str_size;
        else if (!strcmp(name, ".debug_str"))
            where = &x->s.str, size = &x->s.str_size;
        else
            continue;
        if (sh.sh_flags & SHF_COMPRESSED)
            continue;           /* libdw decompresses at its start; never seen compressed here */
        Elf_Data *d = p_elf_getdata(scn, NULL);
        if (d && d->d_buf)
            *where = d->d_buf, *size = d->d_size;
    }
    x->ok = x->s.line != NULL;
    return x->ok ? &x->s : NULL;
}

static int line_unit_of(Dwfl_Module *mod, Dwarf_Die *cu, struct dc_symline_unit *u)
{
    Dwarf_Addr bias;
    Dwarf *dbg = p_dwfl_module_getdwarf(mod, &bias);
    Dwarf_Attribute attr;
    Dwarf_Die die;
    uint8_t asz = 0, osz = 0;
    int tag = p_dwarf_tag(cu);
    if (!dbg || (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit) || !(u->s = secs_of(dbg)) ||
        !p_dwarf_attr(cu, DW_AT_stmt_list, &attr) || p_dwarf_formudata(&attr, &u->off) != 0 ||
        !p_dwarf_diecu(cu, &die, &asz, &osz))
        return -1;
    u->addr_size = asz;
    u->comp_dir = p_dwarf_attr(cu, DW_AT_comp_dir, &attr) ? p_dwarf_formstring(&attr) : NULL;
    return 0;
}

/* Each unit's index (dc_dwline_index), made at its first lookup. */
struct line_key {
    const uint8_t *line;
    uint64_t off;
};
struct line_index {
    struct line_key key;
    int ok;
    struct dc_dwline_index x;
    UT_hash_handle hh;
};
static struct line_index *line_indexes;
static size_t line_bytes;

static const struct dc_dwline_index *line_index_of(const struct dc_symline_unit *u)
{
    struct line_key key;
    memset(&key, 0, sizeof key);
    key.line = u->s->line;
    key.off = u->off;
    struct line_index *e;
    HASH_FIND(hh, line_indexes, &key, sizeof key, e);
    if (!e) {
        if (!(e = calloc(1, sizeof *e)))
            return NULL;
        e->key = key;
        e->ok = dc_dwline_index(u->s, u->off, u->addr_size, &e->x) == 0;
        sl_oom = 0;
        HASH_ADD(hh, line_indexes, key, sizeof e->key, e);
        if (sl_oom) {
            dc_dwline_index_free(&e->x);
            free(e);
            return NULL;
        }
        line_bytes += sizeof *e + e->x.nseq * sizeof *e->x.seq + e->x.nmark * sizeof *e->x.mark;
    }
    return e->ok ? &e->x : NULL;
}

int dc_symline_find(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, struct dc_symline_unit *u, unsigned *file,
                    int *line)
{
    if (!bound() || line_unit_of(mod, cu, u))
        return -1;
    u->x = line_index_of(u);
    return u->x ? dc_dwline_lookup(u->x, pc, file, line) : -1;
}

int dc_symline_find_in(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, const char *comp_dir,
                       uint64_t pc, struct dc_symline_unit *u, unsigned *file, int *line)
{
    if (!s || !s->line)
        return -1;
    u->s = s;
    u->off = off;
    u->addr_size = addr_size;
    u->comp_dir = comp_dir;
    u->x = line_index_of(u);
    return u->x ? dc_dwline_lookup(u->x, pc, file, line) : -1;
}

int dc_symline_file(const struct dc_symline_unit *u, uint64_t idx, char *buf, size_t len)
{
    return u->x ? dc_dwline_index_file(u->s, u->x, u->comp_dir, idx, buf, len) : -1;
}

void dc_symline_clear(void)
{
    struct line_index *e, *tmp;
    HASH_ITER(hh, line_indexes, e, tmp) {
        HASH_DEL(line_indexes, e);
        dc_dwline_index_free(&e->x);
        free(e);
    }
    line_bytes = 0;
    line_nsecs = 0;
}

size_t dc_symline_bytes(void)
{
    return line_bytes + (line_indexes ? HASH_OVERHEAD(hh, line_indexes) : 0);
}
