/* hooks_lib: library calls checked at their API (issue 26; the table is
 * preload/hooks_lib.def, the check core/verdict/libcall.h).  A closed library's
 * kernel words prove little (report/FORMAT.md, "What a word proves"); its
 * header says which arguments are device pointers and its handle, stream or
 * communicator which device the call runs on, so the call is checked before
 * it runs -- before any fault, and at capture for a captured call.
 *
 * Binding, as the runtime hooks (preload/resolve.c): each hook is exported under
 * its library's symbol version (cublasSgemm_v2@@libcublas.so.13: a program
 * or framework linked against the library binds to it; NCCL is unversioned),
 * and its real function is that version's definition in the loaded object
 * whose SONAME is the library's (dlopen(RTLD_NOLOAD) finds RTLD_LOCAL loads
 * too), resolved on first use and whenever it was not loaded yet.  dlsym
 * hands the hook out for the library's own definition (dc_lib_dlsym, asked
 * by the door, preload/door.c: JAX/XLA
 * dlopen the libraries RTLD_LOCAL and ask dlsym(handle, name)); a lookup
 * whose scope lacks the library gets NULL, as without devcheck.
 *
 * Two versions: a library with an older major version (DC_LIBOLD: CUDA 12's
 * libcublas.so.12) has each hook twice, as the runtime hooks do
 * (hooks_runtime.c): one body taking the version (lib_v: 0 the table's
 * DC_LIB, 1 its DC_LIBOLD), inlined into the entry exported as
 * name@@libcublas.so.13 and into lib_old_<name>, exported as
 * name@libcublas.so.12.  Each has its own real-function slot, resolved in
 * its own library only: a CUDA 12 caller reaches libcublas.so.12, a CUDA 13
 * caller libcublas.so.13, both loaded or not; dlsym hands out the entry of
 * the version it found.  Handles are each library's own pointers; cuFFT's
 * plans are small integers in both, so a plan's key carries the version.
 *
 * Every hook starts the same way: without its real function it says so
 * once and returns the library's error; the outermost library call of a
 * thread is checked (cuBLAS calls cuBLASLt and cuSOLVER calls cuBLAS
 * through their PLTs, which reach our hooks: lib_depth), with the guard
 * held for the check only -- the library's own launches and allocations
 * inside the real call are seen as before. */
#include "preload/preload.h"
#include "preload/hooks_lib.h"

#include <cublas_api.h>
#include <cublasLt.h>
#include <nccl.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cudnn_graph.h>
#include <cudnn_cnn.h>
#include <cudnn_adv.h>
#include <cusolverDn.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* --- the table ------------------------------------------------------------ */

enum lib_id {
#define DC_LIB(id, soname, version) LIB_##id,
#include "preload/hooks_lib.def"
    LIB_COUNT
};
static const char *const lib_soname[LIB_COUNT] = {
#define DC_LIB(id, soname, version) soname,
#include "preload/hooks_lib.def"
};
static const char *const lib_version[LIB_COUNT] = {
#define DC_LIB(id, soname, version) version,
#include "preload/hooks_lib.def"
};
/* The older version's SONAME, which is also its version node; NULL: none. */
static const char *const lib_old[LIB_COUNT] = {
#define DC_LIBOLD(id, node) [LIB_##id] = #node,
#include "preload/hooks_lib.def"
};

/* Each hook's entry of the older version (defined with its body, below). */
#define DC_LIBFN(id, name) static __typeof__(name) lib_old_##name;
#include "preload/hooks_lib.def"

enum fn_id {
#define DC_LIBFN(id, name) FN_##name,
#define DC_LIBAUX(id, name) FN_##name,
#include "preload/hooks_lib.def"
    FN_COUNT
};
struct fn {
    const char *name;
    int lib;                    /* enum lib_id */
    void *wrapper[2];           /* our entries, by version (lib_v); NULL for one devcheck only calls */
};
static const struct fn fn_table[FN_COUNT] = {
#define DC_LIBFN(id, name) [FN_##name] = { #name, LIB_##id, { (void *)&name, (void *)&lib_old_##name } },
#define DC_LIBAUX(id, name) [FN_##name] = { #name, LIB_##id, { NULL, NULL } },
#include "preload/hooks_lib.def"
};
/* The real functions, by version (lib_v) and entry point. */
static void *fn_real[2][FN_COUNT];

/* Slot k = v * FN_COUNT + i: entry point i of version v.  Version 1 (the
 * older one) is its own library's definition only.  Version 0 is the
 * library's definition by its SONAME and version; else (a caller bound
 * without a version while only another version of the library is loaded
 * globally) the global scope's default after devcheck -- never fail a call
 * that would succeed without devcheck -- unless that is the older version's
 * own: then NULL, and the hook runs as the older version's (LIB_REAL). */
static void *resolve_fn(int k, const char *name)
{
    int v = k / FN_COUNT, lib = fn_table[k % FN_COUNT].lib;
    const char *old = lib_old[lib];
    if (v)
        return old ? dc_resolve_lib(old, name, old) : NULL;
    void *p = dc_resolve_lib(lib_soname[lib], name, lib_version[lib]);
    if (p)
        return p;
    p = dc_next_symbol(name);
    return p && old && p == dc_resolve_lib(old, name, old) ? NULL : p;
}
/* Version v's own function `name` (typed from its header), or NULL while
 * its library is not loaded. */
#define REAL_V(name, v)                                                             \
    ((__typeof__(&name))DC_LAZY_FN(fn_real[v][FN_##name], resolve_fn, (v) * FN_COUNT + FN_##name, #name))
/* The version of the outermost library call running on this thread (0
 * outside any): lib_begin sets it.  The checks' own calls (a handle's
 * stream, a descriptor's attributes) are made to the called library's
 * version: REAL(name). */
static __thread int lib_cur __attribute__((tls_model("initial-exec")));
/* (a library without an older version: 0, folded at compile time) */
#define REAL(name) REAL_V(name, lib_old[fn_table[FN_##name].lib] ? lib_cur : 0)
/* In a hook's body: `real`, version lib_v's `name`; a version-0 entry
 * reached while only the older version is loaded (a caller bound without a
 * version) becomes the older version's call. */
#define LIB_REAL(name)                                                              \
    __typeof__(&name) real = REAL_V(name, lib_v);                                  \
    if (__builtin_expect(!real, 0) && !lib_v && (real = REAL_V(name, 1)) != NULL)  \
        lib_v = 1

/* No loaded library defines `name`: says so once on stderr. */
static void lib_missing(const char *name)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    char line[256];
    int n = snprintf(line, sizeof line,
                     "devcheck: cannot find the real %s in this process; the call returns an error (said once)\n",
                     name);
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

/* --- dlsym ------------------------------------------------------------------ */

DC_NO_SANITIZE int dc_lib_dlsym(void *handle, const char *name, void **answer)
{
    /* the libraries' names: cu<lower case> (cublas, cufft, cudnn; the
     * driver's are cu<upper case>), nccl */
    if (!name || !((name[0] == 'c' && name[1] == 'u' && name[2] >= 'a' && name[2] <= 'z') ||
                   (name[0] == 'n' && name[1] == 'c' && name[2] == 'c' && name[3] == 'l')))
        return 0;
    int i = 0;
    while (i < FN_COUNT && !(fn_table[i].wrapper[0] && dc_same_name(fn_table[i].name, name)))
        i++;
    void *(*real_dlsym)(void *, const char *) = __atomic_load_n(&dc_real_dlsym, __ATOMIC_ACQUIRE);
    if (i == FN_COUNT || handle == RTLD_NEXT || dc_guard || !real_dlsym)
        return 0;
    dc_guard++;
    void *p = real_dlsym(handle, name);
    if (p == fn_table[i].wrapper[0])    /* the lookup reached our export: the scope after us decides */
        p = real_dlsym(RTLD_NEXT, name);
    dc_guard--;
    /* the entry of the version the lookup found */
    for (int v = 0; p && v < 2; v++)
        if (p == DC_LAZY_FN(fn_real[v][i], resolve_fn, v * FN_COUNT + i, fn_table[i].name)) {
            p = fn_table[i].wrapper[v];
            break;
        }
    *answer = p;
    return 1;
}

/* --- the check's frame -------------------------------------------------------- */

/* Depth of library calls on this thread: only the outermost is checked. */
static __thread int lib_depth __attribute__((tls_model("initial-exec")));
/* sync=1: the outermost call to synchronise after the real call. */
static __thread struct dc_libsync *lib_pending __attribute__((tls_model("initial-exec")));

/* 1: check this call of version lib_v (the guard is then held:
 * lib_checked() when done). */
static inline int lib_begin(int lib_v)
{
    if (lib_depth++)
        return 0;
    lib_cur = lib_v;
    return dc_enter();
}
static inline void lib_checked(void) { dc_leave(); }

/* The check of the outermost call (guard held): its arguments, then what
 * sync=1 needs after it; the kernels it launches are its own
 * (dc_libcall_active) until lib_end. */
static void lib_check(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *a, unsigned n)
{
    dc_check_libcall(api, device, stream, a, n);
    lib_pending = dc_libcall_sync_begin(api, device, stream, a, n);
    dc_libcall_active = 1;
}

/* After the real call (ok: it returned success). */
static inline void lib_end(int ok)
{
    if (--lib_depth)
        return;
    lib_cur = 0;
    dc_libcall_active = 0;
    struct dc_libsync *r = lib_pending;
    if (__builtin_expect(r != NULL, 0)) {
        lib_pending = NULL;
        int g = dc_enter();
        dc_libcall_sync_end(r, ok && g);
        if (g)
            dc_leave();
    }
}

/* A hook's body: body_<name>(lib_v, params...), inlined into its entries. */
#define LIB_BODY(ret, name, params)                                                 \
    static inline __attribute__((always_inline)) ret body_##name(int lib_v, DC_UNPAREN params)
/* Its entries: `name` (the table's version, exported as name@@version by
 * .symver, end of file) and lib_old_<name> (name@<DC_LIBOLD's node> where
 * the library has one; a local function nobody calls where it has none;
 * without attr: CUFFTAPI is a visibility, calling conventions are empty
 * on Linux). */
#define LIB_ENTRIES(ret, attr, name, params, args)                                  \
    DC_EXPORT ret attr name params { return body_##name(0, DC_UNPAREN args); }     \
    __attribute__((used)) static ret lib_old_##name params                           \
    {                                                                               \
        return body_##name(1, DC_UNPAREN args);                                    \
    }

/* A checked entry point: `ret attr name params`, forwarding `args`.
 * Without its real function it says so once and returns `fail`; the
 * outermost call runs `check` (a parenthesised statement, guard held; lib_v
 * is the call's version) before the real call; `ok` is the library's
 * success status (sync=1 synchronises only a call that returned it). */
#define LIB_HOOK(ret, attr, name, params, args, fail, ok, check)                    \
    LIB_BODY(ret, name, params)                                                     \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return lib_missing(#name), (fail);                                      \
        if (lib_begin(lib_v)) {                                                     \
            DC_UNPAREN check;                                                      \
            lib_checked();                                                          \
        }                                                                           \
        ret r = real args;                                                          \
        lib_end(r == (ok));                                                         \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, params, args)

#define P(x) ((uintptr_t)(x))
/* A device-pointer argument by its header name. */
#define ARG(name_, p_) { .name = (name_), .ptr = P(p_) }
/* A workspace argument: checked when its size is not 0. */
#define SPACE(name, size) ARG(#name, (size) ? (name) : NULL)
#define NARGS(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* --- handles ------------------------------------------------------------------ */

/* The device the calls of handle h (of kind DC_LIBH_*) run on: its stream s
 * (got: the library's getter answered), else (the default stream) the
 * device current when it was made, else the current one.  *stream: s. */
static int handle_device(int kind, uintptr_t h, int got, cudaStream_t s, uintptr_t *stream)
{
    *stream = 0;
    if (got && s) {
        *stream = P(s);
        int d = dc_stream_device((CUstream)s);
        if (d >= 0)
            return d;
    }
    uint64_t v;
    if (dc_libh_get(kind, h, &v))
        return (int)v;
    return dc_current_device();
}

/* `name(htype *handle)` makes a handle: remembered with the device current
 * then (kind).  The library's own calls inside (cuSOLVER makes a cuBLAS
 * handle) are not the program's: only the outermost is remembered. */
#define LIB_CREATE_HOOK(ret, attr, name, htype, kind, fail, ok)                     \
    LIB_BODY(ret, name, (htype *handle))                                            \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return lib_missing(#name), (fail);                                      \
        int chk = lib_begin(lib_v);                                                 \
        if (chk)                                                                    \
            lib_checked();                                                          \
        ret r = real(handle);                                                       \
        if (chk && r == (ok) && handle && dc_enter()) {                             \
            int d = dc_current_device();                                            \
            if (d >= 0)                                                             \
                dc_libh_set((kind), P(*handle), (uint64_t)d);                       \
            dc_leave();                                                             \
        }                                                                           \
        lib_end(0);                                                                 \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, (htype *handle), (handle))
/* `name(htype handle)` destroys one: forgotten. */
#define LIB_DESTROY_HOOK(ret, attr, name, htype, kind, fail, ok)                    \
    LIB_BODY(ret, name, (htype handle))                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return lib_missing(#name), (fail);                                      \
        ret r = real(handle);                                                       \
        if (r == (ok) && dc_enter()) {                                              \
            dc_libh_forget((kind), P(handle));                                      \
            dc_leave();                                                             \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, (htype handle), (handle))

/* --- cuBLAS ------------------------------------------------------------------ */

/* The device a handle's calls run on (handle_device). */
static int blas_device(cublasHandle_t h, uintptr_t *stream)
{
    cudaStream_t s = NULL;
    __typeof__(&cublasGetStream_v2) gs = REAL(cublasGetStream_v2);
    int got = gs && gs(h, &s) == CUBLAS_STATUS_SUCCESS;
    return handle_device(DC_LIBH_CUBLAS, P(h), got, s, stream);
}

/* alpha, beta (and a dot's result) are host pointers under
 * CUBLAS_POINTER_MODE_HOST (the default), device pointers under _DEVICE. */
static int blas_host_scalars(cublasHandle_t h)
{
    cublasPointerMode_t m = CUBLAS_POINTER_MODE_HOST;
    __typeof__(&cublasGetPointerMode_v2) g = REAL(cublasGetPointerMode_v2);
    if (g && g(h, &m) != CUBLAS_STATUS_SUCCESS)
        m = CUBLAS_POINTER_MODE_HOST;
    return m == CUBLAS_POINTER_MODE_HOST;
}

static void blas_check(cublasHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    uintptr_t stream;
    int d = blas_device(h, &stream);
    lib_check(api, d, stream, a, n);
}

LIB_CREATE_HOOK(cublasStatus_t, CUBLASWINAPI, cublasCreate_v2, cublasHandle_t, DC_LIBH_CUBLAS,
                CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS)
LIB_DESTROY_HOOK(cublasStatus_t, CUBLASWINAPI, cublasDestroy_v2, cublasHandle_t, DC_LIBH_CUBLAS,
                 CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS)

/* A cuBLAS entry point `name` with parameters `params`, arguments `args`,
 * and the device pointers `checked` (struct dc_lib_arg initialisers; a
 * scalar by SCALAR: not checked in host pointer mode). */
#define BLAS_HOOK(name, params, args, ...)                                          \
    LIB_HOOK(cublasStatus_t, CUBLASWINAPI, name, params, args, CUBLAS_STATUS_NOT_INITIALIZED,  \
             CUBLAS_STATUS_SUCCESS,                                                 \
             (int host_scalars_ = blas_host_scalars(handle); (void)host_scalars_;   \
              struct dc_lib_arg a[] = { __VA_ARGS__ }; blas_check(handle, #name, a, NARGS(a))))
#define SCALAR(name) ARG(#name, host_scalars_ ? NULL : (name))

#define GEMM_ARGS SCALAR(alpha), ARG("A", A), ARG("B", B), SCALAR(beta), ARG("C", C)
BLAS_HOOK(cublasSgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasDgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasGemmEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
     const void *beta, void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo),
    GEMM_ARGS)
BLAS_HOOK(cublasSgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb,
     long long int strideB, const float *beta, float *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    GEMM_ARGS)
BLAS_HOOK(cublasDgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb,
     long long int strideB, const double *beta, double *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    GEMM_ARGS)
BLAS_HOOK(cublasGemmStridedBatchedEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA, const void *B,
     cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
     long long int strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
     strideC, batchCount, computeType, algo),
    GEMM_ARGS)
/* The pointer arrays live in device memory (cuBLAS reads them on the
 * device): the arrays themselves are checked, not read. */
BLAS_HOOK(cublasGemmBatchedEx,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const void *alpha, const void *const Aarray[], cudaDataType Atype, int lda, const void *const Barray[],
     cudaDataType Btype, int ldb, const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
     int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
    (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc,
     batchCount, computeType, algo),
    SCALAR(alpha), ARG("Aarray", Aarray), ARG("Barray", Barray), SCALAR(beta),
    ARG("Carray", Carray))

BLAS_HOOK(cublasCgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const cuComplex *A, int lda, const cuComplex *B, int ldb, const cuComplex *beta,
     cuComplex *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasZgemm_v2,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuDoubleComplex *alpha, const cuDoubleComplex *A, int lda, const cuDoubleComplex *B, int ldb,
     const cuDoubleComplex *beta, cuDoubleComplex *C, int ldc),
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc), GEMM_ARGS)
BLAS_HOOK(cublasCgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuComplex *alpha, const cuComplex *A, int lda, long long int strideA, const cuComplex *B, int ldb,
     long long int strideB, const cuComplex *beta, cuComplex *C, int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    GEMM_ARGS)
BLAS_HOOK(cublasZgemmStridedBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const cuDoubleComplex *alpha, const cuDoubleComplex *A, int lda, long long int strideA,
     const cuDoubleComplex *B, int ldb, long long int strideB, const cuDoubleComplex *beta, cuDoubleComplex *C,
     int ldc, long long int strideC, int batchCount),
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
    GEMM_ARGS)
#define BATCHED_ARGS SCALAR(alpha), ARG("Aarray", Aarray), ARG("Barray", Barray), SCALAR(beta), \
    ARG("Carray", Carray)
BLAS_HOOK(cublasSgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const float *alpha, const float *const Aarray[], int lda, const float *const Barray[], int ldb,
     const float *beta, float *const Carray[], int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), BATCHED_ARGS)
BLAS_HOOK(cublasDgemmBatched,
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
     const double *alpha, const double *const Aarray[], int lda, const double *const Barray[], int ldb,
     const double *beta, double *const Carray[], int ldc, int batchCount),
    (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount), BATCHED_ARGS)
BLAS_HOOK(cublasSgemv_v2,
    (cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float *alpha, const float *A, int lda,
     const float *x, int incx, const float *beta, float *y, int incy),
    (handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy),
    SCALAR(alpha), ARG("A", A), ARG("x", x), SCALAR(beta), ARG("y", y))
BLAS_HOOK(cublasDgemv_v2,
    (cublasHandle_t handle, cublasOperation_t trans, int m, int n, const double *alpha, const double *A, int lda,
     const double *x, int incx, const double *beta, double *y, int incy),
    (handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy),
    SCALAR(alpha), ARG("A", A), ARG("x", x), SCALAR(beta), ARG("y", y))
BLAS_HOOK(cublasSdot_v2,
    (cublasHandle_t handle, int n, const float *x, int incx, const float *y, int incy, float *result),
    (handle, n, x, incx, y, incy, result), ARG("x", x), ARG("y", y), SCALAR(result))
BLAS_HOOK(cublasDdot_v2,
    (cublasHandle_t handle, int n, const double *x, int incx, const double *y, int incy, double *result),
    (handle, n, x, incx, y, incy, result), ARG("x", x), ARG("y", y), SCALAR(result))
BLAS_HOOK(cublasSaxpy_v2,
    (cublasHandle_t handle, int n, const float *alpha, const float *x, int incx, float *y, int incy),
    (handle, n, alpha, x, incx, y, incy), SCALAR(alpha), ARG("x", x), ARG("y", y))
BLAS_HOOK(cublasDaxpy_v2,
    (cublasHandle_t handle, int n, const double *alpha, const double *x, int incx, double *y, int incy),
    (handle, n, alpha, x, incx, y, incy), SCALAR(alpha), ARG("x", x), ARG("y", y))
/* The workspace the handle's calls will use: checked where it is handed over. */
BLAS_HOOK(cublasSetWorkspace_v2, (cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes),
    (handle, workspace, workspaceSizeInBytes), ARG("workspace", workspaceSizeInBytes ? workspace : NULL))

/* --- cuBLASLt ------------------------------------------------------------------ */

/* The descriptor attributes that hold device pointers (cublasLt.h: "Device
 * pointer to ..."); NULL (the default) is never checked. */
#define LT_ATTR(a) { a, #a }
static const struct {
    cublasLtMatmulDescAttributes_t attr;
    const char *name;
} lt_pointer_attrs[] = {
    LT_ATTR(CUBLASLT_MATMUL_DESC_BIAS_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER),
};
#define N_LT_ATTRS (sizeof lt_pointer_attrs / sizeof lt_pointer_attrs[0])

static void lt_check(cublasLtMatmulDesc_t desc, const void *alpha, const void *A, const void *B, const void *beta,
                     const void *C, const void *D, const void *workspace, size_t workspaceSize, cudaStream_t stream)
{
    __typeof__(&cublasLtMatmulDescGetAttribute) get = REAL(cublasLtMatmulDescGetAttribute);
    int32_t mode = CUBLASLT_POINTER_MODE_HOST;
    size_t written = 0;
    if (get && (get(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode, &written) != CUBLAS_STATUS_SUCCESS ||
                written != sizeof mode))
        mode = CUBLASLT_POINTER_MODE_HOST;
    /* alpha: host only in host mode; beta: host in host mode and
     * ALPHA_DEVICE_VECTOR_BETA_HOST, not read under _BETA_ZERO */
    int alpha_dev = mode != CUBLASLT_POINTER_MODE_HOST;
    int beta_dev = mode == CUBLASLT_POINTER_MODE_DEVICE || mode == CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
    struct dc_lib_arg a[7 + N_LT_ATTRS] = {
        ARG("alpha", alpha_dev ? alpha : NULL), ARG("A", A), ARG("B", B), ARG("beta", beta_dev ? beta : NULL),
        ARG("C", C), ARG("D", D), ARG("workspace", workspaceSize ? workspace : NULL),
    };
    unsigned n = 7;
    for (size_t i = 0; get && i < N_LT_ATTRS; i++) {
        void *p = NULL;
        written = 0;
        if (get(desc, lt_pointer_attrs[i].attr, &p, sizeof p, &written) == CUBLAS_STATUS_SUCCESS &&
            written == sizeof p && p)
            a[n++] = (struct dc_lib_arg)ARG(lt_pointer_attrs[i].name, p);
    }
    lib_check("cublasLtMatmul", dc_stream_device((CUstream)stream), P(stream), a, n);
}

LIB_HOOK(cublasStatus_t, CUBLASWINAPI, cublasLtMatmul,
    (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
     cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
     cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
     void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream),
    (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
     workspaceSizeInBytes, stream),
    CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS,
    (lt_check(computeDesc, alpha, A, B, beta, C, D, workspace, workspaceSizeInBytes, stream)))

/* --- NCCL ------------------------------------------------------------------------ */

/* The communicator's device, or -1; *rank its rank (-1 unknown). */
static int nccl_device(ncclComm_t comm, int *rank)
{
    __typeof__(&ncclCommCuDevice) cd = REAL(ncclCommCuDevice);
    __typeof__(&ncclCommUserRank) ur = REAL(ncclCommUserRank);
    int d = -1;
    *rank = -1;
    if (!cd || cd(comm, &d) != ncclSuccess)
        d = -1;
    if (!ur || ur(comm, rank) != ncclSuccess)
        *rank = -1;
    return d;
}

/* An NCCL collective `name`; `root` is the root rank of a rooted one (-1:
 * none); is_root, in the checked arguments: this rank is the root (or the
 * rank is unknown), so a root-only buffer is checked. */
#define NCCL_HOOK(name, params, args, root, ...)                                    \
    LIB_HOOK(ncclResult_t, , name, params, args, ncclSystemError, ncclSuccess,       \
             (int rank_; int d_ = nccl_device(comm, &rank_);                         \
              int is_root = (root) < 0 || rank_ < 0 || rank_ == (root); (void)is_root; \
              struct dc_lib_arg a[] = { __VA_ARGS__ };                               \
              lib_check(#name, d_, P(stream), a, NARGS(a))))

NCCL_HOOK(ncclAllReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclBroadcast,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", is_root ? sendbuff : NULL), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclBcast,
    (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream),
    (buff, count, datatype, root, comm, stream), -1,
    ARG("buff", buff))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, root, comm, stream), root,
    ARG("sendbuff", sendbuff), ARG("recvbuff", is_root ? recvbuff : NULL))
NCCL_HOOK(ncclAllGather,
    (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, sendcount, datatype, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclReduceScatter,
    (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, recvcount, datatype, op, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclAlltoAll,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclGather,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", sendbuff), ARG("recvbuff", is_root ? recvbuff : NULL))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclScatter,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", is_root ? sendbuff : NULL), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclSend,
    (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (sendbuff, count, datatype, peer, comm, stream), -1,
    ARG("sendbuff", sendbuff))
NCCL_HOOK(ncclRecv,
    (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (recvbuff, count, datatype, peer, comm, stream), -1,
    ARG("recvbuff", recvbuff))

/* --- cuFFT ------------------------------------------------------------------------ */

/* A plan runs on the device current when it was made (cuFFT makes a
 * single-GPU plan's kernels and work area there), or the one
 * cufftXtSetGPUs named; a multi-GPU plan takes descriptors, not device
 * pointers: not checked. */
/* A plan's key: its number in version lib_v's cuFFT (both number plans
 * from 1). */
#define FFT_KEY(plan, lib_v) ((uint64_t)(unsigned)(plan) | (uint64_t)(lib_v) << 32)

static void fft_made(int lib_v, cufftHandle plan)
{
    if (!dc_enter())
        return;
    int d = dc_current_device();
    if (d >= 0 && !dc_libh_get(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v), NULL))    /* cufftXtSetGPUs said */
        dc_libh_set(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v), (uint64_t)d);
    dc_leave();
}

/* The device plan's calls run on: its own, else its stream's, else the
 * current one; -1 for a multi-GPU plan.  *stream: cufftSetStream's. */
static int fft_device(int lib_v, cufftHandle plan, uintptr_t *stream)
{
    uint64_t v, s = 0;
    uint64_t key = FFT_KEY(plan, lib_v);
    dc_libh_get(DC_LIBH_CUFFT_STREAM, key, &s);
    *stream = (uintptr_t)s;
    if (dc_libh_get(DC_LIBH_CUFFT, key, &v))
        return v == DC_LIBH_MULTI ? -1 : (int)v;
    return dc_stream_device((CUstream)(uintptr_t)s);
}

static void fft_check(int lib_v, const char *api, cufftHandle plan, const char *in_name, const void *in,
                      const char *out_name, const void *out)
{
    uintptr_t stream;
    int d = fft_device(lib_v, plan, &stream);
    struct dc_lib_arg a[] = { ARG(in_name, in), ARG(out_name, out) };
    lib_check(api, d, stream, a, NARGS(a));
}

/* The work area is checked where the program hands it over (made after the
 * plan, as cuFFT requires): once, at the line that chose it. */
static void fft_work_area(int lib_v, cufftHandle plan, void *workArea)
{
    uintptr_t stream;
    int d = fft_device(lib_v, plan, &stream);
    struct dc_lib_arg a[] = { ARG("workArea", workArea) };
    dc_check_libcall("cufftSetWorkArea", d, stream, a, NARGS(a));  /* no work of its own: never synchronised */
}

#define FFT_PLAN_HOOK(name, params, args, planv)                                    \
    LIB_BODY(cufftResult, name, params)                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return lib_missing(#name), CUFFT_INTERNAL_ERROR;                        \
        cufftResult r = real args;                                                  \
        if (r == CUFFT_SUCCESS)                                                     \
            fft_made(lib_v, planv);                                                 \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cufftResult, CUFFTAPI, name, params, args)
FFT_PLAN_HOOK(cufftPlan1d, (cufftHandle *plan, int nx, cufftType type, int batch), (plan, nx, type, batch), *plan)
FFT_PLAN_HOOK(cufftPlan2d, (cufftHandle *plan, int nx, int ny, cufftType type), (plan, nx, ny, type), *plan)
FFT_PLAN_HOOK(cufftPlan3d, (cufftHandle *plan, int nx, int ny, int nz, cufftType type), (plan, nx, ny, nz, type),
              *plan)
FFT_PLAN_HOOK(cufftPlanMany,
    (cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
     cufftType type, int batch),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch), *plan)
FFT_PLAN_HOOK(cufftMakePlan1d, (cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize),
              (plan, nx, type, batch, workSize), plan)
FFT_PLAN_HOOK(cufftMakePlan2d, (cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize),
              (plan, nx, ny, type, workSize), plan)
FFT_PLAN_HOOK(cufftMakePlan3d, (cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize),
              (plan, nx, ny, nz, type, workSize), plan)
FFT_PLAN_HOOK(cufftMakePlanMany,
    (cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
     cufftType type, int batch, size_t *workSize),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize), plan)
FFT_PLAN_HOOK(cufftMakePlanMany64,
    (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
     long long int idist, long long int *onembed, long long int ostride, long long int odist, cufftType type,
     long long int batch, size_t *workSize),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize), plan)
FFT_PLAN_HOOK(cufftXtMakePlanMany,
    (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
     long long int idist, cudaDataType inputtype, long long int *onembed, long long int ostride,
     long long int odist, cudaDataType outputtype, long long int batch, size_t *workSize,
     cudaDataType executiontype),
    (plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype, batch, workSize,
     executiontype), plan)

/* The hooks that only remember what a plan was given (guard held for it). */
#define FFT_NOTE_HOOK(name, params, args, note)                                     \
    LIB_BODY(cufftResult, name, params)                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return lib_missing(#name), CUFFT_INTERNAL_ERROR;                        \
        cufftResult r = real args;                                                  \
        if (r == CUFFT_SUCCESS && dc_enter()) {                                     \
            note;                                                                   \
            dc_leave();                                                             \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cufftResult, CUFFTAPI, name, params, args)
FFT_NOTE_HOOK(cufftXtSetGPUs, (cufftHandle handle, int nGPUs, int *whichGPUs), (handle, nGPUs, whichGPUs),
              dc_libh_set(DC_LIBH_CUFFT, FFT_KEY(handle, lib_v),
                          nGPUs > 1 ? DC_LIBH_MULTI : (uint64_t)(whichGPUs ? whichGPUs[0] : 0)))
FFT_NOTE_HOOK(cufftSetStream, (cufftHandle plan, cudaStream_t stream), (plan, stream),
              dc_libh_set(DC_LIBH_CUFFT_STREAM, FFT_KEY(plan, lib_v), P(stream)))
FFT_NOTE_HOOK(cufftSetWorkArea, (cufftHandle plan, void *workArea), (plan, workArea),
              fft_work_area(lib_v, plan, workArea))
FFT_NOTE_HOOK(cufftDestroy, (cufftHandle plan), (plan),
              (dc_libh_forget(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v)),
               dc_libh_forget(DC_LIBH_CUFFT_STREAM, FFT_KEY(plan, lib_v))))

#define FFT_EXEC_HOOK(name, params, args, in_name, in, out_name, out)               \
    LIB_HOOK(cufftResult, CUFFTAPI, name, params, args, CUFFT_INTERNAL_ERROR, CUFFT_SUCCESS, \
             (fft_check(lib_v, #name, plan, in_name, in, out_name, out)))
FFT_EXEC_HOOK(cufftExecC2C, (cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction),
              (plan, idata, odata, direction), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecR2C, (cufftHandle plan, cufftReal *idata, cufftComplex *odata), (plan, idata, odata),
              "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecC2R, (cufftHandle plan, cufftComplex *idata, cufftReal *odata), (plan, idata, odata),
              "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecZ2Z, (cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction),
              (plan, idata, odata, direction), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecD2Z, (cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata),
              (plan, idata, odata), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecZ2D, (cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata),
              (plan, idata, odata), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftXtExec, (cufftHandle plan, void *input, void *output, int direction),
              (plan, input, output, direction), "input", input, "output", output)

/* --- cuDNN ---------------------------------------------------------------------- */

/* The device a handle's calls run on (handle_device). */
static int dnn_device(cudnnHandle_t h, uintptr_t *stream)
{
    cudaStream_t s = NULL;
    __typeof__(&cudnnGetStream) gs = REAL(cudnnGetStream);
    int got = gs && gs(h, &s) == CUDNN_STATUS_SUCCESS;
    return handle_device(DC_LIBH_CUDNN, P(h), got, s, stream);
}

static void dnn_check(cudnnHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    uintptr_t stream;
    int d = dnn_device(h, &stream);
    lib_check(api, d, stream, a, n);
}

LIB_BODY(cudnnStatus_t, cudnnCreate, (cudnnHandle_t *handle))
{
    LIB_REAL(cudnnCreate);
    if (!real)
        return lib_missing("cudnnCreate"), CUDNN_STATUS_NOT_INITIALIZED;
    cudnnStatus_t r = real(handle);
    if (r == CUDNN_STATUS_SUCCESS && handle && dc_enter()) {
        int d = dc_current_device();
        if (d >= 0)
            dc_libh_set(DC_LIBH_CUDNN, P(*handle), (uint64_t)d);
        dc_leave();
    }
    return r;
}
LIB_ENTRIES(cudnnStatus_t, CUDNNWINAPI, cudnnCreate, (cudnnHandle_t *handle), (handle))

LIB_DESTROY_HOOK(cudnnStatus_t, CUDNNWINAPI, cudnnDestroy, cudnnHandle_t, DC_LIBH_CUDNN,
                 CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_SUCCESS)

/* The variant pack's data pointers (by unique id) and workspace.  A tensor
 * marked CUDNN_ATTR_TENSOR_IS_BY_VALUE (SDPA's scale) is a host pointer,
 * and the variant pack does not say which: host memory is legal for every
 * data pointer, another device's memory never is.  At most VP_MAX. */
#define VP_MAX 64
static void dnn_variant_pack(cudnnHandle_t handle, cudnnBackendDescriptor_t vp)
{
    __typeof__(&cudnnBackendGetAttribute) get = REAL(cudnnBackendGetAttribute);
    if (!get)
        return;
    int64_t uids[VP_MAX], n = 0, m = 0, nw = 0;
    void *ptrs[VP_MAX], *ws = NULL;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, VP_MAX, &n, uids) != CUDNN_STATUS_SUCCESS)
        n = 0;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, VP_MAX, &m, ptrs) != CUDNN_STATUS_SUCCESS)
        m = 0;
    if (get(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &nw, &ws) != CUDNN_STATUS_SUCCESS || nw != 1)
        ws = NULL;
    n = n < m ? n : m;
    n = n < 0 ? 0 : n > VP_MAX ? VP_MAX : n;
    struct dc_lib_arg a[VP_MAX + 1];
    char names[VP_MAX][64];
    unsigned k = 0;
    a[k++] = (struct dc_lib_arg)ARG("CUDNN_ATTR_VARIANT_PACK_WORKSPACE", ws);
    for (int64_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=%lld]", (long long)uids[i]);
        a[k++] = (struct dc_lib_arg){ .name = names[i], .ptr = P(ptrs[i]), .host_ok = 1 };
    }
    dnn_check(handle, "cudnnBackendExecute", a, k);
}

LIB_HOOK(cudnnStatus_t, CUDNNWINAPI, cudnnBackendExecute,
    (cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan, cudnnBackendDescriptor_t variantPack),
    (handle, executionPlan, variantPack), CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_SUCCESS,
    (dnn_variant_pack(handle, variantPack)))

/* The legacy convolutions: alpha and beta are host memory (cuDNN's scaling
 * parameters always are); the tensors and the workspace device memory. */
#define DNN_HOOK(name, params, args, ...)                                           \
    LIB_HOOK(cudnnStatus_t, CUDNNWINAPI, name, params, args, CUDNN_STATUS_NOT_INITIALIZED,    \
             CUDNN_STATUS_SUCCESS,                                                  \
             (struct dc_lib_arg a[] = { __VA_ARGS__ }; dnn_check(handle, #name, a, NARGS(a))))
DNN_HOOK(cudnnConvolutionForward,
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
     const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnTensorDescriptor_t yDesc, void *y),
    (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc, y),
    ARG("x", x), ARG("w", w), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("y", y))
DNN_HOOK(cudnnConvolutionBackwardData,
    (cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc, const void *w,
     const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionBwdDataAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnTensorDescriptor_t dxDesc, void *dx),
    (handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dxDesc, dx),
    ARG("w", w), ARG("dy", dy), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("dx", dx))
DNN_HOOK(cudnnConvolutionBackwardFilter,
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
     const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnConvolutionDescriptor_t convDesc,
     cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
     const cudnnFilterDescriptor_t dwDesc, void *dw),
    (handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dwDesc, dw),
    ARG("x", x), ARG("dy", dy), ARG("workSpace", workSpaceSizeInBytes ? workSpace : NULL),
    ARG("dw", dw))

/* The RNN calls (cudnn_adv.h; cuDNN's documentation: every buffer is GPU
 * memory, devSeqLengths too).  hx, cx, hy, cy (and their gradients) may be
 * NULL (zeros, not saved; cx/cy are LSTM's only), reserveSpace NULL in
 * inference: a 0 pointer is never checked; a space is checked when its size
 * is not 0. */
DNN_HOOK(cudnnRNNForward,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t xDesc, const void *x, cudnnRNNDataDescriptor_t yDesc, void *y,
     cudnnTensorDescriptor_t hDesc, const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx,
     void *cy, size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize, void *workSpace,
     size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, fwdMode, devSeqLengths, xDesc, x, yDesc, y, hDesc, hx, hy, cDesc, cx, cy, weightSpaceSize,
     weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("x", x), ARG("y", y), ARG("hx", hx), ARG("hy", hy), ARG("cx", cx),
    ARG("cy", cy), SPACE(weightSpace, weightSpaceSize), SPACE(workSpace, workSpaceSize),
    SPACE(reserveSpace, reserveSpaceSize))
DNN_HOOK(cudnnRNNBackwardData_v8,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy, cudnnRNNDataDescriptor_t xDesc, void *dx,
     cudnnTensorDescriptor_t hDesc, const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
     const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize, const void *weightSpace,
     size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, devSeqLengths, yDesc, y, dy, xDesc, dx, hDesc, hx, dhy, dhx, cDesc, cx, dcy, dcx,
     weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("y", y), ARG("dy", dy), ARG("dx", dx), ARG("hx", hx), ARG("dhy", dhy),
    ARG("dhx", dhx), ARG("cx", cx), ARG("dcy", dcy), ARG("dcx", dcx), SPACE(weightSpace, weightSpaceSize),
    SPACE(workSpace, workSpaceSize), SPACE(reserveSpace, reserveSpaceSize))
DNN_HOOK(cudnnRNNBackwardWeights_v8,
    (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad, const int32_t devSeqLengths[],
     cudnnRNNDataDescriptor_t xDesc, const void *x, cudnnTensorDescriptor_t hDesc, const void *hx,
     cudnnRNNDataDescriptor_t yDesc, const void *y, size_t weightSpaceSize, void *dweightSpace,
     size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
    (handle, rnnDesc, addGrad, devSeqLengths, xDesc, x, hDesc, hx, yDesc, y, weightSpaceSize, dweightSpace,
     workSpaceSize, workSpace, reserveSpaceSize, reserveSpace),
    ARG("devSeqLengths", devSeqLengths), ARG("x", x), ARG("hx", hx), ARG("y", y),
    SPACE(dweightSpace, weightSpaceSize), SPACE(workSpace, workSpaceSize), SPACE(reserveSpace, reserveSpaceSize))

/* --- cuSOLVER (dense) ---------------------------------------------------------- */

/* The device a handle's calls run on (handle_device); cuSOLVER calls cuBLAS
 * inside (its handle's cuBLAS handle): the outermost call is checked. */
static void solver_check(cusolverDnHandle_t h, const char *api, const struct dc_lib_arg *a, unsigned n)
{
    cudaStream_t s = NULL;
    uintptr_t stream;
    __typeof__(&cusolverDnGetStream) gs = REAL(cusolverDnGetStream);
    int got = gs && gs(h, &s) == CUSOLVER_STATUS_SUCCESS;
    int d = handle_device(DC_LIBH_CUSOLVER, P(h), got, s, &stream);
    lib_check(api, d, stream, a, n);
}

LIB_CREATE_HOOK(cusolverStatus_t, CUSOLVERAPI, cusolverDnCreate, cusolverDnHandle_t, DC_LIBH_CUSOLVER,
                CUSOLVER_STATUS_NOT_INITIALIZED, CUSOLVER_STATUS_SUCCESS)
LIB_DESTROY_HOOK(cusolverStatus_t, CUSOLVERAPI, cusolverDnDestroy, cusolverDnHandle_t, DC_LIBH_CUSOLVER,
                 CUSOLVER_STATUS_NOT_INITIALIZED, CUSOLVER_STATUS_SUCCESS)

/* Every data argument is device memory (A, B, the factors, pivots,
 * eigen/singular values and vectors, the workspace, the info words); a
 * workspace of size 0 is not checked, nor vectors the job does not
 * compute (gesvdj's U, V unless jobz is CUSOLVER_EIG_MODE_VECTOR; Xgesvd's
 * U, VT unless jobu, jobvt is 'A' or 'S').  The X API's bufferOnHost is
 * host memory by design: never checked. */
#define SOLVER_HOOK(name, params, args, ...)                                        \
    LIB_HOOK(cusolverStatus_t, CUSOLVERAPI, name, params, args, CUSOLVER_STATUS_NOT_INITIALIZED, \
             CUSOLVER_STATUS_SUCCESS,                                               \
             (struct dc_lib_arg a[] = { __VA_ARGS__ }; solver_check(handle, #name, a, NARGS(a))))
#define SOLVER_POTRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A, int lda, T *Workspace, int Lwork,  \
         int *devInfo),                                                             \
        (handle, uplo, n, A, lda, Workspace, Lwork, devInfo),                       \
        ARG("A", A), SPACE(Workspace, Lwork), ARG("devInfo", devInfo))
SOLVER_POTRF(cusolverDnSpotrf, float)
SOLVER_POTRF(cusolverDnDpotrf, double)
#define SOLVER_POTRS(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const T *A, int lda, T *B, int ldb, \
         int *devInfo),                                                             \
        (handle, uplo, n, nrhs, A, lda, B, ldb, devInfo),                           \
        ARG("A", A), ARG("B", B), ARG("devInfo", devInfo))
SOLVER_POTRS(cusolverDnSpotrs, float)
SOLVER_POTRS(cusolverDnDpotrs, double)
/* devIpiv NULL: no pivoting */
#define SOLVER_GETRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, T *A, int lda, T *Workspace, int *devIpiv, int *devInfo), \
        (handle, m, n, A, lda, Workspace, devIpiv, devInfo),                        \
        ARG("A", A), ARG("Workspace", Workspace), ARG("devIpiv", devIpiv), ARG("devInfo", devInfo))
SOLVER_GETRF(cusolverDnSgetrf, float)
SOLVER_GETRF(cusolverDnDgetrf, double)
#define SOLVER_GETRS(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *A, int lda,  \
         const int *devIpiv, T *B, int ldb, int *devInfo),                          \
        (handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo),                 \
        ARG("A", A), ARG("devIpiv", devIpiv), ARG("B", B), ARG("devInfo", devInfo))
SOLVER_GETRS(cusolverDnSgetrs, float)
SOLVER_GETRS(cusolverDnDgetrs, double)
#define SOLVER_GEQRF(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, T *A, int lda, T *TAU, T *Workspace, int Lwork, int *devInfo), \
        (handle, m, n, A, lda, TAU, Workspace, Lwork, devInfo),                     \
        ARG("A", A), ARG("TAU", TAU), SPACE(Workspace, Lwork), ARG("devInfo", devInfo))
SOLVER_GEQRF(cusolverDnSgeqrf, float)
SOLVER_GEQRF(cusolverDnDgeqrf, double)
#define SOLVER_ORGQR(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, int m, int n, int k, T *A, int lda, const T *tau, T *work, int lwork,  \
         int *info),                                                                \
        (handle, m, n, k, A, lda, tau, work, lwork, info),                          \
        ARG("A", A), ARG("tau", tau), SPACE(work, lwork), ARG("info", info))
SOLVER_ORGQR(cusolverDnSorgqr, float)
SOLVER_ORGQR(cusolverDnDorgqr, double)
#define SOLVER_SYEVD(name, T)                                                       \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda, T *W, \
         T *work, int lwork, int *info),                                            \
        (handle, jobz, uplo, n, A, lda, W, work, lwork, info),                      \
        ARG("A", A), ARG("W", W), SPACE(work, lwork), ARG("info", info))
SOLVER_SYEVD(cusolverDnSsyevd, float)
SOLVER_SYEVD(cusolverDnDsyevd, double)
#define GESVDJ_ARGS                                                                 \
    ARG("A", A), ARG("S", S), ARG("U", jobz == CUSOLVER_EIG_MODE_VECTOR ? U : NULL),  \
    ARG("V", jobz == CUSOLVER_EIG_MODE_VECTOR ? V : NULL), SPACE(work, lwork), ARG("info", info)
#define SOLVER_GESVDJ(name, T)                                                      \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, int econ, int m, int n, T *A, int lda, T *S, T *U, \
         int ldu, T *V, int ldv, T *work, int lwork, int *info, gesvdjInfo_t params), \
        (handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params), GESVDJ_ARGS)
SOLVER_GESVDJ(cusolverDnSgesvdj, float)
SOLVER_GESVDJ(cusolverDnDgesvdj, double)
#define SOLVER_GESVDJ_BATCHED(name, T)                                              \
    SOLVER_HOOK(name,                                                               \
        (cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, T *A, int lda, T *S, T *U, int ldu, \
         T *V, int ldv, T *work, int lwork, int *info, gesvdjInfo_t params, int batchSize),  \
        (handle, jobz, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params, batchSize), GESVDJ_ARGS)
SOLVER_GESVDJ_BATCHED(cusolverDnSgesvdjBatched, float)
SOLVER_GESVDJ_BATCHED(cusolverDnDgesvdjBatched, double)

/* The 64-bit X API */
#define DEV_BUFFER SPACE(bufferOnDevice, workspaceInBytesOnDevice)
SOLVER_HOOK(cusolverDnXpotrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
     void *A, int64_t lda, cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
     void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, uplo, n, dataTypeA, A, lda, computeType, bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost,
     workspaceInBytesOnHost, info),
    ARG("A", A), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXpotrs,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n, int64_t nrhs,
     cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType dataTypeB, void *B, int64_t ldb, int *info),
    (handle, params, uplo, n, nrhs, dataTypeA, A, lda, dataTypeB, B, ldb, info),
    ARG("A", A), ARG("B", B), ARG("info", info))
SOLVER_HOOK(cusolverDnXgetrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
     int64_t lda, int64_t *ipiv, cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
     void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, m, n, dataTypeA, A, lda, ipiv, computeType, bufferOnDevice, workspaceInBytesOnDevice,
     bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("ipiv", ipiv), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXgetrs,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cublasOperation_t trans, int64_t n, int64_t nrhs,
     cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv, cudaDataType dataTypeB, void *B,
     int64_t ldb, int *info),
    (handle, params, trans, n, nrhs, dataTypeA, A, lda, ipiv, dataTypeB, B, ldb, info),
    ARG("A", A), ARG("ipiv", ipiv), ARG("B", B), ARG("info", info))
SOLVER_HOOK(cusolverDnXgeqrf,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
     int64_t lda, cudaDataType dataTypeTau, void *tau, cudaDataType computeType, void *bufferOnDevice,
     size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, m, n, dataTypeA, A, lda, dataTypeTau, tau, computeType, bufferOnDevice,
     workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("tau", tau), DEV_BUFFER, ARG("info", info))
SOLVER_HOOK(cusolverDnXsyevd,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
     cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeW, void *W, cudaDataType computeType,
     void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
     int *info),
    (handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W, computeType, bufferOnDevice,
     workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("W", W), DEV_BUFFER, ARG("info", info))
#define SVD_VECTORS(job) ((job) == 'A' || (job) == 'S')
SOLVER_HOOK(cusolverDnXgesvd,
    (cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu, signed char jobvt, int64_t m, int64_t n,
     cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeS, void *S, cudaDataType dataTypeU, void *U,
     int64_t ldu, cudaDataType dataTypeVT, void *VT, int64_t ldvt, cudaDataType computeType, void *bufferOnDevice,
     size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost, int *info),
    (handle, params, jobu, jobvt, m, n, dataTypeA, A, lda, dataTypeS, S, dataTypeU, U, ldu, dataTypeVT, VT, ldvt,
     computeType, bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info),
    ARG("A", A), ARG("S", S), ARG("U", SVD_VECTORS(jobu) ? U : NULL), ARG("VT", SVD_VECTORS(jobvt) ? VT : NULL),
    DEV_BUFFER, ARG("info", info))

/* --- symbol versions ---------------------------------------------------------------- */

/* Each hook of a versioned library is exported as name@@<its version>
 * (DC_SYMVER_AS, preload/export.h); NCCL's are unversioned (exports.map.in lists
 * them).  A library's older version: an assembler macro per library,
 * dc_old_<id> name, exports lib_old_<name> as name@<DC_LIBOLD's node> the
 * same way (an alias label dc_libold_<name>; DC_SYMVER_AS cannot be used
 * inside an assembler macro); it does nothing for a library without one
 * (each DC_LIB defines it empty, its DC_LIBOLD redefines it). */
#define LIB_SYMVER(name, version) DC_SYMVER_AS(name, name, "lib", "@@" version)
#define SYMVER_CUBLAS(name) LIB_SYMVER(name, "libcublas.so.13")
#define SYMVER_CUBLASLT(name) LIB_SYMVER(name, "libcublasLt.so.13")
#define SYMVER_NCCL(name)
#define SYMVER_CUFFT(name) LIB_SYMVER(name, "libcufft.so.12")
#define SYMVER_CUDNN(name) LIB_SYMVER(name, "libcudnn.so.9")
#define SYMVER_CUSOLVER(name) LIB_SYMVER(name, "libcusolver.so.12")
#define DC_LIB(id, soname, version) __asm__(".macro dc_old_" #id " name\n.endm\n");
#include "preload/hooks_lib.def"
#define DC_LIBOLD(id, node)                                                         \
    __asm__(".purgem dc_old_" #id "\n"                                           \
            ".macro dc_old_" #id " name\n"                                       \
            ".globl dc_libold_\\name\n"                                           \
            ".set dc_libold_\\name, lib_old_\\name\n"                             \
            ".symver dc_libold_\\name, \\name@" #node "\n"                        \
            ".endm\n");
#include "preload/hooks_lib.def"
#define DC_LIBFN(id, name) SYMVER_##id(name) __asm__("dc_old_" #id " " #name "\n");
#include "preload/hooks_lib.def"
