/* replay: recorded launches judged by devcheck's own check (see replay.h).
 *
 * One trace file is one process.  For every launch record the replay makes
 * that launch the one its answers come from (`cur`), empties the registry
 * (an answer belongs to the launch it was recorded at: memory may have been
 * freed and reused between two launches), enters the allocations a devcheck
 * recording says devcheck knew (its registry's view: kind, owner, range, and
 * whether the launch device may access it), and hands the launch to
 * dc_launch_check with the record's parameter bytes.  The core asks its
 * questions as in a live run; the answers below come from the record:
 *   the driver's entry points  each word's `r`, `mt`, `dev`, `base`, `size`,
 *                              `managed`, `mapped` (cuPointerGetAttributes);
 *                              the kernel's `name` and `params` (cuFuncGetName,
 *                              cuFuncGetParamInfo); the launch device (`dev`,
 *                              else `ctxdev`) as the current context's device;
 *                              `pageable` (cuDeviceGetAttribute)
 *   the process                each word's `map` (a /proc/self/maps line);
 *                              the kernel's origin (its `origin`, else the
 *                              --origins TSV).
 * A kernel is one handle per trace, name and layout; its description is
 * devcheck's own (core/kernel/kernels.c: the mangled name's evidence). */
#include "replay/replay.h"
#include "replay/origins.h"
#include "core/core.h"
#include "common/json.h"
#include "report/report.h"
#include "report/stack.h"

#include <cuda.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* ---- the record --------------------------------------------------------------------------- */

struct rparam {
    uint32_t off, size;
    char dwarf[8];              /* "", "pointer", "scalar", "words" (a devcheck recording's) */
    char image[8];              /* "", "pointer", "kparam", "dwarf", "source", "nonptr" (a devcheck recording's) */
    char *words;                /* dwarf "words": one letter per word (the launch's: the record's text;
                                 * the kernel's: its own copy) */
};

struct rkernel {                /* its address is the kernel's handle */
    struct rkernel *next;
    unsigned trace;             /* the trace it belongs to */
    char *name;                 /* NULL: the record names none */
    int has_layout;             /* the record gave `params` */
    unsigned nparams;
    struct rparam *params;
    int origin;                 /* enum dc_origin, -1: not said */
    unsigned long judged;       /* launches judged */
};

struct rword {
    unsigned p;
    uint32_t o;
    uintptr_t v;
    int r, mt, dev, managed, mapped;
    uintptr_t base;
    size_t size;
    const char *map;            /* NULL: not recorded; "": no mapping holds it */
    int has_dc;                 /* a devcheck recording: what devcheck's registry knew */
    struct dc_alloc dc;
    int dc_may;                 /* the launch device may access it */
    int has_before;             /* ... and the allocation ending at v (an end iterator's) */
    struct dc_alloc before;
    int before_may;
};

/* The launch being judged: what every answer below comes from. */
static struct {
    const struct rkernel *k;
    int device;
    int pageable;
    struct rword *w;
    unsigned nw;
} cur = { .device = -1 };

static int driver_version;      /* the trace's `cuda_version`; 0: not recorded */

#define CTX_OF(dev) ((CUcontext)(uintptr_t)(0x1000 + 0x10 * (uintptr_t)(unsigned)(dev)))

/* The recorded word at v, else one whose allocation holds v (the driver
 * would say the same of the same allocation); NULL: the record says nothing. */
static const struct rword *word_at(uintptr_t v)
{
    for (unsigned i = 0; i < cur.nw; i++)
        if (cur.w[i].v == v)
            return &cur.w[i];
    for (unsigned i = 0; i < cur.nw; i++) {
        const struct rword *w = &cur.w[i];
        if (!w->r && w->mt && w->size && w->base <= v && v - w->base < w->size)
            return w;
    }
    return NULL;
}

/* ---- the driver, answered from the record ------------------------------------------------- *
 * Each is defined against the toolkit header's declaration. */

static __typeof__(cuDriverGetVersion) r_cuDriverGetVersion;
static __typeof__(cuCtxGetCurrent) r_cuCtxGetCurrent;
static __typeof__(cuCtxGetDevice) r_cuCtxGetDevice;
static __typeof__(cuCtxPushCurrent_v2) r_cuCtxPushCurrent_v2;
static __typeof__(cuCtxPopCurrent_v2) r_cuCtxPopCurrent_v2;
static __typeof__(cuStreamGetCtx) r_cuStreamGetCtx;
static __typeof__(cuDeviceGetAttribute) r_cuDeviceGetAttribute;
static __typeof__(cuPointerGetAttribute) r_cuPointerGetAttribute;
static __typeof__(cuPointerGetAttributes) r_cuPointerGetAttributes;
static __typeof__(cuMemGetAddressRange_v2) r_cuMemGetAddressRange_v2;
static __typeof__(cuFuncGetParamInfo) r_cuFuncGetParamInfo;
static __typeof__(cuKernelGetParamInfo) r_cuKernelGetParamInfo;
static __typeof__(cuFuncGetName) r_cuFuncGetName;
static __typeof__(cuKernelGetName) r_cuKernelGetName;

CUresult r_cuDriverGetVersion(int *v)
{
    if (!driver_version)
        return CUDA_ERROR_NOT_FOUND;
    *v = driver_version;
    return CUDA_SUCCESS;
}

CUresult r_cuCtxGetCurrent(CUcontext *pctx)
{
    *pctx = cur.device >= 0 ? CTX_OF(cur.device) : NULL;
    return CUDA_SUCCESS;
}

CUresult r_cuCtxGetDevice(CUdevice *d)
{
    if (cur.device < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = cur.device;
    return CUDA_SUCCESS;
}

CUresult r_cuCtxPushCurrent_v2(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}

CUresult r_cuCtxPopCurrent_v2(CUcontext *c)
{
    if (c)
        *c = cur.device >= 0 ? CTX_OF(cur.device) : NULL;
    return CUDA_SUCCESS;
}

CUresult r_cuStreamGetCtx(CUstream s, CUcontext *pctx)
{
    (void)s;
    return r_cuCtxGetCurrent(pctx);
}

CUresult r_cuDeviceGetAttribute(int *pi, CUdevice_attribute attr, CUdevice dev)
{
    (void)dev;
    *pi = attr == CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS ? cur.pageable : 0;
    return CUDA_SUCCESS;
}

static void fill_attr(CUpointer_attribute a, void *data, const struct rword *w)
{
    switch (a) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = w ? (unsigned)w->mt : 0;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = w ? w->dev : -2;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = w ? (CUdeviceptr)w->base : 0;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = w ? w->size : 0;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(bool *)data = w && w->managed;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(bool *)data = w && w->mapped;
        break;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = w && w->mt && w->dev >= 0 ? CTX_OF(w->dev) : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = NULL;       /* not recorded */
        break;
    default:
        break;
    }
}

CUresult r_cuPointerGetAttributes(unsigned n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
    const struct rword *w = word_at((uintptr_t)ptr);
    if (w && w->r)
        return (CUresult)w->r;
    for (unsigned i = 0; i < n; i++)
        if (data[i])
            fill_attr(attrs[i], data[i], w);
    return CUDA_SUCCESS;
}

CUresult r_cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
    const struct rword *w = word_at((uintptr_t)ptr);
    if (!w || !w->mt)
        return CUDA_ERROR_INVALID_VALUE;    /* what the driver says of memory it does not know */
    if (w->r)
        return (CUresult)w->r;
    fill_attr(attr, data, w);
    return CUDA_SUCCESS;
}

CUresult r_cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr ptr)
{
    const struct rword *w = word_at((uintptr_t)ptr);
    if (!w || w->r || !w->mt || !w->size)
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = (CUdeviceptr)w->base;
    if (psize)
        *psize = w->size;
    return CUDA_SUCCESS;
}

/* A kernel handle is a struct rkernel of the replay's (the only handles it
 * passes to the core). */
static CUresult param_info(const void *key, size_t i, size_t *off, size_t *size)
{
    const struct rkernel *k = key;
    if (!k || !k->has_layout)
        return CUDA_ERROR_NOT_SUPPORTED;    /* the record gave no layout */
    if (i >= k->nparams)
        return CUDA_ERROR_INVALID_VALUE;    /* past the last parameter */
    *off = k->params[i].off;
    *size = k->params[i].size;
    return CUDA_SUCCESS;
}

CUresult r_cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
    return param_info(f, i, off, size);
}

CUresult r_cuKernelGetParamInfo(CUkernel k, size_t i, size_t *off, size_t *size)
{
    return param_info(k, i, off, size);
}

CUresult r_cuFuncGetName(const char **name, CUfunction f)
{
    const struct rkernel *k = (const void *)f;
    if (!k || !k->name)
        return CUDA_ERROR_NOT_FOUND;
    *name = k->name;
    return CUDA_SUCCESS;
}

CUresult r_cuKernelGetName(const char **name, CUkernel kern)
{
    return r_cuFuncGetName(name, (CUfunction)(void *)kern);
}

static const struct {
    const char *name;
    void *fn;
} answers[] = {
#define A(n) { #n, (void *)r_##n }
    A(cuDriverGetVersion),   A(cuCtxGetCurrent),         A(cuCtxGetDevice),       A(cuCtxPushCurrent_v2),
    A(cuCtxPopCurrent_v2),   A(cuStreamGetCtx),          A(cuDeviceGetAttribute), A(cuPointerGetAttribute),
    A(cuPointerGetAttributes), A(cuMemGetAddressRange_v2), A(cuFuncGetParamInfo), A(cuKernelGetParamInfo),
    A(cuFuncGetName),        A(cuKernelGetName),
#undef A
};

/* dc_driver_bind's dlsym: the replay's answer to entry point `name`, NULL
 * for those a record cannot answer (copies, synchronisations: absent). */
static void *answer_sym(void *handle, const char *name)
{
    (void)handle;
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++)
        if (!strcmp(answers[i].name, name))
            return answers[i].fn;
    return NULL;
}

/* ---- the process, answered from the record ------------------------------------------------ */

/* The recorded mapping of v as a /proc/self/maps line (one page around v:
 * the record names the mapping, not its range). */
static int maps_line(uintptr_t v, char *line, size_t len)
{
    const struct rword *w = NULL;
    for (unsigned i = 0; i < cur.nw && !w; i++)
        if (cur.w[i].v == v && cur.w[i].map)
            w = &cur.w[i];
    if (!w || !w->map[0])
        return 0;
    size_t pl = strcspn(w->map, " ");
    const char *name = w->map + pl;
    while (*name == ' ')
        name++;
    uintptr_t lo = v & ~(uintptr_t)0xfff;
    int n = snprintf(line, len, "%lx-%lx %.*s 00000000 00:00 0 %s", (unsigned long)lo, (unsigned long)(lo + 0x1000),
                     (int)(pl > 7 ? 7 : pl), w->map, name);
    return n > 0 && (size_t)n < len;
}

static int kernel_origin(const void *key)
{
    const struct rkernel *k = key;
    return k ? k->origin : -1;
}

/* The host function's debug information, as a devcheck recording wrote what
 * it said (a parameter's `dwarf`); -1 when the record says nothing. */
static int host_params(const void *key, struct dc_dw_param *out, int max)
{
    const struct rkernel *k = key;
    int any = 0;
    for (unsigned i = 0; k && i < k->nparams; i++)
        any |= k->params[i].dwarf[0] != 0;
    if (!any || (int)k->nparams > max)
        return -1;
    for (unsigned i = 0; i < k->nparams; i++) {
        const struct rparam *p = &k->params[i];
        memset(&out[i], 0, sizeof out[i]);
        out[i].size = p->size;
        if (!strcmp(p->dwarf, "pointer")) {
            out[i].kind = DC_DW_POINTER;
        } else if (!strcmp(p->dwarf, "scalar")) {
            out[i].kind = DC_DW_SCALAR;
        } else if (!strcmp(p->dwarf, "words") && p->words && strlen(p->words) == p->size / 8 &&
                   (out[i].words = malloc(p->size / 8 + 1)) != NULL) {
            out[i].kind = DC_DW_AGGREGATE;
            for (uint32_t w = 0; w < p->size / 8; w++) {
                const char *c = strchr("nupf", p->words[w]);
                out[i].words[w] = c && *c ? (uint8_t)(c - "nupf") : DC_WORD_UNKNOWN;
            }
        }
    }
    return (int)k->nparams;
}

/* The kernel's image, as a devcheck recording wrote what it said of each
 * parameter (`image`); 0 when the record says nothing. */
static int kernel_image(const void *key, struct dc_img_kernel *out)
{
    const struct rkernel *k = key;
    int any = 0;
    for (unsigned i = 0; k && i < k->nparams; i++)
        any |= k->params[i].image[0] != 0;
    if (!any)
        return 0;
    memset(out, 0, sizeof *out);
    out->params = calloc(k->nparams, sizeof *out->params);
    out->name = k->name ? strdup(k->name) : NULL;
    if (!out->params || (k->name && !out->name)) {
        free(out->params);
        free(out->name);
        return 0;
    }
    out->nparams = k->nparams;
    out->layout = out->from_ptx = 1;
    for (unsigned i = 0; i < k->nparams; i++) {
        const struct rparam *p = &k->params[i];
        struct dc_img_param *q = &out->params[i];
        q->offset = p->off;
        q->size = p->size;
        if (!strcmp(p->image, "pointer"))
            q->ptr = DC_IMG_PTR_DECL;
        else if (!strcmp(p->image, "kparam"))
            q->ptr = DC_IMG_PTR_KPARAM;
        else if (!strcmp(p->image, "dwarf"))
            q->dw = DC_DW_POINTER;
        else if (!strcmp(p->image, "source"))
            q->src = DC_SRC_POINTER;
        else if (!strcmp(p->image, "nonptr"))
            q->kind = DC_IMG_FLOAT;         /* what the image says is never a pointer */
    }
    return 1;
}

static const struct dc_process_queries process = { maps_line, kernel_origin, host_params, kernel_image };

/* ---- one trace ------------------------------------------------------------------------------- */

struct trace {
    const char *path;
    char name[256];             /* the file's name without directory and .jsonl[.gz] */
    unsigned id;
    long lineno;
    unsigned long judged, skipped, recorded_total, unknown_notes;
    int header_pageable;
};

static struct rkernel *kernels;     /* every trace's: handles stay unique for the whole run */

static void trace_name(struct trace *t)
{
    const char *b = strrchr(t->path, '/');
    b = b ? b + 1 : t->path;
    snprintf(t->name, sizeof t->name, "%s", b);
    static const char *const ext[] = { ".gz", ".jsonl", ".json" };
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t n = strlen(t->name), e = strlen(ext[i]);
        if (n > e && !strcmp(t->name + n - e, ext[i]))
            t->name[n - e] = 0;
    }
}

static void bad(struct trace *t, const char *why)
{
    if (++t->skipped <= REPLAY_BAD_SHOWN)
        fprintf(stderr, "devcheck: %s:%ld: %s; skipped\n", t->path, t->lineno, why);
}

/* "0x1f" or a JSON integer; 0 when neither. */
static int json_addr(const struct dc_json *v, uintptr_t *out)
{
    const char *s = dc_json_str(v);
    if (s) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 0);
        if (end == s || *end || errno)
            return 0;
        *out = (uintptr_t)x;
        return 1;
    }
    if (v && v->type == DC_J_NUM && v->is_int && v->i >= 0) {
        *out = (uintptr_t)v->i;
        return 1;
    }
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int same_layout(const struct rparam *a, const struct rparam *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (a[i].off != b[i].off || a[i].size != b[i].size)
            return 0;
    return 1;
}

static void free_params(struct rparam *p, unsigned n)
{
    for (unsigned i = 0; p && i < n; i++)
        free(p[i].words);
    free(p);
}

/* The kernel of this record: one per trace, name and layout. */
static struct rkernel *kernel_for(struct trace *t, const char *name, int has_layout, const struct rparam *p,
                                  unsigned np, const char *origin_field)
{
    for (struct rkernel *k = kernels; k; k = k->next)
        if (k->trace == t->id && k->has_layout == has_layout && k->nparams == np &&
            ((!k->name && !name) || (k->name && name && !strcmp(k->name, name))) &&
            same_layout(k->params, p, np))
            return k;
    struct rkernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->trace = t->id;
    k->has_layout = has_layout;
    k->nparams = np;
    k->name = name ? strdup(name) : NULL;
    k->params = np ? malloc(np * sizeof *p) : NULL;
    if ((name && !k->name) || (np && !k->params)) {
        free(k->name);
        free(k->params);
        free(k);
        return NULL;
    }
    for (unsigned i = 0; i < np; i++) {
        k->params[i] = p[i];
        k->params[i].words = p[i].words ? strdup(p[i].words) : NULL;
    }
    /* the record's own word (devcheck's name, or a label), else the TSV's */
    k->origin = -1;
    if (origin_field)
        k->origin = dc_origin_parse(origin_field) >= 0 ? dc_origin_parse(origin_field)
                                                       : dc_origin_of_object(origin_field);
    if (k->origin < 0)
        k->origin = dc_replay_origin_from_tsv(t->name, name);
    k->next = kernels;
    kernels = k;
    return k;
}

/* What devcheck's description says word (p, o) of k is (enum dc_word). */
static int word_class(const struct dc_kernel *d, unsigned p, uint32_t o)
{
    if (!d || !d->layout_known || p >= d->nparams || !d->params)
        return DC_WORD_UNKNOWN;
    const struct dc_param *q = &d->params[p];
    switch (q->cls) {
    case DC_PC_POINTER:
        return o == 0 ? DC_WORD_PTR : DC_WORD_NONPTR;
    case DC_PC_NONPTR:
        return DC_WORD_NONPTR;
    case DC_PC_WORDS:
        return q->words && o % 8 == 0 && (uint64_t)o + 8 <= q->size ? q->words[o / 8] : DC_WORD_UNKNOWN;
    default:
        return DC_WORD_UNKNOWN;
    }
}

/* Words of unknown meaning that hold what a pointer there would be judged
 * for (pageable host memory, another device's memory): the record cannot
 * prove the kernel reads them, so the check said nothing; the replay says
 * what it saw and why it could not judge, once per kernel, parameter and
 * offset (named at verbosity 0 only where a pointer parameter of a user's
 * kernel without types would be; counted per trace always). */
struct seen_note {
    UT_hash_handle hh;
    struct {
        const void *k;
        unsigned p;
        uint32_t o;
    } key;
};
static struct seen_note *seen_notes;

static void unknown_words(struct trace *t, const struct rkernel *rk, const struct dc_kernel *d)
{
    int typed = rk->name && !strncmp(rk->name, "_Z", 2);
    /* said by default: a whole 8-byte parameter (where a pointer parameter
     * would be) of a user's kernel whose name carries no types (cupy_bug's
     * RawKernel); the rest (struct fields, NVIDIA's libraries' by-value
     * parameter blocks) is counted per trace */
    int users = rk->origin != DC_ORIGIN_LIBRARY && rk->origin != DC_ORIGIN_FRAMEWORK;
    for (unsigned i = 0; i < cur.nw; i++) {
        const struct rword *w = &cur.w[i];
        if (word_class(d, w->p, w->o) != DC_WORD_UNKNOWN)
            continue;
        const char *what = NULL;
        char map[96] = "";
        uintptr_t end;
        int writable;
        if (w->has_dc) {
            if (!w->dc_may)
                what = "memory the launch device may not access";
        } else if (!w->r && w->mt == CU_MEMORYTYPE_DEVICE && w->dev >= 0 && w->dev != cur.device) {
            what = "another device's memory";
        } else if (!w->r && !w->mt && dc_maps_lookup(w->v, &end, &writable, NULL, 0) == DC_MAP_HOST) {
            what = "pageable host memory";
            snprintf(map, sizeof map, " (%s)", w->map ? w->map : "");
        }
        if (!what)
            continue;
        struct seen_note probe, *s;
        memset(&probe, 0, sizeof probe);
        probe.key.k = rk;
        probe.key.p = w->p;
        probe.key.o = w->o;
        HASH_FIND(hh, seen_notes, &probe.key, sizeof probe.key, s);
        if (s)
            continue;
        if ((s = calloc(1, sizeof *s)) != NULL) {
            s->key = probe.key;
            HASH_ADD(hh, seen_notes, key, sizeof s->key, s);
        }
        t->unknown_notes++;
        int whole = w->o == 0 && w->p < rk->nparams && rk->params[w->p].size == 8;
        if ((!typed && users && whole) || dc_opt.verbosity >= 1)
            dc_log("replay: %s:%ld: %s param %u (+%u) holds 0x%lx, %s%s, in a word of unknown meaning: not "
                   "judged (%s)",
                   t->path, t->lineno, rk->name ? rk->name : "(unnamed kernel)", w->p, w->o, (unsigned long)w->v,
                   what, map,
                   !typed ? "its name is not mangled (extern \"C\"), so it carries no parameter types, and a "
                            "record holds no image of the kernel"
                          : "neither its mangled name nor a record's layout says the word is a pointer");
    }
}

/* A devcheck recording's view of an allocation (a word's `dc`, `dc_before`):
 * 1 with *a and *may, 0 when absent, -1 when malformed. */
static int registry_view(const struct dc_json *dc, struct dc_alloc *a, int *may)
{
    if (!dc)
        return 0;
    const char *kind = dc_json_str(dc_json_get(dc, "kind"));
    int kn = -1;
    for (int k = 0; kind && k < DC_MEM_KIND_COUNT; k++)
        if (!strcmp(kind, dc_mem_kind_name((enum dc_mem_kind)k)))
            kn = k;
    uintptr_t base = 0, size = 0;
    long long owner = dc_json_int(dc_json_get(dc, "owner"), -2);
    if (dc->type != DC_J_OBJ || kn < 0 || kn == DC_MEM_HOST_PAGEABLE || owner < -1 || owner >= DC_MAX_DEVICES ||
        !json_addr(dc_json_get(dc, "base"), &base) || !json_addr(dc_json_get(dc, "size"), &size) || !size)
        return -1;
    memset(a, 0, sizeof *a);
    a->base = base;
    a->size = size;
    a->kind = (enum dc_mem_kind)kn;
    a->owner = (int)owner;
    a->from_driver = (int)dc_json_int(dc_json_get(dc, "from_driver"), 0);
    *may = (int)dc_json_int(dc_json_get(dc, "may"), 0);
    return 1;
}

/* One launch record. */
static void judge_launch(struct trace *t, const struct dc_json *rec)
{
    const char *name = dc_json_str(dc_json_get(rec, "name"));
    const struct dc_json *params = dc_json_get(rec, "params");
    const struct dc_json *words = dc_json_get(rec, "words");
    long long dev = dc_json_int(dc_json_get(rec, "dev"), dc_json_int(dc_json_get(rec, "ctxdev"), -1));
    long long curdev = dc_json_int(dc_json_get(rec, "curdev"), -1);
    const char *api = dc_json_str(dc_json_get(rec, "api"));
    const char *path = dc_json_str(dc_json_get(rec, "path"));
    if (params && params->type != DC_J_ARR && params->type != DC_J_NULL)
        return bad(t, "malformed launch record (`params` is not an array)");
    if (words && words->type != DC_J_ARR)
        return bad(t, "malformed launch record (`words` is not an array)");
    if (dev < -1 || dev >= DC_MAX_DEVICES || curdev < -1 || curdev >= DC_MAX_DEVICES)
        return bad(t, "malformed launch record (a device outside 0..63)");

    unsigned np = params && params->type == DC_J_ARR ? (unsigned)dc_json_len(params) : 0;
    struct rparam *rp = np ? calloc(np, sizeof *rp) : NULL;
    unsigned char **bytes = np ? calloc(np, sizeof *bytes) : NULL;
    void **args = np ? calloc(np, sizeof *args) : NULL;
    unsigned nw = (unsigned)dc_json_len(words);
    struct rword *rw = nw ? calloc(nw, sizeof *rw) : NULL;
    const char *why = NULL;
    if ((np && (!rp || !bytes || !args)) || (nw && !rw))
        why = "out of memory";
    for (unsigned i = 0; i < np && !why; i++) {
        const struct dc_json *p = dc_json_at(params, i);
        long long off = dc_json_int(dc_json_get(p, "off"), -1), size = dc_json_int(dc_json_get(p, "size"), -1);
        const char *hex = dc_json_str(dc_json_get(p, "hex"));
        if (off < 0 || size < 0 || off > 0x10000 || size > 0x10000 || !hex || strlen(hex) != 2 * (size_t)size) {
            why = "malformed launch record (a parameter without `off`, `size` and `size` bytes of `hex`)";
            break;
        }
        rp[i].off = (uint32_t)off;
        rp[i].size = (uint32_t)size;
        const char *im = dc_json_str(dc_json_get(p, "image"));
        if (im && (!strcmp(im, "pointer") || !strcmp(im, "kparam") || !strcmp(im, "nonptr") || !strcmp(im, "dwarf") ||
                   !strcmp(im, "source")))
            snprintf(rp[i].image, sizeof rp[i].image, "%s", im);
        const char *dw = dc_json_str(dc_json_get(p, "dwarf"));
        if (dw && (!strcmp(dw, "pointer") || !strcmp(dw, "scalar")))
            snprintf(rp[i].dwarf, sizeof rp[i].dwarf, "%s", dw);
        else if (dw && !strncmp(dw, "words:", 6)) {
            snprintf(rp[i].dwarf, sizeof rp[i].dwarf, "words");
            rp[i].words = (char *)(uintptr_t)(dw + 6);     /* the record's, while it is judged */
        }
        /* room for whole words: the check reads 8 bytes at a time */
        if (!(bytes[i] = calloc(1, ((size_t)size + 7) / 8 * 8 + 8))) {
            why = "out of memory";
            break;
        }
        for (long long b = 0; b < size; b++) {
            int hi = hexval(hex[2 * b]), lo = hexval(hex[2 * b + 1]);
            if (hi < 0 || lo < 0) {
                why = "malformed launch record (`hex` holds a non-hex digit)";
                break;
            }
            bytes[i][b] = (unsigned char)(hi << 4 | lo);
        }
        args[i] = bytes[i];
    }
    for (unsigned i = 0; i < nw && !why; i++) {
        const struct dc_json *w = dc_json_at(words, i);
        struct rword *x = &rw[i];
        long long p = dc_json_int(dc_json_get(w, "p"), -1), o = dc_json_int(dc_json_get(w, "o"), -1);
        if (p < 0 || o < 0 || o > 0x10000 || !json_addr(dc_json_get(w, "v"), &x->v)) {
            why = "malformed launch record (a word without `p`, `o` and `v`)";
            break;
        }
        x->p = (unsigned)p;
        x->o = (uint32_t)o;
        x->r = (int)dc_json_int(dc_json_get(w, "r"), 0);
        x->mt = (int)dc_json_int(dc_json_get(w, "mt"), 0);
        x->dev = (int)dc_json_int(dc_json_get(w, "dev"), -2);
        x->managed = (int)dc_json_int(dc_json_get(w, "managed"), 0);
        x->mapped = (int)dc_json_int(dc_json_get(w, "mapped"), 0);
        if (!json_addr(dc_json_get(w, "base"), &x->base))
            x->base = 0;
        uintptr_t sz = 0;
        x->size = json_addr(dc_json_get(w, "size"), &sz) ? sz : 0;
        x->map = dc_json_str(dc_json_get(w, "map"));
        /* a devcheck recording: its registry's view */
        int got = registry_view(dc_json_get(w, "dc"), &x->dc, &x->dc_may);
        int got2 = registry_view(dc_json_get(w, "dc_before"), &x->before, &x->before_may);
        if (got < 0 || got2 < 0) {
            why = "malformed launch record (a word's `dc` without `kind`, `owner`, `base` and `size`)";
            break;
        }
        x->has_dc = got;
        x->has_before = got2;
    }
    struct rkernel *k = why ? NULL
                            : kernel_for(t, name, params && params->type == DC_J_ARR, rp, np,
                                         dc_json_str(dc_json_get(rec, "origin")));
    if (!why && !k)
        why = "out of memory";
    if (why) {
        bad(t, why);
    } else {
        /* the launch every answer comes from; the registry holds only what
         * this launch's record says devcheck knew */
        cur.k = k;
        cur.device = (int)dev;
        cur.pageable = (int)dc_json_int(dc_json_get(rec, "pageable"), t->header_pageable);
        cur.w = rw;
        cur.nw = nw;
        dc_reg_reset();
        dc_addr_forget();
        for (unsigned i = 0; i < nw; i++) {
            /* who may access it: the launch device, as the record says */
            if (rw[i].has_dc) {
                rw[i].dc.access = rw[i].dc_may && dev >= 0 ? DC_DEV_BIT(dev) : 0;
                (void)dc_reg_add(&rw[i].dc);
            }
            if (rw[i].has_before) {
                rw[i].before.access = rw[i].before_may && dev >= 0 ? DC_DEV_BIT(dev) : 0;
                (void)dc_reg_add(&rw[i].before);
            }
        }
        int p = path && !strcmp(path, "interpose") ? DC_PATH_INTERPOSE : DC_PATH_CUPTI;
        uintptr_t stream = 0;
        if (!json_addr(dc_json_get(rec, "stream"), &stream))
            stream = 0;
        dc_launch_check(p, api ? api : "cuLaunchKernel", k, DC_KEY_FUNCTION, (int)dev, (int)curdev,
                        (CUstream)stream, np ? args : NULL, NULL);
        struct dc_kernel tmp;
        const struct dc_kernel *d = dc_kernel_lookup(k, 0, &tmp);
        unknown_words(t, k, d ? d : &tmp);
        if (!d)
            dc_kernel_release_tmp(&tmp);
        k->judged++;
        t->judged++;
        cur.k = NULL;
        cur.w = NULL;
        cur.nw = 0;
        cur.device = -1;
    }
    for (unsigned i = 0; i < np && bytes; i++)
        free(bytes[i]);
    free(bytes);
    free(args);
    free(rp);
    free(rw);
}

/* One line of a trace. */
static void judge_line(struct trace *t, const char *line, size_t len)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (!len)
        return;
    size_t at = 0;
    struct dc_json *rec = dc_json_parse(line, len, &at);
    if (!rec || rec->type != DC_J_OBJ) {
        char why[96];
        snprintf(why, sizeof why, "not a JSON object (malformed or truncated at byte %zu)", at);
        bad(t, why);
        dc_json_free(rec);
        return;
    }
    if (dc_json_get(rec, "recorder")) {             /* the header */
        t->header_pageable = (int)dc_json_int(dc_json_get(rec, "pageable"), 0);
        long long v = dc_json_int(dc_json_get(rec, "cuda_version"), 0);
        if (v > 0 && v < 1000000)
            driver_version = (int)v;
    } else if (dc_json_get(rec, "launches") && dc_json_get(rec, "kernel")) {   /* a kernel's launch count */
        t->recorded_total += (unsigned long)dc_json_int(dc_json_get(rec, "launches"), 0);
    } else if (dc_json_get(rec, "params") || dc_json_get(rec, "words") || dc_json_get(rec, "seq")) {
        judge_launch(t, rec);
    } else {
        bad(t, "not a launch record (no `params`, `words` or `seq`)");
    }
    dc_json_free(rec);
}

/* Reads and judges one trace; 0, or -1 when it cannot be opened (said). */
static int judge_trace(struct trace *t)
{
    struct stat st;
    if (stat(t->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "devcheck: ERROR: replay: cannot read '%s': %s\n", t->path, strerror(EISDIR));
        return -1;
    }
    errno = 0;
    gzFile f = gzopen(t->path, "rb");
    if (!f) {
        fprintf(stderr, "devcheck: ERROR: replay: cannot read '%s': %s\n", t->path,
                errno ? strerror(errno) : "out of memory");
        return -1;
    }
    size_t cap = 1 << 16, have = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        /* one whole line, however long */
        if (!gzgets(f, buf + have, (int)(cap - have))) {
            if (have) {                             /* the last line, without its newline */
                t->lineno++;
                judge_line(t, buf, have);
            }
            break;
        }
        have += strlen(buf + have);
        if (have + 1 == cap && buf[have - 1] != '\n') {
            char *n = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
            if (!n) {
                t->lineno++;
                bad(t, "a line too long to read");
                have = 0;
                break;
            }
            buf = n;
            cap *= 2;
            continue;
        }
        t->lineno++;
        judge_line(t, buf, have);
        have = 0;
    }
    int err = 0;
    const char *msg = gzerror(f, &err);
    if (err != Z_OK && err != Z_STREAM_END) {
        /* a truncated or damaged gzip stream: what was read was judged */
        fprintf(stderr, "devcheck: %s:%ld: the file ends early or is damaged (%s); the lines before it were judged\n",
                t->path, t->lineno, msg ? msg : "gzip error");
        t->skipped++;
    }
    if (!buf) {
        fprintf(stderr, "devcheck: ERROR: replay: out of memory reading '%s'\n", t->path);
        rc = -1;
    }
    if (t->skipped > REPLAY_BAD_SHOWN)
        fprintf(stderr, "devcheck: %s: %lu of %ld lines skipped (the first %d named above)%s\n", t->path,
                t->skipped, t->lineno, REPLAY_BAD_SHOWN,
                t->judged ? "; the rest was judged" : "; not a launch trace");
    free(buf);
    gzclose(f);
    return rc;
}

/* ---- the run ------------------------------------------------------------------------------------- */

int dc_replay_run(char *const *files, int nfiles, const char *origins_path)
{
    if (dc_opt.mode == DC_MODE_MIGRATE || dc_opt.sync) {
        fprintf(stderr, "devcheck: ERROR: replay: %s acts on a running program; a replay only reports\n",
                dc_opt.sync ? "sync=1" : "mode=migrate");
        return 2;
    }
    int status = 0;
    if (origins_path && dc_replay_load_origins(origins_path) != 0)
        status = 2;
    dc_opt.halt_on_error = 0;                       /* the replay is no program to stop */
    dc_guard++;                                     /* devcheck's own calls, as in a hook */
    static char record;                             /* the "driver" handle: the record */
    (void)dc_driver_bind(&record, answer_sym, NULL);
    dc_process_bind(&process);
    dc_stack_set_capture(0);                        /* the replay's frames are no launch's stack */
    dc_core_open();
    for (int i = 0; i < nfiles; i++) {
        struct trace t;
        memset(&t, 0, sizeof t);
        t.path = files[i];
        t.id = (unsigned)i + 1;
        trace_name(&t);
        if (judge_trace(&t) != 0) {
            status = 2;
            continue;
        }
        unsigned nk = 0;
        for (const struct rkernel *k = kernels; k; k = k->next)
            nk += k->trace == t.id && k->judged;
        dc_log("replay: %s: %lu launch%s of %u kernel%s judged (the process made %lu)%s%s", t.path, t.judged,
               t.judged == 1 ? "" : "es", nk, nk == 1 ? "" : "s", t.recorded_total,
               t.skipped ? "; lines skipped: " : "", t.skipped ? "see above" : "");
        if (t.unknown_notes)
            dc_log("replay: %s: %lu word%s of unknown meaning held pageable host memory or memory the launch device "
                   "may not access: not judged%s",
                   t.path, t.unknown_notes, t.unknown_notes == 1 ? "" : "s",
                   dc_opt.verbosity >= 1 ? "" : " (verbosity=1 lists them)");
    }
    dc_guard--;
    (void)dc_core_finish(-1);
    int errors = dc_report_error_count() > 0;
    dc_replay_free_origins();
    struct seen_note *s, *st;
    HASH_ITER(hh, seen_notes, s, st) {
        HASH_DEL(seen_notes, s);
        free(s);
    }
    while (kernels) {
        struct rkernel *k = kernels;
        kernels = k->next;
        free(k->name);
        free_params(k->params, k->nparams);
        free(k);
    }
    return status ? status : errors ? 1 : 0;
}
