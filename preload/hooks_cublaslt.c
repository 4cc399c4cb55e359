/* hooks_cublaslt: cuBLASLt's matmul checked at its API (preload/hooks_lib.h
 * has the machinery, preload/hooks_lib.def the table): the stream
 * argument's device; the matmul descriptor's pointer mode, epilogue and
 * pointer attributes and the layouts' sizes, recorded when the program sets
 * them (issue 37: no getter at cublasLtMatmul -- each of cuBLASLt's getters
 * is a logged API call, eleven per matmul were +1774 instructions and eleven
 * log lines at CUBLASLT_LOG_LEVEL=5). */
#include "preload/hooks_lib.h"

#include <string.h>

#define LIB_THIS CUBLASLT

/* The descriptor attributes that hold device pointers (cublasLt.h: "Device
 * pointer to ..."); NULL (the default) is never checked.  `epi`: the
 * epilogue bits under which the library reads it (0: whenever set) --
 * cuBLASLt keeps a bias pointer when the epilogue goes back to DEFAULT and
 * does not read it then (tests/gpu/lib_progs.py on an H200; the sim's
 * cuBLASLt copies it: sim/libs/cublas/lt.c). */
#define LT_BIAS_READ (CUBLASLT_EPILOGUE_BIAS | 16 /* _BGRAD */ | CUBLASLT_EPILOGUE_BGRADA | CUBLASLT_EPILOGUE_BGRADB)
#define LT_AUX_READ 128         /* the _AUX epilogues (and DRELU, DGELU) */
#define LT_ATTR(a, epi) { a, #a, epi }
static const struct {
    cublasLtMatmulDescAttributes_t attr;
    const char *name;
    int epi;
} lt_pointer_attrs[] = {
    LT_ATTR(CUBLASLT_MATMUL_DESC_BIAS_POINTER, LT_BIAS_READ),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, LT_AUX_READ),
    LT_ATTR(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, 0),
    LT_ATTR(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, 0),
    LT_ATTR(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, 0),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, 0),
    LT_ATTR(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, 0),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, LT_AUX_READ),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, LT_AUX_READ),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, 0),
};
#define N_LT_ATTRS (sizeof lt_pointer_attrs / sizeof lt_pointer_attrs[0])

/* A matmul descriptor as set (cublasLt.h's defaults at creation). */
struct lt_desc {
    int32_t mode, epilogue, transa;
    uintptr_t p[N_LT_ATTRS];
};
/* A layout's size. */
struct lt_layout {
    uint64_t rows, cols;
};

struct lt_set {
    int attr;
    const void *buf;
    size_t size;
};
static void desc_set(void *rec, const void *arg)
{
    struct lt_desc *d = rec;
    const struct lt_set *s = arg;
    if (s->attr < 0) {                  /* made */
        *d = (struct lt_desc){ .mode = CUBLASLT_POINTER_MODE_HOST, .epilogue = CUBLASLT_EPILOGUE_DEFAULT,
                               .transa = CUBLAS_OP_N };
        return;
    }
    int32_t v;
    switch (s->attr) {
    case CUBLASLT_MATMUL_DESC_POINTER_MODE:
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
    case CUBLASLT_MATMUL_DESC_TRANSA:
        if (s->size != sizeof v)
            return;
        memcpy(&v, s->buf, sizeof v);
        *(s->attr == CUBLASLT_MATMUL_DESC_POINTER_MODE ? &d->mode
          : s->attr == CUBLASLT_MATMUL_DESC_EPILOGUE   ? &d->epilogue
                                                       : &d->transa) = v;
        return;
    default:
        for (size_t i = 0; i < N_LT_ATTRS; i++)
            if ((int)lt_pointer_attrs[i].attr == s->attr && s->size == sizeof d->p[i])
                memcpy(&d->p[i], s->buf, sizeof d->p[i]);
        return;
    }
}
static void layout_set(void *rec, const void *arg)
{
    struct lt_layout *l = rec;
    const struct lt_set *s = arg;
    if (s->size != sizeof(uint64_t))
        return;
    if (s->attr == CUBLASLT_MATRIX_LAYOUT_ROWS)
        memcpy(&l->rows, s->buf, sizeof l->rows);
    else if (s->attr == CUBLASLT_MATRIX_LAYOUT_COLS)
        memcpy(&l->cols, s->buf, sizeof l->cols);
}
/* A matmul descriptor or layout was made (or initialised in the program's
 * memory: the _internal forms of cublasLt.h's inline Init functions). */
static void desc_made(uintptr_t d)
{
    struct lt_set s = { -1, NULL, 0 };
    if (dc_enter()) {
        dc_libd_update(DC_LIBD_LT_DESC, d, sizeof(struct lt_desc), 1, desc_set, &s);
        dc_leave();
    }
}
static void layout_made(uintptr_t l, uint64_t rows, uint64_t cols)
{
    if (dc_enter()) {
        struct lt_set r = { CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows };
        struct lt_set c = { CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols };
        dc_libd_update(DC_LIBD_LT_LAYOUT, l, sizeof(struct lt_layout), 1, layout_set, &r);
        dc_libd_update(DC_LIBD_LT_LAYOUT, l, sizeof(struct lt_layout), 1, layout_set, &c);
        dc_leave();
    }
}
static void lt_forget(int kind, uintptr_t h)
{
    if (h && dc_enter()) {
        dc_libd_forget(kind, h);
        dc_leave();
    }
}
/* A setter the library took: recorded on a descriptor devcheck saw made. */
static void lt_record(int kind, uintptr_t h, int attr, const void *buf, size_t size)
{
    struct lt_set s = { attr, buf, size };
    if (buf && dc_enter()) {
        dc_libd_update(kind, h, kind == DC_LIBD_LT_DESC ? sizeof(struct lt_desc) : sizeof(struct lt_layout), 0,
                       kind == DC_LIBD_LT_DESC ? desc_set : layout_set, &s);
        dc_leave();
    }
}

/* A hook that runs the real call, then `after` when it succeeded, outside
 * any other library call (cuBLAS makes its own descriptors for the
 * cublasLtMatmul it calls, which is not checked: dc_lib_depth). */
#define LT_SETTER(name, params, args, after)                                        \
    LIB_BODY(cublasStatus_t, name, params)                                          \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), CUBLAS_STATUS_NOT_INITIALIZED;            \
        cublasStatus_t r = real args;                                               \
        if (r == CUBLAS_STATUS_SUCCESS && !dc_lib_depth)                            \
            DC_UNPAREN after;                                                       \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cublasStatus_t, CUBLASWINAPI, name, params, args)

LT_SETTER(cublasLtMatmulDescCreate,
    (cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType, cudaDataType_t scaleType),
    (matmulDesc, computeType, scaleType), (if (matmulDesc) desc_made(P(*matmulDesc))))
LT_SETTER(cublasLtMatmulDescInit_internal,
    (cublasLtMatmulDesc_t matmulDesc, size_t size, cublasComputeType_t computeType, cudaDataType_t scaleType),
    (matmulDesc, size, computeType, scaleType), (desc_made(P(matmulDesc))))
LT_SETTER(cublasLtMatmulDescSetAttribute,
    (cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, const void *buf, size_t sizeInBytes),
    (matmulDesc, attr, buf, sizeInBytes), (lt_record(DC_LIBD_LT_DESC, P(matmulDesc), (int)attr, buf, sizeInBytes)))
LT_SETTER(cublasLtMatrixLayoutCreate,
    (cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld),
    (matLayout, type, rows, cols, ld), (if (matLayout) layout_made(P(*matLayout), rows, cols)))
LT_SETTER(cublasLtMatrixLayoutInit_internal,
    (cublasLtMatrixLayout_t matLayout, size_t size, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld),
    (matLayout, size, type, rows, cols, ld), (layout_made(P(matLayout), rows, cols)))
LT_SETTER(cublasLtMatrixLayoutSetAttribute,
    (cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr, const void *buf, size_t sizeInBytes),
    (matLayout, attr, buf, sizeInBytes), (lt_record(DC_LIBD_LT_LAYOUT, P(matLayout), (int)attr, buf, sizeInBytes)))

/* Destroyed: forgotten before the real call (the address may be reused as
 * soon as it returns). */
#define LT_DESTROY(name, type, kind)                                                \
    LIB_BODY(cublasStatus_t, name, (type h))                                        \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), CUBLAS_STATUS_NOT_INITIALIZED;            \
        if (!dc_lib_depth)                                                          \
            lt_forget(kind, P(h));                                                  \
        return real(h);                                                             \
    }                                                                               \
    LIB_ENTRIES(cublasStatus_t, CUBLASWINAPI, name, (type h), (h))
LT_DESTROY(cublasLtMatmulDescDestroy, cublasLtMatmulDesc_t, DC_LIBD_LT_DESC)
LT_DESTROY(cublasLtMatrixLayoutDestroy, cublasLtMatrixLayout_t, DC_LIBD_LT_LAYOUT)

/* A layout's size, or 0 when devcheck did not see it made. */
static int lt_size(cublasLtMatrixLayout_t l, struct lt_layout *r)
{
    return l && dc_libd_get(DC_LIBD_LT_LAYOUT, P(l), r, sizeof *r);
}

/* What a matmul's check reads from its descriptor and layouts, derived
 * once per (descriptor, A's layout, D's layout) while no record changed
 * (dc_libd_gen): each thread's last (three record copies were ~200
 * instructions per cublasLtMatmul, bench/libcalls.sh). */
struct lt_view {
    uintptr_t desc, adesc, ddesc;
    uint64_t gen;               /* 0: none */
    int seen, empty, k0, alpha_dev, beta_dev;
    unsigned n;                 /* the pointer attributes the epilogue reads */
    const char *name[N_LT_ATTRS];
    uintptr_t p[N_LT_ATTRS];
    /* The last call under this view, if it was clean: its name
     * (dc_libcall_clean_name; 0: none), stream and the argument list's
     * first LT_ARGS pointers (the rest is the view's). */
    uint64_t clean;
    uintptr_t stream, a[7];
    uintptr_t mask[4];          /* alpha, A, B, beta: the raw pointer's (~0), or 0 where not read */
    /* The last non-default stream's device, at dc_stream_device_gen sgen
     * (sstream 0: none) */
    uintptr_t sstream;
    uint64_t sgen;
    int sdev;
};
#define LT_ARGS 7
static const char lt_api[] = "cublasLtMatmul";
static __thread struct lt_view lt_last __attribute__((tls_model("initial-exec")));

static void lt_derive(struct lt_view *v, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc,
                      cublasLtMatrixLayout_t Ddesc)
{
    struct lt_desc d;
    v->seen = dc_libd_get(DC_LIBD_LT_DESC, P(desc), &d, sizeof d);
    /* m or n 0: nothing is read or written; k 0: A and B are not read
     * (D = beta * C) */
    struct lt_layout ld, la;
    v->empty = lt_size(Ddesc, &ld) && (!ld.rows || !ld.cols);
    v->k0 = v->seen && lt_size(Adesc, &la) && !(d.transa == CUBLAS_OP_N ? la.cols : la.rows);
    /* alpha: host only in host mode; beta: host in host mode and
     * ALPHA_DEVICE_VECTOR_BETA_HOST, not read under _BETA_ZERO; an unseen
     * descriptor's mode is not known: neither is checked */
    v->alpha_dev = v->seen && d.mode != CUBLASLT_POINTER_MODE_HOST;
    v->beta_dev = v->seen && (d.mode == CUBLASLT_POINTER_MODE_DEVICE || d.mode == CUBLASLT_POINTER_MODE_DEVICE_VECTOR);
    v->mask[0] = v->alpha_dev ? ~(uintptr_t)0 : 0;
    v->mask[1] = v->mask[2] = v->k0 ? 0 : ~(uintptr_t)0;
    v->mask[3] = v->beta_dev ? ~(uintptr_t)0 : 0;
    v->n = 0;
    for (size_t i = 0; v->seen && i < N_LT_ATTRS; i++)
        if (d.p[i] && (!lt_pointer_attrs[i].epi || (d.epilogue & lt_pointer_attrs[i].epi))) {
            v->name[v->n] = lt_pointer_attrs[i].name;
            v->p[v->n++] = d.p[i];
        }
}

/* The device of a call's stream (dc_stream_device), kept in the view
 * beside its stream while dc_stream_device_gen (read before, sg) says it
 * still holds: a default stream's is the current device's, never kept
 * (-28 instructions per matmul, bench/libcalls.sh). */
static __attribute__((noinline)) int lt_stream(struct lt_view *v, cudaStream_t stream, uint64_t sg)
{
    int dev = dc_stream_device((CUstream)stream);
    int keep = dev >= 0 && stream && (CUstream)stream != CU_STREAM_LEGACY && (CUstream)stream != CU_STREAM_PER_THREAD;
    v->sstream = keep ? P(stream) : 0;
    v->sgen = sg;
    v->sdev = dev;
    return dev;
}

/* The check in full: the argument list (alpha, A, B, beta masked as the
 * view reads them; ws: the workspace, 0 when its size is 0). */
static __attribute__((noinline)) void lt_check_full(struct lt_view *v, int dev, cudaStream_t stream,
                                                    const void *alpha, const void *A, const void *B,
                                                    const void *beta, const void *C, const void *D, uintptr_t ws)
{
    const uintptr_t *m = v->mask;
    const uintptr_t p[LT_ARGS] = { P(alpha) & m[0], P(A) & m[1], P(B) & m[2], P(beta) & m[3], P(C), P(D), ws };
    static const char *const names[LT_ARGS] = { "alpha", "A", "B", "beta", "C", "D", "workspace" };
    struct dc_lib_arg a[LT_ARGS + N_LT_ATTRS];
    for (unsigned i = 0; i < LT_ARGS; i++)
        a[i] = (struct dc_lib_arg){ .name = names[i], .ptr = p[i] };
    for (unsigned i = 0; i < v->n; i++)
        a[LT_ARGS + i] = (struct dc_lib_arg)ARG(v->name[i], v->p[i]);
    dc_lib_check(lt_api, dev, P(stream), a, LT_ARGS + v->n);
    v->clean = v->seen ? dc_libcall_clean_name(lt_api, dev, P(stream), a, LT_ARGS + v->n) : 0;
    v->stream = P(stream);
    memcpy(v->a, p, sizeof p);
}

/* Inline in the hook's entries: the thread's last clean call again costs
 * no call with the twelve arguments (-35 instructions per matmul,
 * bench/libcalls.sh). */
static inline __attribute__((always_inline)) void
lt_check(cublasLtMatmulDesc_t desc, const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
         const void *beta, const void *C, const void *D, cublasLtMatrixLayout_t Ddesc, const void *workspace,
         size_t workspaceSize, cudaStream_t stream)
{
    struct lt_view *v = &lt_last;
    uint64_t sg = dc_stream_device_gen();
    /* sstream 0 matches no call: a default stream's device is the current one */
    int dev = __builtin_expect(P(stream) == v->sstream && v->sstream && sg == v->sgen, 1) ? v->sdev
                                                                                        : lt_stream(v, stream, sg);
    uint64_t g = __atomic_load_n(&dc_libd_gen, __ATOMIC_ACQUIRE);
    if (__builtin_expect(v->gen != g || v->desc != P(desc) || v->adesc != P(Adesc) || v->ddesc != P(Ddesc), 0)) {
        lt_derive(v, desc, Adesc, Ddesc);
        v->desc = P(desc);
        v->adesc = P(Adesc);
        v->ddesc = P(Ddesc);
        v->gen = g;                     /* read before the records: a change since makes it stale */
        v->clean = 0;
    }
    if (__builtin_expect(!v->seen, 0))
        dc_libd_unseen(lt_api, "a matmul descriptor");
    if (__builtin_expect(v->empty, 0)) {
        dc_lib_check(lt_api, dev, P(stream), NULL, 0);
        return;
    }
    uintptr_t ws = workspaceSize ? P(workspace) : 0;
    const uintptr_t *m = v->mask, *l = v->a;
    uintptr_t diff = (v->stream ^ P(stream)) | ((P(alpha) & m[0]) ^ l[0]) | ((P(A) & m[1]) ^ l[1]) |
                     ((P(B) & m[2]) ^ l[2]) | ((P(beta) & m[3]) ^ l[3]) | (P(C) ^ l[4]) | (P(D) ^ l[5]) |
                     (ws ^ l[6]);
    /* The thread's last clean call again (the same view, pointers and
     * stream; still the last clean call, the registry unchanged): clean, no
     * argument list (a matmul in a loop, bench/libcalls.sh), and its first
     * launch expected (core/verdict/libcall.h: every pointer the library's
     * kernels can receive is among those just covered) */
    if (v->clean && !diff && __builtin_expect(!dc_opt.sync, 1) &&
        dc_libcall_clean_named_expect(v->clean, dev, P(stream))) {
        dc_lib_pending = NULL;
        dc_libcall_active = 1;
        return;
    }
    lt_check_full(v, dev, stream, alpha, A, B, beta, C, D, ws);
}

LIB_HOOK(cublasStatus_t, CUBLASWINAPI, cublasLtMatmul,
    (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
     cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
     cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
     void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream),
    (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
     workspaceSizeInBytes, stream),
    CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS,
    (lt_check(computeDesc, alpha, A, Adesc, B, beta, C, D, Ddesc, workspace, workspaceSizeInBytes, stream)))
