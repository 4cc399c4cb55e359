/* Internal state of the simulated driver (libcuda.so.1).  Not installed.
 *
 * Locking: one process-wide mutex (sim_lock/sim_unlock) guards every table
 * and handle below.  Kernel twins, host callbacks and the byte copies of
 * memcpy/memset run with the lock released.
 *
 * Handles (contexts, streams, events, modules, functions, kernels, libraries,
 * pools, VMM allocation handles) are registered in a set keyed by address; a
 * handle coming from the caller is only dereferenced after sim_obj_get()
 * found it there with the expected type, so a stale or garbage handle gives
 * CUDA_ERROR_INVALID_HANDLE / _CONTEXT instead of a crash. */
#ifndef SIMCUDA_DRIVER_INTERNAL_H
#define SIMCUDA_DRIVER_INTERNAL_H

/* Like NVIDIA's own driver build: declares every versioned variant
 * (_v2, _ptsz, _ptds and the legacy unversioned ones). */
#define __CUDA_API_VERSION_INTERNAL 1
#pragma GCC visibility push(default)
#include <cuda.h>
#pragma GCC visibility pop

#include <pthread.h>
#include <search.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "image.h"
#include "simdev.h"       /* the devices the environment describes */
#include "simcb.h"          /* sim/cupti: CUPTI types and the private table */

#define SIM_MAX_DEVICES SIMDEV_MAX
#define SIM_HIDDEN __attribute__((visibility("hidden")))

enum sim_type {
    T_CTX = 1, T_STREAM, T_EVENT, T_MODULE, T_FUNC, T_LIBRARY, T_POOL, T_MEMHANDLE,
    T_GRAPH, T_GNODE, T_GEXEC,
};

struct sim_obj { int type; };

struct sim_ctx {
    struct sim_obj o;
    int dev;
    int primary;
    int active;                 /* primary: retained at least once and not reset */
    unsigned refcount;          /* primary context retain count */
    unsigned flags;
    unsigned long long id;
    CUresult sticky;            /* CUDA_SUCCESS or the sticky error */
    int fault_pending;          /* a launch faulted; surfaces at the next sync */
    struct sim_ctx **peers;     /* contexts this one enabled peer access to */
    int npeers, cappeers;
    size_t limits[16];
};

struct sim_graph;
struct sim_gnode;

struct sim_stream {
    struct sim_obj o;
    struct sim_ctx *ctx;
    unsigned flags;
    int priority;
    unsigned long long id;
    /* stream capture: work submitted while capture != NULL becomes nodes */
    struct sim_graph *capture;
    struct sim_gnode *capture_last;
    unsigned long long capture_id;
    int capture_origin;         /* began the capture (others joined via events) */
};

struct sim_event {
    struct sim_obj o;
    struct sim_ctx *ctx;
    unsigned flags;
    int recorded;
    double ms;                  /* time of the last record */
    /* recorded in a capturing stream: a stream waiting on it joins the capture */
    struct sim_graph *cap_graph;
    struct sim_gnode *cap_node;
    unsigned long long cap_id;
};

struct sim_module;
struct sim_library;

/* CUfunction and CUkernel are both a struct sim_func (is_kernel tells them
 * apart), so a CUkernel cast to CUfunction launches as the driver allows. */
struct sim_func {
    struct sim_obj o;
    int is_kernel;
    struct sim_module *mod;     /* functions: owning module */
    struct sim_library *lib;    /* kernels: owning library */
    struct sim_ctx *ctx;        /* cuKernelGetFunction results: the context asked in */
    struct sim_func *next;      /* ... chained per kernel in sim_library.funcs */
    const struct sim_kernel_info *ki;
    int twin_resolved;
    unsigned long long twin_gen;    /* sim_objects_loaded() when no twin was found */
    void (*twin)(void **, const unsigned[3], const unsigned[3]);
    int max_dyn_smem;
    int carveout;
    int cache_config;
};

struct sim_module {
    struct sim_obj o;
    struct sim_ctx *ctx;
    struct sim_image img;
    int owns_img;               /* 0: view of a library's image */
    struct sim_library *lib;
    struct sim_func **funcs;    /* lazily created, parallel to img.kernels */
    uint32_t cb_id;             /* CUpti_ModuleResourceData.moduleId */
};

struct sim_library {
    struct sim_obj o;
    struct sim_image img;
    struct sim_func **kernels;  /* parallel to img.kernels */
    struct sim_func **funcs;    /* cuKernelGetFunction results: one per context, chained */
    struct sim_module *mod;     /* cuLibraryGetModule view */
    uint32_t cb_id;             /* CUpti_ModuleResourceData.moduleId */
};

/* ---- globals (core.c) ---- */
struct sim_device {
    char name[64];
    size_t capacity;            /* bytes */
    struct sim_ctx primary;
    struct sim_mempool *default_pool, *current_pool;
};

struct sim_global {
    int initialized;
    int ndev;
    int hmm;
    int verbose;                /* SIMCUDA_VERBOSE=1: one stderr line per launch fault */
    unsigned char peer_ok[SIM_MAX_DEVICES][SIM_MAX_DEVICES];
    struct sim_device dev[SIM_MAX_DEVICES];
    int phys[SIM_MAX_DEVICES];  /* ordinal -> the machine's device (CUDA_VISIBLE_DEVICES; simdev.c's index) */
};
extern struct sim_global sim_g SIM_HIDDEN;

SIM_HIDDEN void sim_lock(void);
SIM_HIDDEN void sim_unlock(void);
SIM_HIDDEN CUresult sim_enter(const char *fn, CUresult failcode);
SIM_HIDDEN void sim_obj_add(void *o, int type);
SIM_HIDDEN void sim_obj_del(void *o);
SIM_HIDDEN void *sim_obj_get(const void *o, int type);
/* twalk over every live object (lock held; the visitor must not add or
 * delete objects: collect, then act). */
SIM_HIDDEN void sim_objects_walk(void (*visit)(const void *, VISIT, int));
SIM_HIDDEN struct sim_ctx *sim_cur_ctx(void);
/* The same, for callers without the lock (CUPTI callback data): a
 * per-thread answer while no handle has been destroyed since. */
SIM_HIDDEN struct sim_ctx *sim_cur_ctx_cached(void);
/* How many handles have gone so far: a per-thread answer about handles is
 * still true while this has not changed. */
SIM_HIDDEN unsigned long sim_objs_gone(void);
/* Current context or CUDA_ERROR_INVALID_CONTEXT; includes its sticky error. */
SIM_HIDDEN CUresult sim_need_ctx(struct sim_ctx **out);
SIM_HIDDEN CUresult sim_ctx_check(struct sim_ctx *c);
SIM_HIDDEN CUresult sim_ctx_sync(struct sim_ctx *c);
SIM_HIDDEN int sim_ctx_peer_enabled(const struct sim_ctx *from, const struct sim_ctx *to);
/* Resolves a stream handle (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a
 * created stream) to its context; *s is NULL for the special streams. */
SIM_HIDDEN CUresult sim_stream_resolve(CUstream h, struct sim_ctx **ctx, struct sim_stream **s);
SIM_HIDDEN double sim_now_ms(void);
/* pthread_cond_wait on the driver's lock (held by the caller). */
SIM_HIDDEN void sim_cond_wait(pthread_cond_t *cv);

/* ---- memory (mem.c) ---- */
SIM_HIDDEN int sim_mem_init(void);
/* Launch fault check: may device `dev` running in context `ctx` access the
 * address `w`?  1 yes (or not an address at all), 0 it faults. */
SIM_HIDDEN int sim_mem_accessible(uintptr_t w, int dev, const struct sim_ctx *ctx);
SIM_HIDDEN void sim_mem_ctx_gone(struct sim_ctx *ctx);
/* 1 when every page of the host range is mapped (never dereferences it) */
SIM_HIDDEN int sim_host_range_mapped(uintptr_t p, size_t n);
SIM_HIDDEN void sim_mem_dev_init(int dev);

/* The launch model (operands.c, guard.c).  Lock held unless noted. */
/* A dereferenced operand w faults unless sim_mem_accessible, or w is one
 * past the end of an allocation dev may access. */
SIM_HIDDEN int sim_mem_deref_ok(uintptr_t w, int dev, const struct sim_ctx *ctx);
/* p lies in one of the arenas (device, pinned, managed); no lock needed:
 * the arenas do not move after sim_mem_init. */
SIM_HIDDEN int sim_mem_in_arena(uintptr_t p);
/* What p is, for a message: "device 1 memory, allocation 0x... of N bytes". */
SIM_HIDDEN void sim_mem_describe(uintptr_t p, char *buf, size_t len);
/* A page-aligned range a launch may not touch and how it is mapped back:
 * SIM_PROT_FILE: MAP_SHARED of fd at off, read-write; SIM_PROT_HOLE: a
 * reserved range with nothing mapped (PROT_NONE, anonymous). */
enum { SIM_PROT_FILE = 1, SIM_PROT_HOLE };
struct sim_prot { uintptr_t base; size_t len; int fd; off_t off; int kind; };
/* Fills out[0..max) with every mapping device dev, in context ctx, may not
 * access (sorted within each kind; see guard.c); returns how many. */
SIM_HIDDEN size_t sim_mem_prot_plan(int dev, const struct sim_ctx *ctx, struct sim_prot *out, size_t max);
/* A kernel with a host twin is about to run with these arguments: every
 * allocation a word of its parameters points into counts as written (the
 * read-back line, mem.c).  Lock held. */
SIM_HIDDEN void sim_mem_twin_writes(const struct sim_kernel_info *ki, void *const *args);
/* Module globals (globals.c): zeroed or initialised device memory of ctx,
 * freed only by sim_mem_global_free or with its context. */
SIM_HIDDEN CUresult sim_mem_global_alloc(struct sim_ctx *ctx, size_t size, const void *init, CUdeviceptr *out,
                                         unsigned long long *id);
SIM_HIDDEN int sim_mem_global_live(CUdeviceptr p, unsigned long long id);
SIM_HIDDEN void sim_mem_global_free(CUdeviceptr p, unsigned long long id);

/* ---- host twins under the device's view of memory (guard.c) ---- */
typedef void (*sim_twin_fn)(void **, const unsigned[3], const unsigned[3]);
/* Runs twin for a launch of kernel `name` in context c (no lock held):
 * with every mapping c's device may not access made inaccessible, so a twin
 * that touches one faults like the GPU (sticky CUDA_ERROR_ILLEGAL_ADDRESS). */
SIM_HIDDEN void sim_twin_run(sim_twin_fn twin, void **args, const unsigned grid[3], const unsigned block[3],
                             struct sim_ctx *c, const char *name);
/* mem.c, lock held, before [base, base+len) is unmapped or mapped anew:
 * an open twin window must not map it back. */
SIM_HIDDEN void sim_guard_forget(uintptr_t base, size_t len);
/* The twin simcuda_twin_<base> anywhere in the process, RTLD_LOCAL objects
 * included (twins.c; no lock held), or NULL. */
SIM_HIDDEN sim_twin_fn sim_twin_lookup(const char *sym);
/* A number that changes when an object is loaded (twins.c). */
SIM_HIDDEN unsigned long long sim_objects_loaded(void);
/* Which parameters a launch of ki dereferences (operands.c; lock held):
 * nparams flags, or NULL when none does; cached in ki. */
SIM_HIDDEN const unsigned char *sim_kernel_derefs(const struct sim_kernel_info *ki);

/* Stream-ordered operations, for graph launches (called without the lock). */
SIM_HIDDEN CUresult sim_memset2d(CUdeviceptr dst, size_t pitch, unsigned val, unsigned esz, size_t width, size_t height, CUstream hs);
SIM_HIDDEN CUresult sim_memcpy3d(const CUDA_MEMCPY3D *c, CUstream hs);

/* ---- modules and launches (launch.c) ---- */
SIM_HIDDEN void sim_modules_ctx_gone(struct sim_ctx *ctx);
/* Launches f (CUfunction or CUkernel) as cuLaunchKernel would (no lock held). */
SIM_HIDDEN CUresult sim_launch(const void *f, const unsigned grid[3], const unsigned block[3], unsigned smem,
                               CUstream hs, void **params, void **extra);
/* ---- graphs (graph.c), lock held ---- */
/* Stream capture: append a node after the stream's last captured node. */
SIM_HIDDEN CUresult sim_capture_kernel(struct sim_stream *s, const void *f, const unsigned grid[3], const unsigned block[3],
                                       unsigned smem, void **args);
SIM_HIDDEN CUresult sim_capture_memcpy(struct sim_stream *s, uintptr_t dst, uintptr_t src, size_t n);
SIM_HIDDEN CUresult sim_capture_memset(struct sim_stream *s, CUdeviceptr dst, size_t pitch, unsigned val, unsigned esz,
                                       size_t width, size_t height);
SIM_HIDDEN CUresult sim_capture_host(struct sim_stream *s, CUhostFn fn, void *ud);
/* Stream-ordered allocation / free in a capturing stream: a memory
 * allocation node (its memory made now, graph memory) / a free node. */
SIM_HIDDEN CUresult sim_capture_mem_alloc(struct sim_stream *s, int dev, size_t size,
                                          const unsigned char access[SIM_MAX_DEVICES], CUdeviceptr *out);
SIM_HIDDEN CUresult sim_capture_mem_free(struct sim_stream *s, CUdeviceptr p);
/* Capture modes: a call that may synchronise implicitly (allocation, free,
 * synchronisation, queries, synchronous copies) from a thread that the
 * capture mode rules prohibit (cuThreadExchangeStreamCaptureMode) fails
 * with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the captures
 * that prohibit it.  Lock held. */
SIM_HIDDEN CUresult sim_capture_guard(void);
SIM_HIDDEN CUstreamCaptureMode sim_thread_capture_mode(void);
SIM_HIDDEN void sim_graph_capture_begin(struct sim_graph *g, unsigned long long id, CUstreamCaptureMode mode,
                                        int user_graph);
/* An ended capture's graph nobody will get: freed unless the program's own
 * (cuStreamBeginCaptureToGraph). */
SIM_HIDDEN void sim_graph_capture_abandon(struct sim_graph *g);
SIM_HIDDEN int sim_graph_capture_invalid(const struct sim_graph *g);
/* graph memory (mem.c): allocated for an allocation node, freed with it */
SIM_HIDDEN CUresult sim_mem_graph_alloc(int dev, size_t size, const unsigned char access[SIM_MAX_DEVICES], CUdeviceptr *out);
SIM_HIDDEN void sim_mem_graph_free(CUdeviceptr p);
SIM_HIDDEN struct sim_graph *sim_graph_new(void);
SIM_HIDDEN void sim_graph_free(struct sim_graph *g);
/* A capture is live from cuStreamBeginCapture until its cuStreamEndCapture. */
SIM_HIDDEN void sim_graph_capture_set(struct sim_graph *g, unsigned long long id);
SIM_HIDDEN int sim_graph_capture_live(const struct sim_graph *g, unsigned long long id);
/* The graph stream s is capturing into, or NULL (forgets an ended capture). */
SIM_HIDDEN struct sim_graph *sim_stream_capture(struct sim_stream *s);

/* cuGetExportTable with a UUID the sim does not know: one line naming the
 * calling library, once per library (exporttab.c; no lock held). */
SIM_HIDDEN void sim_export_table_unknown(const CUuuid *id);

/* ---- __device__ variables (globals.c), lock held ---- */
/* Frees the per-context copies of the variables of a module or library. */
SIM_HIDDEN void sim_globals_drop(const void *owner);

/* Parameter layout of a CUfunction / CUkernel, or NULL (lock held). */
SIM_HIDDEN const struct sim_kernel_info *sim_func_info(const void *f);

/* ---- the driver's version and entry points (version.c) ---- */
/* One row per PFN_<base>_v<version>[_ptsz|_ptds] of cudaTypedefs.h
 * (procaddr.c), sorted by base; fn NULL when the sim has no such symbol. */
struct procent { const char *base; int version; int variant; void *fn; const char *sym; };
extern const struct procent sim_proc_table[] SIM_HIDDEN;
extern const size_t sim_proc_count SIM_HIDDEN;
/* SIMCUDA_DRIVER_VERSION, or the toolkit's CUDA_VERSION */
SIM_HIDDEN int sim_driver_version(void);
/* Row i of sim_proc_table is not in the configured driver: introduced after
 * SIMCUDA_DRIVER_VERSION, or named by SIMCUDA_HIDE. */
SIM_HIDDEN int sim_proc_absent(size_t i);
/* CUDA_SUCCESS, or CUDA_ERROR_NOT_SUPPORTED (and one line, once) when the
 * exported entry point fn is absent from the configured driver. */
SIM_HIDDEN CUresult sim_absent(const char *fn);
/* "cuMemAlloc" names cuMemAlloc, cuMemAlloc_v2, cuMemAlloc_v2_ptds...;
 * an exact variant name only that variant (core.c). */
SIM_HIDDEN int sim_name_matches(const char *entry, const char *fn);

/* ---- device memory shared between processes (ipc.c, mem.c) ----
 * Device memory lives in memfd arenas (mem.c); another process of the same
 * user maps the same pages through /proc/<pid>/fd/<fd> of the exporter.  The
 * payloads fill the 64 opaque bytes of CUipcMemHandle /
 * CUmemPoolPtrExportData. */
struct sim_ipc_mem {            /* cuIpcGetMemHandle */
    char magic[8];              /* "SIMIPC" */
    int32_t pid, dev;           /* exporter, owner device */
    uint64_t id, base, size, rsize;
    uint64_t off;               /* offset in the arena */
    int32_t fd;                 /* the arena's descriptor in the exporter */
};
struct sim_ipc_ptr {            /* cuMemPoolExportPointer */
    char magic[8];              /* "SIMPOOL" */
    int32_t pid, fd;            /* exporter, its arena's descriptor */
    uint64_t pool, id, base, size, rsize, off;
};
struct sim_mempool;
/* A pool's origin in another process (0 pid: a local pool). */
struct sim_pool_origin { int pid, dev, fd; unsigned long long pool; };
/* Maps [off, off + len) of descriptor fd of process pid, a sim arena
 * (memfd "simcuda-dev*"): MAP_FAILED and *why on failure.  No lock needed. */
SIM_HIDDEN void *sim_ipc_map(int pid, int fd, uint64_t off, size_t len, char *why, size_t nwhy);
/* The memfd name of one of our descriptors ("simcuda-pool:..."), or "". */
SIM_HIDDEN void sim_ipc_fd_name(int fd, char *buf, size_t n);
/* mem.c, lock held: registers a mapping of another process's memory as an
 * IPC (pool == NULL) or pool-imported allocation of device dev, in the
 * current context. */
SIM_HIDDEN CUresult sim_mem_adopt(void *map, size_t maplen, size_t delta, const struct sim_ipc_mem *src,
                                  struct sim_mempool *pool, unsigned flags, CUdeviceptr *out);
/* mem.c, lock held: a new pool standing for another process's pool */
SIM_HIDDEN CUresult sim_mem_pool_foreign(const struct sim_pool_origin *o, CUmemoryPool *out);
/* mem.c, lock held: where an imported pool came from (pid 0: local or unknown) */
SIM_HIDDEN struct sim_mempool *sim_mem_pool_origin(CUmemoryPool h, struct sim_pool_origin *o);
/* ipc.c: cuIpcOpenMemHandle / pool imports of another process's handle
 * (called without the lock; log why they fail). */
SIM_HIDDEN CUresult sim_ipc_open_foreign(CUdeviceptr *out, const struct sim_ipc_mem *pl, unsigned flags);
SIM_HIDDEN CUresult sim_ipc_pool_import(CUmemoryPool *out, int fd);
SIM_HIDDEN CUresult sim_ipc_pool_import_ptr(CUdeviceptr *out, CUmemoryPool pool, const struct sim_ipc_ptr *pl);

/* ---- the driver's error log (logs.c) ---- */
/* One line "simcuda: <message>" on stderr, kept in the log that
 * cuLogsDumpTo* read, and delivered to cuLogsRegisterCallback's callbacks
 * (called here: never call with the driver's lock held). */
SIM_HIDDEN void sim_log(CUlogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- CUPTI callbacks (callbacks.c); never called with the lock held ---- */
/* Nonzero while a subscriber holds CUPTI. */
extern atomic_uint sim_cb_active SIM_HIDDEN;
/* The enable bits (SIMCB_ENABLED): the wrappers' only check. */
extern _Atomic uint64_t sim_cb_bits[CUPTI_CB_DOMAIN_SIZE][SIMCB_WORDS] SIM_HIDDEN;
/* A subscriber exists, (domain, cbid) is enabled, the thread is not inside a callback. */
SIM_HIDDEN int sim_cb_wanted(CUpti_CallbackDomain d, CUpti_CallbackId cbid);
SIM_HIDDEN void sim_cb_api_enter(struct simcb_call *c, CUpti_CallbackId cbid, const char *name,
                                 const void *params, CUresult *retval, const char *symbol);
SIM_HIDDEN void sim_cb_api_exit(struct simcb_call *c);
/* CONTEXT_* and STREAM_* resource callbacks */
SIM_HIDDEN void sim_cb_resource(CUpti_CallbackId cbid, CUcontext ctx, CUstream stream);
/* MODULE_LOADED / MODULE_UNLOAD_STARTING */
SIM_HIDDEN void sim_cb_module(CUpti_CallbackId cbid, CUcontext ctx, uint32_t id, const void *cubin, size_t size);
/* Kernel name of a CUfunction / CUkernel for launch callbacks, or NULL (takes the lock). */
SIM_HIDDEN const char *sim_func_name(const void *f);

#endif
