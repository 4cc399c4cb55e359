/* elfdw: a loaded object's DWARF functions without libdw (see elfdw.h; its
 * ELF file and symbols: report/elfsym.c).
 *
 * The DWARF: the unit from .debug_aranges (libdw's dwfl_module_addrdie), its
 * functions with code (subprograms at the unit's or a namespace's level with
 * low_pc/high_pc or DW_AT_ranges of their own) sorted by their ranges' starts
 * once per unit; the function is the last one starting at or below the
 * address if it reaches past it; then down its children: at each level the
 * first block or inlined subroutine whose ranges hold the address.  Names:
 * DW_AT_linkage_name, then DW_AT_MIPS_linkage_name, then DW_AT_name, each
 * through DW_AT_abstract_origin / DW_AT_specification (up to 17 DIEs, as
 * dwarf_attr_integrate). */
#include "report/elfdw.h"

#include <dwarf.h>
#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounded reading ------------------------------------------------------------- */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_n(struct rd *r, unsigned n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t rd_uleb(struct rd *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->bad || r->p >= r->end || shift >= 64) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t rd_sleb(struct rd *r)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        if (r->bad || r->p >= r->end || shift >= 64) {
            r->bad = 1;
            return 0;
        }
        b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
    if (r->bad || (uint64_t)(r->end - r->p) < n)
        r->bad = 1;
    else
        r->p += n;
}


/* ---- DWARF: units, abbreviations, DIEs --------------------------------------------- */

struct abbrev {
    uint64_t tag;
    int children;
    size_t spec0, nspec;                /* its attributes: unit->spec[spec0 .. spec0 + nspec) */
};
struct spec {
    uint64_t name, form;
    int64_t implicit;
    int slot;                           /* attr_slot(name) */
    int size;                           /* the form's size when fixed (fixed_size), else -1 */
};
struct ufn {
    uint64_t lo, hi, off;
};
struct dc_elfdw_unit {
    uint64_t off;                       /* the unit's header in .debug_info */
    int state;                          /* 1 read, -1 libdw */
    unsigned version, addr_size;
    uint64_t start, end;                /* its first DIE, its end */
    uint64_t base;                      /* the root's DW_AT_low_pc */
    int has_stmt;
    uint64_t stmt_list;
    const char *comp_dir;
    struct abbrev *ab;                  /* by code */
    size_t nab;
    struct spec *spec;
    size_t nspec;
    struct ufn *fn;                     /* its functions by start, once listed */
    size_t nfn;
    int listed;
    int root_children;                  /* its root DIE's children: from root_next */
    uint64_t root_next;
    struct dc_elfdw_unit *next;
};

/* The attributes a DIE is read for. */
enum { A_NAME, A_LINKAGE, A_MIPS, A_LOW, A_HIGH, A_RANGES, A_ORIGIN, A_SPEC, A_CALL_FILE, A_CALL_LINE,
       A_SIBLING, A_STMT, A_COMP_DIR, A_NATTR };
static int attr_slot(uint64_t name)
{
    switch (name) {
    case DW_AT_name: return A_NAME;
    case DW_AT_linkage_name: return A_LINKAGE;
    case DW_AT_MIPS_linkage_name: return A_MIPS;
    case DW_AT_low_pc: return A_LOW;
    case DW_AT_high_pc: return A_HIGH;
    case DW_AT_ranges: return A_RANGES;
    case DW_AT_abstract_origin: return A_ORIGIN;
    case DW_AT_specification: return A_SPEC;
    case DW_AT_call_file: return A_CALL_FILE;
    case DW_AT_call_line: return A_CALL_LINE;
    case DW_AT_sibling: return A_SIBLING;
    case DW_AT_stmt_list: return A_STMT;
    case DW_AT_comp_dir: return A_COMP_DIR;
    default: return -1;
    }
}

struct val {
    int has;
    uint64_t form;
    uint64_t u;                         /* the value (an offset, a number, an address) */
    const uint8_t *p;                   /* DW_FORM_string's text */
};
struct die {
    uint64_t off, tag;
    int children;
    uint64_t next;                      /* after its attributes: its first child if it has children */
    struct val a[A_NATTR];
};

/* Reads a value of form into *v (v NULL: skips it); 0, or -1 for a form not read here. */
static int form_read(struct rd *r, const struct dc_elfdw_unit *u, uint64_t form, int64_t implicit, struct val *v)
{
    uint64_t x = 0;
    const uint8_t *p = NULL;
    for (int hops = 0; form == DW_FORM_indirect; hops++) {
        if (hops > 4)
            return -1;
        form = rd_uleb(r);
    }
    switch (form) {
    case DW_FORM_addr: x = rd_n(r, u->addr_size); break;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1:
        x = rd_n(r, 1); break;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: x = rd_n(r, 2); break;
    case DW_FORM_strx3: case DW_FORM_addrx3: x = rd_n(r, 3); break;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
    case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        x = rd_n(r, 4); break;
    case DW_FORM_ref_addr: x = rd_n(r, u->version < 3 ? u->addr_size : 4); break;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: x = rd_n(r, 8); break;
    case DW_FORM_data16: rd_skip(r, 16); break;
    case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_rnglistx:
    case DW_FORM_loclistx: case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
        x = rd_uleb(r); break;
    case DW_FORM_sdata: x = (uint64_t)rd_sleb(r); break;
    case DW_FORM_implicit_const: x = (uint64_t)implicit; break;
    case DW_FORM_flag_present: x = 1; break;
    case DW_FORM_string:
        p = r->p;
        if (!r->bad) {
            const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
            if (z)
                r->p = z + 1;
            else
                r->bad = 1;
        }
        break;
    case DW_FORM_block1: rd_skip(r, rd_n(r, 1)); break;
    case DW_FORM_block2: rd_skip(r, rd_n(r, 2)); break;
    case DW_FORM_block4: rd_skip(r, rd_n(r, 4)); break;
    case DW_FORM_block: case DW_FORM_exprloc: rd_skip(r, rd_uleb(r)); break;
    default: return -1;
    }
    if (r->bad)
        return -1;
    if (v)
        *v = (struct val){ 1, form, x, p };
    return 0;
}

/* The DIE at off (in .debug_info) of unit u: 1, 0 for a null entry, -1
 * unreadable. */
static int die_read(const struct dc_elfdw *e, const struct dc_elfdw_unit *u, uint64_t off, struct die *d)
{
    if (off < u->start || off >= u->end)
        return -1;
    struct rd r = { e->info + off, e->info + u->end, 0 };
    uint64_t code = rd_uleb(&r);
    if (r.bad)
        return -1;
    d->off = off;
    if (!code) {
        d->next = (uint64_t)(r.p - e->info);
        return 0;
    }
    if (code >= u->nab || !u->ab[code].tag)
        return -1;
    const struct abbrev *a = &u->ab[code];
    d->tag = a->tag;
    d->children = a->children;
    memset(d->a, 0, sizeof d->a);
    for (size_t i = 0; i < a->nspec; i++) {
        const struct spec *s = &u->spec[a->spec0 + i];
        if (s->slot < 0 && s->size >= 0) {
            /* an attribute not read, of fixed size: most of a unit's */
            if ((size_t)(r.end - r.p) < (size_t)s->size)
                return -1;
            r.p += s->size;
            continue;
        }
        if (form_read(&r, u, s->form, s->implicit, s->slot >= 0 ? &d->a[s->slot] : NULL) != 0)
            return -1;
    }
    d->next = (uint64_t)(r.p - e->info);
    return 1;
}

/* The offset after the DIE d and all its children (its next sibling's or the
 * null entry ending its parent's), -1 if unreadable.  DW_AT_sibling as libdw. */
static int64_t die_skip(const struct dc_elfdw *e, const struct dc_elfdw_unit *u, const struct die *d)
{
    if (!d->children)
        return (int64_t)d->next;
    if (d->a[A_SIBLING].has) {
        const struct val *v = &d->a[A_SIBLING];
        uint64_t to = v->form == DW_FORM_ref_addr ? v->u : u->off + v->u;
        if (to > d->off && to < u->end)
            return (int64_t)to;
        return -1;
    }
    uint64_t at = d->next;
    long depth = 1;
    for (size_t steps = 0; depth > 0; steps++) {
        struct die c;
        int k = die_read(e, u, at, &c);
        if (k < 0 || steps > (1u << 24))
            return -1;
        at = c.next;
        if (!k)
            depth--;
        else if (c.children)
            depth++;
    }
    return (int64_t)at;
}

/* A string attribute's text, NULL if none; *bad when its form is not read here. */
static const char *val_str(const struct dc_elfdw *e, const struct val *v, int *bad)
{
    if (!v->has)
        return NULL;
    switch (v->form) {
    case DW_FORM_string: return (const char *)v->p;
    case DW_FORM_strp: return dc_elfdw_str(e->lines.str, e->lines.str_size, v->u);
    case DW_FORM_line_strp: return dc_elfdw_str(e->lines.line_str, e->lines.line_str_size, v->u);
    default: *bad = 1; return NULL;
    }
}

/* A constant (dwarf_formudata's data forms): 0, or -1. */
static int val_udata(const struct val *v, uint64_t *out)
{
    switch (v->form) {
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8: case DW_FORM_udata:
    case DW_FORM_sdata: case DW_FORM_implicit_const:
        *out = v->u;
        return 0;
    default: return -1;
    }
}

/* A reference inside the unit: its offset, or 0 when it leads elsewhere. */
static uint64_t val_ref(const struct dc_elfdw_unit *u, const struct val *v)
{
    uint64_t to;
    switch (v->form) {
    case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8: case DW_FORM_ref_udata:
        to = u->off + v->u;
        break;
    case DW_FORM_ref_addr: to = v->u; break;
    default: return 0;
    }
    return to >= u->start && to < u->end ? to : 0;
}

/* The size of a value of form in unit u when it does not depend on the
 * value, else -1 (form_read's sizes). */
static int fixed_size(const struct dc_elfdw_unit *u, uint64_t form)
{
    switch (form) {
    case DW_FORM_addr: return (int)u->addr_size;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1: return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
    case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        return 4;
    case DW_FORM_ref_addr: return u->version < 3 ? (int)u->addr_size : 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
    case DW_FORM_data16: return 16;
    case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
    default: return -1;
    }
}

static int unit_abbrevs(const struct dc_elfdw *e, struct dc_elfdw_unit *u, uint64_t abbrev_off)
{
    if (!e->abbrev || abbrev_off >= e->abbrev_size)
        return -1;
    struct rd r = { e->abbrev + abbrev_off, e->abbrev + e->abbrev_size, 0 };
    size_t capspec = 0;
    for (;;) {
        uint64_t code = rd_uleb(&r);
        if (r.bad)
            return -1;
        if (!code)
            return 0;
        if (code > 65536)
            return -1;
        if (code >= u->nab) {
            size_t n = code + 64;
            struct abbrev *v = realloc(u->ab, n * sizeof *v);
            if (!v)
                return -1;
            memset(v + u->nab, 0, (n - u->nab) * sizeof *v);
            u->ab = v, u->nab = n;
        }
        struct abbrev *a = &u->ab[code];
        if (a->tag || a->nspec)
            return -1;                  /* a code twice */
        a->tag = rd_uleb(&r);
        a->children = (int)rd_n(&r, 1);
        a->spec0 = u->nspec;
        if (!a->tag)
            return -1;
        for (;;) {
            struct spec s;
            s.name = rd_uleb(&r);
            s.form = rd_uleb(&r);
            s.implicit = 0;
            s.slot = attr_slot(s.name);
            s.size = fixed_size(u, s.form);
            if (r.bad)
                return -1;
            if (!s.name && !s.form)
                break;
            if (s.form == DW_FORM_implicit_const)
                s.implicit = rd_sleb(&r);
            if (u->nspec == capspec) {
                size_t c = capspec ? capspec * 2 : 256;
                struct spec *v = realloc(u->spec, c * sizeof *v);
                if (!v)
                    return -1;
                u->spec = v, capspec = c;
            }
            u->spec[u->nspec++] = s;
            a->nspec++;
        }
    }
}

/* Calls fn(lo, hi, arg) for each range of d's own low_pc/high_pc or
 * DW_AT_ranges (dwarf_ranges); returns 0, or -1 for what is not read here.
 * fn returning nonzero stops the walk (returns 1). */
typedef int (*range_fn)(uint64_t lo, uint64_t hi, void *arg);
static int die_ranges(const struct dc_elfdw *e, const struct dc_elfdw_unit *u, const struct die *d, range_fn fn,
                      void *arg)
{
    const struct val *lo = &d->a[A_LOW], *hi = &d->a[A_HIGH], *rg = &d->a[A_RANGES];
    if (lo->has && hi->has) {
        if (lo->form != DW_FORM_addr)
            return -1;
        uint64_t h;
        if (hi->form == DW_FORM_addr)
            h = hi->u;
        else if (val_udata(hi, &h) == 0)
            h += lo->u;
        else
            return -1;
        return fn(lo->u, h, arg) ? 1 : 0;
    }
    if (!rg->has)
        return 0;
    if (rg->form != DW_FORM_sec_offset && !(u->version < 4 && (rg->form == DW_FORM_data4 || rg->form == DW_FORM_data8)))
        return -1;
    uint64_t base = u->base;
    if (u->version < 5) {
        if (!e->ranges || rg->u >= e->ranges_size)
            return -1;
        struct rd r = { e->ranges + rg->u, e->ranges + e->ranges_size, 0 };
        uint64_t maxa = u->addr_size == 8 ? ~(uint64_t)0 : 0xffffffffu;
        for (int n = 0; n < (1 << 20); n++) {
            uint64_t b = rd_n(&r, u->addr_size), en = rd_n(&r, u->addr_size);
            if (r.bad)
                return -1;
            if (!b && !en)
                return 0;
            if (b == maxa) {
                base = en;
                continue;
            }
            if (fn(base + b, base + en, arg))
                return 1;
        }
        return -1;
    }
    if (!e->rnglists || rg->u >= e->rnglists_size)
        return -1;
    struct rd r = { e->rnglists + rg->u, e->rnglists + e->rnglists_size, 0 };
    for (int n = 0; n < (1 << 20); n++) {
        uint64_t kind = rd_n(&r, 1), b, en;
        switch (kind) {
        case DW_RLE_end_of_list: return r.bad ? -1 : 0;
        case DW_RLE_offset_pair: b = base + rd_uleb(&r); en = base + rd_uleb(&r); break;
        case DW_RLE_base_address: base = rd_n(&r, u->addr_size); continue;
        case DW_RLE_start_end: b = rd_n(&r, u->addr_size); en = rd_n(&r, u->addr_size); break;
        case DW_RLE_start_length: b = rd_n(&r, u->addr_size); en = b + rd_uleb(&r); break;
        default: return -1;         /* the indexed kinds (.debug_addr), or garbage */
        }
        if (r.bad)
            return -1;
        if (fn(b, en, arg))
            return 1;
    }
    return -1;
}

/* ---- a unit's functions ------------------------------------------------------------ */

struct collect {
    struct dc_elfdw_unit *u;
    uint64_t off;
    size_t cap;
    int oom;
};

static int push_fn(uint64_t lo, uint64_t hi, void *arg)
{
    struct collect *c = arg;
    if (hi <= lo)
        return 0;
    struct dc_elfdw_unit *u = c->u;
    if (u->nfn == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        struct ufn *v = realloc(u->fn, cap * sizeof *v);
        if (!v) {
            c->oom = 1;
            return 1;
        }
        u->fn = v, c->cap = cap;
    }
    u->fn[u->nfn++] = (struct ufn){ lo, hi, c->off };
    return 0;
}

/* The functions with code among the children of the DIE at parent (and
 * those of the namespaces among them): 0, or -1. */
static int collect(const struct dc_elfdw *e, struct collect *c, const struct die *parent, int depth)
{
    if (depth > 32 || !parent->children)
        return 0;
    uint64_t at = parent->next;
    for (;;) {
        struct die d;
        int k = die_read(e, c->u, at, &d);
        if (k <= 0)
            return k;               /* the null entry ending the children, or unreadable */
        if (d.tag == DW_TAG_subprogram) {
            c->off = d.off;
            if (die_ranges(e, c->u, &d, push_fn, c) < 0 || c->oom)
                return -1;
        } else if (d.tag == DW_TAG_namespace && collect(e, c, &d, depth + 1) < 0) {
            return -1;
        }
        int64_t next = die_skip(e, c->u, &d);
        if (next < 0)
            return -1;
        at = (uint64_t)next;
    }
}

static int ufn_cmp(const void *a, const void *b)
{
    const struct ufn *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit whose header is at off, read once (NULL when out of memory). */
static struct dc_elfdw_unit *unit_get(struct dc_elfdw *e, uint64_t off)
{
    for (struct dc_elfdw_unit *u = e->units; u; u = u->next)
        if (u->off == off)
            return u;
    struct dc_elfdw_unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->off = off;
    u->next = e->units;
    e->units = u;
    u->state = -1;
    if (!e->info || off >= e->info_size)
        return u;
    struct rd r = { e->info + off, e->info + e->info_size, 0 };
    uint64_t len = rd_n(&r, 4);
    if (r.bad || len >= 0xfffffff0u || len > (uint64_t)(r.end - r.p))
        return u;                   /* 64-bit DWARF: libdw */
    u->end = (uint64_t)(r.p - e->info) + len;
    r.end = e->info + u->end;
    u->version = (unsigned)rd_n(&r, 2);
    uint64_t abbrev_off;
    if (u->version >= 2 && u->version <= 4) {
        abbrev_off = rd_n(&r, 4);
        u->addr_size = (unsigned)rd_n(&r, 1);
    } else if (u->version == 5) {
        uint64_t type = rd_n(&r, 1);
        u->addr_size = (unsigned)rd_n(&r, 1);
        abbrev_off = rd_n(&r, 4);
        if (type != DW_UT_compile && type != DW_UT_partial)
            return u;
    } else {
        return u;
    }
    if (r.bad || (u->addr_size != 4 && u->addr_size != 8) || unit_abbrevs(e, u, abbrev_off) != 0)
        return u;
    u->start = (uint64_t)(r.p - e->info);
    struct die root;
    if (die_read(e, u, u->start, &root) != 1 ||
        (root.tag != DW_TAG_compile_unit && root.tag != DW_TAG_partial_unit))
        return u;
    if (root.a[A_LOW].has) {
        if (root.a[A_LOW].form != DW_FORM_addr)
            return u;
        u->base = root.a[A_LOW].u;
    }
    if (root.a[A_STMT].has) {
        if (root.a[A_STMT].form != DW_FORM_sec_offset && root.a[A_STMT].form != DW_FORM_data4 &&
            root.a[A_STMT].form != DW_FORM_data8)
            return u;
        u->has_stmt = 1;
        u->stmt_list = root.a[A_STMT].u;
    }
    int bad = 0;
    u->comp_dir = val_str(e, &root.a[A_COMP_DIR], &bad);
    if (bad)
        return u;
    u->root_children = root.children;
    u->root_next = root.next;
    u->state = 1;
    return u;
}

/* The function holding addr in unit u: 1 (*fn), 0 none, -1 unreadable.  The
 * unit's functions are listed at its first lookup, sorted by start (a
 * report asks a unit again and again: its stacks, each sink). */
static int unit_function(const struct dc_elfdw *e, struct dc_elfdw_unit *u, uint64_t addr, struct ufn *fn)
{
    struct die root;                    /* what collect reads of the root */
    memset(&root, 0, sizeof root);
    root.children = u->root_children;
    root.next = u->root_next;
    if (!u->listed) {
        struct collect c = { u, 0, 0, 0 };
        if (collect(e, &c, &root, 0) != 0)
            return -1;
        if (u->nfn)
            qsort(u->fn, u->nfn, sizeof *u->fn, ufn_cmp);
        u->listed = 1;
    }
    size_t lo = 0, hi = u->nfn;         /* the last function starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->fn[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || addr >= u->fn[lo - 1].hi)
        return 0;
    *fn = u->fn[lo - 1];
    return 1;
}

/* The unit .debug_aranges gives for addr: 1 (*off), 0 none, -1 unreadable. */
static int aranges_unit(const struct dc_elfdw *e, uint64_t addr, uint64_t *off)
{
    struct rd r = { e->aranges, e->aranges + e->aranges_size, 0 };
    while (r.p < r.end) {
        const uint8_t *set = r.p;
        uint64_t len = rd_n(&r, 4);
        if (r.bad || len >= 0xfffffff0u || len > (uint64_t)(r.end - r.p))
            return -1;
        struct rd s = { r.p, r.p + len, 0 };
        r.p += len;
        unsigned version = (unsigned)rd_n(&s, 2);
        uint64_t cu = rd_n(&s, 4);
        unsigned asz = (unsigned)rd_n(&s, 1), seg = (unsigned)rd_n(&s, 1);
        if (s.bad || version != 2 || seg || (asz != 4 && asz != 8))
            return -1;
        size_t hdr = (size_t)(s.p - set), pad = (2 * asz - hdr % (2 * asz)) % (2 * asz);
        rd_skip(&s, pad);
        for (;;) {
            uint64_t a = rd_n(&s, asz), n = rd_n(&s, asz);
            if (s.bad)
                break;                  /* a set without its terminator: libdw reads up to its end */
            if (!a && !n)
                break;
            if (addr >= a && addr - a < n) {
                *off = cu;
                return 1;
            }
        }
    }
    return 0;
}

/* ---- the function and its inlined calls ------------------------------------------- */

static int block_tag(uint64_t tag)
{
    return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
           tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

static int holds(uint64_t lo, uint64_t hi, void *arg)
{
    uint64_t pc = *(const uint64_t *)arg;
    return pc >= lo && pc < hi;
}

/* dwarf_attr_integrate(d, slot)'s DIE: the first of d's origin/specification
 * chain having the attribute, into *out: 1, 0 none, -1 unreadable. */
static int integrate(const struct dc_elfdw *e, const struct dc_elfdw_unit *u, const struct die *d, int slot,
                     struct die *out)
{
    struct die cur = *d;
    for (int chain = 0; chain <= 16; chain++) {
        if (cur.a[slot].has) {
            *out = cur;
            return 1;
        }
        const struct val *ref = cur.a[A_ORIGIN].has ? &cur.a[A_ORIGIN] : cur.a[A_SPEC].has ? &cur.a[A_SPEC] : NULL;
        if (!ref)
            return 0;
        uint64_t to = val_ref(u, ref);
        if (!to || die_read(e, u, to, &cur) != 1)
            return -1;              /* another unit (or file): libdw */
    }
    return 0;
}

/* die_name of report/symbolize.c: 0 (*name, NULL if none), -1 unreadable. */
static int die_name(const struct dc_elfdw *e, const struct dc_elfdw_unit *u, const struct die *d, const char **name)
{
    static const int order[] = { A_LINKAGE, A_MIPS, A_NAME };
    *name = NULL;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        struct die w;
        int k = integrate(e, u, d, order[i], &w);
        if (k < 0)
            return -1;
        if (!k)
            continue;
        int bad = 0;
        *name = val_str(e, &w.a[order[i]], &bad);
        if (bad)
            return -1;
        if (*name)
            return 0;
    }
    return 0;
}

int dc_elfdw_at(struct dc_elfdw *e, uint64_t addr, struct dc_elfdw_at *at)
{
    memset(at, 0, sizeof *at);
    if (e->ok && !e->own_dwarf && e->no_debug_file)
        return 0;                       /* libdw: no DWARF anywhere, no DIE for any address */
    if (!e->ok || e->dw_unreadable || !e->info || !e->aranges)
        return -1;
    uint64_t off = 0;
    int k = aranges_unit(e, addr, &off);
    if (k <= 0)
        return k;
    struct dc_elfdw_unit *u = unit_get(e, off);
    if (!u || u->state < 0 || !u->has_stmt)
        return -1;
    at->stmt_list = u->stmt_list;
    at->addr_size = u->addr_size;
    at->comp_dir = u->comp_dir;
    struct ufn where;
    int k2 = unit_function(e, u, addr, &where);
    if (k2 < 0)
        u->state = -1;          /* as when its list could not be made: libdw's from now on */
    if (k2 <= 0)
        return k2 < 0 ? -1 : 1;
    struct die fn, cur;
    if (die_read(e, u, where.off, &fn) != 1 || die_name(e, u, &fn, &at->fn_name) != 0)
        return -1;
    at->fn = 1;
    cur = fn;
    struct die outer[DC_ELFDW_INLINE_MAX];
    int n = 0;
    for (int depth = 0; depth < 64 && cur.children; depth++) {
        uint64_t pos = cur.next;
        int found = 0;
        struct die c;
        for (;;) {
            int r = die_read(e, u, pos, &c);
            if (r < 0)
                return -1;
            if (!r)
                break;
            if (block_tag(c.tag)) {
                int in = die_ranges(e, u, &c, holds, &addr);
                if (in < 0)
                    return -1;
                if (in) {
                    found = 1;
                    break;
                }
            }
            int64_t next = die_skip(e, u, &c);
            if (next < 0)
                return -1;
            pos = (uint64_t)next;
        }
        if (!found)
            break;
        cur = c;
        if (c.tag == DW_TAG_inlined_subroutine && n < DC_ELFDW_INLINE_MAX)
            outer[n++] = c;             /* outermost first */
    }
    for (int i = 0; i < n; i++) {
        const struct die *d = &outer[n - 1 - i];
        struct dc_elfdw_call *call = &at->chain[i];
        if (die_name(e, u, d, &call->name) != 0)
            return -1;
        if (d->a[A_CALL_LINE].has) {
            if (val_udata(&d->a[A_CALL_LINE], &call->line) != 0)
                return -1;
            call->has_line = 1;
        }
        if (d->a[A_CALL_FILE].has) {
            if (val_udata(&d->a[A_CALL_FILE], &call->file) != 0)
                return -1;
            call->has_file = 1;
        }
    }
    at->n = n;
    return 1;
}

void dc_elfdw_free(struct dc_elfdw *e)
{
    struct dc_elfdw_unit *u = e->units;
    while (u) {
        struct dc_elfdw_unit *next = u->next;
        free(u->ab);
        free(u->spec);
        free(u->fn);
        free(u);
        u = next;
    }
    e->units = NULL;
}

size_t dc_elfdw_bytes(const struct dc_elfdw *e)
{
    size_t n = 0;
    for (const struct dc_elfdw_unit *u = e->units; u; u = u->next)
        n += sizeof *u + u->nab * sizeof *u->ab + u->nspec * sizeof *u->spec + u->nfn * sizeof *u->fn;
    return n;
}
