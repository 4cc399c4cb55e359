/* symindex: the ELF symbol holding an address, from an index of each large
 * module's symbols put in buckets by address once (see symindex.h).
 *
 * dwfl_module_addrname walks the whole symbol table for every address:
 * libtorch_cpu.so's 546,000 .symtab symbols cost ~147 M instructions an
 * address, which was most of a torch process's symbolization at exit (the
 * transfer matrix's call sites, report/jsonl.c).  Here a module with
 * SYMINDEX_MIN symbols or more has its sized symbols put once in buckets of
 * 4 KiB of addresses (one count, one placement: no sort); a lookup walks the
 * address's bucket and those below it whose symbols may reach it, finds the
 * ones that hold the address and replays on them alone the choice libdw
 * makes in its walk (elfutils 0.188, libdwfl/dwfl_module_addrsym.c,
 * __libdwfl_addrsym).  Where libdw's table is one ELF64 section of the
 * host's byte order, the buckets are filled from the section's own entries
 * (si_raw_open): no string and no libdw call per symbol.  A torch
 * process's first peer warning names frames of libtorch_cpu.so (546,000
 * symbols), libtorch_cuda.so and libtorch_python.so: the index of
 * libtorch_cpu.so took 65-80 ms with a dwfl_module_getsym_info and a name
 * read per symbol and a sort; 15-25 ms read directly into buckets on the
 * loaded 2-core machine.  A report's few addresses need no index at all:
 * at the first miss in a module, its addresses of the stack being named
 * and of the stacks the report announced are named in one pass over the
 * table (si_batch; dc_symindex_prefetch for a caller with a Dwfl; a few ms
 * for the three libraries), and a module gets its index only when passed
 * over SI_SCANS_MAX times.
 *  - the candidates are the symbols with a name, a section, not SECTION,
 *    FILE or TLS, at or below the address, values as dwfl_module_getsym_info
 *    gives them; the globals are walked first (from the first global), the
 *    locals only when no sized global holds the address and no global
 *    without size (an assembly label) sits exactly at it;
 *  - among the sized symbols that hold the address, in table order: the one
 *    that starts closer wins, or one of stronger binding (global > weak >
 *    local), or at the same start a smaller one of binding no weaker, or an
 *    equal-sized one of stronger binding; else the first stays;
 *  - a symbol without size is chosen only when no sized one holds the
 *    address: those cases (labels in the module, nothing sized around the
 *    address) are left to libdw itself, as are a symbol table it reads
 *    differently (first global < 0), addresses held by more than
 *    SI_HELD_MAX symbols and those whose buckets hold more than SI_SCAN_MAX
 *    entries to walk.
 * Sized symbols that do not fit the compact entry (outside the module's
 * range, or 4 GiB and over) are walked for every lookup with libdw's value
 * (none in the libraries seen), those of SI_BIG bytes or more with the
 * compact entries' (10 in libtorch_cpu.so).  tests/unit/test_symindex.c
 * compares every answer with libdw's, from both kinds of build. */
#include "report/symindex.h"
#include "common/lazylib.h"
#include "report/symwant.h"
#include "report/symrank.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int si_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); si_oom = 1; } while (0)
#include <uthash.h>

#define SI_FUNCS(X)                         \
    X(dwfl_module_addrname)                 \
    X(dwfl_module_getsymtab)                \
    X(dwfl_module_getsymtab_first_global)   \
    X(dwfl_module_getsym_info)              \
    X(dwfl_module_info)                     \
    X(dwfl_addrmodule)                      \
    X(elf_getident)                         \
    X(elf_nextscn)                          \
    X(elf_getdata)                          \
    X(elf_ndxscn)                           \
    X(gelf_getehdr)                         \
    X(gelf_getshdr)

DC_LAZY_POINTERS(SI_FUNCS)

#define SYMINDEX_MIN 2048   /* symbols: below, libdw's walk costs less than an index */
#define SI_SHIFT 12         /* a bucket: 4 KiB of the module's addresses */
#define SI_BIG (1u << 18)   /* sized symbols this large or larger: a list walked at each lookup */
#define SI_SAMPLES 64       /* symbols read both ways before the table is read directly */
#define SI_HELD_MAX 65536   /* symbols holding one address that a lookup replays (identical code
                             * folding gives hundreds of locals one body in libtorch_cpu.so) */
#define SI_SCAN_MAX 8192    /* entries a lookup steps back over before it asks libdw */

static int si_state;        /* 0 not tried, 1 bound, -1 unavailable; under the caller's lock */

/* libdw is loaded already (the caller holds one of its modules): bound
 * from that copy (common/lazylib.h DC_LAZY_BIND_LOADED, as report/symline.c). */
static int si_ready(void) { return DC_LAZY_BIND_LOADED(si_state, "libdw.so.1", SI_FUNCS); }

struct si_sym {
    uint32_t lo, size, ndx;         /* lo: the value less the module's low address */
};

#define SI_SECS_MAX 4096    /* sections whose SHF_ALLOC is looked up directly */

/* A table read directly: its entries and the bias of its SHF_ALLOC symbols. */
struct si_raw {
    const Elf64_Sym *tab;
    GElf_Addr adj;
    uint8_t alloc[SI_SECS_MAX / 8]; /* its sections' SHF_ALLOC, a bit each */
};

struct si_index {
    Dwfl_Module *mod;               /* the key */
    GElf_Addr low, high;            /* the module when indexed: a reused Dwfl_Module is told apart */
    char *name;
    int syments, first_global;
    int direct;                     /* not indexed: libdw answers */
    size_t n, nb;
    struct si_sym *sym;             /* the sized candidates in [low, high), by bucket (lo >> SI_SHIFT) */
    uint32_t *start;                /* [b .. b + 1]: bucket b's entries in sym; nb + 1 of them */
    uint64_t *reach;                /* [b]: the greatest lo + size of the entries of buckets 0 .. b */
    size_t nbig;
    struct si_sym *big;             /* the sized candidates of SI_BIG bytes or more */
    size_t nfar;
    uint32_t *far;                  /* the other sized candidates (table indexes) */
    size_t nlabel;
    GElf_Addr *label;               /* the first walk's candidates without size: their values, sorted */
    GElf_Addr lowest_label;         /* the least value of any candidate without size; ~0 if none */
    int built;                      /* the buckets are made (else: answers only, or direct) */
    int raw_state;                  /* 0 not asked, 1 raw is the table read directly, -1 it cannot be */
    struct si_raw raw;
    int scans;                      /* dc_symindex_prefetch's passes over the table */
    struct si_answer *answers;      /* what those passes found */
    size_t bytes;
    UT_hash_handle hh;
};

/* An address named by a prefetch pass (name NULL: none). */
struct si_answer {
    GElf_Addr addr;
    const char *name;
    UT_hash_handle hh;
};

static struct si_index *indexes;
static size_t si_bytes;
static uint32_t *held;          /* a lookup's symbols holding the address; kept for the next */
static size_t held_cap;

static int candidate(const char *name, const GElf_Sym *s)
{
    int type = GELF_ST_TYPE(s->st_info);
    return name && name[0] && s->st_shndx != SHN_UNDEF && type != STT_SECTION && type != STT_FILE &&
           type != STT_TLS;
}


static void si_free(struct si_index *x)
{
    struct si_answer *a, *atmp;
    HASH_ITER(hh, x->answers, a, atmp) {
        HASH_DEL(x->answers, a);
        free(a);
    }
    free(x->name);
    free(x->sym);
    free(x->start);
    free(x->reach);
    free(x->big);
    free(x->far);
    free(x->label);
    free(x);
}

void dc_symindex_clear(void)
{
    struct si_index *x, *tmp;
    HASH_ITER(hh, indexes, x, tmp) {
        HASH_DEL(indexes, x);
        si_free(x);
    }
    si_bytes = 0;
    free(held);
    held = NULL;
    held_cap = 0;
}

size_t dc_symindex_bytes(void)
{
    return si_bytes + held_cap * sizeof *held + (indexes ? HASH_OVERHEAD(hh, indexes) : 0);
}

static int addr_cmp(const void *a, const void *b)
{
    GElf_Addr x = *(const GElf_Addr *)a, y = *(const GElf_Addr *)b;
    return x < y ? -1 : x > y;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Appends v to *arr (*n used of *cap); 0 when out of memory. */
#define SI_PUSH(arr, n, cap, v)                                                     \
    ({                                                                              \
        int ok_ = 1;                                                                \
        if ((n) == (cap)) {                                                         \
            size_t c_ = (cap) ? (cap) * 2 : 64;                                     \
            __typeof__(arr) p_ = realloc((arr), c_ * sizeof *(arr));                \
            if (p_)                                                                 \
                (arr) = p_, (cap) = c_;                                             \
            else                                                                    \
                ok_ = 0;                                                            \
        }                                                                           \
        if (ok_)                                                                    \
            (arr)[(n)++] = (v);                                                     \
        ok_;                                                                        \
    })

/* What a build gathers before the buckets are made. */
struct si_collect {
    struct si_sym *v;               /* the sized candidates in [low, high), table order */
    size_t n, cap, capfar, caplabel;
};

/* One candidate of table index i at value v (size s.st_size): listed as the
 * index wants it; 0 when out of memory. */
static int si_add(struct si_index *x, struct si_collect *c, int i, int pass1, GElf_Addr v, GElf_Xword size)
{
    if (!size) {
        if (v < x->lowest_label)
            x->lowest_label = v;
        return i < pass1 || SI_PUSH(x->label, x->nlabel, c->caplabel, v);
    }
    if (v >= x->low && v < x->high && v - x->low <= UINT32_MAX && size <= UINT32_MAX) {
        struct si_sym e = { (uint32_t)(v - x->low), (uint32_t)size, (uint32_t)i };
        return SI_PUSH(c->v, c->n, c->cap, e);
    }
    return SI_PUSH(x->far, x->nfar, c->capfar, (uint32_t)i);
}

/* The buckets, made in three steps: si_count for each entry, si_buckets,
 * si_place for each entry again; then si_reach.  x->start and x->reach are
 * allocated (x->nb) before. */
static void si_count(struct si_index *x, struct si_sym e)
{
    if (e.size >= SI_BIG)
        x->nbig++;
    else
        x->start[(e.lo >> SI_SHIFT) + 1]++, x->n++;
}

static int si_buckets(struct si_index *x)
{
    for (size_t b = 0; b < x->nb; b++)
        x->start[b + 1] += x->start[b];
    x->sym = malloc((x->n ? x->n : 1) * sizeof *x->sym);
    x->big = malloc((x->nbig ? x->nbig : 1) * sizeof *x->big);
    x->nbig = 0;                        /* counted again as placed */
    return x->sym && x->big;
}

static void si_place(struct si_index *x, struct si_sym e)
{
    if (e.size >= SI_BIG)
        x->big[x->nbig++] = e;
    else
        x->sym[x->start[e.lo >> SI_SHIFT]++] = e;  /* start[b] moves to bucket b's end */
}

static void si_reach(struct si_index *x)
{
    memmove(x->start + 1, x->start, x->nb * sizeof *x->start);
    x->start[0] = 0;
    uint64_t top = 0;
    for (size_t b = 0; b < x->nb; b++) {
        for (uint32_t k = x->start[b]; k < x->start[b + 1]; k++) {
            uint64_t end = (uint64_t)x->sym[k].lo + x->sym[k].size;
            if (end > top)
                top = end;
        }
        x->reach[b] = top;
    }
}

/* The candidates as libdw gives them, one dwfl_module_getsym_info a symbol
 * (libtorch_cpu.so: 546,000 symbols, each name read from a 78 MB string
 * table: ~80 ms); 0 when out of memory. */
static int si_collect_libdw(struct si_index *x, struct si_collect *c, int pass1)
{
    for (int i = 1; i < x->syments; i++) {
        GElf_Sym s;
        GElf_Addr v;
        GElf_Word shndx;
        const char *name = p_dwfl_module_getsym_info(x->mod, i, &s, &v, &shndx, NULL, NULL);
        if (candidate(name, &s) && !si_add(x, c, i, pass1, v, s.st_size))
            return 0;
    }
    return 1;
}


static int direct_read = 1;

void dc_symindex_set_direct_read(int on) { direct_read = on != 0; }

/* The symbol table read from its own entries, when libdw's table is
 * exactly one ELF64 section of the host's byte order in an object that is
 * not relocatable: no string read (a name is checked only where a lookup
 * replays it: an entry with a name offset stands for a candidate until
 * then), no call per symbol.  The value is libdw's (__libdwfl_getsym):
 * st_value, plus the file's bias in an SHF_ALLOC section (not for ABS,
 * COMMON, nor a section without SHF_ALLOC); a symbol of an extended section
 * index is asked of libdw.  SI_SAMPLES symbols spread over the table are
 * read both ways first, and any difference leaves the module to libdw's
 * reading.  si_raw_open: 1 when x's table can be read so (x->raw filled),
 * else 0; decided once per module. */
static int si_raw_check(struct si_index *x);

static int si_raw_open(struct si_index *x, struct si_raw *raw)
{
    if (!x->raw_state)
        x->raw_state = direct_read && si_raw_check(x) ? 1 : -1;
    if (x->raw_state < 0)
        return 0;
    *raw = x->raw;
    return 1;
}

static int si_raw_check(struct si_index *x)
{
    GElf_Sym s;
    GElf_Addr v;
    GElf_Word shndx;
    Elf *elf = NULL;
    if (!p_dwfl_module_getsym_info(x->mod, 1, &s, &v, &shndx, &elf, NULL) || !elf)
        return 0;
    static const uint16_t one = 1;
    int host = *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
    char *id = p_elf_getident(elf, NULL);
    GElf_Ehdr eh;
    if (!id || id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != host || !p_gelf_getehdr(elf, &eh) ||
        eh.e_type == ET_REL)
        return 0;
    unsigned char alloc[SI_SECS_MAX];
    memset(alloc, 1, sizeof alloc);     /* libdw: a section it cannot read counts as allocated */
    const Elf64_Sym *tab = NULL;
    int tab_type = 0;
    for (Elf_Scn *scn = p_elf_nextscn(elf, NULL); scn; scn = p_elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!p_gelf_getshdr(scn, &sh))
            return 0;
        size_t ndx = p_elf_ndxscn(scn);
        if (ndx < SI_SECS_MAX)
            alloc[ndx] = (sh.sh_flags & SHF_ALLOC) != 0;
        /* libdw's table: the .symtab, else the .dynsym */
        if ((sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && tab_type != SHT_SYMTAB)) &&
            sh.sh_entsize == sizeof(Elf64_Sym) && sh.sh_size / sizeof(Elf64_Sym) == (GElf_Xword)x->syments &&
            sh.sh_info == (GElf_Word)x->first_global) {
            Elf_Data *d = p_elf_getdata(scn, NULL);
            if (!d || !d->d_buf || d->d_size != sh.sh_size)
                return 0;
            tab = d->d_buf;
            tab_type = (int)sh.sh_type;
        }
    }
    if (!tab)
        return 0;
    /* the bias, and the two readings compared */
    int have_adj = 0;
    GElf_Addr adj = 0;
    int step = x->syments / SI_SAMPLES > 0 ? x->syments / SI_SAMPLES : 1;
    for (int i = 1; i < x->syments; i += step) {
        Elf *e = NULL;
        const Elf64_Sym *r = &tab[i];
        if (!p_dwfl_module_getsym_info(x->mod, i, &s, &v, &shndx, &e, NULL) || e != elf ||
            s.st_name != r->st_name || s.st_info != r->st_info || s.st_shndx != r->st_shndx ||
            s.st_size != r->st_size)
            return 0;
        if (r->st_shndx == SHN_UNDEF || r->st_shndx == SHN_XINDEX)
            continue;
        if (r->st_shndx >= SHN_LORESERVE || r->st_shndx >= SI_SECS_MAX || !alloc[r->st_shndx]) {
            if (v != r->st_value)
                return 0;
            continue;
        }
        if (!have_adj)
            adj = v - r->st_value, have_adj = 1;
        else if (v != r->st_value + adj)
            return 0;
    }
    if (!have_adj)
        return 0;
    x->raw.tab = tab;
    x->raw.adj = adj;
    for (size_t i = 0; i < SI_SECS_MAX; i++)
        if (alloc[i])
            x->raw.alloc[i / 8] |= (uint8_t)(1u << (i % 8));
    return 1;
}

/* Entry i of a table read directly: 0 not a candidate (or not one by its
 * name offset: an entry with one stands for a candidate until its name is
 * read), 1 its value and size, -1 to be asked of libdw (an extended section
 * index). */
static inline int si_raw_entry(const struct si_raw *raw, int i, GElf_Addr *v, GElf_Xword *size)
{
    const Elf64_Sym *r = &raw->tab[i];
    int type = ELF64_ST_TYPE(r->st_info);
    if (!r->st_name || r->st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE || type == STT_TLS)
        return 0;
    if (r->st_shndx == SHN_XINDEX || (r->st_shndx < SHN_LORESERVE && r->st_shndx >= SI_SECS_MAX))
        return -1;
    *v = r->st_shndx < SHN_LORESERVE && (raw->alloc[r->st_shndx / 8] >> (r->st_shndx % 8) & 1) ? r->st_value + raw->adj
                                                                                          : r->st_value;
    *size = r->st_size;
    return 1;
}

static int si_collect_raw(struct si_index *x, struct si_collect *c, int pass1)
{
    struct si_raw raw;
    if (!si_raw_open(x, &raw))
        return 0;
    GElf_Sym s;
    GElf_Addr v;
    GElf_Word shndx;
    GElf_Xword size;
    /* two passes: the first counts each bucket's entries and lists the
     * rest, the second places the entries (no array grown, none copied) */
    for (int place = 0; place < 2; place++) {
        if (place && !si_buckets(x))
            return -1;
        for (int i = 1; i < x->syments; i++) {
            int k = si_raw_entry(&raw, i, &v, &size);
            if (!k)
                continue;
            if (k < 0) {
                if (place)
                    continue;
                /* its value asked of libdw; walked at each lookup if sized */
                const char *name = p_dwfl_module_getsym_info(x->mod, i, &s, &v, &shndx, NULL, NULL);
                if (candidate(name, &s) && (s.st_size ? !SI_PUSH(x->far, x->nfar, c->capfar, (uint32_t)i)
                                                      : !si_add(x, c, i, pass1, v, 0)))
                    return -1;
                continue;
            }
            if (!size || v < x->low || v >= x->high || v - x->low > UINT32_MAX || size > UINT32_MAX) {
                if (!place && !si_add(x, c, i, pass1, v, size))
                    return -1;
                continue;
            }
            struct si_sym e = { (uint32_t)(v - x->low), (uint32_t)size, (uint32_t)i };
            if (!place)
                si_count(x, e);
            else
                si_place(x, e);
        }
    }
    return 1;
}

/* Lists the module's candidates and puts them in buckets; 0 when out of
 * memory (x is then left for libdw: direct). */
static int si_build(struct si_index *x)
{
    int pass1 = x->first_global == 0 ? 1 : x->first_global;     /* where libdw's first walk starts */
    GElf_Addr span = x->high > x->low ? x->high - x->low : 1;
    if (span > (GElf_Addr)UINT32_MAX + 1)
        span = (GElf_Addr)UINT32_MAX + 1;
    x->nb = (size_t)((span - 1) >> SI_SHIFT) + 1;
    x->start = calloc(x->nb + 1, sizeof *x->start);
    x->reach = calloc(x->nb, sizeof *x->reach);
    if (!x->start || !x->reach)
        return 0;
    struct si_collect c = { 0 };
    x->lowest_label = ~(GElf_Addr)0;
    int raw = si_collect_raw(x, &c, pass1);
    if (raw == 0) {
        /* not read directly: what it may have listed is forgotten */
        free(x->far), free(x->label), free(x->sym), free(x->big);
        x->far = NULL, x->label = NULL, x->sym = x->big = NULL;
        x->nfar = x->nlabel = x->n = x->nbig = 0;
        memset(x->start, 0, (x->nb + 1) * sizeof *x->start);
        memset(&c, 0, sizeof c);
        x->lowest_label = ~(GElf_Addr)0;
        raw = -1;
        if (si_collect_libdw(x, &c, pass1)) {
            for (size_t j = 0; j < c.n; j++)
                si_count(x, c.v[j]);
            if (si_buckets(x)) {
                for (size_t j = 0; j < c.n; j++)
                    si_place(x, c.v[j]);
                raw = 1;
            }
        }
        free(c.v);
    }
    if (raw < 0)
        return 0;
    si_reach(x);
    if (x->nlabel)
        qsort(x->label, x->nlabel, sizeof *x->label, addr_cmp);
    x->bytes = sizeof *x + strlen(x->name) + 1 + (x->n + x->nbig) * sizeof *x->sym +
               (x->nb + 1) * sizeof *x->start + x->nb * sizeof *x->reach + x->nfar * sizeof *x->far +
               x->nlabel * sizeof *x->label;
    return 1;
}

/* The record of mod as it is now, made when missing or stale (not built:
 * si_built); NULL when out of memory. */
static struct si_index *si_get(Dwfl_Module *mod, int syments)
{
    GElf_Addr low = 0, high = 0;
    const char *name = p_dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
    if (!name)
        name = "";
    struct si_index *x;
    HASH_FIND_PTR(indexes, &mod, x);
    if (x && x->low == low && x->high == high && x->syments == syments && !strcmp(x->name, name))
        return x;
    if (x) {
        HASH_DEL(indexes, x);
        si_bytes -= x->bytes;
        si_free(x);
    }
    if (!(x = calloc(1, sizeof *x)) || !(x->name = strdup(name))) {
        free(x);
        return NULL;
    }
    x->mod = mod;
    x->low = low;
    x->high = high;
    x->syments = syments;
    x->first_global = p_dwfl_module_getsymtab_first_global(mod);
    x->direct = x->first_global < 0;
    x->bytes = sizeof *x + strlen(x->name) + 1;
    si_oom = 0;
    HASH_ADD_PTR(indexes, mod, x);
    if (si_oom) {
        si_free(x);
        return NULL;
    }
    si_bytes += x->bytes;
    return x;
}

/* x with its buckets made (or direct: libdw answers). */
static void si_built(struct si_index *x)
{
    if (x->built || x->direct)
        return;
    si_bytes -= x->bytes;
    size_t answers = x->bytes - (sizeof *x + strlen(x->name) + 1);
    if (si_build(x)) {
        x->built = 1;
    } else {
        /* libdw answers: keep only the decision */
        free(x->sym), free(x->start), free(x->reach), free(x->big), free(x->far), free(x->label);
        x->sym = x->big = NULL, x->start = NULL, x->reach = NULL, x->far = NULL, x->label = NULL;
        x->n = x->nb = x->nbig = x->nfar = x->nlabel = 0;
        x->direct = 1;
        x->bytes = sizeof *x + strlen(x->name) + 1;
    }
    x->bytes += answers;
    si_bytes += x->bytes;
}

/* libdw's choice among the sized symbols ndx[0..n) (table order) that hold
 * the address; NULL when n is 0. */
static const char *replay(Dwfl_Module *mod, const uint32_t *ndx, size_t n)
{
    const char *best = NULL;
    GElf_Sym bs;
    GElf_Addr bv = 0;
    memset(&bs, 0, sizeof bs);
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        GElf_Addr v;
        GElf_Word shndx;
        const char *name = p_dwfl_module_getsym_info(mod, (int)ndx[i], &s, &v, &shndx, NULL, NULL);
        if (!name || !name[0])
            continue;           /* not a candidate after all (an empty name, read only now) */
        if (dc_sym_better(best != NULL, bv, bs.st_size, bs.st_info, v, s.st_size, s.st_info)) {
            best = name;
            bs = s;
            bv = v;
        }
    }
    return best;
}

/* A first-walk candidate without size at exactly addr. */
static int label_at(const struct si_index *x, GElf_Addr addr)
{
    size_t lo = 0, hi = x->nlabel;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->label[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->nlabel && x->label[lo] == addr;
}

/* libdw's answer for addr from the sized candidates held[0 .. nheld) that
 * hold it (any order: sorted here), whether a first-walk candidate without
 * size sits at addr, and the least value of any candidate without size. */
static const char *si_decide(Dwfl_Module *mod, int first_global, uint32_t *held, size_t nheld, int label_at_addr,
                             GElf_Addr lowest_label, GElf_Addr addr)
{
    if (nheld > 1)
        qsort(held, nheld, sizeof *held, u32_cmp);
    size_t nlocal = 0;                  /* held[0 .. nlocal): locals walked second */
    if (first_global > 1)
        while (nlocal < nheld && held[nlocal] < (uint32_t)first_global)
            nlocal++;
    const char *name = replay(mod, held + nlocal, nheld - nlocal);
    if (name)
        return name;
    /* no sized global holds addr: libdw walks the locals unless a label of
     * the first walk sits at addr */
    if (label_at_addr)
        return p_dwfl_module_addrname(mod, addr);
    if ((name = replay(mod, held, nlocal)) != NULL)
        return name;
    /* nothing sized holds addr: a label at or below it may be the answer */
    if (lowest_label <= addr)
        return p_dwfl_module_addrname(mod, addr);
    return NULL;
}

/* ---- prefetch: a report's addresses named in one pass, no index --------------- */

/* One address a pass names. */
struct si_want {
    GElf_Addr addr;
    uint32_t *held;                 /* the sized candidates holding it */
    size_t nheld, cap;
    int label_at, full;             /* a first-walk label at it; held overflowed (libdw decides) */
};

static int want_cmp(const void *a, const void *b)
{
    GElf_Addr x = ((const struct si_want *)a)->addr, y = ((const struct si_want *)b)->addr;
    return x < y ? -1 : x > y;
}

/* The first of w[0 .. m) (sorted) at or above addr. */
static size_t want_from(const struct si_want *w, size_t m, GElf_Addr addr)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One pass over x's table (read directly) for the addresses w[0 .. m)
 * (sorted, distinct): each one's holders and labels, then libdw's choice,
 * kept in x->answers.  A candidate whose start or last byte falls in none
 * of the addresses' pages is passed over by a bit test (the pages' bitmap
 * fits in the first-level cache). */
static void si_scan(struct si_index *x, const struct si_raw *raw, struct si_want *w, size_t m)
{
    int pass1 = x->first_global == 0 ? 1 : x->first_global;
    GElf_Addr span = x->high > x->low ? x->high - x->low : 1;
    size_t npages = (size_t)((span - 1) >> SI_SHIFT) + 1;
    uint8_t *page = npages <= ((size_t)1 << 28) ? calloc((npages + 7) / 8, 1) : NULL;
    if (!page)
        return;
    for (size_t k = 0; k < m; k++)
        if (w[k].addr >= x->low && w[k].addr < x->high) {
            size_t pg = (size_t)((w[k].addr - x->low) >> SI_SHIFT);
            page[pg / 8] |= (uint8_t)(1u << (pg % 8));
        }
    GElf_Addr lowest = ~(GElf_Addr)0, first = w[0].addr, last = w[m - 1].addr;
    GElf_Sym s;
    GElf_Word shndx;
    for (int i = 1; i < x->syments; i++) {
        GElf_Addr v;
        GElf_Xword size;
        int kind = si_raw_entry(raw, i, &v, &size);
        if (!kind)
            continue;
        if (kind < 0) {
            const char *name = p_dwfl_module_getsym_info(x->mod, i, &s, &v, &shndx, NULL, NULL);
            if (!candidate(name, &s))
                continue;
            size = s.st_size;
        }
        if (!size) {
            if (v < lowest)
                lowest = v;
            if (i >= pass1 && v >= first && v <= last) {
                size_t k = want_from(w, m, v);
                if (k < m && w[k].addr == v)
                    w[k].label_at = 1;
            }
            continue;
        }
        if (v > last || (v + size > v && v + size <= first))
            continue;
        if (size < ((GElf_Xword)1 << SI_SHIFT) && v >= x->low && v + size - 1 < x->high && v + size > v) {
            size_t a = (size_t)((v - x->low) >> SI_SHIFT), b = (size_t)((v + size - 1 - x->low) >> SI_SHIFT);
            if (!(page[a / 8] & (1u << (a % 8))) && !(page[b / 8] & (1u << (b % 8))))
                continue;
        }
        for (size_t k = want_from(w, m, v); k < m && w[k].addr - v < size; k++)
            if (!w[k].full && (w[k].nheld == SI_HELD_MAX || !SI_PUSH(w[k].held, w[k].nheld, w[k].cap, (uint32_t)i)))
                w[k].full = 1;
    }
    free(page);
    for (size_t k = 0; k < m; k++) {
        struct si_answer *a = malloc(sizeof *a);
        if (!a)
            break;
        a->addr = w[k].addr;
        a->name = w[k].full ? p_dwfl_module_addrname(x->mod, w[k].addr)
                            : si_decide(x->mod, x->first_global, w[k].held, w[k].nheld, w[k].label_at, lowest,
                                        w[k].addr);
        si_oom = 0;
        HASH_ADD(hh, x->answers, addr, sizeof a->addr, a);
        if (si_oom) {
            free(a);
            break;
        }
        x->bytes += sizeof *a;
        si_bytes += sizeof *a;
    }
}

#define SI_SCANS_MAX 8      /* passes over one module's table before its index is made instead */
#define SI_WANT_MAX 256     /* addresses of one module named in one pass */

/* One pass over x's table for the addresses pcs[0 .. n) (its own; at most
 * SI_WANT_MAX) not named yet; 0 when none was made (none left, the table
 * not read directly, or x passed over SI_SCANS_MAX times already). */
static int si_batch(struct si_index *x, const GElf_Addr *pcs, size_t n)
{
    static struct si_want w[SI_WANT_MAX];           /* under the caller's lock */
    struct si_raw raw;
    if (x->built || x->direct || x->scans >= SI_SCANS_MAX)
        return 0;
    size_t m = 0;
    for (size_t j = 0; j < n && m < SI_WANT_MAX; j++) {
        struct si_answer *have = NULL;
        HASH_FIND(hh, x->answers, &pcs[j], sizeof pcs[j], have);
        if (!have)
            w[m++] = (struct si_want){ .addr = pcs[j] };
    }
    if (!m || !si_raw_open(x, &raw))
        return 0;
    qsort(w, m, sizeof *w, want_cmp);
    size_t u = 1;
    for (size_t k = 1; k < m; k++)
        if (w[k].addr != w[u - 1].addr)
            w[u++] = w[k];
    x->scans++;
    si_scan(x, &raw, w, u);
    for (size_t k = 0; k < u; k++)
        free(w[k].held);
    return 1;
}

void dc_symindex_prefetch(Dwfl *dwfl, const uintptr_t *ips, size_t n)
{
    if (!dwfl || !n || !si_ready())
        return;
    static GElf_Addr pcs[SI_WANT_MAX];              /* under the caller's lock */
    static uint8_t done[SI_WANT_MAX];
    size_t m0 = n < SI_WANT_MAX ? n : SI_WANT_MAX;
    memset(done, 0, m0);
    for (size_t i = 0; i < m0; i++) {
        if (done[i] || !ips[i])
            continue;
        GElf_Addr pc = ips[i] - 1;      /* return address -> call instruction, as the symbolizer */
        Dwfl_Module *mod = p_dwfl_addrmodule(dwfl, pc);
        int syments = mod ? p_dwfl_module_getsymtab(mod) : 0;
        struct si_index *x = syments >= SYMINDEX_MIN ? si_get(mod, syments) : NULL;
        size_t m = 0;                   /* this module's addresses */
        for (size_t j = i; j < m0; j++) {
            if (done[j] || !ips[j] || (j > i && p_dwfl_addrmodule(dwfl, ips[j] - 1) != mod))
                continue;
            done[j] = 1;
            pcs[m++] = ips[j] - 1;
        }
        if (x)
            si_batch(x, pcs, m);
    }
}

/* A miss in x, not indexed yet: addr and x's addresses of the stack being
 * named and of the stacks announced, named in one pass; 0 when not made. */
static int si_mine(void *arg, uint64_t pc)
{
    const struct si_index *x = arg;
    return pc >= x->low && pc < x->high;
}

static int si_batch_around(struct si_index *x, GElf_Addr addr)
{
    static GElf_Addr pcs[SI_WANT_MAX];              /* under the caller's lock */
    pcs[0] = addr;
    _Static_assert(sizeof(GElf_Addr) == sizeof(uint64_t), "GElf_Addr");
    size_t m = 1 + dc_symwant_collect(si_mine, x, (uint64_t *)pcs + 1, SI_WANT_MAX - 1);
    return si_batch(x, pcs, m);
}

const char *dc_symindex_name(Dwfl_Module *mod, GElf_Addr addr)
{
    if (!mod || !si_ready())
        return NULL;
    int syments = p_dwfl_module_getsymtab(mod);
    if (syments < SYMINDEX_MIN)
        return p_dwfl_module_addrname(mod, addr);
    struct si_index *x = si_get(mod, syments);
    if (x && x->answers) {
        struct si_answer *a;
        HASH_FIND(hh, x->answers, &addr, sizeof addr, a);
        if (a)
            return a->name;
    }
    if (x && si_batch_around(x, addr)) {
        struct si_answer *a;
        HASH_FIND(hh, x->answers, &addr, sizeof addr, a);
        if (a)
            return a->name;
    }
    if (x)
        si_built(x);
    if (!x || x->direct)
        return p_dwfl_module_addrname(mod, addr);

    size_t nheld = 0;           /* the sized candidates holding addr: held[0..nheld) */
    if (addr >= x->low && addr < x->high && x->nb) {
        uint64_t rel = addr - x->low;
        size_t steps = 0, top = (size_t)(rel >> SI_SHIFT);
        if (top >= x->nb)
            top = x->nb - 1;    /* a module of 4 GiB or more: its entries all start below */
        /* addr's bucket, then those below while an entry of theirs may reach it */
        for (size_t b = top + 1; b-- > 0;) {
            if (x->reach[b] <= rel)
                break;                  /* nothing in buckets 0 .. b reaches rel */
            for (uint32_t k = x->start[b]; k < x->start[b + 1]; k++) {
                if (steps++ == SI_SCAN_MAX)
                    return p_dwfl_module_addrname(mod, addr);
                if (rel - x->sym[k].lo < x->sym[k].size &&
                    (nheld == SI_HELD_MAX || !SI_PUSH(held, nheld, held_cap, x->sym[k].ndx)))
                    return p_dwfl_module_addrname(mod, addr);
            }
        }
        for (size_t k = 0; k < x->nbig; k++)
            if (rel - x->big[k].lo < x->big[k].size &&
                (nheld == SI_HELD_MAX || !SI_PUSH(held, nheld, held_cap, x->big[k].ndx)))
                return p_dwfl_module_addrname(mod, addr);
    }
    for (size_t k = 0; k < x->nfar; k++) {
        GElf_Sym s;
        GElf_Addr v;
        GElf_Word shndx;
        if (p_dwfl_module_getsym_info(mod, (int)x->far[k], &s, &v, &shndx, NULL, NULL) && v <= addr &&
            addr - v < s.st_size && (nheld == SI_HELD_MAX || !SI_PUSH(held, nheld, held_cap, x->far[k])))
            return p_dwfl_module_addrname(mod, addr);
    }
    return si_decide(mod, x->first_global, held, nheld, label_at(x, addr), x->lowest_label, addr);
}
