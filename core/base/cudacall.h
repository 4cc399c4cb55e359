/* driver: devcheck's own CUDA calls (the table core/base/cudacall.def) and the
 * queries built on them.  Internal to the core; the front ends see the guard,
 * the binding and the few queries they need through core/core.h.
 *
 * Invariants:
 *  - Everything here calls CUDA and must run with the guard held, so that
 *    the hooks pass the calls through and the CUPTI callbacks ignore them.
 *  - A pointer is NULL when the entry point does not exist (an older driver,
 *    no runtime loaded); DC_CALL never calls a NULL pointer.
 *  - Driver pointers are set once, by dc_driver_bind, before any hook or
 *    callback does its work; runtime pointers on first use. */
#ifndef DEVCHECK_CORE_DRIVER_H
#define DEVCHECK_CORE_DRIVER_H
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "core/base/base.h"

#pragma GCC visibility push(hidden)

/* The pointers, typed from the header declarations: dc_aux_<name>. */
#define DC_AUX(name, req) extern __typeof__(&name) dc_aux_##name;
#define DC_RTAUX(name)    extern __typeof__(&name) dc_aux_##name[DC_NRT];
#include "core/base/cudacall.def"

/* Calls driver entry point `name`, or returns CUDA_ERROR_NOT_FOUND if the
 * driver lacks it. */
#define DC_CALL(name, ...) (dc_aux_##name ? dc_aux_##name(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)
/* The driver has entry point `name`. */
#define DC_HAS(name) (dc_aux_##name != NULL)

/* Entry point `name` of runtime rt (enum dc_rt), resolved on first use (NULL
 * while no runtime that has it is loaded). */
void *dc_driver_resolve_rt(int rt, const char *name);
#define DC_RT_AUX(rt, name) DC_LAZY_FN(dc_aux_##name[rt], dc_driver_resolve_rt, rt, #name)

/* --- the calling thread's current context and device ------------------------------ *
 * dc_current_device() and the runtime's current device (core/verdict/launch.c) are
 * cached per thread, valid until a call that may change a thread's current
 * context or device: the hooks of cudaSetDevice, cuCtxSetCurrent, push, pop,
 * create, destroy, primary release and reset call dc_ctx_current_changed()
 * (core/core.h), and so do devcheck's own pushes and pops here.  Without
 * those hooks (dc_ctx_tracked == 0) only a context's device is cached (a
 * context never changes device; a destroyed one is forgotten). */
static inline CUresult dc_push_ctx(CUcontext c)
{
    CUresult r = DC_CALL(cuCtxPushCurrent_v2, c);
    dc_ctx_current_changed();
    return r;
}
static inline CUresult dc_pop_ctx(CUcontext *c)
{
    CUresult r = DC_CALL(cuCtxPopCurrent_v2, c);
    dc_ctx_current_changed();
    return r;
}
/* The generation the per-thread caches compare with, and whether they may:
 * set when the interposer's hooks see every change from the start (not
 * under backend=cupti: the program's driver pointers are then the driver's
 * own). */
extern uint64_t dc_ctx_gen;
extern int dc_ctx_tracked;
/* dc_current_device() from the per-thread cache when dc_ctx_tracked: for
 * the interposer's launches only (a launch seen only by CUPTI may come from
 * code whose context changes no hook saw). */
int dc_current_device_tracked(void);
/* The device of c, the thread's current context (the caller asked the
 * driver for it), from the per-thread cache. */
int dc_current_ctx_device(CUcontext c);
/* The thread's current context into *out (NULL: none) and its device (-1),
 * from the per-thread cache while dc_ctx_tracked and no hook saw the
 * current context change since (an allocation's record: the interposer's
 * hooks only, as dc_current_device_tracked); else asked of the driver. */
int dc_current_ctx_tracked(CUcontext *out);
/* A context was destroyed or reset (core/contexts.c). */
void dc_ctx_gone_changed(void);

/* The process's answers besides the driver (dc_process_bind): NULL while
 * the process checked is this one (acquire load). */
const struct dc_process_queries *dc_process_queries(void);

/* --- queries ------------------------------------------------------------------- */
int dc_pageable_ok(int device);              /* cached CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS */
int dc_ptr_device(CUdeviceptr p);            /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, -1 */
/* The driver's name for r ("CUDA_ERROR_ILLEGAL_ADDRESS"), "CUDA error" if none. */
const char *dc_err_name(CUresult r);

#pragma GCC visibility pop
#endif
