/* evidence: a kernel's layout and word classes from the evidence gathered
 * for it (see kernels.h for the rules).  Runs once per kernel. */
#include "core/kernel/kernels.h"
#include "core/kernel/hostdwarf.h"
#include "core/kernel/cubin.h"
#include "core/kernel/mangle.h"
#include "core/kernel/origin.h"
#include "core/kernel/source.h"

#include <stdlib.h>
#include <string.h>

/* The driver allows 32764 bytes of parameters. */
#define MAX_PARAM_BYTES 32768u

const char *dc_evidence_name(int ev)
{
    static const char *const names[DC_EV_COUNT] = {
        [DC_EV_NONE] = "none",           [DC_EV_SIGNATURE] = "signature", [DC_EV_NUMBA] = "numba",
        [DC_EV_PTX] = "ptx",             [DC_EV_CUBIN] = "cubin",         [DC_EV_DEBUG_INFO] = "debug_info",
        [DC_EV_DWARF] = "dwarf",         [DC_EV_SOURCE] = "source",       [DC_EV_LAUNCH_SHAPE] = "launch_shape",
    };
    return ev >= 0 && ev < DC_EV_COUNT && names[ev] ? names[ev] : "none";
}

/* The signature's parameters (malloc'd in *out), their count, or -1. */
static int signature(const char *name, struct dc_sig_param **out)
{
    *out = NULL;
    if (!name)
        return -1;
    int cap = 64;
    for (int round = 0; round < 2; round++) {
        struct dc_sig_param *sp = malloc((size_t)cap * sizeof *sp);
        if (!sp)
            return -1;
        int n = dc_sig_params(name, sp, cap);
        if (n < 0 || n <= cap) {
            if (n < 0)
                free(sp);
            else
                *out = sp;
            return n;
        }
        free(sp);
        if (n > (int)MAX_PARAM_BYTES)
            return -1;
        cap = n;
    }
    return -1;
}

int dc_kernel_needs_image(const char *name, int ndriver)
{
    if (ndriver <= 0 || !name)
        return 1;
    struct dc_sig_param *sp;
    int n = signature(name, &sp);
    int need = n != ndriver;
    for (int i = 0; !need && i < n; i++)
        need = sp[i].kind == DC_SIG_UNKNOWN && !sp[i].numba;
    free(sp);
    return need;
}

/* A layout from the signature alone: every parameter a pointer or a builtin
 * scalar of known size, each at the next multiple of its size (natural
 * alignment).  0 parameters is a layout too.  -1 when it cannot be made. */
static int signature_layout(const struct dc_sig_param *sp, int n, struct dc_param *out)
{
    uint32_t off = 0;
    for (int i = 0; i < n; i++) {
        uint32_t size = sp[i].kind == DC_SIG_POINTER ? 8 : sp[i].kind == DC_SIG_SCALAR ? sp[i].size : 0;
        if (!size || (size & (size - 1)) || sp[i].numba)
            return -1;
        off = (off + size - 1) & ~(size - 1);
        if (out) {
            out[i].offset = off;
            out[i].size = size;
        }
        off += size;
        if (off > MAX_PARAM_BYTES)
            return -1;
    }
    return n;
}

static void set_layout(struct dc_kernel *k, struct dc_param *p, unsigned n, int from)
{
    k->params = p;
    k->nparams = n;
    k->layout_known = 1;
    k->layout_from = (uint8_t)from;
}

/* The layout: the driver's, or confirmed otherwise (see kernels.h). */
static void decide_layout(struct dc_kernel *k, const struct dc_evidence_in *in, const struct dc_sig_param *sp,
                          int nsig)
{
    const struct dc_img_kernel *img = in->img;
    int img_n = img && img->layout ? (int)img->nparams : -1;
    int sig_n = nsig >= 0 ? signature_layout(sp, nsig, NULL) : -1;
    int from = DC_LAYOUT_NONE, n = -1;
    const char *why = in->driver_why ? in->driver_why : "the driver gave no parameter layout";
    if (in->ndriver > 0) {
        from = DC_LAYOUT_DRIVER;
        n = in->ndriver;
    } else if (in->ndriver == 0) {
        /* CUDA_ERROR_INVALID_VALUE at index 0: a kernel without parameters,
         * or a handle the query does not know (a CUkernel passed as a
         * CUfunction) */
        if (in->driver_zero_confirmed || img_n == 0 || nsig == 0) {
            from = DC_LAYOUT_DRIVER;
            n = 0;
        } else if (img_n > 0) {
            from = DC_LAYOUT_IMAGE;
            n = img_n;
        } else if (sig_n > 0) {
            from = DC_LAYOUT_SIGNATURE;
            n = sig_n;
        } else {
            why = "the driver reported no parameters, and neither the other query, the kernel's image nor its "
                  "name confirms it";
        }
    } else if (img_n >= 0) {
        from = DC_LAYOUT_IMAGE;
        n = img_n;
    } else if (sig_n >= 0) {
        from = DC_LAYOUT_SIGNATURE;
        n = sig_n;
    }
    if (from == DC_LAYOUT_NONE) {
        k->unchecked = why;
        return;
    }
    struct dc_param *p = n ? calloc((size_t)n, sizeof *p) : NULL;
    if (n && !p) {
        k->unchecked = "devcheck ran out of memory";
        return;
    }
    for (int i = 0; i < n; i++) {
        if (from == DC_LAYOUT_DRIVER) {
            p[i].offset = in->driver[i].offset;
            p[i].size = in->driver[i].size;
        } else if (from == DC_LAYOUT_IMAGE) {
            p[i].offset = img->params[i].offset;
            p[i].size = img->params[i].size;
        }
    }
    if (from == DC_LAYOUT_SIGNATURE)
        (void)signature_layout(sp, n, p);
    set_layout(k, p, (unsigned)n, from);
}

static void set_class(struct dc_param *p, int cls, int ev)
{
    p->cls = (uint8_t)cls;
    p->ev = (uint8_t)ev;
}

/* What the image says of parameter i, when the signature did not say. */
static void from_image(struct dc_param *p, const struct dc_img_kernel *img, unsigned i, int *aggregate)
{
    const struct dc_img_param *q = &img->params[i];
    /* a producer that marks its pointers (.ptr, Triton) leaves the others unmarked */
    int marks = 0;
    for (unsigned j = 0; j < img->nparams; j++)
        marks |= img->params[j].ptr == DC_IMG_PTR_DECL || img->params[j].ptr == DC_IMG_PTR_KPARAM;
    /* a pointer by any evidence first: an integer the PTX uses as an address
     * (a uint64_t cast to a pointer in the kernel) is one, whatever its
     * declared type; then what the types say is not a pointer */
    if (q->dw == DC_DW_POINTER && p->size == 8)
        set_class(p, DC_PC_POINTER, DC_EV_DWARF);
    else if (q->src == DC_SRC_POINTER && p->size == 8)
        set_class(p, DC_PC_POINTER, DC_EV_SOURCE);
    else if ((q->ptr == DC_IMG_PTR_DECL || q->ptr == DC_IMG_PTR_USE) && p->size == 8)
        set_class(p, DC_PC_POINTER, DC_EV_PTX);
    else if (q->ptr == DC_IMG_PTR_KPARAM && p->size == 8)
        set_class(p, DC_PC_POINTER, DC_EV_CUBIN);
    else if (q->dw == DC_DW_SCALAR)
        set_class(p, DC_PC_NONPTR, DC_EV_DWARF);
    else if (q->dw == DC_DW_AGGREGATE)
        *aggregate = 1;
    else if (q->src == DC_SRC_SCALAR)
        set_class(p, DC_PC_NONPTR, DC_EV_SOURCE);
    else if (q->ptr == DC_IMG_PTR_OTHER_SPACE || q->kind == DC_IMG_FLOAT)
        set_class(p, DC_PC_NONPTR, DC_EV_PTX);
    else if (q->kind == DC_IMG_SCALAR && (p->size < 8 || marks))
        set_class(p, DC_PC_NONPTR, DC_EV_PTX);
    else if (q->kind == DC_IMG_AGGREGATE)
        *aggregate = 1;
}

/* The words of an aggregate parameter from its debug information. */
static int words_from(struct dc_kernel *k, unsigned i, const uint8_t *classes, uint8_t **store, size_t *used,
                      size_t cap)
{
    struct dc_param *p = &k->params[i];
    size_t nw = p->size / 8;
    if (p->offset % 8 || !nw || *used + nw > cap)
        return 0;
    uint8_t *w = *store + *used;
    memcpy(w, classes, nw);
    *used += nw;
    p->words = w;
    set_class(p, DC_PC_WORDS, DC_EV_DEBUG_INFO);
    return 1;
}

/* The launch's shape, the weakest evidence (report/FORMAT.md, "Kernels
 * without types"): what nothing typed, in a kernel whose image the program
 * made or loaded itself, is a pointer parameter when it is exactly 8 bytes
 * at an 8-byte offset and nothing called it an aggregate -- a word inside a
 * struct passed by value is never one (its size is not 8), and a closed
 * library's or a framework's kernel never takes this evidence.  The check
 * judges such a word weak (core/verdict/check.c). */
static void launch_shape(struct dc_kernel *k, const struct dc_evidence_in *in, const uint8_t *aggregate)
{
    if ((in->origin != DC_ORIGIN_PROGRAM && in->origin != DC_ORIGIN_JIT) || (k->nparams && !aggregate))
        return;
    for (unsigned i = 0; i < k->nparams; i++) {
        struct dc_param *p = &k->params[i];
        if (p->cls == DC_PC_UNKNOWN && p->size == 8 && p->offset % 8 == 0 && !(aggregate && aggregate[i]))
            set_class(p, DC_PC_POINTER, DC_EV_LAUNCH_SHAPE);
    }
}

void dc_kernel_decide(struct dc_kernel *k, const struct dc_evidence_in *in)
{
    k->layout_known = 0;
    k->nparams = 0;
    k->params = NULL;
    k->layout_from = DC_LAYOUT_NONE;
    k->unchecked = NULL;
    k->checked_words = k->unknown_words = 0;
    k->word_store = NULL;

    struct dc_sig_param *sp = NULL;
    int nsig = signature(in->name, &sp);
    decide_layout(k, in, sp, nsig);
    if (!k->layout_known) {
        free(sp);
        return;
    }
    unsigned n = k->nparams;
    int sig_ok = nsig >= 0 && (unsigned)nsig == n;
    const struct dc_img_kernel *img = in->img;
    int img_ok = img && img->layout && img->nparams == n;
    for (unsigned i = 0; img_ok && i < n; i++)
        img_ok = img->params[i].size == k->params[i].size;

    /* the store for the words of aggregates: one byte per word of every
     * parameter at most */
    size_t cap = 0, used = 0;
    for (unsigned i = 0; i < n; i++)
        cap += k->params[i].size / 8;
    uint8_t *store = cap ? calloc(cap, 1) : NULL;

    int need_dwarf = 0;
    uint8_t *aggregate = n ? calloc(n, 1) : NULL;
    for (unsigned i = 0; i < n; i++) {
        struct dc_param *p = &k->params[i];
        set_class(p, DC_PC_UNKNOWN, DC_EV_NONE);
        int agg = 0;
        if (sig_ok) {
            const struct dc_sig_param *s = &sp[i];
            switch (s->kind) {
            case DC_SIG_POINTER:
                if (p->size == 8)
                    set_class(p, DC_PC_POINTER, s->numba ? DC_EV_NUMBA : DC_EV_SIGNATURE);
                break;
            case DC_SIG_SCALAR:
            case DC_SIG_SCALAR_ARRAY:
                set_class(p, DC_PC_NONPTR, s->numba ? DC_EV_NUMBA : DC_EV_SIGNATURE);
                break;
            case DC_SIG_PTR_ARRAY:
                if ((uint64_t)s->n * 8 == p->size && p->offset % 8 == 0 && store && used + s->n <= cap) {
                    memset(store + used, DC_WORD_FIELD, s->n);
                    p->words = store + used;
                    used += s->n;
                    set_class(p, DC_PC_WORDS, DC_EV_SIGNATURE);
                }
                break;
            case DC_SIG_AGGREGATE:
                agg = 1;
                break;
            default:
                break;
            }
        }
        if (p->cls == DC_PC_UNKNOWN && !agg && img_ok)
            from_image(p, img, i, &agg);
        if (p->cls == DC_PC_UNKNOWN && p->size < 8)
            set_class(p, DC_PC_NONPTR, p->ev);      /* holds no whole word */
        if (p->cls == DC_PC_UNKNOWN) {
            if (aggregate)
                aggregate[i] = (uint8_t)agg;
            need_dwarf = 1;                         /* an aggregate, or nothing said */
        }
    }

    /* the host function's debug information: struct layouts, and what a
     * plain (extern "C") name cannot say */
    if (need_dwarf && in->use_dwarf && in->name) {
        struct dc_dw_param *dw = calloc(n, sizeof *dw);
        int ndw = !dw ? -1 : in->host_params ? in->host_params(in->key, dw, (int)n) : dc_dwarf_params(in->name, dw, (int)n);
        if (ndw >= 0 && (unsigned)ndw == n) {
            for (unsigned i = 0; i < n; i++) {
                struct dc_param *p = &k->params[i];
                if (p->cls != DC_PC_UNKNOWN || dw[i].size != p->size)
                    continue;
                if (dw[i].kind == DC_DW_POINTER && p->size == 8)
                    set_class(p, DC_PC_POINTER, DC_EV_DEBUG_INFO);
                else if (dw[i].kind == DC_DW_SCALAR)
                    set_class(p, DC_PC_NONPTR, DC_EV_DEBUG_INFO);
                else if (dw[i].kind == DC_DW_AGGREGATE && dw[i].words && store)
                    (void)words_from(k, i, dw[i].words, &store, &used, cap);
                if (dw[i].kind == DC_DW_AGGREGATE && aggregate)
                    aggregate[i] = 1;
            }
        }
        if (dw)
            dc_dwarf_params_free(dw, ndw > (int)n ? (int)n : ndw);
        free(dw);
    }
    launch_shape(k, in, aggregate);
    free(aggregate);

    /* what the launches can prove */
    for (unsigned i = 0; i < n; i++) {
        const struct dc_param *p = &k->params[i];
        unsigned nw = p->size / 8;
        switch (p->cls) {
        case DC_PC_POINTER:
            k->checked_words++;
            break;
        case DC_PC_WORDS:
            for (unsigned w = 0; w < p->size / 8; w++) {
                k->checked_words += p->words[w] == DC_WORD_FIELD || p->words[w] == DC_WORD_PTR;
                k->unknown_words += p->words[w] == DC_WORD_UNKNOWN;
            }
            break;
        case DC_PC_UNKNOWN:
            k->unknown_words += nw;
            break;
        default:
            break;
        }
    }
    if (used)
        k->word_store = store;
    else
        free(store);
    free(sp);
}
