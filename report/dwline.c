/* dwline: one address's row of a DWARF line program, as libdw answers it
 * (see dwline.h).  The checks mirror libdw 0.188's read_srclines
 * (libdw/dwarf_getsrclines.c): data it refuses, and data it reads in a way
 * that is not worth copying (a truncated number, DW_LNE_define_file, an
 * unknown extended opcode of length 0), answer -1 and the caller asks libdw,
 * so both paths always agree. */
#include "report/dwline.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* A header, checked whole (its directory and file tables too); an index
 * keeps its copy (pointers into the sections). */
struct dc_dwline_hdr {
    unsigned version, offset_size, addr_size;
    unsigned min_len, max_ops, default_is_stmt, line_range, opcode_base;
    int line_base;
    const uint8_t *oplens;              /* oplens[op]: arguments of standard opcode op (1..opcode_base-1) */
    const uint8_t *dirs, *files;        /* the directory and file tables (v5: their entries, after the formats) */
    const uint8_t *dir_forms, *file_forms;      /* v5: (content type, form) pairs */
    unsigned ndir_forms, nfile_forms;
    int dir_path, file_path, file_dir;  /* v5: which field is the path, the directory index */
    uint64_t ndirs, nfiles;             /* v < 5: ndirs counts directory 0 (comp_dir), nfiles file 0 ("???") */
    const uint8_t *prog, *end;
};

/* LEB128 numbers of at most 9 bytes (libdw reads longer ones its own way:
 * -1). */
static int uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < 9 && *p < end; i++) {
        uint8_t b = *(*p)++;
        acc |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = acc;
            return 0;
        }
    }
    return -1;
}

static inline int uleb32(const uint8_t **p, const uint8_t *end, unsigned *v)
{
    uint64_t x;
    if (*p < end && **p < 0x80) {
        *v = *(*p)++;
        return 0;
    }
    if (*p >= end || uleb(p, end, &x) || x > UINT32_MAX)
        return -1;
    *v = (unsigned)x;
    return 0;
}

static int sleb32(const uint8_t **p, const uint8_t *end, int *v)
{
    uint64_t acc = 0;
    if (*p >= end)
        return -1;
    for (unsigned i = 0; i < 9 && *p < end; i++) {
        uint8_t b = *(*p)++;
        acc |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if ((b & 0x40) && 7 * (i + 1) < 64)
                acc |= ~(uint64_t)0 << (7 * (i + 1));
            int64_t x = (int64_t)acc;
            if (x < INT32_MIN || x > INT32_MAX)
                return -1;
            *v = (int)x;
            return 0;
        }
    }
    return -1;
}

static uint64_t rd(const uint8_t *p, unsigned n)       /* little-endian (the caller checks the object's order) */
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The length of a v5 entry's field of this form at p; -1 for a form this
 * reader does not take. */
static int form_len(unsigned form, const uint8_t *p, const uint8_t *end, unsigned offset_size, size_t *len)
{
    const uint8_t *q = p;
    uint64_t n;
    switch (form) {
    case DW_FORM_string: {
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        if (!z)
            return -1;
        *len = (size_t)(z - p) + 1;
        return 0;
    }
    case DW_FORM_strp:
    case DW_FORM_line_strp: *len = offset_size; break;
    case DW_FORM_data1: *len = 1; break;
    case DW_FORM_data2: *len = 2; break;
    case DW_FORM_data4: *len = 4; break;
    case DW_FORM_data8: *len = 8; break;
    case DW_FORM_data16: *len = 16; break;
    case DW_FORM_udata:
        if (uleb(&q, end, &n))
            return -1;
        *len = (size_t)(q - p);
        break;
    case DW_FORM_block:
        if (uleb(&q, end, &n) || n > (uint64_t)(end - q))
            return -1;
        *len = (size_t)(q - p) + (size_t)n;
        break;
    default: return -1;
    }
    return *len <= (size_t)(end - p) ? 0 : -1;
}

/* A NUL-terminated string at offset off of a section. */
static const char *sec_str(const uint8_t *sec, size_t size, uint64_t off)
{
    if (!sec || off >= size || !memchr(sec + off, 0, size - (size_t)off))
        return NULL;
    return (const char *)sec + off;
}

/* A v5 entry's string field (DW_LNCT_path). */
static const char *form_str(const struct dc_dwline_sec *s, const struct dc_dwline_hdr *h, unsigned form, const uint8_t *p)
{
    switch (form) {
    case DW_FORM_string: return (const char *)p;        /* form_len found its NUL */
    case DW_FORM_strp: return sec_str(s->str, s->str_size, rd(p, h->offset_size));
    case DW_FORM_line_strp: return sec_str(s->line_str, s->line_str_size, rd(p, h->offset_size));
    default: return NULL;
    }
}

/* A v5 entry's number field (DW_LNCT_directory_index); -1 if not one. */
static int form_udata(unsigned form, const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    switch (form) {
    case DW_FORM_data1: *v = p[0]; return 0;
    case DW_FORM_data2: *v = rd(p, 2); return 0;
    case DW_FORM_data4: *v = rd(p, 4); return 0;
    case DW_FORM_data8: *v = rd(p, 8); return 0;
    case DW_FORM_udata: return uleb(&p, end, v);
    default: return -1;
    }
}

static int known_form(uint64_t form)
{
    switch (form) {
    case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_data1: case DW_FORM_data2:
    case DW_FORM_data4: case DW_FORM_data8: case DW_FORM_data16: case DW_FORM_udata: case DW_FORM_block:
        return 1;
    default: return 0;
    }
}

/* The formats of a v5 table: count, then (content type, form) pairs; the
 * index of the last DW_LNCT_path and DW_LNCT_directory_index (-1: none). */
static int formats(const uint8_t **p, const uint8_t *end, const uint8_t **list, unsigned *n, int *path, int *dir)
{
    if (*p >= end)
        return -1;
    *n = *(*p)++;
    *list = *p;
    *path = *dir = -1;
    for (unsigned i = 0; i < *n; i++) {
        uint64_t ct, form;
        if (*p >= end || uleb(p, end, &ct) || *p >= end || uleb(p, end, &form))
            return -1;
        if (!known_form(form))
            return -1;
        if (ct == DW_LNCT_path)
            *path = (int)i;
        else if (ct == DW_LNCT_directory_index)
            *dir = (int)i;
    }
    return 0;
}

/* One v5 entry at *p: its path string and directory index (when asked). */
static int entry(const struct dc_dwline_sec *s, const struct dc_dwline_hdr *h, const uint8_t **p, const uint8_t *forms,
                 unsigned nforms, int path, int dir, const char **name, uint64_t *diridx)
{
    const uint8_t *f = forms;
    *name = NULL;
    *diridx = UINT64_MAX;
    for (unsigned m = 0; m < nforms; m++) {
        uint64_t ct = 0, form = 0;
        if (uleb(&f, h->end, &ct) || uleb(&f, h->end, &form))
            return -1;                  /* (checked by formats()) */
        size_t len;
        if (form_len((unsigned)form, *p, h->end, h->offset_size, &len))
            return -1;
        if ((int)m == path)
            *name = form_str(s, h, (unsigned)form, *p);
        else if ((int)m == dir && form_udata((unsigned)form, *p, h->end, diridx))
            *diridx = UINT64_MAX;
        *p += len;
    }
    return 0;
}

static int header(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, struct dc_dwline_hdr *h)
{
    memset(h, 0, sizeof *h);
    if (!s->line || off >= s->line_size || (addr_size != 4 && addr_size != 8))
        return -1;
    const uint8_t *p = s->line + off, *end = s->line + s->line_size;
    if (end - p < 4)
        return -1;
    uint64_t unit_length = rd(p, 4);
    p += 4;
    h->offset_size = 4;
    if (unit_length == 0xffffffff) {
        if (end - p < 8)
            return -1;
        unit_length = rd(p, 8);
        p += 8;
        h->offset_size = 8;
    }
    if (unit_length > (uint64_t)(end - p))
        return -1;
    end = p + unit_length;
    h->end = end;
    if (end - p < 2)
        return -1;
    h->version = (unsigned)rd(p, 2);
    p += 2;
    if (h->version < 2 || h->version > 5)
        return -1;
    if (h->version >= 5) {
        if (end - p < 2 || p[0] != addr_size || p[1] != 0)
            return -1;
        p += 2;
    }
    h->addr_size = addr_size;
    if ((size_t)(end - p) < h->offset_size)
        return -1;
    uint64_t header_length = rd(p, h->offset_size);
    p += h->offset_size;
    const uint8_t *header_start = p;
    if (end - p < 1)
        return -1;
    h->min_len = *p++;
    h->max_ops = 1;
    if (h->version >= 4) {
        if (end - p < 1 || *p == 0)
            return -1;
        h->max_ops = *p++;
    }
    if (end - p < 4)
        return -1;
    h->default_is_stmt = *p++;
    h->line_base = (int8_t)*p++;
    h->line_range = *p++;
    h->opcode_base = *p++;
    /* libdw keeps is_stmt in one bit (a default of 2 makes every row
     * invalid); opcode base 0 and <= 4 make it read outside the table */
    if (h->default_is_stmt > 1 || h->opcode_base <= 4)
        return -1;
    h->oplens = p - 1;
    if (end - p < (ptrdiff_t)h->opcode_base - 1)
        return -1;
    p += h->opcode_base - 1;
    /* libdw refuses a standard opcode whose stated length is not the
     * standard one when the program uses it; checked here for all of them
     * (stricter: such a header goes to libdw) */
    static const uint8_t std_len[13] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
    for (unsigned op = 1; op < h->opcode_base && op <= DW_LNS_set_isa; op++)
        if (h->oplens[op] != std_len[op])
            return -1;

    if (h->version < 5) {
        h->dirs = p;
        h->ndirs = 1;                   /* directory 0: the unit's comp_dir */
        while (p < end && *p) {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return -1;
            h->ndirs++;
            p = z + 1;
        }
        if (p >= end)
            return -1;
        p++;
        h->files = p;
        h->nfiles = 1;                  /* file 0: "???" */
        if (p >= end)
            return -1;
        while (p < end && *p) {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            uint64_t dir, x;
            if (!z)
                return -1;
            p = z + 1;
            if (p >= end || uleb(&p, end, &dir) || dir >= h->ndirs || p >= end || uleb(&p, end, &x) || p >= end ||
                uleb(&p, end, &x))
                return -1;
            h->nfiles++;
        }
        if (p >= end)
            return -1;
        p++;
    } else {
        int path, dir;
        if (formats(&p, end, &h->dir_forms, &h->ndir_forms, &path, &dir) || (h->ndir_forms && path < 0) ||
            p >= end || uleb(&p, end, &h->ndirs) || (!h->ndir_forms && h->ndirs) ||
            (h->ndir_forms && h->ndirs > (uint64_t)(end - p) / h->ndir_forms))
            return -1;
        h->dirs = p;
        h->dir_path = path;
        for (uint64_t i = 0; i < h->ndirs; i++) {
            const char *name;
            uint64_t di;
            if (entry(s, h, &p, h->dir_forms, h->ndir_forms, path, -1, &name, &di) || !name)
                return -1;
        }
        if (formats(&p, end, &h->file_forms, &h->nfile_forms, &path, &dir) ||
            (h->nfile_forms && (path < 0 || dir < 0)) || p >= end || uleb(&p, end, &h->nfiles) ||
            (!h->nfile_forms && h->nfiles) || (h->nfile_forms && h->nfiles > (uint64_t)(end - p) / h->nfile_forms))
            return -1;
        h->files = p;
        h->file_path = path, h->file_dir = dir;
        for (uint64_t i = 0; i < h->nfiles; i++) {
            const char *name;
            uint64_t di;
            if (entry(s, h, &p, h->file_forms, h->nfile_forms, path, dir, &name, &di) || !name ||
                di >= h->ndirs)
                return -1;
        }
        if (!h->nfiles)
            h->nfiles = 1;              /* file 0 stays libdw's "???" */
    }
    if (header_length >= 4 && p == header_start + header_length - 4)
        p += 4;                         /* a cubin's .debug_str offset (libdw reads it for NVIDIA's opcodes) */
    if (p != header_start + header_length)
        return -1;
    h->prog = p;
    return 0;
}

/* The state machine's registers that a row keeps, as libdw's rows hold them. */
struct regs {
    uint64_t addr;
    unsigned op_index, file, column, isa, discriminator, is_stmt;
    int64_t line;
};

static void reset(struct regs *r, const struct dc_dwline_hdr *h)
{
    memset(r, 0, sizeof *r);
    r->file = 1;
    r->line = 1;
    r->is_stmt = h->default_is_stmt;
}

static inline void advance(struct regs *r, const struct dc_dwline_hdr *h, unsigned op_advance)
{
    /* libdw computes in unsigned int */
    if (h->max_ops == 1) {
        r->addr += (unsigned)(h->min_len * op_advance);
        return;
    }
    unsigned ops = r->op_index + op_advance;
    r->addr += (unsigned)(h->min_len * (ops / h->max_ops));
    r->op_index = ops % h->max_ops;
}

/* A candidate row: libdw's sorted order is address, then an end_sequence
 * before other rows, then program order; put() keeps the last in that
 * order, given rows in program order. */
struct cand {
    int have, end, line;
    unsigned file;
    uint64_t addr;
};

static void put(struct cand *c, uint64_t addr, int end, unsigned file, int line)
{
    if (!c->have || addr > c->addr || (addr == c->addr && (!end || c->end)))
        *c = (struct cand){ 1, end, line, file, addr };
}

/* One sequence from *pp (the registers as an end_sequence leaves them) to
 * its end_sequence row, or to the program's end: the last row (in libdw's
 * order) whose address is <= pc into *best, and what the sequence is.
 * stop: its rows' addresses never decrease (an earlier run found so): stop
 * at the first row past pc.  -1 when libdw would refuse the table. */
/* Marks: the registers after every MARK_EVERY-th row of a sequence whose
 * addresses never decrease, so a lookup starts near its row. */
#define MARK_EVERY 64
struct marks {
    struct dc_dwline_mark *v;
    size_t n, cap;
    int oom;
};

static void mark_push(struct marks *m, const struct regs *r, size_t at)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct dc_dwline_mark *v = realloc(m->v, cap * sizeof *v);
        if (!v) {
            m->oom = 1;
            return;
        }
        m->v = v, m->cap = cap;
    }
    m->v[m->n++] = (struct dc_dwline_mark){ at, r->addr, r->line, r->op_index, r->file, r->column, r->isa, r->is_stmt };
}

static int run(const struct dc_dwline_hdr *h, const uint8_t **pp, uint64_t pc, int stop, struct cand *best,
               struct dc_dwline_seq *seq, const struct dc_dwline_mark *from, struct marks *marks)
{
    struct regs r;
    reset(&r, h);
    const uint8_t *p = *pp, *end = h->end;
    memset(seq, 0, sizeof *seq);
    if (from) {
        r.addr = from->addr, r.line = from->line, r.op_index = from->op_index, r.file = from->file;
        r.column = from->column, r.isa = from->isa, r.is_stmt = from->is_stmt;
        p = h->prog + from->at;
    }
    seq->at = (size_t)(p - h->prog);
    seq->mono = 1;
    if (marks)
        seq->mark0 = marks->n;
    struct cand top = { 0, 0, 0, 0, 0 };
    unsigned countdown = MARK_EVERY;
    while (p < end) {
        unsigned op = *p++;
        int emit = 0, end_seq = 0;
        if (op >= h->opcode_base) {
            if (!h->line_range)
                return -1;
            r.line += h->line_base + (int)((op - h->opcode_base) % h->line_range);
            advance(&r, h, (op - h->opcode_base) / h->line_range);
            emit = 1;
        } else if (op == 0) {
            if (end - p < 2)
                return -1;
            unsigned len = *p++;
            if ((size_t)(end - p) < len)
                return -1;
            unsigned sub = *p++;
            switch (sub) {
            case DW_LNE_end_sequence: emit = end_seq = 1; break;
            case DW_LNE_set_address:
                if ((size_t)(end - p) < h->addr_size)
                    return -1;
                r.op_index = 0;
                r.addr = rd(p, h->addr_size);
                p += h->addr_size;
                break;
            case DW_LNE_set_discriminator:       /* (header(): oplens[4] is 1) */
                if (uleb32(&p, end, &r.discriminator) || r.discriminator > 0xffffff)
                    return -1;          /* libdw: only if a row keeps it; here always (libdw answers) */
                break;
            case DW_LNE_NVIDIA_inlined_call: {
                unsigned ctx, fn;
                if (uleb32(&p, end, &ctx) || uleb32(&p, end, &fn))
                    return -1;
                break;
            }
            case DW_LNE_NVIDIA_set_function_name: {
                unsigned fn;
                if (uleb32(&p, end, &fn))
                    return -1;
                break;
            }
            case DW_LNE_define_file: return -1;         /* a file table the header does not hold: libdw's */
            default:
                if (len == 0 || (size_t)(end - (p - 1)) < len)
                    return -1;
                p += len - 1;
                break;
            }
        } else if (op <= DW_LNS_set_isa) {    /* (header() checked their lengths) */
            unsigned u;
            int sv;
            switch (op) {
            case DW_LNS_copy: emit = 1; break;
            case DW_LNS_advance_pc:
                if (uleb32(&p, end, &u))
                    return -1;
                advance(&r, h, u);
                break;
            case DW_LNS_advance_line:
                if (sleb32(&p, end, &sv))
                    return -1;
                r.line += sv;
                break;
            case DW_LNS_set_file:
                if (uleb32(&p, end, &r.file))
                    return -1;
                break;
            case DW_LNS_set_column:
                if (uleb32(&p, end, &r.column) || r.column > 0xffff)
                    return -1;
                break;
            case DW_LNS_negate_stmt: r.is_stmt = 1 - r.is_stmt; break;
            case DW_LNS_set_basic_block: break;
            case DW_LNS_const_add_pc:
                if (!h->line_range)
                    return -1;
                advance(&r, h, (255 - h->opcode_base) / h->line_range);
                break;
            case DW_LNS_fixed_advance_pc:
                if (end - p < 2)
                    return -1;
                r.addr += rd(p, 2);
                p += 2;
                r.op_index = 0;
                break;
            case DW_LNS_set_prologue_end:
            case DW_LNS_set_epilogue_begin: break;
            case DW_LNS_set_isa:
                if (uleb32(&p, end, &r.isa) || r.isa > 0xff)
                    return -1;
                break;
            }
        } else {
            for (unsigned n = h->oplens[op]; n > 0; n--) {
                uint64_t x;
                if (p >= end || uleb(&p, end, &x))
                    return -1;
            }
        }
        if (!emit)
            continue;
        /* libdw refuses the whole table when a row's value does not fit its
         * field: the line here; the column, isa and discriminator when
         * set (stricter); op_index < max_ops <= 255 and is_stmt <= 1 always */
        if ((uint64_t)(r.line - INT32_MIN) > UINT32_MAX)
            return -1;
        if (!seq->rows++)
            seq->lo = seq->hi = r.addr;
        else if (r.addr < seq->hi)
            seq->mono = 0;
        if (r.addr < seq->lo)
            seq->lo = r.addr;
        if (r.addr > seq->hi)
            seq->hi = r.addr;
        put(&top, r.addr, end_seq, r.file, (int)r.line);
        if (r.addr <= pc)
            put(best, r.addr, end_seq, r.file, (int)r.line);
        else if (stop)
            break;
        if (end_seq)
            break;
        r.discriminator = 0;
        if (marks && --countdown == 0) {
            countdown = MARK_EVERY;
            if (seq->mono)
                mark_push(marks, &r, (size_t)(p - h->prog));
        }
    }
    *pp = p;
    if (marks) {
        if (!seq->mono)
            marks->n = seq->mark0;      /* no use: a lookup decodes the whole sequence */
        seq->nmarks = marks->n - seq->mark0;
    }
    seq->top_end = top.end, seq->top_file = top.file, seq->top_line = top.line;
    return 0;
}

/* The answer from the best row and the unit's highest address: libdw
 * makes the unit's highest row an end_sequence, whatever it says. */
static int answer(const struct cand *best, uint64_t max_addr, unsigned *file, int *line)
{
    if (!best->have || best->end || best->addr == max_addr)
        return 0;
    *file = best->file;
    *line = best->line;
    return 1;
}

int dc_dwline_find(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, uint64_t pc, unsigned *file,
                   int *line)
{
    struct dc_dwline_hdr h;
    if (header(s, off, addr_size, &h))
        return -1;
    struct cand best = { 0, 0, 0, 0, 0 };
    uint64_t max_addr = 0;
    size_t rows = 0;
    for (const uint8_t *p = h.prog; p < h.end;) {
        struct dc_dwline_seq seq;
        if (run(&h, &p, pc, 0, &best, &seq, NULL, NULL))
            return -1;
        if (seq.rows && (!rows || seq.hi > max_addr))
            max_addr = seq.hi;
        rows += seq.rows;
    }
    return answer(&best, max_addr, file, line);
}

int dc_dwline_index(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, struct dc_dwline_index *x)
{
    struct dc_dwline_hdr h;
    memset(x, 0, sizeof *x);
    if (header(s, off, addr_size, &h))
        return -1;
    if (!(x->hdr = malloc(sizeof *x->hdr)))
        return -1;
    *x->hdr = h;
    size_t cap = 0, rows = 0;
    struct marks m = { NULL, 0, 0, 0 };
    for (const uint8_t *p = h.prog; p < h.end;) {
        struct dc_dwline_seq seq;
        struct cand none = { 0, 0, 0, 0, 0 };
        if (run(&h, &p, 0, 0, &none, &seq, NULL, &m) || m.oom) {
            free(m.v);
            dc_dwline_index_free(x);
            return -1;
        }
        if (!seq.rows)
            continue;
        if (!rows || seq.hi > x->max_addr)
            x->max_addr = seq.hi;
        rows += seq.rows;
        if (x->nseq == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            struct dc_dwline_seq *v = realloc(x->seq, ncap * sizeof *v);
            if (!v) {
                free(m.v);
                dc_dwline_index_free(x);
                return -1;
            }
            x->seq = v, cap = ncap;
        }
        x->seq[x->nseq++] = seq;
    }
    x->mark = m.v;
    x->nmark = m.n;
    return 0;
}

void dc_dwline_index_free(struct dc_dwline_index *x)
{
    free(x->hdr);
    free(x->seq);
    free(x->mark);
    memset(x, 0, sizeof *x);
}

int dc_dwline_lookup(const struct dc_dwline_index *x, uint64_t pc, unsigned *file, int *line)
{
    if (!x->hdr)
        return -1;
    const struct dc_dwline_hdr h = *x->hdr;
    struct cand best = { 0, 0, 0, 0, 0 };
    for (size_t i = 0; i < x->nseq; i++) {
        const struct dc_dwline_seq *q = &x->seq[i];
        if (q->lo > pc)
            continue;
        if (q->hi <= pc) {
            put(&best, q->hi, q->top_end, q->top_file, q->top_line);
            continue;
        }
        /* from the last mark at or below pc: its row is the best before it */
        const struct dc_dwline_mark *from = NULL;
        size_t lo = 0, hi = q->nmarks;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (x->mark[q->mark0 + mid].addr <= pc)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo) {
            from = &x->mark[q->mark0 + lo - 1];
            put(&best, from->addr, 0, from->file, (int)from->line);
        }
        size_t at = from ? from->at : q->at;
        const uint8_t *p = h.prog + q->at;
        struct dc_dwline_seq again;
        if (at >= (size_t)(h.end - h.prog) || run(&h, &p, pc, q->mono, &best, &again, from, NULL))
            return -1;
    }
    return answer(&best, x->max_addr, file, line);
}

/* libdw's file name: dir + '/' + name unless name is absolute or there is
 * no directory; cut to len. */
static void join(char *buf, size_t len, const char *dir, const char *name)
{
    size_t k = 0;
    if (!len)
        return;
    if (name[0] != '/' && dir) {
        for (size_t i = 0; dir[i] && k + 1 < len; i++)
            buf[k++] = dir[i];
        if (k + 1 < len)
            buf[k++] = '/';
    }
    for (size_t i = 0; name[i] && k + 1 < len; i++)
        buf[k++] = name[i];
    buf[k] = 0;
}

static int file_name(const struct dc_dwline_sec *s, const struct dc_dwline_hdr *hp, const char *comp_dir, uint64_t idx,
                     char *buf, size_t len);

int dc_dwline_file(const struct dc_dwline_sec *s, uint64_t off, unsigned addr_size, const char *comp_dir,
                   uint64_t idx, char *buf, size_t len)
{
    struct dc_dwline_hdr h;
    if (header(s, off, addr_size, &h))
        return -1;
    return file_name(s, &h, comp_dir, idx, buf, len);
}

int dc_dwline_index_file(const struct dc_dwline_sec *s, const struct dc_dwline_index *x, const char *comp_dir,
                         uint64_t idx, char *buf, size_t len)
{
    return x->hdr ? file_name(s, x->hdr, comp_dir, idx, buf, len) : -1;
}

static int file_name(const struct dc_dwline_sec *s, const struct dc_dwline_hdr *hp, const char *comp_dir, uint64_t idx,
                     char *buf, size_t len)
{
    const struct dc_dwline_hdr h = *hp;
    if (idx >= h.nfiles)
        return 0;
    const uint8_t *p, *end = h.end;
    if (h.version < 5) {
        if (idx == 0) {
            join(buf, len, NULL, "???");
            return 1;
        }
        p = h.files;            /* checked by header() */
        const char *name = NULL;
        uint64_t dir = 0, x;
        for (uint64_t i = 1; i <= idx; i++) {
            name = (const char *)p;
            p = (const uint8_t *)memchr(p, 0, (size_t)(end - p)) + 1;
            uleb(&p, end, &dir);
            uleb(&p, end, &x);
            uleb(&p, end, &x);
        }
        const char *d = comp_dir;
        if (dir > 0) {
            p = h.dirs;
            for (uint64_t i = 1; i < dir; i++)
                p = (const uint8_t *)memchr(p, 0, (size_t)(end - p)) + 1;
            d = (const char *)p;
        }
        join(buf, len, d, name);
        return 1;
    }
    if (h.nfile_forms == 0) {           /* no entries: file 0 is "???" */
        join(buf, len, NULL, "???");
        return 1;
    }
    p = h.files;
    const char *name = NULL, *d = NULL;
    uint64_t di = 0, x;
    for (uint64_t i = 0; i <= idx; i++)
        if (entry(s, &h, &p, h.file_forms, h.nfile_forms, h.file_path, h.file_dir, &name, &di) || !name)
            return -1;
    p = h.dirs;
    for (uint64_t i = 0; i <= di; i++)
        if (entry(s, &h, &p, h.dir_forms, h.ndir_forms, h.dir_path, -1, &d, &x) || !d)
            return -1;
    join(buf, len, d, name);
    return 1;
}
