/* hooks_torch: PyTorch's caching allocator's blocks.
 *
 * c10's CUDA caching allocator (libc10_cuda.so) hands each tensor a block of
 * a segment it got from cudaMalloc (or mapped: expandable segments; or from
 * a CUDA graph's private pool) and reports every block it hands out (+size)
 * and takes back (-size) to c10::reportMemoryUsageToProfiler, defined in
 * libc10.so: in DeviceCachingAllocator::alloc_found_block and free_locked,
 * unconditionally (checked in the torch 2.15 wheel: the call is reached
 * whether or not a profiler runs; the real function then asks
 * c10::ThreadLocalDebugInfo for a profiler and returns), under the
 * allocator's mutex, with the GIL released.  libc10_cuda.so imports the
 * symbol (undefined, unversioned), so the loader binds its call to the first
 * definition in the global scope: ours, libdevcheck.so being preloaded.  We
 * record the block (core/owner/blocks.h, with the allocating stack, native and
 * Python, as the cudaMalloc hook records a segment) and call the real one,
 * found in the loaded libc10.so (dc_resolve_lib: RTLD_NOLOAD, as libc10.so
 * may be in no global scope).
 *
 * The signature, as c10/core/Allocator.h declares it:
 *   void reportMemoryUsageToProfiler(void* ptr, int64_t alloc_size,
 *       size_t total_allocated, size_t total_reserved, c10::Device device);
 * mangled _ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE (the same
 * from torch 2.2 to 2.15).  c10::Device is a C++ class of two int8_t
 * fields (DeviceType type_, DeviceIndex index_), trivially copyable, 2
 * bytes: the x86-64 SysV ABI passes it by value in the fifth integer
 * register (class INTEGER; only its low 16 bits are defined: the wheel's
 * caller builds it as (index << 8) | 1 in r8d), AArch64's AAPCS64 in x4 (a
 * composite of at most 16 bytes; the upper bits unspecified).  So it is
 * taken here as a uint64_t that holds that register, never read, and passed
 * on unchanged in the same register: the real function sees the bits its
 * caller passed.  The other four are pointer- and integer-sized scalars. */
#include "preload/preload.h"
#include "report/stack.h"

#define C10_REPORT "_ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE"
typedef void (*c10_report_fn)(void *, int64_t, size_t, size_t, uint64_t);

DC_EXPORT void _ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE(void *ptr, int64_t alloc_size,
                                                                     size_t total_allocated,
                                                                     size_t total_reserved, uint64_t device);

/* The real function: looked up once (NOT_FOUND: it was not). */
#define NOT_FOUND ((void *)1)
static void *real_report;

static c10_report_fn real(void)
{
    void *p = __atomic_load_n(&real_report, __ATOMIC_ACQUIRE);
    if (!p) {
        p = dc_resolve_lib("libc10.so", C10_REPORT, NULL);
        if (!p)
            p = NOT_FOUND;
        __atomic_store_n(&real_report, p, __ATOMIC_RELEASE);
    }
    return p == NOT_FOUND ? NULL : (c10_report_fn)p;
}

DC_EXPORT void _ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE(void *ptr, int64_t alloc_size,
                                                                     size_t total_allocated,
                                                                     size_t total_reserved, uint64_t device)
{
    /* devcheck started (the segment's cudaMalloc came first), not inside it */
    if (!dc_guard && __atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE)) {
        dc_guard++;
        uint64_t seg;
        if (alloc_size < 0)
            dc_block_remove((uintptr_t)ptr);
        else if ((seg = dc_block_holder((uintptr_t)ptr, (size_t)alloc_size)) != 0)
            dc_block_add((uintptr_t)ptr, (size_t)alloc_size, seg, dc_stack_capture(0));
        dc_guard--;
    }
    c10_report_fn f = real();
    if (f)
        f(ptr, alloc_size, total_allocated, total_reserved, device);
}
