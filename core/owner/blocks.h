/* blocks: the blocks a caching allocator hands out of its segments, each
 * nested in the registry's allocation (the segment) that holds it.
 *
 * PyTorch's CUDA caching allocator allocates segments with cudaMalloc (or
 * maps them, expandable segments; or takes them from a CUDA graph's private
 * pool) and hands each tensor a block of one; it reports every block it
 * hands out and takes back to c10::reportMemoryUsageToProfiler
 * (preload/hooks_torch.c).  The registry keeps the segments (what a launch
 * is checked against: a block's device and access are its segment's); this
 * table keeps the blocks, so a finding names the tensor's own block -- its
 * base, size and the stack (native and Python) of the call that allocated
 * it -- instead of the segment's first allocation.
 *
 * Contract: thread-safe (one mutex; never taken on a launch's path, only
 * when a block comes or goes and when a finding is made); none calls CUDA;
 * on allocation failure a block is not recorded and the program goes on.
 * A block is recorded only inside an allocation the registry knows, and
 * remembers that allocation (its serial): a block whose segment was freed
 * and whose address came back in another allocation is never named. */
#ifndef DEVCHECK_CORE_BLOCKS_H
#define DEVCHECK_CORE_BLOCKS_H
#include "core/owner/registry.h"
#include "report/finding.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The serial of the registry allocation holding base (its segment) when
 * [base, base + size) lies in it or in allocations that follow it without a
 * gap (the pages of an expandable segment), or 0: such a block is not kept.  No lock: the registry's
 * lookup.  The front end asks first, so a block outside devcheck's memory (a
 * CPU tensor: PyTorch's CPU allocator reports too) costs no stack capture. */
uint64_t dc_block_holder(uintptr_t base, size_t size);
/* A block handed out in the allocation of serial seg_serial (from
 * dc_block_holder; 0: nothing is kept), stack: dc_stack id of the allocating
 * call.  A block already at base is replaced. */
void dc_block_add(uintptr_t base, size_t size, uint64_t seg_serial, uint32_t stack);
/* The block at base taken back (none: nothing happens). */
void dc_block_remove(uintptr_t base);
/* A finding's view *out of address addr in registry allocation *seg (out
 * made from it): when a live block holds addr, out->base, size and
 * alloc_stack become the block's and out->segment_base / segment_size name
 * the allocation holding the block's base (seg, or for a block over several
 * pages of an expandable segment, its first page); 1 then, else 0 (out
 * unchanged).  May reuse the calling thread's registry cache entries
 * (dc_reg_lookup_ref's answers: a pointer the caller holds into them may
 * change; seg itself is copied first). */
int dc_block_view(struct dc_finding_alloc *out, const struct dc_alloc *seg, uintptr_t addr);
/* Live blocks (tests). */
size_t dc_block_count(void);
/* Forget every block (tests). */
void dc_block_reset(void);

#pragma GCC visibility pop
#endif
