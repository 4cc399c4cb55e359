/* shared: what the interposer (preload/) shares with the CUPTI subscriber
 * (cupti/), so that both detection paths go through one code path: the
 * guard, the driver queries, the launch description and one recording
 * function per memory event.  Needs only the plain toolkit headers (cupti.h
 * may not be combined with preload.h's __CUDA_API_VERSION_INTERNAL). */
#ifndef DEVCHECK_PRELOAD_SHARED_H
#define DEVCHECK_PRELOAD_SHARED_H
#include <cuda.h>
#include "core/registry.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* devcheck is calling CUDA (or is inside a hook) on this thread. */
extern __thread int dc_guard __attribute__((tls_model("initial-exec")));
extern int dc_ready;            /* initialised and active (mode=report) */

/* The loaded driver's cuMemAlloc_v2 (NULL without a driver): dladdr names
 * the driver's file. */
void *dc_driver_symbol(void);

/* --- driver queries (guard must be held) -------------------------------- */
int dc_current_device(void);                 /* device of the current context, -1 */
int dc_ctx_device(CUcontext ctx);            /* device of ctx, -1 */
int dc_stream_device(CUstream s);            /* device of the stream's context, -1 */
int dc_pageable_ok(int device);              /* cached CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS */

/* --- hooks_launch.c ------------------------------------------------------ */
/* The launch description, shared by both detection paths (the hooks and
 * cupti/): describes one launch (name and parameter layout of `key` from the
 * per-function cache, launch device, arguments) and hands it to
 * dc_check_launch with `path` as the detection path.  What a hook does,
 * check only: the hooks themselves go through launch_begin/launch_end, which
 * also migrate (mode=migrate) and synchronise (sync=1); this never rewrites
 * the arguments nor synchronises (mode=migrate reports the operands it would
 * move as not migrated: DC_NO_REWRITE_CUPTI for DC_PATH_CUPTI).  The caller
 * holds the guard.  Never writes through args or extra.
 *   key      a CUfunction (DC_KEY_FUNCTION), a CUkernel (DC_KEY_KERNEL), or
 *            a host stub no function could be found for (DC_KEY_OPAQUE: the
 *            launch is counted unchecked)
 *   device   the launch device; < 0: the device of the stream's context
 *   current_device  runtime launches: the thread's current device (a launch
 *            into another device's stream is a stream_mismatch); -1 otherwise
 *   args / extra    kernelParams, or cuLaunchKernel's packed `extra` */
enum { DC_KEY_FUNCTION = 0, DC_KEY_KERNEL = 1, DC_KEY_OPAQUE = 2 };
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra);
/* A runtime launch of host stub `func` (cudaLaunchKernel and friends): the
 * function is found with cudaGetFuncBySymbol (DC_KEY_OPAQUE if none), the
 * launch device is the stream's (the current device for the NULL, legacy and
 * per-thread streams), then dc_launch_check. */
void dc_launch_check_stub(int path, const char *api, const void *func, int current_device, CUstream stream,
                          void **args);
/* A graph kernel node, checked like a launch when it is created or changed
 * (the generic node API: only kernel nodes); the launch device is the node
 * context's for a CUkernel, the current context's otherwise. */
void dc_launch_check_node(int path, const char *api, const CUDA_KERNEL_NODE_PARAMS *p);
void dc_launch_check_generic_node(int path, const char *api, const CUgraphNodeParams *p);
void dc_launch_cache_flush(void);

/* --- hooks_mem.c --------------------------------------------------------- *
 * One recording function per memory event, shared by both detection paths:
 * the hooks and the CUPTI exit callbacks call them after the real call
 * succeeded (frees: dc_mem_free_begin before, dc_mem_free_end after), guard
 * held.  Each captures the caller's stack as the allocation stack.  The
 * arguments are only read. */
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
void dc_mem_peer(CUcontext peer, int enable);               /* current context's device -> peer's */
/* A free: begin removes the entry at base (copy in *saved; returns whether
 * there was one) before the real free; end puts it back if the free failed. */
int  dc_mem_free_begin(uintptr_t base, struct dc_alloc *saved);
void dc_mem_free_end(int had, const struct dc_alloc *saved, int ok);
/* Context ctx is gone (destroyed, or a primary context reset): the device,
 * pool, IPC and managed memory made in it and the peer links it took part in
 * are forgotten; other contexts of the same device keep theirs. */
void dc_mem_forget_context(CUcontext ctx);

#pragma GCC visibility pop
#endif
