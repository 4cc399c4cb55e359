/* `make bench`'s stand-in for PyTorch's libc10.so (SONAME libc10.so):
 * c10::reportMemoryUsageToProfiler, which PyTorch's caching allocator calls
 * for every block it hands out and takes back, doing what the real one does
 * with no profiler running: nothing.  Under devcheck the bench's calls reach
 * devcheck's definition first, which forwards here (preload/hooks_torch.c).
 * The signature is c10/core/Allocator.h's; c10::Device (two int8_t fields,
 * passed by value in one integer register) is taken as that register. */
#include <stddef.h>
#include <stdint.h>

__attribute__((visibility("default"), noinline)) void
_ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE(void *ptr, int64_t alloc_size, size_t total_allocated,
                                                      size_t total_reserved, uint64_t device);

void _ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE(void *ptr, int64_t alloc_size, size_t total_allocated,
                                                           size_t total_reserved, uint64_t device)
{
    __asm__ volatile("" : : "r"(ptr), "r"(alloc_size), "r"(total_allocated), "r"(total_reserved), "r"(device)
                     : "memory");
}
