/* image: devcheck's own reader of kernel images (see image.h). */
#include "core/kernel/cubin.h"
#include "core/kernel/hostdwarf.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define WRAPPER_MAGIC 0x466243B1u
#define FATBIN_ENTRY_PTX 1
#define FATBIN_ENTRY_ELF 2
#define FATBIN_FLAG_LZ4 0x2000u
#define FATBIN_FLAG_ZSTD 0x8000u
#define EIATTR_KPARAM_INFO 0x17
#define EIFMT_SVAL 4

/* Bounds against malformed headers: no image devcheck reads is this big. */
#define MAX_IMAGE ((size_t)1 << 30)
#define MAX_ENTRY_OUT ((size_t)512 << 20)
#define MAX_PARAMS 4096

struct dc_img {
    struct dc_img_kernel *k;
    unsigned n, cap;
};

/* ---- little-endian reads, bounded by the caller ---------------------------------------- */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- the kernel table ------------------------------------------------------------------------ */

static struct dc_img_kernel *kernel_slot(struct dc_img *img, const char *name, size_t len)
{
    for (unsigned i = 0; i < img->n; i++)
        if (strlen(img->k[i].name) == len && !memcmp(img->k[i].name, name, len))
            return &img->k[i];
    if (img->n == img->cap) {
        unsigned cap = img->cap ? 2 * img->cap : 8;
        struct dc_img_kernel *k = realloc(img->k, cap * sizeof *k);
        if (!k)
            return NULL;
        img->k = k;
        img->cap = cap;
    }
    struct dc_img_kernel *k = &img->k[img->n];
    memset(k, 0, sizeof *k);
    k->name = strndup(name, len);
    if (!k->name)
        return NULL;
    img->n++;
    return k;
}

/* ---- decompression ------------------------------------------------------------------------------ */

/* An LZ4 block (no frame), as nvcc's fatbinary writes with -compress-mode=speed. */
static size_t lz4_block(const uint8_t *src, size_t slen, uint8_t *dst, size_t dcap)
{
    size_t ip = 0, op = 0;
    while (ip < slen) {
        unsigned tok = src[ip++];
        size_t lit = tok >> 4;
        if (lit == 15) {
            unsigned b;
            do {
                if (ip >= slen)
                    return 0;
                b = src[ip++];
                lit += b;
            } while (b == 255 && lit < dcap);
        }
        if (lit > slen - ip || lit > dcap - op)
            return 0;
        memcpy(dst + op, src + ip, lit);
        ip += lit;
        op += lit;
        if (ip >= slen)
            break;                      /* the last sequence has no match */
        if (slen - ip < 2)
            return 0;
        size_t off = (size_t)src[ip] | (size_t)src[ip + 1] << 8;
        ip += 2;
        if (!off || off > op)
            return 0;
        size_t ml = tok & 15;
        if (ml == 15) {
            unsigned b;
            do {
                if (ip >= slen)
                    return 0;
                b = src[ip++];
                ml += b;
            } while (b == 255 && ml < dcap);
        }
        ml += 4;
        if (ml > dcap - op)
            return 0;
        for (size_t k = 0; k < ml; k++)        /* may overlap: byte by byte */
            dst[op + k] = dst[op + k - off];
        op += ml;
    }
    return op;
}

/* libzstd, loaded on first use with RTLD_LOCAL (its symbols stay out of the
 * program's scope). */
static struct {
    pthread_once_t once;
    __typeof__(&ZSTD_decompress) decompress;
    __typeof__(&ZSTD_isError) is_error;
} zstd = { PTHREAD_ONCE_INIT, NULL, NULL };

static void zstd_load(void)
{
    void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    zstd.is_error = (__typeof__(zstd.is_error))dlsym(h, "ZSTD_isError");
    zstd.decompress = zstd.is_error ? (__typeof__(zstd.decompress))dlsym(h, "ZSTD_decompress") : NULL;
}

static size_t zstd_block(const uint8_t *src, size_t slen, uint8_t *dst, size_t dcap)
{
    pthread_once(&zstd.once, zstd_load);
    if (!zstd.decompress)
        return 0;
    size_t r = zstd.decompress(dst, dcap, src, slen);
    return zstd.is_error(r) ? 0 : r;
}

/* ---- ELF cubins ---------------------------------------------------------------------------------- */

struct kparam { uint32_t offset, size, word; int seen; };

/* One `.nv.info.<kernel>` section: its KPARAM records. */
static void elf_kernel(struct dc_img *img, const char *name, size_t len, const uint8_t *p, size_t n)
{
    struct kparam *kp = NULL;
    unsigned nk = 0, maxord = 0, records = 0;
    int bad = 0;
    size_t i = 0;
    while (i + 4 <= n) {
        unsigned fmt = p[i], attr = p[i + 1];
        if (fmt == EIFMT_SVAL) {
            size_t sz = rd16(p + i + 2);
            if (sz > n - i - 4)
                break;
            if (attr == EIATTR_KPARAM_INFO && sz >= 12) {
                const uint8_t *v = p + i + 4;
                unsigned ord = rd16(v + 4);
                if (ord >= MAX_PARAMS) {
                    bad = 1;
                } else {
                    if (ord >= nk) {
                        unsigned cap = ord + 1 > 2 * nk ? ord + 1 : 2 * nk;
                        struct kparam *q = realloc(kp, cap * sizeof *q);
                        if (!q) {
                            bad = 1;
                            break;
                        }
                        memset(q + nk, 0, (cap - nk) * sizeof *q);
                        kp = q;
                        nk = cap;
                    }
                    if (kp[ord].seen)
                        bad = 1;
                    kp[ord].seen = 1;
                    kp[ord].offset = rd16(v + 6);
                    kp[ord].word = rd32(v + 8);
                    kp[ord].size = kp[ord].word >> 18;
                    if (ord + 1 > maxord)
                        maxord = ord + 1;
                    records++;
                }
            }
            i += 4 + sz;
        } else if (fmt >= 1 && fmt <= 3) {
            i += 4;                     /* no value, a byte, a half word: 4 bytes in all */
        } else {
            break;                      /* not a record devcheck knows: stop reading */
        }
    }
    for (unsigned o = 0; o < maxord && !bad; o++)
        if (!kp[o].seen)
            bad = 1;
    struct dc_img_kernel *k = bad ? NULL : kernel_slot(img, name, len);
    if (k && !k->from_elf) {
        struct dc_img_param *ps = maxord ? calloc(maxord, sizeof *ps) : NULL;
        if (!maxord || ps) {
            for (unsigned o = 0; o < maxord; o++) {
                ps[o].offset = kp[o].offset;
                ps[o].size = kp[o].size;
                unsigned space = (kp[o].word >> 8) & 0xf;
                ps[o].ptr = space == 4 || space == 5 ? DC_IMG_PTR_KPARAM
                            : space >= 1 && space <= 3 ? DC_IMG_PTR_OTHER_SPACE : DC_IMG_PTR_NONE;
            }
            free(k->params);
            k->params = ps;
            k->nparams = maxord;
            k->from_elf = 1;
            k->layout = 1;
        }
    }
    (void)records;
    free(kp);
}

/* What the cubin's own DWARF says of k's parameters (once per kernel; a
 * count that disagrees with the KPARAM records says nothing). */
static void elf_dwarf(struct dc_img_kernel *k, const uint8_t *d, size_t n)
{
    if (k->dw_read || !k->from_elf || !k->nparams)
        return;
    k->dw_read = 1;
    struct dc_dw_param *dw = calloc(k->nparams, sizeof *dw);
    int ndw = dw ? dc_dwarf_image_params(d, n, k->name, dw, (int)k->nparams) : -1;
    for (unsigned i = 0; ndw == (int)k->nparams && i < k->nparams; i++)
        if (dw[i].kind != DC_DW_UNKNOWN && dw[i].size == k->params[i].size)
            k->params[i].dw = dw[i].kind;
    if (dw)
        dc_dwarf_params_free(dw, ndw > (int)k->nparams ? (int)k->nparams : ndw);
    free(dw);
}

static void parse_elf(struct dc_img *img, const uint8_t *d, size_t n)
{
    int debug = 0;
    if (n < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2 || d[5] != 1)
        return;
    uint64_t shoff = rd64(d + 0x28);
    unsigned shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c), shstrndx = rd16(d + 0x3e);
    if (shentsize < 64 || shoff > n || (uint64_t)shnum * shentsize > n - shoff || shstrndx >= shnum)
        return;
    const uint8_t *sh = d + shoff;
    uint64_t stroff = rd64(sh + (size_t)shstrndx * shentsize + 0x18);
    uint64_t strsize = rd64(sh + (size_t)shstrndx * shentsize + 0x20);
    if (stroff > n || strsize > n - stroff)
        return;
    const char *strtab = (const char *)d + stroff;
    for (unsigned s = 0; s < shnum; s++) {
        const uint8_t *h = sh + (size_t)s * shentsize;
        uint32_t nameoff = rd32(h);
        uint64_t off = rd64(h + 0x18), size = rd64(h + 0x20);
        if (nameoff >= strsize || off > n || size > n - off)
            continue;
        const char *nm = strtab + nameoff;
        size_t len = strnlen(nm, strsize - nameoff);
        if (len == strsize - nameoff)
            continue;                   /* no terminating NUL inside the table */
        if (len > 9 && !memcmp(nm, ".nv.info.", 9))
            elf_kernel(img, nm + 9, len - 9, d + off, (size_t)size);
        else if (!strcmp(nm, ".debug_info") && size)
            debug = 1;
    }
    for (unsigned i = 0; debug && i < img->n; i++)
        elf_dwarf(&img->k[i], d, n);
}

/* ---- PTX ------------------------------------------------------------------------------------------- */

struct ptx {
    const char *s;
    size_t i, n;
};

static int ptx_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int ptx_ident(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%' || c == '.';
}

/* Skips white space and comments. */
static void ptx_skip(struct ptx *x)
{
    while (x->i < x->n) {
        char c = x->s[x->i];
        if (ptx_space(c)) {
            x->i++;
        } else if (c == '/' && x->i + 1 < x->n && x->s[x->i + 1] == '/') {
            while (x->i < x->n && x->s[x->i] != '\n')
                x->i++;
        } else if (c == '/' && x->i + 1 < x->n && x->s[x->i + 1] == '*') {
            x->i += 2;
            while (x->i + 1 < x->n && !(x->s[x->i] == '*' && x->s[x->i + 1] == '/'))
                x->i++;
            x->i = x->i + 2 < x->n ? x->i + 2 : x->n;
        } else {
            break;
        }
    }
}

/* The next token: an identifier/directive, a number, or one character. */
static size_t ptx_token(struct ptx *x, const char **tok)
{
    ptx_skip(x);
    *tok = x->s + x->i;
    if (x->i >= x->n)
        return 0;
    size_t start = x->i;
    if (ptx_ident(x->s[x->i])) {
        while (x->i < x->n && ptx_ident(x->s[x->i]))
            x->i++;
    } else {
        x->i++;
    }
    return x->i - start;
}

static int tok_is(const char *t, size_t len, const char *want)
{
    return strlen(want) == len && !memcmp(t, want, len);
}

static uint64_t tok_num(const char *t, size_t len)
{
    uint64_t v = 0;
    for (size_t k = 0; k < len && t[k] >= '0' && t[k] <= '9' && v < ((uint64_t)1 << 40); k++)
        v = v * 10 + (uint64_t)(t[k] - '0');
    return v;
}

/* A PTX scalar type's size and kind, 0 if not one. */
static unsigned ptx_type(const char *t, size_t len, uint8_t *kind)
{
    if (len < 3 || t[0] != '.')
        return 0;
    char c = t[1];
    if (c != 'u' && c != 's' && c != 'b' && c != 'f')
        return 0;
    uint64_t bits = tok_num(t + 2, len - 2);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return 0;
    *kind = c == 'f' ? DC_IMG_FLOAT : DC_IMG_SCALAR;
    return (unsigned)(bits / 8);
}

struct pparam {
    const char *name;
    size_t len;
    struct dc_img_param p;
    unsigned align;
};

/* The body of an entry, from after its '{' to the matching '}': which
 * top-level 64-bit parameters are used as addresses.  Registers loaded from
 * a parameter (ld.param.u64/b64 %r, [name] or [name+0]) are followed through
 * mov; a cvta.to.global of one, or one used as an address ([%r] or
 * [%r+imm]), makes the parameter a pointer.  Nothing else is inferred: a
 * field of an aggregate ([name+8]) is not a top-level parameter. */
#define MAX_TRACKED 256
static void ptx_body(struct ptx *x, struct pparam *pp, unsigned np)
{
    struct { const char *r; size_t len; unsigned param; } reg[MAX_TRACKED];
    unsigned nreg = 0;
    int depth = 1;
    /* statement by statement: up to ';' or a brace */
    while (x->i < x->n && depth > 0) {
        const char *t[24];
        size_t tl[24];
        unsigned nt = 0;
        for (;;) {
            const char *tok;
            size_t len = ptx_token(x, &tok);
            if (!len)
                return;
            if (tok_is(tok, len, "{")) {
                depth++;
                break;
            }
            if (tok_is(tok, len, "}")) {
                depth--;
                break;
            }
            if (tok_is(tok, len, ";"))
                break;
            if (nt < 24) {
                t[nt] = tok;
                tl[nt] = len;
                nt++;
            }
        }
        if (nt < 2)
            continue;
        unsigned op = 0;
        if (t[0][0] == '@')             /* a predicate: @%p1 / @!%p1 */
            op = nt > 2 ? (t[1][0] == '!' ? 3 : 2) : 0;
        if (op >= nt)
            continue;
        const char *ins = t[op];
        size_t il = tl[op];
        /* ld.param.u64 %rd1, [name] / [name+0] */
        if (il >= 12 && !memcmp(ins, "ld.param.", 9) &&
            (tok_is(ins + 9, il - 9, "u64") || tok_is(ins + 9, il - 9, "b64") || tok_is(ins + 9, il - 9, "s64"))) {
            /* tokens: ins %rd , [ name (+ 0)? ] */
            if (op + 5 < nt && tok_is(t[op + 2], tl[op + 2], ",") && tok_is(t[op + 3], tl[op + 3], "[")) {
                const char *pn = t[op + 4];
                size_t pl = tl[op + 4];
                int plain = tok_is(t[op + 5], tl[op + 5], "]") ||
                            (op + 7 < nt && tok_is(t[op + 5], tl[op + 5], "+") &&
                             tok_is(t[op + 6], tl[op + 6], "0") && tok_is(t[op + 7], tl[op + 7], "]"));
                for (unsigned k = 0; plain && k < np; k++)
                    if (pp[k].len == pl && !memcmp(pp[k].name, pn, pl) && pp[k].p.kind == DC_IMG_SCALAR &&
                        pp[k].p.size == 8 && nreg < MAX_TRACKED) {
                        reg[nreg].r = t[op + 1];
                        reg[nreg].len = tl[op + 1];
                        reg[nreg].param = k;
                        nreg++;
                    }
            }
            continue;
        }
        if (!nreg)
            continue;
        /* mov.u64/b64 %dst, %src: the copy names the same parameter */
        if (il >= 6 && !memcmp(ins, "mov.", 4) && op + 3 < nt && tok_is(t[op + 2], tl[op + 2], ",")) {
            for (unsigned r = 0; r < nreg; r++)
                if (reg[r].len == tl[op + 3] && !memcmp(reg[r].r, t[op + 3], tl[op + 3]) && nreg < MAX_TRACKED) {
                    reg[nreg].r = t[op + 1];
                    reg[nreg].len = tl[op + 1];
                    reg[nreg].param = reg[r].param;
                    nreg++;
                    break;
                }
            continue;
        }
        int cvta = il >= 15 && !memcmp(ins, "cvta.to.global.", 15);
        for (unsigned a = op + 1; a < nt; a++) {
            /* cvta.to.global.u64 %dst, %src: the source; otherwise [%r ...] */
            int addr = cvta ? (a == op + 3) : (a > 0 && tok_is(t[a - 1], tl[a - 1], "["));
            if (!addr)
                continue;
            for (unsigned r = 0; r < nreg; r++)
                if (reg[r].len == tl[a] && !memcmp(reg[r].r, t[a], tl[a]))
                    pp[reg[r].param].p.ptr = DC_IMG_PTR_USE;
        }
    }
}

/* One `.entry name ( params ) ... { body }`, after the .entry token. */
static void ptx_entry(struct dc_img *img, struct ptx *x)
{
    const char *nm;
    size_t nl = ptx_token(x, &nm);
    if (!nl || !ptx_ident(nm[0]))
        return;
    struct pparam *pp = NULL;
    unsigned np = 0, cap = 0;
    int ok = 1;
    const char *tok;
    size_t len;
    size_t save = x->i;
    len = ptx_token(x, &tok);
    if (tok_is(tok, len, "(")) {
        for (;;) {
            len = ptx_token(x, &tok);
            if (!len) {
                ok = 0;
                break;
            }
            if (tok_is(tok, len, ")"))
                break;
            if (tok_is(tok, len, ","))
                continue;
            if (!tok_is(tok, len, ".param")) {
                ok = 0;
                break;
            }
            struct pparam q;
            memset(&q, 0, sizeof q);
            int ptr = 0, space = 0, array = 0;
            unsigned tsize = 0;
            uint8_t tkind = 0;
            uint64_t count = 1;
            /* attributes up to the name */
            for (;;) {
                len = ptx_token(x, &tok);
                if (!len) {
                    ok = 0;
                    break;
                }
                if (tok_is(tok, len, ".align")) {
                    const char *a;
                    size_t al = ptx_token(x, &a);
                    q.align = (unsigned)tok_num(a, al);
                } else if (tok_is(tok, len, ".ptr")) {
                    ptr = 1;
                } else if (tok_is(tok, len, ".global")) {
                    space = 4;
                } else if (tok_is(tok, len, ".shared") || tok_is(tok, len, ".const") || tok_is(tok, len, ".local")) {
                    space = 1;
                } else if (tok[0] == '.' && (tsize = ptx_type(tok, len, &tkind)) != 0) {
                } else if (tok[0] == '.') {
                    /* another attribute (.texref, ...): not understood */
                    ok = 0;
                    break;
                } else {
                    q.name = tok;
                    q.len = len;
                    break;
                }
            }
            if (!ok || !tsize)
                break;
            size_t after = x->i;
            len = ptx_token(x, &tok);
            if (tok_is(tok, len, "[")) {
                const char *c;
                size_t cl = ptx_token(x, &c);
                count = tok_num(c, cl);
                len = ptx_token(x, &tok);
                if (!tok_is(tok, len, "]") || !count) {
                    ok = 0;
                    break;
                }
                array = 1;
            } else {
                x->i = after;
            }
            uint64_t size = (uint64_t)tsize * count;
            if (size > 32768) {
                ok = 0;
                break;
            }
            q.p.size = (uint32_t)size;
            if (!q.align)
                q.align = tsize;
            q.p.kind = array ? DC_IMG_AGGREGATE : tkind;
            if (ptr)
                q.p.ptr = space == 1 ? DC_IMG_PTR_OTHER_SPACE : DC_IMG_PTR_DECL;
            if (np == cap) {
                cap = cap ? 2 * cap : 8;
                struct pparam *r = cap <= MAX_PARAMS ? realloc(pp, cap * sizeof *r) : NULL;
                if (!r) {
                    ok = 0;
                    break;
                }
                pp = r;
            }
            pp[np++] = q;
        }
    } else {
        x->i = save;
    }
    /* offsets: each parameter at the next multiple of its alignment */
    uint64_t off = 0;
    for (unsigned k = 0; ok && k < np; k++) {
        unsigned al = pp[k].align && !(pp[k].align & (pp[k].align - 1)) ? pp[k].align : 1;
        off = (off + al - 1) & ~(uint64_t)(al - 1);
        pp[k].p.offset = (uint32_t)off;
        off += pp[k].p.size;
        if (off > 32768)
            ok = 0;
    }
    /* the body, for address uses: skip to its '{' (a declaration ends with ';') */
    for (;;) {
        len = ptx_token(x, &tok);
        if (!len || tok_is(tok, len, ";"))
            break;
        if (tok_is(tok, len, "{")) {
            if (ok)
                ptx_body(x, pp, np);
            break;
        }
    }
    struct dc_img_kernel *k = ok ? kernel_slot(img, nm, nl) : NULL;
    if (k && !k->from_ptx) {
        if (k->from_elf) {
            /* the cubin's layout stands; the PTX adds what it says of each
             * parameter, when both list the same parameters */
            if (k->nparams == np) {
                for (unsigned i = 0; i < np; i++) {
                    if (k->params[i].size != pp[i].p.size)
                        continue;
                    k->params[i].kind = pp[i].p.kind;
                    if (pp[i].p.ptr && (!k->params[i].ptr || pp[i].p.ptr == DC_IMG_PTR_USE))
                        k->params[i].ptr = pp[i].p.ptr;
                }
                k->from_ptx = 1;
            }
        } else {
            struct dc_img_param *ps = np ? calloc(np, sizeof *ps) : NULL;
            if (!np || ps) {
                for (unsigned i = 0; i < np; i++)
                    ps[i] = pp[i].p;
                free(k->params);
                k->params = ps;
                k->nparams = np;
                k->from_ptx = 1;
                k->layout = 1;
            }
        }
    }
    free(pp);
}

static void parse_ptx(struct dc_img *img, const char *s, size_t n)
{
    struct ptx x = { s, 0, n };
    const char *tok;
    size_t len;
    while ((len = ptx_token(&x, &tok)) != 0) {
        if (tok_is(tok, len, ".entry"))
            ptx_entry(img, &x);
    }
}

/* Does it look like PTX text?  (A NUL-terminated text with a .version or .entry.) */
static int looks_ptx(const uint8_t *d, size_t n)
{
    size_t k = 0;
    if (!d)
        return 0;
    while (k < n && k < 4096 && d[k] && (d[k] == '\n' || d[k] == '\r' || d[k] == '\t' || (d[k] >= 32 && d[k] < 127)))
        k++;
    if (k < 8)
        return 0;
    return memmem(d, k, ".version", 8) || memmem(d, k, ".entry", 6) || memmem(d, k, ".target", 7);
}

/* ---- fatbins ------------------------------------------------------------------------------------------ */

static void parse_any(struct dc_img *img, const uint8_t *d, size_t n, int depth);

static void fatbin_entry(struct dc_img *img, unsigned kind, const uint8_t *payload, size_t psize, uint64_t flags,
                         uint64_t usize, int depth)
{
    if (kind != FATBIN_ENTRY_ELF && kind != FATBIN_ENTRY_PTX)
        return;
    uint8_t *buf = NULL;
    const uint8_t *data = payload;
    size_t size = psize;
    if (flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) {
        if (!usize || usize > MAX_ENTRY_OUT)
            return;
        buf = malloc((size_t)usize + 1);
        if (!buf)
            return;
        size = flags & FATBIN_FLAG_ZSTD ? zstd_block(payload, psize, buf, (size_t)usize)
                                        : lz4_block(payload, psize, buf, (size_t)usize);
        if (!size) {
            free(buf);
            return;
        }
        buf[size] = 0;
        data = buf;
    }
    if (kind == FATBIN_ENTRY_ELF)
        parse_elf(img, data, size);
    else
        parse_ptx(img, (const char *)data, strnlen((const char *)data, size));
    (void)depth;
    free(buf);
}

/* One fatbin at d; returns its total size (header included), 0 if none. */
static size_t parse_fatbin(struct dc_img *img, const uint8_t *d, size_t n, int depth)
{
    if (n < 16 || rd32(d) != FATBIN_MAGIC)
        return 0;
    unsigned hsize = rd16(d + 6);
    uint64_t fsize = rd64(d + 8);
    if (hsize < 16 || hsize > n || fsize > n - hsize)
        return 0;
    const uint8_t *p = d + hsize, *end = d + hsize + fsize;
    while ((size_t)(end - p) >= 16) {
        unsigned kind = rd16(p);
        uint32_t ehs = rd32(p + 4);
        uint64_t psize = rd64(p + 8);
        if (ehs < 16 || ehs > (size_t)(end - p) || psize > (size_t)(end - p) - ehs)
            break;
        uint64_t flags = ehs >= 48 ? rd64(p + 40) : 0;
        uint64_t usize = ehs >= 64 ? rd64(p + 56) : 0;
        /* a compressed payload is padded: its own size is at +16 */
        uint32_t csize = ehs >= 20 ? rd32(p + 16) : 0;
        size_t data = (flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) && csize && csize <= psize ? csize : (size_t)psize;
        fatbin_entry(img, kind, p + ehs, data, flags, usize, depth);
        p += ehs + psize;
    }
    return hsize + (size_t)fsize;
}

static void parse_any(struct dc_img *img, const uint8_t *d, size_t n, int depth)
{
    if (!d || n < 4 || depth > 2)
        return;
    uint32_t magic = rd32(d);
    if (magic == FATBIN_MAGIC) {
        /* back-to-back fatbins (a section holding several) */
        size_t at = 0;
        while (at + 16 <= n) {
            size_t used = parse_fatbin(img, d + at, n - at, depth);
            if (!used)
                break;
            at += (used + 7) & ~(size_t)7;
        }
    } else if (!memcmp(d, "\177ELF", 4)) {
        parse_elf(img, d, n);
    } else if (looks_ptx(d, n)) {
        parse_ptx(img, (const char *)d, strnlen((const char *)d, n));
    }
}

int dc_img_is_wrapper(const void *data, const void **fatbin)
{
    const uint8_t *d = data;
    if (!d || rd32(d) != WRAPPER_MAGIC)
        return 0;
    uint32_t version = rd32(d + 4);
    if (version != 1 && version != 2)
        return 0;
    const void *fb;
    memcpy(&fb, d + 8, sizeof fb);
    if (fatbin)
        *fatbin = fb;
    return fb != NULL;
}

size_t dc_img_extent(const void *data, size_t avail)
{
    const uint8_t *d = data;
    if (!d || avail < 4)
        return 0;
    if (rd32(d) == FATBIN_MAGIC) {
        if (avail < 16)
            return 0;
        unsigned hsize = rd16(d + 6);
        uint64_t fsize = rd64(d + 8);
        if (hsize < 16 || fsize > MAX_IMAGE)
            return 0;
        return hsize + (size_t)fsize;
    }
    if (!memcmp(d, "\177ELF", 4)) {
        if (avail < 64 || d[4] != 2)
            return 0;
        uint64_t shoff = rd64(d + 0x28);
        unsigned shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c);
        uint64_t end = shoff + (uint64_t)shnum * shentsize;
        if (shentsize < 64)                 /* an ELF64 section header; read 0x28 bytes deep below */
            return 0;
        if (shoff > MAX_IMAGE || end > MAX_IMAGE || end > avail)
            return end <= MAX_IMAGE ? (size_t)end : 0;
        /* the sections may lie past the section headers */
        for (unsigned s = 0; s < shnum; s++) {
            const uint8_t *h = d + shoff + (size_t)s * shentsize;
            uint32_t type = rd32(h + 4);
            uint64_t off = rd64(h + 0x18), size = rd64(h + 0x20);
            if (type != 8 /* SHT_NOBITS */ && off <= MAX_IMAGE && size <= MAX_IMAGE && off + size > end)
                end = off + size;
        }
        return (size_t)end;
    }
    if (looks_ptx(d, avail)) {
        size_t len = strnlen((const char *)d, avail);
        return len < avail ? len + 1 : 0;
    }
    return 0;
}

struct dc_img *dc_img_parse(const void *data, size_t size)
{
    struct dc_img *img = calloc(1, sizeof *img);
    if (!img)
        return NULL;
    const void *fb;
    if ((!size || size >= 16) && dc_img_is_wrapper(data, &fb)) {   /* a sized image shorter is none */
        data = fb;
        size = 0;
    }
    if (data && !size) {
        /* the image's own headers give its size (a fatbin's header, an ELF's
         * section table); PTX is read up to its NUL */
        const uint8_t *d = data;
        if (rd32(d) == FATBIN_MAGIC)
            size = dc_img_extent(data, 16);
        else if (!memcmp(d, "\177ELF", 4))
            size = dc_img_extent(data, MAX_IMAGE);
        else
            size = strnlen((const char *)data, MAX_IMAGE);
    }
    if (size > MAX_IMAGE)
        size = MAX_IMAGE;
    parse_any(img, data, size, 0);
    return img;
}

const struct dc_img_kernel *dc_img_find(const struct dc_img *img, const char *name)
{
    if (!img || !name)
        return NULL;
    for (unsigned i = 0; i < img->n; i++)
        if (!strcmp(img->k[i].name, name))
            return &img->k[i];
    return NULL;
}

unsigned dc_img_count(const struct dc_img *img) { return img ? img->n : 0; }

int dc_img_set_source(struct dc_img *img, const char *name, const uint8_t *kinds, unsigned n)
{
    struct dc_img_kernel *k = NULL;
    for (unsigned i = 0; img && name && i < img->n && !k; i++)
        if (!strcmp(img->k[i].name, name))
            k = &img->k[i];
    if (!k || k->nparams != n || !kinds)
        return 0;
    for (unsigned i = 0; i < n; i++)
        k->params[i].src = kinds[i];
    return 1;
}

const struct dc_img_kernel *dc_img_at(const struct dc_img *img, unsigned i)
{
    return img && i < img->n ? &img->k[i] : NULL;
}

void dc_img_free(struct dc_img *img)
{
    if (!img)
        return;
    for (unsigned i = 0; i < img->n; i++) {
        free(img->k[i].name);
        free(img->k[i].params);
    }
    free(img->k);
    free(img);
}
