/* base: the ground floor of the core: the guard, the start-up's binding of
 * devcheck's own driver calls (core/base/cudacall.c), the answers about the
 * process being checked, and the driver queries every room asks.  The
 * options (core/base/options.h) and the epochs (core/base/epoch.h) live here
 * too.  It uses nothing of the core's other rooms. */
#ifndef DEVCHECK_CORE_BASE_H
#define DEVCHECK_CORE_BASE_H
#include <cuda.h>
#include "core/base/options.h"      /* dc_opt: what every room and front end reads */

#include <stddef.h>
#include <stdint.h>

/* Device ordinals devcheck tells apart: 0 .. DC_MAX_DEVICES - 1. */
#define DC_MAX_DEVICES 64

#pragma GCC visibility push(hidden)

/* --- the guard and the state ------------------------------------------------- */

/* devcheck is calling CUDA, or working inside a hook or a callback, on this
 * thread (core/base/cudacall.c). */
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
 * core/base/cudacall.def). */
enum { DC_OPTIONAL = 0, DC_REQUIRED = 1, DC_HOOKED = 2 };
/* Binds devcheck's own driver calls (core/base/cudacall.def) from the libcuda.so.1
 * the interposer opened, with the real dlsym `sym`; its runtime entry points
 * are resolved on first use with resolve_rt (the interposer's: entry point
 * `name` of runtime `rt`, enum dc_rt).  Guard held.  Returns the name of the
 * first required entry point the driver lacks, or NULL. */
const char *dc_driver_bind(void *libcuda, void *(*sym)(void *handle, const char *name),
                           void *(*resolve_rt)(int rt, const char *name));
/* Besides the driver's entry points, the core asks the process it checks
 * what lies in it: which mapping holds an address (core/owner/ptrinfo.c, from
 * /proc/self/maps), which object made a kernel's image (core/kernel/kernels.c: the
 * kernel's origin, core/kernel/origin.h), what the kernel's host function's debug
 * information and its image say of its parameters (core/kernel/hostdwarf.c,
 * core/kernel/images.c).  A front end that checks a record of another process
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
     * parameters (struct dc_dw_param, core/kernel/hostdwarf.h; words malloc'd), as
     * dc_dwarf_params answers: the count, -1 when nothing says it. */
    int (*host_params)(const void *key, struct dc_dw_param *out, int max);
    /* What kernel key's image says (struct dc_img_kernel, core/kernel/cubin.h; name
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

/* --- driver queries (guard held) ------------------------------------------------ */

int dc_driver_version(void);                 /* CUDA_VERSION of the bound driver (13000), 0 unknown */
/* Each device's UUID and PCI bus id, read once (the first time the driver
 * names a device) and handed to the report (report/gpus.h: its reader).
 * Takes the guard itself. */
void dc_devices_identify(void);
int dc_current_device(void);                 /* device of the current context, -1 */
int dc_ctx_device(CUcontext ctx);            /* device of ctx (NULL: current), -1 */
int dc_stream_device(CUstream s);            /* device of the stream's context, -1 (per-thread cache) */
/* What a non-default stream's device rests on: no stream destroyed, no
 * context gone (both only grow: their sum unchanged, neither changed).  A
 * caller may keep a stream's dc_stream_device beside its own record while
 * this is unchanged (cublasLtMatmul's view, preload/hooks_cublaslt.c). */
extern uint64_t dc_stream_gen, dc_ctx_gone_gen;
static inline uint64_t dc_stream_device_gen(void)
{
    return __atomic_load_n(&dc_stream_gen, __ATOMIC_ACQUIRE) + __atomic_load_n(&dc_ctx_gone_gen, __ATOMIC_ACQUIRE);
}
/* A stream was destroyed (cuStreamDestroy returned; called whether devcheck
 * is on or not, guard held or not): dc_stream_device asks again. */
void dc_stream_gone(void);
/* A call that may change a thread's current context or the runtime's current
 * device returned (cudaSetDevice, cuCtxSetCurrent, push, pop, create,
 * destroy, primary release or reset; called whether devcheck is on or not):
 * the per-thread caches of the current device are asked again. */
void dc_ctx_current_changed(void);
/* The interposer sees every such call from the start (its hooks are on and
 * the program's driver pointers are its wrappers): the current device may be
 * cached per thread (core/base/cudacall.h). */
void dc_ctx_track(void);

#pragma GCC visibility pop
#endif
