/* hostdwarf: kernel parameter types from the host function's DWARF (see
 * hostdwarf.h). */
#include "core/kernel/hostdwarf.h"
#include "core/kernel/kernels.h"
#include "common/forklock.h"
#include "common/lazylib.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libdw and libelf are loaded on first use with dlopen(RTLD_LOCAL), never
 * linked: nothing of theirs may come ahead of the program's libraries. */
#define HD_FUNCS(X) \
    X(dwarf_addrdie) \
    X(dwarf_aggregate_size) \
    X(dwarf_attr) \
    X(dwarf_attr_integrate) \
    X(dwarf_begin_elf) \
    X(dwarf_child) \
    X(dwarf_end) \
    X(dwarf_formblock) \
    X(dwarf_formref_die) \
    X(dwarf_formstring) \
    X(dwarf_formudata) \
    X(dwarf_getfuncs) \
    X(dwarf_hasattr) \
    X(dwarf_lowpc) \
    X(dwarf_nextcu) \
    X(dwarf_offdie) \
    X(dwarf_siblingof) \
    X(dwarf_tag) \
    X(elf_begin) \
    X(elf_end) \
    X(elf_getdata) \
    X(elf_getshdrstrndx) \
    X(elf_kind) \
    X(elf_memory) \
    X(elf_nextscn) \
    X(elf_strptr) \
    X(elf_version) \
    X(gelf_getshdr) \
    X(gelf_getsym)
DC_LAZY_POINTERS(HD_FUNCS)
static int hd_state;                    /* 0 not tried, 1 loaded, -1 unavailable */
static pthread_mutex_t hd_lock = PTHREAD_MUTEX_INITIALIZER;

static int hd_ready(void) { return DC_LAZY_LOAD_ONCE(hd_state, hd_lock, "libdw.so.1", HD_FUNCS); }

void dc_hostdwarf_fork_prepare(void) { pthread_mutex_lock(&hd_lock); }
void dc_hostdwarf_fork_parent(void) { pthread_mutex_unlock(&hd_lock); }
void dc_hostdwarf_fork_child(void) { dc_mutex_fork_child(&hd_lock); }

#define MAX_OBJECTS 512
#define MAX_TYPE_DEPTH 16
#define MAX_AGG_BYTES 32768

/* ---- the loaded objects ------------------------------------------------------------------- */

struct objects {
    char *path[MAX_OBJECTS];
    unsigned n;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct objects *o = arg;
    if (o->n >= MAX_OBJECTS)
        return 1;
    const char *p = info->dlpi_name;
    if (!p || !*p)
        p = o->n == 0 ? "/proc/self/exe" : NULL;       /* the program itself comes first */
    if (!p || strstr(p, "linux-vdso") || strstr(p, "linux-gate"))
        return 0;
    char *c = strdup(p);
    if (c)
        o->path[o->n++] = c;
    return 0;
}

/* ---- symbols ------------------------------------------------------------------------------------ */

static int has_debug_info(Elf *e)
{
    size_t shstrndx;
    if (p_elf_getshdrstrndx(e, &shstrndx) != 0)
        return 0;
    for (Elf_Scn *s = p_elf_nextscn(e, NULL); s; s = p_elf_nextscn(e, s)) {
        GElf_Shdr sh;
        if (!p_gelf_getshdr(s, &sh))
            continue;
        const char *nm = p_elf_strptr(e, shstrndx, sh.sh_name);
        if (nm && !strcmp(nm, ".debug_info") && sh.sh_type != SHT_NOBITS && sh.sh_size)
            return 1;
    }
    return 0;
}

/* The address of function `name` in the object's symbol tables, 0 if none. */
static GElf_Addr find_function(Elf *e, const char *name)
{
    for (Elf_Scn *s = p_elf_nextscn(e, NULL); s; s = p_elf_nextscn(e, s)) {
        GElf_Shdr sh;
        if (!p_gelf_getshdr(s, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
            continue;
        Elf_Data *d = p_elf_getdata(s, NULL);
        if (!d)
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym sym;
            if (!p_gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
                continue;
            const char *nm = p_elf_strptr(e, sh.sh_link, sym.st_name);
            if (nm && !strcmp(nm, name))
                return sym.st_value;
        }
    }
    return 0;
}

/* ---- types -------------------------------------------------------------------------------------- */

static int type_of(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute a;
    return p_dwarf_attr_integrate(die, DW_AT_type, &a) && p_dwarf_formref_die(&a, out) ? 0 : -1;
}

/* The type with typedefs and qualifiers taken off. */
static int strip(Dwarf_Die *t)
{
    for (int k = 0; k < MAX_TYPE_DEPTH; k++) {
        switch (p_dwarf_tag(t)) {
        case DW_TAG_typedef:
        case DW_TAG_const_type:
        case DW_TAG_volatile_type:
        case DW_TAG_restrict_type:
        case DW_TAG_atomic_type: {
            Dwarf_Die next;
            if (type_of(t, &next) != 0)
                return -1;
            *t = next;
            break;
        }
        default:
            return 0;
        }
    }
    return -1;
}

/* Marks the words [off, off + size) with class c where it is stronger
 * than what they hold: unknown beats pointer beats non-pointer (a word
 * two members could claim is unknown). */
static void mark(uint8_t *w, uint64_t nbytes, uint64_t off, uint64_t size, uint8_t c)
{
    if (!size || off >= nbytes)
        return;
    uint64_t end = off + size > nbytes ? nbytes : off + size;
    for (uint64_t b = off / 8; b * 8 < end && b < nbytes / 8; b++) {
        if (c == DC_WORD_UNKNOWN || w[b] == DC_WORD_UNKNOWN)
            w[b] = DC_WORD_UNKNOWN;
        else if (c == DC_WORD_FIELD)
            w[b] = (off % 8 == 0 && size == 8) ? DC_WORD_FIELD : DC_WORD_UNKNOWN;
        else if (w[b] == DC_WORD_FIELD && c == DC_WORD_NONPTR)
            w[b] = DC_WORD_UNKNOWN;     /* a union's other member */
    }
}

static int byte_size(Dwarf_Die *t, Dwarf_Word *size)
{
    return p_dwarf_aggregate_size(t, size) == 0 ? 0 : -1;
}

/* A member's location as DWARF 2 writes it (nvcc's device DWARF): the
 * block `DW_OP_plus_uconst N` and nothing else.  0 with *loc, or -1. */
static int member_block(Dwarf_Attribute *a, Dwarf_Word *loc)
{
    Dwarf_Block b;
    if (p_dwarf_formblock(a, &b) != 0 || b.length < 2 || b.length > 11 || b.data[0] != DW_OP_plus_uconst)
        return -1;
    Dwarf_Word v = 0;
    for (size_t i = 1, shift = 0; i < b.length; i++, shift += 7) {
        v |= (Dwarf_Word)(b.data[i] & 0x7f) << shift;
        if (!(b.data[i] & 0x80)) {
            if (i + 1 != b.length)
                return -1;              /* more operations follow: not understood */
            *loc = v;
            return 0;
        }
    }
    return -1;
}

/* Classifies the bytes of type t placed at off. */
static void walk(Dwarf_Die *type, uint8_t *w, uint64_t nbytes, uint64_t off, int depth)
{
    Dwarf_Die t = *type;
    Dwarf_Word size = 0;
    if (depth > MAX_TYPE_DEPTH || strip(&t) != 0) {
        mark(w, nbytes, off, 8, DC_WORD_UNKNOWN);
        return;
    }
    int have_size = byte_size(&t, &size) == 0;
    switch (p_dwarf_tag(&t)) {
    case DW_TAG_pointer_type: {
        Dwarf_Die pointee;
        int code = type_of(&t, &pointee) == 0 && strip(&pointee) == 0 && p_dwarf_tag(&pointee) == DW_TAG_subroutine_type;
        /* a pointer to a function holds a code address, not data */
        mark(w, nbytes, off, 8, code ? DC_WORD_UNKNOWN : DC_WORD_FIELD);
        return;
    }
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
        mark(w, nbytes, off, 8, DC_WORD_UNKNOWN);
        return;
    case DW_TAG_base_type:
    case DW_TAG_enumeration_type:
    case DW_TAG_ptr_to_member_type:
        if (have_size)
            mark(w, nbytes, off, size, DC_WORD_NONPTR);
        return;
    case DW_TAG_union_type:
        if (have_size)
            mark(w, nbytes, off, size, DC_WORD_UNKNOWN);
        else
            mark(w, nbytes, off, 8, DC_WORD_UNKNOWN);
        return;
    case DW_TAG_array_type: {
        Dwarf_Die elem;
        Dwarf_Word esize = 0;
        if (!have_size || type_of(&t, &elem) != 0) {
            mark(w, nbytes, off, have_size ? size : 8, DC_WORD_UNKNOWN);
            return;
        }
        Dwarf_Die e2 = elem;
        if (strip(&e2) != 0 || byte_size(&e2, &esize) != 0 || !esize) {
            mark(w, nbytes, off, size, DC_WORD_UNKNOWN);
            return;
        }
        for (Dwarf_Word at = 0; at + esize <= size && off + at < nbytes; at += esize)
            walk(&elem, w, nbytes, off + at, depth + 1);
        return;
    }
    case DW_TAG_structure_type:
    case DW_TAG_class_type: {
        Dwarf_Die m;
        if (p_dwarf_child(&t, &m) != 0)
            return;                     /* no members: padding only */
        do {
            int tag = p_dwarf_tag(&m);
            if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
                continue;
            if (p_dwarf_hasattr(&m, DW_AT_external) || p_dwarf_hasattr(&m, DW_AT_declaration))
                continue;               /* a static member */
            Dwarf_Attribute a;
            Dwarf_Word loc = 0;
            if (p_dwarf_attr(&m, DW_AT_data_member_location, &a)) {
                if (p_dwarf_formudata(&a, &loc) != 0 && member_block(&a, &loc) != 0) {
                    /* a location expression (virtual bases): not understood */
                    mark(w, nbytes, off, have_size ? size : 8, DC_WORD_UNKNOWN);
                    return;
                }
            }
            Dwarf_Die mt;
            if (type_of(&m, &mt) != 0) {
                mark(w, nbytes, off + loc, 8, DC_WORD_UNKNOWN);
                continue;
            }
            if (p_dwarf_hasattr(&m, DW_AT_bit_size) || p_dwarf_hasattr(&m, DW_AT_data_bit_offset)) {
                Dwarf_Word bs = 0;
                Dwarf_Die mt2 = mt;
                if (strip(&mt2) == 0 && byte_size(&mt2, &bs) == 0)
                    mark(w, nbytes, off + loc, bs, DC_WORD_NONPTR);
                continue;               /* a bit-field: never a pointer */
            }
            walk(&mt, w, nbytes, off + loc, depth + 1);
        } while (p_dwarf_siblingof(&m, &m) == 0);
        return;
    }
    default:
        mark(w, nbytes, off, have_size ? size : 8, DC_WORD_UNKNOWN);
        return;
    }
}

static void describe(Dwarf_Die *param, struct dc_dw_param *out)
{
    memset(out, 0, sizeof *out);
    Dwarf_Die t;
    Dwarf_Word size = 0;
    if (type_of(param, &t) != 0 || strip(&t) != 0)
        return;
    if (byte_size(&t, &size) != 0 || size > MAX_AGG_BYTES)
        return;
    out->size = (uint32_t)size;
    switch (p_dwarf_tag(&t)) {
    case DW_TAG_pointer_type:
        out->kind = DC_DW_POINTER;
        return;
    case DW_TAG_base_type:
    case DW_TAG_enumeration_type:
        out->kind = DC_DW_SCALAR;
        return;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_array_type:
    case DW_TAG_union_type: {
        uint64_t nw = size / 8;
        out->words = nw ? calloc(nw, 1) : NULL;
        if (nw && !out->words)
            return;
        if (nw)
            walk(&t, out->words, nw * 8, 0, 0);
        out->kind = DC_DW_AGGREGATE;
        return;
    }
    default:
        return;
    }
}

/* ---- the function ----------------------------------------------------------------------------- */

struct find_arg {
    const char *name;
    Dwarf_Addr addr;
    Dwarf_Die found;
    int have;
};

static int has_typed_params(Dwarf_Die *fn)
{
    Dwarf_Die c, t;
    if (p_dwarf_child(fn, &c) != 0)
        return 0;
    do {
        if (p_dwarf_tag(&c) == DW_TAG_formal_parameter)
            return type_of(&c, &t) == 0;
    } while (p_dwarf_siblingof(&c, &c) == 0);
    return 0;
}

static int on_func(Dwarf_Die *fn, void *arg)
{
    struct find_arg *f = arg;
    Dwarf_Addr lo;
    const char *ln = NULL;
    Dwarf_Attribute a;
    if (p_dwarf_attr_integrate(fn, DW_AT_linkage_name, &a))
        ln = p_dwarf_formstring(&a);
    int match = (p_dwarf_lowpc(fn, &lo) == 0 && lo == f->addr) || (ln && !strcmp(ln, f->name));
    if (match && has_typed_params(fn)) {
        f->found = *fn;
        f->have = 1;
        return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
}

static int params_of(Dwarf_Die *fn, struct dc_dw_param *out, int max)
{
    Dwarf_Die c;
    int n = 0;
    if (p_dwarf_child(fn, &c) != 0)
        return 0;
    do {
        if (p_dwarf_tag(&c) != DW_TAG_formal_parameter)
            continue;
        if (n < max)
            describe(&c, &out[n]);
        n++;
    } while (p_dwarf_siblingof(&c, &c) == 0);
    return n;
}

/* Objects known to have no debug information (most of a framework's
 * libraries): not opened again.  Keyed by device and inode, so a path reused
 * by another file is looked at afresh.  Lock-free (a fork never inherits a
 * held lock): an entry is claimed with a fetch-add, filled, then published. */
#define NO_DEBUG_MAX 1024
static struct { dev_t dev; ino_t ino; int ready; } no_debug[NO_DEBUG_MAX];
static unsigned n_no_debug;

static int known_without_debug(const struct stat *st)
{
    unsigned n = __atomic_load_n(&n_no_debug, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < NO_DEBUG_MAX; i++)
        if (__atomic_load_n(&no_debug[i].ready, __ATOMIC_ACQUIRE) && no_debug[i].dev == st->st_dev &&
            no_debug[i].ino == st->st_ino)
            return 1;
    return 0;
}

static void remember_without_debug(const struct stat *st)
{
    unsigned i = __atomic_fetch_add(&n_no_debug, 1, __ATOMIC_ACQ_REL);
    if (i >= NO_DEBUG_MAX)
        return;
    no_debug[i].dev = st->st_dev;
    no_debug[i].ino = st->st_ino;
    __atomic_store_n(&no_debug[i].ready, 1, __ATOMIC_RELEASE);
}

static int from_object(const char *path, const char *name, struct dc_dw_param *out, int max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int have_st = fstat(fd, &st) == 0;
    if (have_st && known_without_debug(&st)) {
        close(fd);
        return -1;
    }
    int n = -1;
    Elf *e = p_elf_begin(fd, ELF_C_READ_MMAP, NULL);
    int debug = e && p_elf_kind(e) == ELF_K_ELF && has_debug_info(e);
    if (!debug && have_st)
        remember_without_debug(&st);
    if (debug) {
        GElf_Addr addr = find_function(e, name);
        Dwarf *dw = addr ? p_dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
        if (dw) {
            Dwarf_Die cu;
            struct find_arg f = { .name = name, .addr = addr };
            if (p_dwarf_addrdie(dw, addr, &cu))
                (void)p_dwarf_getfuncs(&cu, on_func, &f, 0);
            if (f.have)
                n = params_of(&f.found, out, max);
            p_dwarf_end(dw);
        }
    }
    if (e)
        p_elf_end(e);
    close(fd);
    return n;
}

int dc_dwarf_params(const char *name, struct dc_dw_param *out, int max)
{
    if (!name || !*name || !out || max <= 0)
        return -1;
    memset(out, 0, (size_t)max * sizeof *out);
    if (!hd_ready() || p_elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    struct objects *o = calloc(1, sizeof *o);
    if (!o)
        return -1;
    dl_iterate_phdr(collect, o);
    int n = -1;
    for (unsigned i = 0; i < o->n && n < 0; i++)
        n = from_object(o->path[i], name, out, max);
    for (unsigned i = 0; i < o->n; i++)
        free(o->path[i]);
    free(o);
    return n;
}

/* ---- a kernel image's own DWARF (a cubin built with -G) ------------------------------------------ */

/* Does fn (a device function's DIE) have `name` as its linkage name, or, for
 * a name that is not mangled (extern "C"), as its name? */
static int on_image_func(Dwarf_Die *fn, void *arg)
{
    struct find_arg *f = arg;
    Dwarf_Attribute a;
    const char *ln = NULL, *nm = NULL;
    if (p_dwarf_attr_integrate(fn, DW_AT_linkage_name, &a) || p_dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &a))
        ln = p_dwarf_formstring(&a);
    if (strncmp(f->name, "_Z", 2) && p_dwarf_attr_integrate(fn, DW_AT_name, &a))
        nm = p_dwarf_formstring(&a);
    if (((ln && !strcmp(ln, f->name)) || (!ln && nm && !strcmp(nm, f->name))) && has_typed_params(fn)) {
        f->found = *fn;
        f->have = 1;
        return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
}

int dc_dwarf_image_params(const void *elf, size_t size, const char *name, struct dc_dw_param *out, int max)
{
    if (!elf || size < 64 || !name || !*name || !out || max <= 0)
        return -1;
    memset(out, 0, (size_t)max * sizeof *out);
    if (!hd_ready() || p_elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    char *copy = malloc(size);          /* libelf may write to the image it reads */
    if (!copy)
        return -1;
    memcpy(copy, elf, size);
    int n = -1;
    Elf *e = p_elf_memory(copy, size);
    Dwarf *dw = e && p_elf_kind(e) == ELF_K_ELF ? p_dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
    if (dw) {
        struct find_arg f = { .name = name };
        Dwarf_Off off = 0, next;
        size_t hsize;
        for (unsigned cus = 0; !f.have && cus < 4096 && p_dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0;
             cus++, off = next) {
            Dwarf_Die cu;
            if (p_dwarf_offdie(dw, off + hsize, &cu))
                (void)p_dwarf_getfuncs(&cu, on_image_func, &f, 0);
        }
        if (f.have)
            n = params_of(&f.found, out, max);
        p_dwarf_end(dw);
    }
    if (e)
        p_elf_end(e);
    free(copy);
    return n;
}

void dc_dwarf_params_free(struct dc_dw_param *p, int n)
{
    for (int i = 0; p && i < n; i++) {
        free(p[i].words);
        p[i].words = NULL;
    }
}
