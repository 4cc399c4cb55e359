/* owner: who owns each address and who may access it -- the registry
 * (core/owner/registry.h), what lies at an unknown address
 * (core/owner/ptrinfo.h), the caching allocators' blocks
 * (core/owner/blocks.h), and the events below that feed them.  Uses the
 * base only. */
#ifndef DEVCHECK_CORE_OWNER_H
#define DEVCHECK_CORE_OWNER_H
#include <cuda.h>
#include "core/base/base.h"
#include "core/owner/registry.h"
#include "core/owner/ptrinfo.h"
#include "core/owner/blocks.h"      /* a caching allocator's blocks (preload/hooks_torch.c) */

#pragma GCC visibility push(hidden)

/* --- memory events (core/owner/memory.c) ---------------------------------------------- *
 * One recording function per event, after the real call succeeded.  Each
 * captures the caller's stack as the allocation stack. */
/* owner: the device of ctx, the context current at the call (CUPTI's
 * callback data gives it: no cuCtxGetCurrent per allocation); NULL: ask the
 * driver */
void dc_mem_alloc_current(uintptr_t base, size_t size, enum dc_mem_kind kind, CUcontext ctx);
/* The same from the interposer's hooks, which see every change of the
 * current context: the context and its device from the thread's cache
 * (dc_current_ctx_tracked; no cuCtxGetCurrent per allocation). */
void dc_mem_alloc_hooked(uintptr_t base, size_t size, enum dc_mem_kind kind);
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


/* --- copy events (core/owner/transfers.c) --------------------------------------------- */

/* A copy (memcpy, peer copy, prefetch) of `bytes` from src to dst, after the
 * real call succeeded: counted for the transfer matrix per (source,
 * destination, call site).  A *_device >= 0 names that end's device (peer
 * copies, prefetch targets); -1: classify the address with the registry
 * (unknown: pageable host memory). */
void dc_copy_event(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes);
/* The checked library call running on this thread (preload/hooks_lib.h
 * sets it around the outermost call; 0 outside one): the return address
 * and frame (CFA) of its entry.  A copy the library makes inside it (the
 * one-rank collective of NCCL) is counted at the call site captured for
 * the thread's last copy under the same key -- the same call instruction
 * at the same stack depth -- so a collective in a loop does not capture
 * its stack each time (~170 instructions per ncclAllReduce,
 * bench/libcalls.sh).  A program's own copies capture theirs. */
struct dc_copy_in {
    uintptr_t ra, cfa;
};
extern __thread struct dc_copy_in dc_copy_in __attribute__((tls_model("initial-exec")));

#pragma GCC visibility pop
#endif
