/* symindex: the ELF symbol holding an address, from an index of each large
 * module's symbols sorted once (see symindex.h).
 *
 * dwfl_module_addrname walks the whole symbol table for every address:
 * libtorch_cpu.so's 546,000 .symtab symbols cost ~147 M instructions an
 * address, which was most of a torch process's symbolization at exit (the
 * transfer matrix's call sites, report/jsonl.c).  Here a module with
 * SYMINDEX_MIN symbols or more has its sized symbols listed once, sorted by
 * address; a lookup finds the ones that hold the address and replays on them
 * alone the choice libdw makes in its walk (elfutils 0.188,
 * libdwfl/dwfl_module_addrsym.c, __libdwfl_addrsym):
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
 *    SI_HELD_MAX symbols and those SI_SCAN_MAX entries below the last one
 *    starting at or below them do not rule out.
 * Sized symbols that do not fit the compact entry (outside the module's
 * range, or 4 GiB and over) are walked for every lookup (none in the
 * libraries seen).  tests/unit/test_symindex.c compares every answer with
 * libdw's. */
#include "report/symindex.h"
#include "common/lazylib.h"

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
    X(dwfl_module_info)

DC_LAZY_POINTERS(SI_FUNCS)

#define SYMINDEX_MIN 2048   /* symbols: below, libdw's walk costs less than an index */
#define SI_BLOCK 64         /* entries per block of the running greatest end */
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

struct si_index {
    Dwfl_Module *mod;               /* the key */
    GElf_Addr low, high;            /* the module when indexed: a reused Dwfl_Module is told apart */
    char *name;
    int syments, first_global;
    int direct;                     /* not indexed: libdw answers */
    size_t n;
    struct si_sym *sym;             /* the sized candidates in [low, high), by lo */
    uint64_t *blockmax;             /* [b]: the greatest lo + size of sym[0 .. (b + 1) * SI_BLOCK) */
    size_t nfar;
    uint32_t *far;                  /* the other sized candidates (table indexes) */
    size_t nlabel;
    GElf_Addr *label;               /* the first walk's candidates without size: their values, sorted */
    GElf_Addr lowest_label;         /* the least value of any candidate without size; ~0 if none */
    size_t bytes;
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

/* libdw's binding order: higher is better. */
static int binding(const GElf_Sym *s)
{
    switch (GELF_ST_BIND(s->st_info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

static void si_free(struct si_index *x)
{
    free(x->name);
    free(x->sym);
    free(x->blockmax);
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

/* Sorts v[0..n) by lo: four stable passes of a byte each (a large
 * module's half-million entries in a tenth of qsort's instructions); 0 when
 * out of memory. */
static int sort_by_lo(struct si_sym *v, size_t n)
{
    struct si_sym *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return 0;
    struct si_sym *from = v, *to = tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((from[i].lo >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].lo >> shift) & 0xff]++] = from[i];
        struct si_sym *t = from;
        from = to, to = t;
    }
    free(tmp);          /* four passes: the sorted entries are back in v */
    return 1;
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

/* Lists and sorts the module's candidates; 0 when out of memory (x is then
 * left for libdw: direct). */
static int si_build(struct si_index *x)
{
    Dwfl_Module *mod = x->mod;
    int pass1 = x->first_global == 0 ? 1 : x->first_global;     /* where libdw's first walk starts */
    size_t capsym = 0, capfar = 0, caplabel = 0;
    x->lowest_label = ~(GElf_Addr)0;
    for (int i = 1; i < x->syments; i++) {
        GElf_Sym s;
        GElf_Addr v;
        GElf_Word shndx;
        const char *name = p_dwfl_module_getsym_info(mod, i, &s, &v, &shndx, NULL, NULL);
        if (!candidate(name, &s))
            continue;
        if (!s.st_size) {
            if (v < x->lowest_label)
                x->lowest_label = v;
            if (i >= pass1 && !SI_PUSH(x->label, x->nlabel, caplabel, v))
                return 0;
            continue;
        }
        if (v >= x->low && v < x->high && v - x->low <= UINT32_MAX && s.st_size <= UINT32_MAX) {
            struct si_sym e = { (uint32_t)(v - x->low), (uint32_t)s.st_size, (uint32_t)i };
            if (!SI_PUSH(x->sym, x->n, capsym, e))
                return 0;
        } else if (!SI_PUSH(x->far, x->nfar, capfar, (uint32_t)i)) {
            return 0;
        }
    }
    if (x->n && !sort_by_lo(x->sym, x->n))
        return 0;
    if (x->nlabel)
        qsort(x->label, x->nlabel, sizeof *x->label, addr_cmp);
    size_t nb = (x->n + SI_BLOCK - 1) / SI_BLOCK;
    if (nb && !(x->blockmax = malloc(nb * sizeof *x->blockmax)))
        return 0;
    uint64_t top = 0;
    for (size_t j = 0; j < x->n; j++) {
        uint64_t end = (uint64_t)x->sym[j].lo + x->sym[j].size;
        if (end > top)
            top = end;
        if (j % SI_BLOCK == SI_BLOCK - 1 || j + 1 == x->n)
            x->blockmax[j / SI_BLOCK] = top;
    }
    /* the arrays grew by doubling: give back what is unused */
    if (x->n < capsym) {
        struct si_sym *p = realloc(x->sym, x->n * sizeof *p);
        if (p || !x->n)
            x->sym = p;
    }
    x->bytes = sizeof *x + strlen(x->name) + 1 + x->n * sizeof *x->sym + nb * sizeof *x->blockmax +
               x->nfar * sizeof *x->far + x->nlabel * sizeof *x->label;
    return 1;
}

/* The index of mod as it is now, made when missing or stale; NULL when out
 * of memory. */
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
    if (x->first_global < 0 || !si_build(x)) {
        /* libdw answers: keep only the decision */
        free(x->sym), free(x->blockmax), free(x->far), free(x->label);
        x->sym = NULL, x->blockmax = NULL, x->far = NULL, x->label = NULL;
        x->n = x->nfar = x->nlabel = 0;
        x->direct = 1;
        x->bytes = sizeof *x + strlen(x->name) + 1;
    }
    si_oom = 0;
    HASH_ADD_PTR(indexes, mod, x);
    if (si_oom) {
        si_free(x);
        return NULL;
    }
    si_bytes += x->bytes;
    return x;
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
        if (!name)
            continue;
        if (!best || bv < v || binding(&bs) < binding(&s) ||
            (bv == v && ((bs.st_size > s.st_size && binding(&bs) <= binding(&s)) ||
                         (bs.st_size >= s.st_size && binding(&bs) < binding(&s))))) {
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

const char *dc_symindex_name(Dwfl_Module *mod, GElf_Addr addr)
{
    if (!mod || !si_ready())
        return NULL;
    int syments = p_dwfl_module_getsymtab(mod);
    if (syments < SYMINDEX_MIN)
        return p_dwfl_module_addrname(mod, addr);
    struct si_index *x = si_get(mod, syments);
    if (!x || x->direct)
        return p_dwfl_module_addrname(mod, addr);

    size_t nheld = 0;           /* the sized candidates holding addr: held[0..nheld) */
    if (addr >= x->low && addr < x->high && x->n) {
        uint64_t rel = addr - x->low;
        size_t lo = 0, hi = x->n;                       /* the first entry above rel */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (x->sym[mid].lo <= rel)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo, steps = 0; j-- > 0; steps++) {
            if (x->blockmax[j / SI_BLOCK] <= rel)
                break;                  /* nothing at or before j reaches rel */
            if (steps == SI_SCAN_MAX)
                return p_dwfl_module_addrname(mod, addr);
            if (rel - x->sym[j].lo < x->sym[j].size &&
                (nheld == SI_HELD_MAX || !SI_PUSH(held, nheld, held_cap, x->sym[j].ndx)))
                return p_dwfl_module_addrname(mod, addr);
        }
    }
    for (size_t k = 0; k < x->nfar; k++) {
        GElf_Sym s;
        GElf_Addr v;
        GElf_Word shndx;
        if (p_dwfl_module_getsym_info(mod, (int)x->far[k], &s, &v, &shndx, NULL, NULL) && v <= addr &&
            addr - v < s.st_size && (nheld == SI_HELD_MAX || !SI_PUSH(held, nheld, held_cap, x->far[k])))
            return p_dwfl_module_addrname(mod, addr);
    }
    if (nheld > 1)
        qsort(held, nheld, sizeof *held, u32_cmp);
    size_t nlocal = 0;                  /* held[0 .. nlocal): locals walked second */
    if (x->first_global > 1)
        while (nlocal < nheld && held[nlocal] < (uint32_t)x->first_global)
            nlocal++;
    const char *name = replay(mod, held + nlocal, nheld - nlocal);
    if (name)
        return name;
    /* no sized global holds addr: libdw walks the locals unless a label of
     * the first walk sits at addr */
    if (label_at(x, addr))
        return p_dwfl_module_addrname(mod, addr);
    if ((name = replay(mod, held, nlocal)) != NULL)
        return name;
    /* nothing sized holds addr: a label at or below it may be the answer */
    if (x->lowest_label <= addr)
        return p_dwfl_module_addrname(mod, addr);
    return NULL;
}
