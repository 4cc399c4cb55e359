/* launch: the launch description, and sync=1 (see launch.h).
 *
 * Report mode never changes the arguments or the result; mode=migrate runs
 * the launch with a private, rewritten copy of them (core/verdict/migrate.c), and
 * sync=1 synchronises the launch stream after it (dc_launch_end). */
#include "core/verdict/launch.h"
#include "core/verdict/libcall.h"
#include "core/verdict/capture.h"
#include "core/verdict/verdict.h"
#include "core/verdict/check.h"
#include "core/verdict/lmemo.h"
#include "core/base/cudacall.h"
#include "core/kernel/kernels.h"
#include "core/verdict/migrate.h"
#include "core/base/options.h"
#include "core/verdict/record.h"
#include "report/stats.h"

#include <stdlib.h>
#include <string.h>

/* Arguments packed in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE). */
static void parse_extra(void **extra, const void **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    for (int i = 0; extra && i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            *buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
            *size = *(const size_t *)extra[i + 1];
        else if (extra[i] != CU_LAUNCH_PARAM_BUFFER_POINTER && extra[i] != CU_LAUNCH_PARAM_BUFFER_SIZE)
            break;                              /* unknown key: stop reading */
    }
    if (!*buf)
        *size = 0;
}

enum { K_FUNCTION = DC_KEY_FUNCTION, K_KERNEL = DC_KEY_KERNEL, K_OPAQUE = DC_KEY_OPAQUE,
       K_UNREAD = DC_KEY_UNREAD };       /* what `key` is */

/* Describes one launch and checks it, and under mode=migrate moves what must
 * be moved (then L->args / L->extra are the rewritten arguments).  Guard
 * held.  current_device >= 0 for runtime launches (stream_mismatch); device <
 * 0: ask the stream.  has_stream: a launch into `stream` (graph nodes have
 * none).  no_rewrite: why the arguments cannot be rewritten, or NULL.  An
 * opaque key (a host stub the runtime could not resolve) or an unread one (a
 * launch the path saw without its parameters) is checked with an unknown
 * layout, so the launch is counted unchecked rather than skipped.
 * Always pair with dc_launch_end(). */
static inline __attribute__((always_inline)) void
launch_begin(struct dc_launch_state *L, int path, const char *api, const void *key, int kind, int device,
             int current_device, CUstream stream, int has_stream, const char *no_rewrite, void **args, void **extra)
{
    /* the hot path of report mode: no more than the fields it needs set */
    uint64_t t0 = DC_STATS_CHECK_BEGIN();
    int modes = dc_opt.mode == DC_MODE_MIGRATE || dc_opt.sync;
    L->modes = modes;
    if (modes) {
        L->moves.n = L->moves.cap = 0;
        L->moves.v = NULL;
        L->captured = L->pre_error = 0;
        L->nosync = NULL;
        L->mig = NULL;
        L->nmig = 0;
        L->ctx = NULL;
        L->ctx_retained = 0;
        L->dflt_ctx = NULL;
        L->argcopy = NULL;
        L->newargs = L->newextra = NULL;
    }
    L->k = NULL;
    L->args = args;
    L->extra = extra;
    L->has_stream = has_stream;
    L->stream = stream;
    if (!key) {
        memset(&L->l, 0, sizeof L->l);
        if (t0)
            dc_stats_nest--;            /* not a check: not timed */
        return;
    }
    if (kind == K_OPAQUE || kind == K_UNREAD) {
        /* a kernel of unknown layout (memset), which says why */
        memset(&L->tmp, 0, sizeof L->tmp);
        L->tmp.key = key;
        if (kind == K_OPAQUE) {
            L->tmp.unchecked = "the runtime found no function for the host stub (cudaGetFuncBySymbol)";
        } else {
            L->tmp.unchecked = "CUPTI's record of this runtime launch carries no parameters, and no driver "
                               "launch callback came inside it";
            if (key != (const void *)api)
                L->tmp.name = strdup(key);      /* the kernel's name (NULL without memory: unnamed) */
        }
        L->k = &L->tmp;
    } else if (!(L->k = dc_kernel_lookup(key, kind == K_KERNEL, &L->tmp))) {
        L->k = &L->tmp;
    }
    if (device >= 0) {
    } else if (path == DC_PATH_INTERPOSE && (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)) {
        device = dc_current_device_tracked();   /* the interposer's default stream: the thread's cached device */
    } else if (__builtin_expect(dc_libcall_active == 1, 0) && stream && (uintptr_t)stream == dc_libcover.stream &&
               dc_libcover.n && stream != CU_STREAM_LEGACY && stream != CU_STREAM_PER_THREAD) {
        device = dc_libcover.device;    /* a kernel of the checked library call, into its stream (libcall.h) */
    } else {
        device = dc_stream_device(stream);
    }

    const struct dc_kernel *k = L->k;
    /* this thread's last clean launch again (core/verdict/lmemo.h): counted, nothing to describe
     * (dc_launch_end reads only L->modes and L->k) */
    if (!modes && args && device >= 0 && !__atomic_load_n(&dc_record_on, __ATOMIC_RELAXED) &&
        dc_lmemo_again(key, k->pwords, device, current_device, path, args)) {
        DC_STATS_CHECK_END(DC_T_LAUNCH, t0);
        return;
    }
    struct dc_launch *l = &L->l;
    /* every field set below or here: no memset on the hot path */
    l->args = NULL;
    l->argbuf = NULL;
    l->argbuf_size = 0;
    l->no_rewrite = NULL;
    l->moves = NULL;
    l->path = (enum dc_path)path;
    l->kernel = k->name;
    l->kernel_hash = k->name_hash;
    l->kernel_key = key;
    l->api = api;
    l->device = device;
    l->current_device = current_device;
    l->stream = (uintptr_t)stream;
    l->pageable_ok = -1;                 /* asked only for host memory */
    l->params = k->params;
    l->nparams = k->nparams;
    l->pwords = k->pwords;
    l->npwords = k->npwords;
    l->words_planned = k->planned;
    l->unchecked = k->unchecked;
    l->origin = k->origin;
    /* An unknown launch device would make every operand look foreign:
     * count the launch unchecked instead of guessing. */
    l->layout_known = k->layout_known && device >= 0;
    if (args) {
        l->args = args;
    } else if (extra) {
        parse_extra(extra, &l->argbuf, &l->argbuf_size);
        /* a layout of no parameters, contradicted by a packed buffer: the
         * layout is not believed, the buffer's words are scanned */
        if (l->layout_known && !k->nparams && l->argbuf && l->argbuf_size) {
            l->layout_known = 0;
            l->unchecked = "its layout says no parameters, but the launch passed a packed argument buffer";
        }
    } else if (k->nparams) {
        l->layout_known = 0;                    /* parameters but no arguments given */
        l->unchecked = "the launch passed no arguments";
    }
    if (__builtin_expect(__atomic_load_n(&dc_record_on, __ATOMIC_RELAXED), 0))
        dc_record_launch(l, k);         /* record_launches: the arguments as the program passed them */
    if (!modes) {
        (void)dc_check_launch(l);
        DC_STATS_CHECK_END(DC_T_LAUNCH, t0);
        return;
    }
    if (stream == NULL && api && strstr(api, "_ptsz"))
        L->stream = CU_STREAM_PER_THREAD;       /* our own stream calls name it */
    /* A runtime launch into a default stream names the stream of the
     * context the runtime makes current at the launch: on a thread that has
     * none current yet, our queries ask that (primary) context, current only
     * for them (the runtime sets its own at the launch). */
    CUcontext popped, cur = NULL;
    int pushed = 0;
    if (modes && has_stream && device >= 0 && current_device >= 0 &&
        (L->stream == NULL || L->stream == CU_STREAM_LEGACY || L->stream == CU_STREAM_PER_THREAD) &&
        DC_CALL(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && !cur) {
        if (DC_CALL(cuDevicePrimaryCtxRetain, &L->dflt_ctx, (CUdevice)device) != CUDA_SUCCESS)
            L->dflt_ctx = NULL;
        pushed = L->dflt_ctx && dc_push_ctx(L->dflt_ctx) == CUDA_SUCCESS;
    }
    if (has_stream && device >= 0 && modes)
        L->captured = dc_stream_captured(L->stream);
    /* another capture in the process that our synchronisations would
     * invalidate (core/verdict/capture.h) */
    const char *busy = NULL;
    if (dc_opt.mode == DC_MODE_MIGRATE) {
        if (no_rewrite)
            l->no_rewrite = no_rewrite;
        else if (L->captured)
            l->no_rewrite = DC_NO_REWRITE_CAPTURE;
        else if (device >= 0 && (busy = dc_capture_conflict(L->stream, 1)) != NULL)
            l->no_rewrite = busy;
        else if (device >= 0)
            l->moves = &L->moves;
    }
    /* a launch inside a library call checked at its API: the call is
     * synchronised as a whole (core/verdict/libcall.h) */
    if (dc_opt.sync && has_stream && device >= 0 && !L->captured && !dc_libcall_active) {
        L->nosync = dc_capture_conflict(L->stream, 0);
        if (!L->nosync)
            L->pre_error = DC_CALL(cuStreamSynchronize, L->stream) != CUDA_SUCCESS;
    }
    if (pushed)
        dc_pop_ctx(&popped);
    (void)dc_check_launch(l);
    if (L->moves.n) {
        dc_migrate(L);
        dc_check_moves_report(l, &L->moves);
    }
    DC_STATS_CHECK_END(DC_T_LAUNCH, t0);
}

/* sync=1 left a launch unsynchronised because of another capture: one line
 * the first time, then one per launch at verbosity 2. */
static void note_nosync(const struct dc_launch_state *L)
{
    static int said;
    const char *k = L->l.kernel ? L->l.kernel : "a kernel";
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        dc_log("sync=1: launch of %s on cuda:%d checked but not synchronised: %s (said once; verbosity=2 "
               "names every such launch)", k, L->l.device, L->nosync);
    else
        dc_logv(2, "sync=1: launch of %s on cuda:%d checked but not synchronised: %s", k, L->l.device, L->nosync);
}

/* After the real launch (launched: it returned success): copies migrated
 * operands back, and under sync=1 synchronises the stream and attributes an
 * asynchronous error to this launch.  Frees everything of L. */
static void launch_end_modes(struct dc_launch_state *L, int launched);
void dc_launch_end(struct dc_launch_state *L, int launched)
{
    if (L->modes)
        launch_end_modes(L, launched);
    if (L->k == &L->tmp)
        dc_kernel_release_tmp(&L->tmp);
}

/* dc_launch_end under mode=migrate or sync=1. */
static void launch_end_modes(struct dc_launch_state *L, int launched)
{
    if (L->nmig)
        dc_migrate_back(L, launched);
    if (L->k && dc_opt.sync && launched && L->has_stream && L->l.device >= 0 && !L->captured &&
        !L->pre_error && !dc_libcall_active) {
        /* a capture may have begun on another thread since launch_begin */
        if (!L->nosync)
            L->nosync = dc_capture_conflict(L->stream, 0);
        if (L->nosync) {
            note_nosync(L);
        } else {
            CUresult r = DC_CALL(cuStreamSynchronize, L->stream);
            if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND)
                dc_check_async_error(&L->l, dc_err_name(r));
        }
    }
    if (L->ctx_retained)
        DC_CALL(cuDevicePrimaryCtxRelease_v2, (CUdevice)L->l.device);
    if (L->dflt_ctx)
        DC_CALL(cuDevicePrimaryCtxRelease_v2, (CUdevice)L->l.device);
    if (L->mig || L->moves.v) {         /* only after a migration */
        free(L->mig);
        free(L->moves.v);
        free(L->argcopy);
        free(L->newargs);
        free(L->newextra);
    }
}

/* A launch checked only, never rewritten nor synchronised (the CUPTI path's
 * parameters are read-only: under mode=migrate check.c reports its operands
 * not migrated, DC_NO_REWRITE_CUPTI, and the launch goes ahead unmodified). */
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra)
{
    struct dc_launch_state L;
    launch_begin(&L, path, api, key, kind, device, current_device, stream, 0, NULL, args, extra);
    dc_launch_end(&L, 0);
}

/* The interposer's driver launches: the launch device is the stream's. */
void dc_launch_begin(struct dc_launch_state *L, const char *api, CUfunction f, CUstream stream, void **args,
                     void **extra)
{
    /* a kernel of a checked library call, as one of its last clean ones
     * (core/verdict/libcall.h): before any of launch_begin's set-up, and
     * not timed (-40 instructions per such launch, bench/libcalls.sh) */
    if (__builtin_expect(dc_libcall_active == 1, 0) && f && args && !dc_opt.sync && dc_opt.mode != DC_MODE_MIGRATE &&
        !__atomic_load_n(&dc_record_on, __ATOMIC_RELAXED) && dc_libcall_launch_again(f, (uintptr_t)stream, args)) {
        L->modes = 0;
        L->k = NULL;
        L->args = args;
        L->extra = extra;
        return;
    }
    launch_begin(L, DC_PATH_INTERPOSE, api, f, K_FUNCTION, -1, -1, stream, 1, NULL, args, extra);
}

/* --- graph kernel nodes: checked when the node is created or changed ------- */

/* The launch device of a node: the context's device when the node names a
 * kernel (CUkernel) and a context; the current context's otherwise (a
 * CUfunction belongs to the current context's module).  A node runs later,
 * from the graph's copy of its arguments: never migrated nor synchronised. */
#define CHECK_NODE(path, api, p)                                                  \
    do {                                                                          \
        struct dc_launch_state L_;                                                \
        int dev_ = (p)->func ? -1 : dc_ctx_device((p)->ctx);                      \
        if (dev_ < 0)                                                             \
            dev_ = dc_current_device();                                           \
        if ((p)->func)                                                            \
            launch_begin(&L_, path, api, (p)->func, K_FUNCTION, dev_, -1, NULL, 0, DC_NO_REWRITE_GRAPH, \
                         (p)->kernelParams, (p)->extra);                          \
        else                                                                      \
            launch_begin(&L_, path, api, (p)->kern, K_KERNEL, dev_, -1, NULL, 0, DC_NO_REWRITE_GRAPH, \
                         (p)->kernelParams, (p)->extra);                          \
        dc_launch_end(&L_, 0);                                                    \
    } while (0)

void dc_launch_check_node(int path, const char *api, const CUDA_KERNEL_NODE_PARAMS *p)
{
    if (p)
        CHECK_NODE(path, api, p);
}

/* The generic node API: only kernel nodes are checked. */
void dc_launch_check_generic_node(int path, const char *api, const CUgraphNodeParams *p)
{
    if (p && p->type == CU_GRAPH_NODE_TYPE_KERNEL)
        CHECK_NODE(path, api, &p->kernel);
}

/* --- runtime launches ----------------------------------------------------------- *
 * The launch device is the device of the stream's context; for the NULL,
 * legacy and per-thread streams, the runtime's current device.  The current
 * device is passed too: a launch into another device's stream is a
 * stream_mismatch. */

/* The runtime's current device, cached per thread (see core/base/cudacall.h): a
 * launch does not ask the runtime again until a hook says it may have
 * changed. */
static __thread struct {
    uint64_t gen;
    int rt, dev;
} tl_rt_dev __attribute__((tls_model("initial-exec")));

static int runtime_current_device(int rt)
{
    uint64_t g = __atomic_load_n(&dc_ctx_gen, __ATOMIC_ACQUIRE);
    if (tl_rt_dev.gen == g && tl_rt_dev.rt == rt && __atomic_load_n(&dc_ctx_tracked, __ATOMIC_RELAXED))
        return tl_rt_dev.dev;
    int dev = -1;
    __typeof__(dc_aux_cudaGetDevice[0]) get = DC_RT_AUX(rt, cudaGetDevice);
    if (!get || get(&dev) != cudaSuccess)
        dev = dc_current_device();
    tl_rt_dev.gen = g;
    tl_rt_dev.rt = rt;
    tl_rt_dev.dev = dev;
    return dev;
}

/* The launch device of a runtime launch into stream s while `cur` is the
 * current device. */
static int runtime_launch_device(int cur, CUstream s)
{
    return (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) ? cur : dc_stream_device(s);
}

/* A host stub -> the CUfunction of the current device (runtime rt's
 * cudaGetFuncBySymbol: the stub is registered with its own runtime);
 * *kind says which it is (K_OPAQUE: the stub itself, none was found). */
static const void *stub_function(int rt, const void *func, int *kind)
{
    cudaFunction_t f = NULL;
    __typeof__(dc_aux_cudaGetFuncBySymbol[0]) get = DC_RT_AUX(rt, cudaGetFuncBySymbol);
    if (!get || get(&f, func) != cudaSuccess)
        f = NULL;
    *kind = f ? K_FUNCTION : K_OPAQUE;
    return f ? (const void *)f : func;
}

/* The interposer's runtime launches: into `stream` while the runtime's
 * current device is the thread's. */
static void begin_runtime(struct dc_launch_state *L, int rt, const char *api, const void *key, int kind,
                          CUstream s, void **args)
{
    int cur = runtime_current_device(rt);
    launch_begin(L, DC_PATH_INTERPOSE, api, key, kind, runtime_launch_device(cur, s), cur, s, 1, NULL, args,
                 NULL);
}

void dc_launch_begin_kernel(struct dc_launch_state *L, int rt, const char *api, CUkernel kernel, CUstream stream,
                            void **args)
{
    begin_runtime(L, rt, api, kernel, K_KERNEL, stream, args);
}

void dc_launch_begin_stub(struct dc_launch_state *L, int rt, const char *api, const void *func, CUstream stream,
                          void **args)
{
    int kind = K_OPAQUE;
    const void *key = func ? stub_function(rt, func, &kind) : NULL;
    begin_runtime(L, rt, api, key, kind, stream, args);
}

/* The CUPTI path's runtime launches: checked only. */
void dc_launch_check_stub(int path, int rt, const char *api, const void *func, int current_device, CUstream stream,
                          void **args)
{
    int kind = K_OPAQUE;
    const void *key = func ? stub_function(rt, func, &kind) : NULL;
    dc_launch_check(path, api, key, kind, runtime_launch_device(current_device, stream), current_device, stream,
                    args, NULL);
}
