/* core: the one interface through which devcheck's two front ends feed its
 * core.  The interposer (preload/) and the CUPTI subscriber (cupti/) each
 * describe the CUDA calls they see as the events below and never call each
 * other; the core records memory in the registry, or describes and checks a
 * launch, and hands its findings to report/.
 *
 *   preload/ (hooks)  ----\
 *                          +--> core/core.h --> core --> report/
 *   cupti/ (callbacks) ---/
 *
 * Contract of every event function:
 *  - Call it with the guard held (dc_guard > 0): the core then calls CUDA
 *    itself (driver queries, mode=migrate's copies) without being seen by
 *    the hooks or the CUPTI callbacks.  A front end ignores a call that
 *    arrives while the guard is held: the other front end, or devcheck
 *    itself, has it.
 *  - Recording events come after the real call succeeded (a free: begin
 *    before it, end after it).
 *  - The arguments are only read (a CUPTI callback's functionParams are
 *    const); a launch's own arguments are never written (mode=migrate runs
 *    the launch with a private copy, dc_launch_state.args / .extra).
 *  - Nothing here fails the program: an event devcheck cannot record (no
 *    memory, a full table) is dropped.
 * Needs only the plain toolkit headers (cupti.h may not be combined with
 * preload.h's __CUDA_API_VERSION_INTERNAL). */
#ifndef DEVCHECK_CORE_H
#define DEVCHECK_CORE_H
#include <cuda.h>
#include "core/launch.h"
#include "core/registry.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* --- the guard and the state ------------------------------------------------- */

/* devcheck is calling CUDA, or working inside a hook or a callback, on this
 * thread (core/driver.c). */
extern __thread int dc_guard __attribute__((tls_model("initial-exec")));
/* Started and active (mode != off, a driver bound): set once by the start-up
 * (preload/startup.c), read with acquire. */
extern int dc_ready;

/* --- start and finish (the start-up, preload/startup.c) ---------------------- */

/* The runtime (libcudart) a call belongs to, by the symbol version its caller
 * bound to (name@@libcudart.so.13, name@libcudart.so.12, @libcudart.so.11.0):
 * a process may hold CUDA 12's and 13's runtimes side by side, each loaded
 * RTLD_LOCAL by its own library, and a call must reach its own runtime. */
enum dc_rt { DC_RT13 = 0, DC_RT12, DC_RT11, DC_NRT };

/* Required-ness of an entry point in a binding table (preload/hooks.def,
 * core/driver.def). */
enum { DC_OPTIONAL = 0, DC_REQUIRED = 1, DC_HOOKED = 2 };
/* Binds devcheck's own driver calls (core/driver.def) from the libcuda.so.1
 * the interposer opened, with the real dlsym `sym`; its runtime entry points
 * are resolved on first use with resolve_rt (the interposer's: entry point
 * `name` of runtime `rt`, enum dc_rt).  Guard held.  Returns the name of the
 * first required entry point the driver lacks, or NULL. */
const char *dc_driver_bind(void *libcuda, void *(*sym)(void *handle, const char *name),
                           void *(*resolve_rt)(int rt, const char *name));
/* Besides the driver's entry points, the core asks the process it checks
 * what lies in it: which mapping holds an address (core/ptrinfo.c, from
 * /proc/self/maps), which object made a kernel's image (core/kernels.c: the
 * kernel's origin, core/origin.h), what the kernel's host function's debug
 * information and its image say of its parameters (core/hostdwarf.c,
 * core/images.c).  A front end that checks a record of another process
 * rather than the running one (the replay, replay/) answers them from its
 * record with dc_process_bind, and binds its own answers to the driver's
 * entry points with dc_driver_bind.  While one is bound, every question
 * below goes to it (a NULL member: nothing is known), never to this
 * process's own objects.  Bind before any launch is checked; the structure
 * must outlive its use. */
struct dc_dw_param;
struct dc_img_kernel;
struct dc_process_queries {
    /* The /proc/self/maps line ("lo-hi perms offset dev inode path") of the
     * mapping holding v, into line[len]: 1, or 0 when no mapping holds it. */
    int (*maps_line)(uintptr_t v, char *line, size_t len);
    /* enum dc_origin of kernel key; -1: not said (a live run's own rules). */
    int (*kernel_origin)(const void *key);
    /* What the host function's debug information says of kernel key's
     * parameters (struct dc_dw_param, core/hostdwarf.h; words malloc'd), as
     * dc_dwarf_params answers: the count, -1 when nothing says it. */
    int (*host_params)(const void *key, struct dc_dw_param *out, int max);
    /* What kernel key's image says (struct dc_img_kernel, core/image.h; name
     * and params malloc'd), as dc_images_kernel answers: 1, or 0 when nothing. */
    int (*kernel_image)(const void *key, struct dc_img_kernel *out);
};
void dc_process_bind(const struct dc_process_queries *q);
/* The function pointer in `slot`, resolved with resolve(rt, name) on first
 * use (a runtime entry point: a program may load libcudart after its first
 * driver call); NULL while it cannot be. */
#define DC_LAZY_FN(slot, resolve, rt, name)                                           \
    ({                                                                                \
        __typeof__(slot) p_ = __atomic_load_n(&(slot), __ATOMIC_ACQUIRE);              \
        if (__builtin_expect(!p_, 0)) {                                               \
            p_ = (__typeof__(slot))resolve(rt, name);                                 \
            __atomic_store_n(&(slot), p_, __ATOMIC_RELEASE);                          \
        }                                                                             \
        p_;                                                                           \
    })
/* The bound driver's cuMemAlloc_v2 (NULL before dc_driver_bind or without a
 * driver): dladdr names the driver's file. */
void *dc_driver_symbol(void);
/* Opens the report with the parsed options (dc_opt) and installs the fork
 * handlers of every core module (once).  Tests call it again after parsing
 * other options (and dc_report_reset). */
void dc_core_open(void);
/* The exit summary (report/); returns the exit status devcheck imposes on a
 * program that returned `program_status` (error_exitcode when it was 0 and
 * errors were found; -1: keep the program's; program_status < 0: unknown). */
int dc_core_finish(int program_status);
/* Before main (the start-up's constructor, options parsed): the first
 * process of a tree truncates the shared output files (report/). */
void dc_core_prestart(void);
/* The exit summary from a handler of a fatal signal (bounded waits; fault:
 * a synchronous fault, nothing allocated: report.h). */
void dc_core_finish_signal(int fault);

/* A front end besides the interposer registers itself with DC_FRONTEND (the
 * linker collects the records in section dc_frontends), so the start-up
 * starts it without naming it.  start(beside) runs once, from the start-up,
 * with the options parsed, the report open and the guard held; beside is 1
 * when the interposer checks the program's calls too (backend=both: the
 * front end then needs only what the hooks cannot see); it returns 1 when
 * it will see the program's calls (then backend=cupti lets the hooks pass
 * through), 0 when it cannot (it has said why).  yield_cupti() (may be NULL)
 * runs when the program subscribes to CUPTI itself (a profiler: CUPTI allows
 * one subscriber): a front end holding the subscription gives it up, says so
 * in one line and returns 1 (it no longer sees the program's calls); 0
 * otherwise.  Guard held. */
struct dc_frontend {
    const char *name;
    int (*start)(int beside);
    int (*yield_cupti)(void);
};
#define DC_FRONTEND(var, name, start, yield_cupti)                                    \
    __attribute__((used, section("dc_frontends"), aligned(sizeof(void *))))           \
    static const struct dc_frontend var = { name, start, yield_cupti }
/* Starts every registered front end; returns how many said 1. */
int dc_core_start_frontends(void);
/* The program subscribes to CUPTI: every front end's yield_cupti(); returns
 * how many gave their subscription up (the interposer must then see every
 * call itself). */
int dc_core_yield_cupti(void);

/* --- driver queries (guard held) ------------------------------------------------ */

int dc_driver_version(void);                 /* CUDA_VERSION of the bound driver (13000), 0 unknown */
int dc_current_device(void);                 /* device of the current context, -1 */
int dc_ctx_device(CUcontext ctx);            /* device of ctx (NULL: current), -1 */
/* The device's primary context if it is active, else NULL (a retain would
 * create an inactive one).  For a reset: it is the context that goes. */
CUcontext dc_primary_context(CUdevice dev);

/* --- memory events (core/memory.c) ---------------------------------------------- *
 * One recording function per event, after the real call succeeded.  Each
 * captures the caller's stack as the allocation stack. */
void dc_mem_alloc_current(uintptr_t base, size_t size, enum dc_mem_kind kind); /* owner: current device */
void dc_mem_host(uintptr_t base, size_t size, enum dc_mem_kind kind);          /* pinned / registered */
void dc_mem_pool_alloc(CUdeviceptr p, size_t size, CUmemoryPool pool, CUstream s);
void dc_mem_ipc_open(CUdeviceptr p, unsigned int flags);
void dc_mem_pool_access(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count);
void dc_mem_pool_import(CUdeviceptr p, CUmemoryPool pool);
void dc_mem_graph_alloc_node(const CUDA_MEM_ALLOC_NODE_PARAMS *p);
void dc_mem_vmm_create(CUmemGenericAllocationHandle handle, const CUmemAllocationProp *prop);
void dc_mem_vmm_release(CUmemGenericAllocationHandle handle);
void dc_mem_vmm_map(CUdeviceptr ptr, size_t size, CUmemGenericAllocationHandle handle);
void dc_mem_vmm_unmap(uintptr_t base, size_t size);         /* drops every mapping inside */
void dc_mem_vmm_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
/* A free: begin removes the entry at base (copy in *saved; returns whether
 * there was one) before the real free; end puts it back if the free failed. */
int  dc_mem_free_begin(uintptr_t base, struct dc_alloc *saved);
void dc_mem_free_end(int had, const struct dc_alloc *saved, int ok);
/* Does the registry know an allocation holding addr?  (A runtime call whose
 * driver call was not seen records only memory devcheck does not know.) */
int  dc_mem_known(uintptr_t addr);

/* --- context events (core/contexts.c) ------------------------------------------- */

/* Peer access from the current context to `peer` was enabled (1) or
 * disabled (0); an access already enabled (not enabled) counts as one. */
void dc_ctx_peer_access(CUcontext peer, int enable);
/* Context ctx is gone (destroyed, or a primary context reset): the device,
 * pool, IPC and managed memory made in it and the peer links it took part in
 * are forgotten, and the descriptions of its functions (the driver may reuse
 * their handles); other contexts of the same device keep theirs. */
void dc_ctx_destroyed(CUcontext ctx);
/* A call that may change a thread's current context or the runtime's current
 * device returned (cudaSetDevice, cuCtxSetCurrent, push, pop, create,
 * destroy, primary release or reset; called whether devcheck is on or not):
 * the per-thread caches of the current device are asked again. */
void dc_ctx_current_changed(void);
/* The interposer sees every such call from the start (its hooks are on and
 * the program's driver pointers are its wrappers): the current device may be
 * cached per thread (core/driver.h). */
void dc_ctx_track(void);

/* --- stream capture events (core/capture.c) ------------------------------------- */

/* Stream s began capturing in `mode` (a CUstreamCaptureMode) on this thread:
 * after the real call succeeded.  NULL / CU_STREAM_PER_THREAD as the call
 * meant it (a _ptsz entry point's NULL is CU_STREAM_PER_THREAD).  While any
 * capture is in progress, sync=1 and mode=migrate leave alone what their
 * synchronisations would invalidate (core/capture.h). */
void dc_capture_begin(CUstream s, int mode);
/* The program ended the capture of s (after the real call, whatever it
 * returned: the driver is asked whether s still captures). */
void dc_capture_end(CUstream s);
/* --- copy events (core/transfers.c) --------------------------------------------- */

/* A copy (memcpy, peer copy, prefetch) of `bytes` from src to dst, after the
 * real call succeeded: counted for the transfer matrix per (source,
 * destination, call site).  A *_device >= 0 names that end's device (peer
 * copies, prefetch targets); -1: classify the address with the registry
 * (unknown: pageable host memory). */
void dc_copy_event(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes);

/* --- kernel events (core/kernels.c) --------------------------------------------- */

/* A module or library was unloaded: its function handles may be reused, so
 * every cached kernel description is retired. */
void dc_kernels_unloaded(void);

/* --- kernel image events (core/images.c) ------------------------------------------ *
 * Where kernel images reach devcheck, so that its own reader (core/image.c)
 * can tell a kernel's parameters where the driver cannot, and which name and
 * image belong to a kernel handle.  After the real call succeeded; no CUDA is
 * called (the registrations come from constructors, before devcheck starts:
 * they may be described without the guard). */
/* A module (CUmodule) or library (CUlibrary) `owner` was loaded from image
 * (a fatbin, its wrapper, a cubin or PTX text; copied unless it lies in a
 * loaded object), or from the file at path.  caller: an address in the code
 * that called the load (the hook's return address), NULL when the front end
 * cannot tell (CUPTI); it decides the origin of an image that lies in no
 * loaded object (core/images.h, dc_images_origin). */
void dc_image_loaded(const void *owner, const void *image, const void *caller);
void dc_image_file_loaded(const void *owner, const char *path, const void *caller);
/* owner was unloaded: its image and handle names are forgotten. */
void dc_image_unloaded(const void *owner);
/* The runtime registered a fatbin (__cudaRegisterFatBinary: its handle and
 * the wrapper), and a kernel of it by device name (__cudaRegisterFunction). */
void dc_image_fatbin_registered(const void *handle, const void *wrapper);
void dc_image_function_registered(const void *handle, const char *device_name);
/* key (a CUfunction or CUkernel) is the kernel `name` of owner
 * (cuModuleGetFunction, cuLibraryGetKernel). */
void dc_image_named(const void *key, const void *owner, const char *name);
/* key is another handle of what `from` is (cuKernelGetFunction: a function
 * of a kernel; cuLibraryGetModule: the module of a library). */
void dc_image_alias(const void *key, const void *from);

/* --- launch events (core/launch.c) ---------------------------------------------- *
 * The interposer's launches: begin describes the launch and checks it, and
 * under mode=migrate moves what must be moved (then L->args / L->extra are
 * the rewritten arguments: pass those to the real launch); end, after the
 * real launch (launched: it returned success), copies migrated operands back
 * and under sync=1 synchronises and attributes an asynchronous error to the
 * launch.  Always pair them; L lives on the hook's stack. */
/* A driver launch of function f (cuLaunchKernel and friends): the launch
 * device is the stream's. */
void dc_launch_begin(struct dc_launch_state *L, const char *api, CUfunction f, CUstream stream, void **args,
                     void **extra);
/* A runtime launch of a CUkernel (CUDA 13's __cudaLaunchKernel) through
 * runtime rt (enum dc_rt, whose cudaGetDevice is asked): the launch device is
 * the stream's, the thread's current device for the NULL, legacy and
 * per-thread streams; a launch into another device's stream is a
 * stream_mismatch. */
void dc_launch_begin_kernel(struct dc_launch_state *L, int rt, const char *api, CUkernel kernel, CUstream stream,
                            void **args);
/* A runtime launch of host stub `func` (cudaLaunchKernel and friends; NULL:
 * nothing to check): as dc_launch_begin_kernel, its function found with
 * runtime rt's cudaGetFuncBySymbol (counted unchecked if none). */
void dc_launch_begin_stub(struct dc_launch_state *L, int rt, const char *api, const void *func, CUstream stream,
                          void **args);
void dc_launch_end(struct dc_launch_state *L, int launched);

/* Launches that are checked only, never rewritten nor synchronised (the
 * CUPTI path, whose parameters are read-only: under mode=migrate the check
 * reports its operands not migrated; graph nodes, which run later), with
 * `path` the detection path (enum dc_path).
 *   key      a CUfunction (DC_KEY_FUNCTION), a CUkernel (DC_KEY_KERNEL), or
 *            a host stub no function could be found for (DC_KEY_OPAQUE: the
 *            launch is counted unchecked), or a launch whose parameters the
 *            path could not read (DC_KEY_UNREAD: key is the kernel's name,
 *            or api itself when none is known; counted unchecked too)
 *   device   the launch device; < 0: the device of the stream's context
 *   current_device  runtime launches: the thread's current device (a launch
 *            into another device's stream is a stream_mismatch); -1 otherwise
 *   args / extra    kernelParams, or cuLaunchKernel's packed `extra` */
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra);
/* A runtime launch of host stub `func`: the function is found with runtime
 * rt's cudaGetFuncBySymbol (DC_KEY_OPAQUE if none), the launch device is the
 * stream's (current_device for the NULL, legacy and per-thread streams). */
void dc_launch_check_stub(int path, int rt, const char *api, const void *func, int current_device, CUstream stream,
                          void **args);
/* A graph kernel node, checked when it is created or changed (the generic
 * node API: only kernel nodes); the launch device is the node context's for
 * a CUkernel, the current context's otherwise.  NULL p: nothing. */
void dc_launch_check_node(int path, const char *api, const CUDA_KERNEL_NODE_PARAMS *p);
void dc_launch_check_generic_node(int path, const char *api, const CUgraphNodeParams *p);

/* --- framework errors (core/framework.c) ------------------------------------------ *
 * A framework refused an op over devices (PyTorch's "Expected all tensors to
 * be on the same device"), as the interpreter side saw it: its message, the
 * op's Python stack (frames[0..nframes), innermost first, each with its
 * statement's source line) and the op's tensors, named as the user's code
 * names them.  The interpreter side only collects; the core looks each
 * tensor's memory up, chooses the device the op belongs on and the fix,
 * reports a framework_device_error (repeats counted, as any finding) and
 * writes the note the interpreter attaches to the exception (note[0..len),
 * "" when none).  Guard held.  Returns 0, or -1 on bad arguments (nothing
 * reported, note ""). */
struct dc_fw_frame {
    const char *file, *function;
    const char *source;         /* the statement's first line, stripped; NULL unknown */
    int line;
};
struct dc_fw_tensor {
    const char *expr;           /* "input_ids", "model.embed_tokens.weight", "model[0].weight" */
    const char *device;         /* "cuda:1", "cpu" */
    const char *module;         /* the user's module holding it ("model"), NULL */
    const char *made_file, *made_function;  /* memory with no record (a CPU tensor): the user's */
    uintptr_t ptr;              /* data pointer of a GPU tensor, 0 for none */
    int flags;                  /* DC_TENSOR_* */
    int made_line;              /* statement that last assigned it, 0 unknown */
};
#define DC_TENSOR_PARAM 1           /* a module's parameter or buffer: where the model was put */
#define DC_TENSOR_MODULE_DEVICE 2   /* module.device names this tensor's device (a Hugging Face model) */
int dc_framework_error(const char *framework, const char *message, unsigned nframes, const struct dc_fw_frame *frames,
                       unsigned ntensors, const struct dc_fw_tensor *tensors, char *note, size_t note_len);
/* 1 when message is one of the frameworks' device-mismatch errors (PyTorch's
 * "Expected all tensors to be on the same device", ...): the cheap test made
 * before any interpreter work. */
int dc_framework_device_message(const char *message);

#pragma GCC visibility pop
#endif
