/* elfsym: elfdw's ELF half (see elfdw.h): the file's sections, its build id
 * and debug link, and the symbol holding an address, without libdw.
 *
 * The symbol: libdw's choice (elfutils 0.188 __libdwfl_addrsym, the rules
 * report/symindex.c replays and tests/unit/test_symindex.c checks against
 * libdw): among the sized candidates (a name, a section, not SECTION, FILE
 * or TLS) holding the address, the globals (from sh_info) first, in table
 * order: one starting closer wins, or one of stronger binding, or at the same
 * start a smaller one of binding no weaker, or an equal-sized one of stronger
 * binding; the locals only when no sized global holds it.  Where a sizeless
 * label could be libdw's answer (one of the first walk exactly at the
 * address, or any at or below it when nothing sized holds it), or a
 * candidate is absolute or outside an allocated section (libdw does not add
 * the bias to those), libdw answers. */
#include "report/elfdw.h"
#include "report/symrank.h"

#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the ELF file ---------------------------------------------------------------- */

static void note_build_id(struct dc_elfdw *e, const uint8_t *p, size_t size, uint64_t align);

/* A symbol table's section sh (in the image: its bounds checked) and its
 * string table (sh_link), when both are readable. */
static void table_of(const struct dc_elfdw *e, const Elf64_Shdr *sh, const uint8_t **sym, size_t *n,
                     size_t *first_global, const char **str, size_t *str_size)
{
    Elf64_Shdr st;
    if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link == 0 || sh->sh_link >= e->nsec)
        return;
    memcpy(&st, e->shdr + (size_t)sh->sh_link * sizeof st, sizeof st);
    if (st.sh_type == SHT_NOBITS || st.sh_offset > e->size || st.sh_size > e->size - st.sh_offset)
        return;
    *sym = e->img + sh->sh_offset;
    *n = sh->sh_size / sizeof(Elf64_Sym);
    *first_global = sh->sh_info;
    *str = (const char *)e->img + st.sh_offset;
    *str_size = st.sh_size;
}

int dc_elfdw_open(struct dc_elfdw *e, const uint8_t *img, size_t size)
{
    memset(e, 0, sizeof *e);
    e->img = img;
    e->size = size;
    if (!img || size < sizeof(Elf64_Ehdr))
        return -1;
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    static const uint16_t one = 1;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || !*(const uint8_t *)&one ||
        (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !eh.e_shnum || eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum ||
        eh.e_shoff > size || (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return -1;
    e->shdr = img + eh.e_shoff;
    e->nsec = eh.e_shnum;
    Elf64_Shdr shs;
    memcpy(&shs, e->shdr + (size_t)eh.e_shstrndx * sizeof shs, sizeof shs);
    if (shs.sh_type == SHT_NOBITS || shs.sh_offset > size || shs.sh_size > size - shs.sh_offset)
        return -1;
    const uint8_t *names = img + shs.sh_offset;
    size_t names_size = shs.sh_size;
    int symtab = 0, xindex = 0;
    for (size_t i = 1; i < e->nsec; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, e->shdr + i * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_SYMTAB_SHNDX)
            xindex = 1;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
            continue;
        const uint8_t *data = img + sh.sh_offset;
        if (sh.sh_type == SHT_SYMTAB && sh.sh_size && !symtab) {
            symtab = 1;                 /* libdw reads the first SHT_SYMTAB of the file */
            table_of(e, &sh, &e->sym, &e->nsym, &e->first_global, &e->strtab, &e->strtab_size);
            continue;
        }
        if (sh.sh_type == SHT_DYNSYM && sh.sh_size && !e->dynsym) {
            table_of(e, &sh, &e->dynsym, &e->ndynsym, &e->dyn_first_global, &e->dynstr, &e->dynstr_size);
            continue;
        }
        if (sh.sh_type == SHT_NOTE && !e->build_id)
            note_build_id(e, data, sh.sh_size, sh.sh_addralign);
        const char *name = dc_elfdw_str(names, names_size, sh.sh_name);
        if (name && !strcmp(name, ".gnu_debuglink"))
            e->debuglink = dc_elfdw_str(data, sh.sh_size, 0);
        if (name && !strcmp(name, ".gnu_debugdata"))
            e->debugdata = 1;
        if (name && !strncmp(name, ".zdebug_", 8))
            e->own_dwarf = 1;
        if (!name || strncmp(name, ".debug_", 7))
            continue;
        e->own_dwarf = 1;
        const uint8_t **where = NULL;
        size_t *wsize = NULL;
        if (!strcmp(name, ".debug_info"))
            where = &e->info, wsize = &e->info_size;
        else if (!strcmp(name, ".debug_abbrev"))
            where = &e->abbrev, wsize = &e->abbrev_size;
        else if (!strcmp(name, ".debug_aranges"))
            where = &e->aranges, wsize = &e->aranges_size;
        else if (!strcmp(name, ".debug_ranges"))
            where = &e->ranges, wsize = &e->ranges_size;
        else if (!strcmp(name, ".debug_rnglists"))
            where = &e->rnglists, wsize = &e->rnglists_size;
        else if (!strcmp(name, ".debug_line"))
            where = &e->lines.line, wsize = &e->lines.line_size;
        else if (!strcmp(name, ".debug_line_str"))
            where = &e->lines.line_str, wsize = &e->lines.line_str_size;
        else if (!strcmp(name, ".debug_str"))
            where = &e->lines.str, wsize = &e->lines.str_size;
        else if (!strcmp(name, ".debug_str_offsets") || !strcmp(name, ".debug_addr") ||
                 !strcmp(name, ".debug_types") || !strcmp(name, ".debug_info.dwo")) {
            e->dw_unreadable = 1;       /* units that index strings or addresses, or type units: libdw */
            continue;
        } else
            continue;
        if (sh.sh_flags & SHF_COMPRESSED)
            e->dw_unreadable = 1;       /* libdw decompresses it */
        else
            *where = data, *wsize = sh.sh_size;
    }
    if (xindex)
        e->sym = NULL;                  /* extended section indexes: libdw */
    e->has_symtab = symtab;
    e->xindex = xindex;
    if (eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phoff <= size &&
        (size - eh.e_phoff) / sizeof(Elf64_Phdr) >= eh.e_phnum) {
        e->phdr = img + eh.e_phoff;
        e->nphdr = eh.e_phnum;
    }
    e->ok = 1;
    return 0;
}

/* The bytes of an NT_GNU_BUILD_ID note ("GNU") among a SHT_NOTE section's
 * notes, as libdw's build-id reader (elfutils libdwfl/dwfl_module_build_id.c
 * check_notes) finds them. */
static void note_build_id(struct dc_elfdw *e, const uint8_t *p, size_t size, uint64_t align)
{
    size_t a = align == 8 ? 8 : 4, off = 0;
    while (size - off >= 12) {
        uint32_t nh[3];
        memcpy(nh, p + off, sizeof nh);
        size_t name = off + 12, namesz = nh[0], descsz = nh[1];
        if (namesz > size - name)
            return;
        size_t desc = name + ((namesz + a - 1) & ~(a - 1));
        if (desc > size || descsz > size - desc)
            return;
        if (nh[2] == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name, "GNU", 4) && descsz) {
            e->build_id = p + desc;
            e->build_id_len = descsz;
            return;
        }
        off = desc + ((descsz + a - 1) & ~(a - 1));
        if (off < desc)
            return;
    }
}

void dc_elfdw_no_debug_file(struct dc_elfdw *e)
{
    if (!e->ok)
        return;
    e->no_debug_file = 1;
    if (!e->has_symtab && !e->xindex && !e->debugdata && e->dynsym) {
        e->sym = e->dynsym;             /* libdw: "we still have the dynamic symbol table" */
        e->nsym = e->ndynsym;
        e->first_global = e->dyn_first_global;
        e->strtab = e->dynstr;
        e->strtab_size = e->dynstr_size;
    }
}

int dc_elfdw_loaded(const struct dc_elfdw *e, uint64_t addr)
{
    for (size_t i = 0; e->ok && i < e->nphdr; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, e->phdr + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_memsz)
            return 1;
    }
    return 0;
}

/* A table this large is walked for several addresses at once (libtorch_cpu's
 * 546,000 symbols: ~1 ms a pass), not one walk per address. */
#define ELFDW_WALK_MAX 16384

int dc_elfdw_walks(const struct dc_elfdw *e) { return e->nsym <= ELFDW_WALK_MAX; }

static Elf64_Sym sym_get(const struct dc_elfdw *e, size_t i)
{
    Elf64_Sym s;
    memcpy(&s, e->sym + i * sizeof s, sizeof s);
    return s;
}

/* A symbol with a name (libdw skips one whose name is empty). */
static int named(const struct dc_elfdw *e, const Elf64_Sym *s)
{
    return s->st_name < e->strtab_size && e->strtab[s->st_name];
}

/* An address's state in a pass: libdw's two walks over the table, the
 * globals (from sh_info) and then the locals, replayed at once. */
struct pass_want {
    size_t best[2];                     /* the best sized candidate holding it, per walk (0: none) */
    Elf64_Sym bs[2];
    int ask[2];                         /* a walk met a holder libdw must decide */
    int label_at;                       /* a sizeless candidate of the first walk exactly at it */
};

/* The first of addr[0 .. n) (ascending) at or above v. */
static size_t want_from(const uint64_t *addr, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#define PASS_LOCAL 16                   /* addresses a pass keeps on the stack */
#define PAGE_SHIFT_ 12                  /* the pages whose symbols a pass looks at closer */

/* One pass over the table for addr[0 .. n): every symbol read once; a
 * candidate whose first and last bytes fall on no asked address's page is
 * passed over by a bit test (and its name is never read).  Per address the
 * answer of libdw's walks (elfutils 0.188 __libdwfl_addrsym): the first walk
 * (symbols from the first global; all of them when sh_info is 0), then the
 * locals when no sized global holds the address and no label of the first
 * walk sits at it; where a sizeless label could be the answer, or a holder
 * is absolute or outside an allocated section, libdw decides. */
int dc_elfdw_symbols(const struct dc_elfdw *e, const uint64_t *addr, size_t n, int *res, const char **name)
{
    for (size_t k = 0; k < n; k++)
        res[k] = -1, name[k] = NULL;
    if (!n)
        return 0;
    if (!e->ok || !e->sym || e->first_global > e->nsym)
        return -1;
    struct pass_want local[PASS_LOCAL], *w = n <= PASS_LOCAL ? local : calloc(n, sizeof *w);
    if (!w)
        return -1;
    memset(w, 0, n * sizeof *w);
    uint64_t first = addr[0], last = addr[n - 1], base = first >> PAGE_SHIFT_ << PAGE_SHIFT_;
    uint64_t npages = ((last - base) >> PAGE_SHIFT_) + 1;
    uint8_t page_local[64], *page = NULL;  /* the asked pages' bits, and bit npages (0) */
    if (npages < 8 * sizeof page_local)
        page = memset(page_local, 0, sizeof page_local);
    else if (npages <= ((uint64_t)1 << 28))
        page = calloc((size_t)(npages + 8) / 8, 1);     /* none: every candidate looked at */
    for (size_t k = 0; page && k < n; k++) {
        uint64_t pg = (addr[k] - base) >> PAGE_SHIFT_;
        page[pg / 8] |= (uint8_t)(1u << (pg % 8));
    }
    size_t fg = e->first_global, pass1 = fg == 0 ? 1 : fg;
    uint64_t lowest[2] = { UINT64_MAX, UINT64_MAX };   /* the least value of a sizeless candidate, per walk */
    for (size_t i = 1; i < e->nsym; i++) {
        /* the value and size first, each read alone: most entries are passed
         * over on them (a whole entry copied out stalls the loop) */
        const uint8_t *p = e->sym + i * sizeof(Elf64_Sym);
        uint64_t v, size;
        memcpy(&v, p + offsetof(Elf64_Sym, st_value), sizeof v);
        memcpy(&size, p + offsetof(Elf64_Sym, st_size), sizeof size);
        if (page && size - 1 < ((uint64_t)1 << PAGE_SHIFT_) - 1) {
            /* under a page: an asked address it holds is on the page of its
             * first or of its last byte; no branch on the values (they
             * mispredict): a page outside the asked ones reads bit npages, 0 */
            uint64_t rel = v - base, a = rel >> PAGE_SHIFT_, b = (rel + size - 1) >> PAGE_SHIFT_;
            a = a < npages ? a : npages;
            b = b < npages ? b : npages;
            if (!(((page[a / 8] >> (a % 8)) | (page[b / 8] >> (b % 8))) & 1))
                continue;
        } else if (size && (v > last || (v + size > v && v + size <= first))) {
            continue;
        }
        uint16_t shndx;
        memcpy(&shndx, p + offsetof(Elf64_Sym, st_shndx), sizeof shndx);
        int type = ELF64_ST_TYPE(p[offsetof(Elf64_Sym, st_info)]);
        if (shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE || type == STT_TLS)
            continue;
        int wk = i >= pass1 ? 0 : 1;    /* below pass1: the locals' walk (fg > 1) */
        if (!size) {
            Elf64_Sym s = sym_get(e, i);
            if (v < lowest[wk] && named(e, &s))
                lowest[wk] = v;
            if (!wk && v >= first && v <= last) {
                size_t k = want_from(addr, n, v);
                if (k < n && addr[k] == v && named(e, &s))
                    w[k].label_at = 1;
            }
            continue;
        }
        Elf64_Sym s = sym_get(e, i);
        for (size_t k = want_from(addr, n, v); k < n && addr[k] - v < size; k++) {
            if (!named(e, &s))
                break;                  /* not a candidate after all */
            struct pass_want *x = &w[k];
            if (x->ask[wk])
                continue;
            int alloc = 0;
            if (s.st_shndx < SHN_LORESERVE && s.st_shndx < e->nsec) {
                Elf64_Shdr sh;
                memcpy(&sh, e->shdr + (size_t)s.st_shndx * sizeof sh, sizeof sh);
                alloc = (sh.sh_flags & SHF_ALLOC) != 0;
            }
            if (!alloc || !memchr(e->strtab + s.st_name, 0, e->strtab_size - s.st_name))
                x->ask[wk] = 1;         /* an absolute symbol or one outside the image: libdw */
            else if (dc_sym_better(x->best[wk] != 0, x->bs[wk].st_value, x->bs[wk].st_size, x->bs[wk].st_info, v,
                                   size, s.st_info))
                x->best[wk] = i, x->bs[wk] = s;
        }
    }
    for (size_t k = 0; k < n; k++) {
        const struct pass_want *x = &w[k];
        size_t best = x->best[0];
        if (x->ask[0] || (!best && x->label_at))
            continue;                   /* libdw: a holder it decides, or a label of the first walk at addr */
        if (!best && fg > 1) {
            if (x->ask[1])
                continue;
            best = x->best[1];
        }
        if (!best && (lowest[0] <= addr[k] || (fg > 1 && lowest[1] <= addr[k])))
            continue;                   /* nothing sized holds addr: a label below may be the answer */
        res[k] = best != 0;
        if (best) {
            Elf64_Sym bs = sym_get(e, best);
            name[k] = e->strtab + bs.st_name;
        }
    }
    if (w != local)
        free(w);
    if (page != page_local)
        free(page);
    return 0;
}

int dc_elfdw_symbol(const struct dc_elfdw *e, uint64_t addr, const char **name)
{
    int res;
    *name = NULL;
    if (!dc_elfdw_walks(e) || dc_elfdw_symbols(e, &addr, 1, &res, name) != 0)
        return -1;
    return res;
}

